// Package plural holds Count, which puts a number before an English noun
// in the right number ("1 error", "2 errors", "2 entries"): the reports,
// aghcheck monitor and the command line all count things the same way.
package plural

import (
	"strconv"
	"strings"
)

// Count renders n with its noun, plural unless n is 1 ("1 error",
// "2 errors", "2 entries").
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if k := len(noun); k > 1 && noun[k-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[k-2])) {
		return strconv.Itoa(n) + " " + noun[:k-1] + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
