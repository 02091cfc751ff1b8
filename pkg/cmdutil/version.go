package cmdutil

import (
	"runtime/debug"
	"strings"
)

// Version is the release version stamped at build time:
//
//	go build -ldflags "-X github.com/botkit-dev/botkit/pkg/cmdutil.Version=v1.2.3"
//
// (the release configuration, .goreleaser.yaml, does). Empty: BuildVersion
// reads the build information instead.
var Version = ""

// BuildVersion is the version botkit and botkit-platform report (--version,
// the client's User-Agent): the stamped Version; else the module version Go
// recorded (`go install …@v1.2.3` records v1.2.3), followed by the commit
// when the build was made from a git checkout; else "dev".
func BuildVersion() string {
	if Version != "" {
		// The release's: no build information to parse (every run
		// starts with this, for --version).
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return versionOf(Version, "", nil)
	}
	return versionOf(Version, bi.Main.Version, bi.Settings)
}

// versionOf composes BuildVersion from the stamped version, the module
// version and the build settings (vcs.revision, vcs.modified).
func versionOf(stamped, module string, settings []debug.BuildSetting) string {
	if stamped != "" {
		return stamped
	}
	v := module
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev string
	var modified bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// A pseudo-version (v0.0.0-20261125041425-074c956a1b2c, +dirty when
	// modified) names the commit already.
	if strings.Contains(v, rev) {
		return v
	}
	if modified {
		return v + " (commit " + rev + ", modified)"
	}
	return v + " (commit " + rev + ")"
}
