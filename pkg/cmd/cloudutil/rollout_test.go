package cloudutil

import (
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// IMAGE@DIGEST: the repository (a registry port is not a tag) pinned by
// the digest, whether the platform sends it bare or already pinned.
func TestImageAt(t *testing.T) {
	for _, tc := range []struct{ image, digest, want string }{
		{"127.0.0.1:5000/acme/bot:1", "sha256:aa", "127.0.0.1:5000/acme/bot@sha256:aa"},
		{"127.0.0.1:5000/acme/bot", "sha256:aa", "127.0.0.1:5000/acme/bot@sha256:aa"},
		{"ghcr.io/acme/bot@sha256:bb", "sha256:bb", "ghcr.io/acme/bot@sha256:bb"},
		{"ghcr.io/acme/bot:2", "ghcr.io/acme/bot@sha256:cc", "ghcr.io/acme/bot@sha256:cc"},
		{"ghcr.io/acme/bot:2", "", "ghcr.io/acme/bot:2"},
	} {
		if got := ImageAt(resources.Deployment{Image: tc.image, ImageDigest: tc.digest}); got != tc.want {
			t.Errorf("ImageAt(%s, %s) = %s, want %s", tc.image, tc.digest, got, tc.want)
		}
	}
}

// A failed rollout: exit 1, the reason on the error's line (no terminal
// escape), the log lines as details, and which deployment still serves.
func TestRolloutFailed(t *testing.T) {
	d := resources.Deployment{Number: 4, Message: "agent x exited with code 3\nlast log lines:\npanic: \x1b[2Jboom\n"}
	err := RolloutFailed("bot", d, 3)
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("exit %d", cmdutil.ExitCode(err))
	}
	if got := err.Error(); got != "agent/bot: deployment 4 failed: agent x exited with code 3; deployment 3 still serves" {
		t.Errorf("error %q", got)
	}
	details := cmdutil.ErrorDetails(err)
	if len(details) != 2 || details[0] != "  last log lines:" || !strings.HasPrefix(details[1], "  panic: ") || strings.Contains(details[1], "\x1b") {
		t.Errorf("details %q", details)
	}
	if err := RolloutFailed("bot", resources.Deployment{Number: 1}, 0); !strings.HasSuffix(err.Error(), "deployment 1 failed: no reason given; no deployment serves") {
		t.Errorf("error %q", err)
	}
}
