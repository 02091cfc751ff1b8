package resources

import "testing"

// A plan names what was added, removed or changed, and nothing else.
func TestChangeOf(t *testing.T) {
	for _, c := range []struct {
		had, has, same bool
		want           string
	}{
		{false, true, false, ChangeAdded},
		{true, false, false, ChangeRemoved},
		{true, true, false, ChangeChanged},
		{true, true, true, ChangeUnchanged},
		{false, false, true, ChangeUnchanged},
	} {
		if got := ChangeOf(c.had, c.has, c.same); got != c.want {
			t.Errorf("ChangeOf(%v, %v, %v) = %s, want %s", c.had, c.has, c.same, got, c.want)
		}
	}
}
