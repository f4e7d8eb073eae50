package reporter

// groupInOrder splits items by key, keeping the groups in the order their
// keys first appear and the items of a group in their original order.
func groupInOrder[T any, K comparable](items []T, key func(T) K) (keys []K, groups [][]T) {
	at := map[K]int{}
	for _, it := range items {
		k := key(it)
		i, ok := at[k]
		if !ok {
			i = len(keys)
			at[k] = i
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return keys, groups
}
