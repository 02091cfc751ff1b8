package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// --local implies its store, engine, key and plain HTTP on the loopback:
// the flags that would say otherwise are refused (exit 2, naming them),
// and so is an address off the loopback — before anything is written.
func TestServeLocalRefusals(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv(dataDirEnv, "")
	t.Setenv(storeEnv, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", t.TempDir()}, "--data-dir (or BOTKIT_PLATFORM_DATA_DIR) do not go with it"},
		{[]string{"--store", "postgres://localhost/x", "--runtime", "us-west=unix:///x.sock"}, "--runtime, --store (or BOTKIT_PLATFORM_STORE) do not go"},
		{[]string{"--master-key-file", "k"}, "--master-key-file do not go"},
		{[]string{"--tls-cert-file", "c", "--tls-key-file", "k"}, "--tls-cert-file/--tls-key-file do not go"},
		{[]string{"--listen", "0.0.0.0:1"}, "--listen 0.0.0.0:1: with --local the server listens on the loopback only"},
		{[]string{"--listen", ":8787"}, "loopback only"},
		{[]string{"--listen", "192.0.2.1:8787"}, "loopback only"},
	} {
		ios, _, _, errOut := iostreams.Test()
		args := append([]string{"serve", "--local"}, tc.args...)
		if code := Run(context.Background(), args, ios); code != cmdutil.ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q, want exit 2 saying %q", args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".local")); !os.IsNotExist(err) {
		t.Errorf("a refused serve --local wrote the data directory: %v", err)
	}
}
