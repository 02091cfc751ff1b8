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

func TestPluralAndArticle(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Plural(1, "key"), "1 key"},
		{Plural(0, "key"), "0 keys"},
		{Plural(2, "file"), "2 files"},
		{WithArticle(KindImagePullSecret), "an ImagePullSecret"},
		{WithArticle(KindSecretSet), "a SecretSet"},
		{WithArticle("object"), "an object"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
