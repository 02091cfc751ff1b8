package cmdutil

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "074c956a1b2c3d4e5f60718293a4b5c6d7e8f901"}}
	dirty := append([]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, rev...)
	for _, tc := range []struct {
		name, stamped, module string
		settings              []debug.BuildSetting
		want                  string
	}{
		{"stamped wins", "v1.4.0", "v1.3.0", rev, "v1.4.0"},
		{"go install @version", "", "v1.2.3", nil, "v1.2.3"},
		{"work tree", "", "(devel)", rev, "dev (commit 074c956a1b2c)"},
		{"modified work tree", "", "(devel)", dirty, "dev (commit 074c956a1b2c, modified)"},
		{"pseudo-version names its commit", "", "v0.0.0-20261125041425-074c956a1b2c", rev, "v0.0.0-20261125041425-074c956a1b2c"},
		{"modified pseudo-version", "", "v0.0.0-20261125041425-074c956a1b2c+dirty", dirty, "v0.0.0-20261125041425-074c956a1b2c+dirty"},
		{"nothing known", "", "", nil, "dev"},
	} {
		if got := versionOf(tc.stamped, tc.module, tc.settings); got != tc.want {
			t.Errorf("%s: versionOf(%q, %q) = %q, want %q", tc.name, tc.stamped, tc.module, got, tc.want)
		}
	}
}
