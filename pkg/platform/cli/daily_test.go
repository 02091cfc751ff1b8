package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// --daily-api-key-file: the key alone on its line is read (its newline
// trimmed); a file that holds none, or two, is a usage error that names
// the file and never quotes what it holds; --daily-api-url must be an
// http(s) URL.
func TestDailyKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	o := &ServeOptions{DailyAPIKeyFile: write("key", "daily-secret-1\n"), DailyAPIURL: platform.DailyAPIURL}
	if k, err := o.dailyKey(); err != nil || k != "daily-secret-1" {
		t.Errorf("a key file: %q %v", k, err)
	}
	for _, content := range []string{"", "\n", "daily-secret-2 daily-secret-3\n"} {
		o.DailyAPIKeyFile = write("bad", content)
		_, err := o.dailyKey()
		var fe *cmdutil.FlagError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), o.DailyAPIKeyFile) || strings.Contains(err.Error(), "daily-secret") {
			t.Errorf("a key file holding %q: %v", content, err)
		}
	}
	o.DailyAPIKeyFile, o.DailyAPIURL = write("key2", "k\n"), "ftp://example"
	if _, err := o.dailyKey(); err == nil || !strings.Contains(err.Error(), "--daily-api-url") {
		t.Errorf("an ftp URL: %v", err)
	}
	if k, err := (&ServeOptions{}).dailyKey(); k != "" || err != nil {
		t.Errorf("no key file: %q %v", k, err)
	}
}
