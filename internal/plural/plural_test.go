package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "error", "0 errors"}, {1, "error", "1 error"}, {2, "entry", "2 entries"}, {1, "entry", "1 entry"},
		{3, "day", "3 days"}, {2, "peer", "2 peers"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := Count(tc.n, tc.noun); got != tc.want {
				t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
			}
		})
	}
}
