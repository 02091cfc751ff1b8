package testenv

import "testing"

// -short leaves out the tests that need something installed, but never in
// CI: there every test runs whatever the flags.
func TestShortNeverInCI(t *testing.T) {
	t.Setenv("CI", "true")
	if Short() {
		t.Error("Short() under CI=true")
	}
	t.Setenv("CI", "")
	if Short() != testing.Short() {
		t.Errorf("Short() = %v outside CI, want testing.Short() = %v", Short(), testing.Short())
	}
}
