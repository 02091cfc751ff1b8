//go:build unix

package cmdutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// OpenBrowser runs the command BROWSER names with the URL as its last
// argument; a BROWSER that is not found is an error naming it. A browser
// is opened only for a person at a terminal, never under CI.
func TestOpenBrowser(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s %s' \"$1\" \"$2\" > "+got+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	const url = "http://127.0.0.1:8787/call/bot#key=pk_x"
	env := map[string]string{"BROWSER": script + " --new-window"}
	if err := OpenBrowser(func(k string) string { return env[k] }, url); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(got)
		if err == nil && string(b) == "--new-window "+url {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser command got %q (%v)", b, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	env["BROWSER"] = "no-such-browser-here"
	if err := OpenBrowser(func(k string) string { return env[k] }, url); err == nil || !strings.Contains(err.Error(), "no-such-browser-here") || strings.Contains(err.Error(), "pk_x") {
		t.Errorf("a missing browser: %v", err)
	}

	ios, _, _, _ := iostreams.Test()
	if CanOpenBrowser(ios) {
		t.Error("opens a browser without a terminal")
	}
	ios.SetStdoutTTY(true)
	ios.SetStderrTTY(true)
	if !CanOpenBrowser(ios) {
		t.Error("opens no browser on a terminal")
	}
	ios.SetCI(true)
	if CanOpenBrowser(ios) {
		t.Error("opens a browser under CI")
	}
}
