package configcmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

func newOptions(t *testing.T, path string) (*Options, *strings.Builder) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	var log strings.Builder
	ios.ErrOut = &log
	return &Options{IO: ios, Path: func() (string, error) { return path, nil }, set: map[string]bool{}}, &log
}

func readNames(t *testing.T, path string) (config.File, []string) {
	t.Helper()
	f, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, f.Names()
}

// set-context --embedded=false: a remote context needs --api-url; it is
// never silently the embedded platform.
func TestSetContextEmbeddedFalse(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), config.FileName)
	opts, _ := newOptions(t, path)
	opts.Name, opts.set["embedded"], opts.Embedded = "x", true, false
	err := RunSetContext(ctx, opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--embedded=false: give the platform with --api-url URL") {
		t.Fatalf("new context: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file was written: %v", err)
	}
	opts.set["api-url"], opts.APIURL = true, "https://x.example.com"
	if err := RunSetContext(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if f, names := readNames(t, path); !slices.Equal(names, []string{"local", "x"}) || f.Find("x").APIURL != "https://x.example.com" || f.CurrentContext != "local" {
		t.Fatalf("%+v", f)
	}
	// A remote context stays remote with --embedded=false alone.
	opts.set["api-url"] = false
	if err := RunSetContext(ctx, opts); err != nil {
		t.Fatal(err)
	}
	opts.set["embedded"], opts.Embedded, opts.set["api-url"] = true, true, true
	if err := RunSetContext(ctx, opts); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("--embedded with --api-url: %v", err)
	}
}

// A bad entry: get-contexts lists it with a warning, rename-context and
// delete-context repair it, use-context refuses to select it.
func TestRepairBadEntry(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), config.FileName)
	body := "apiVersion: botkit.dev/v1\nkind: Config\ncurrentContext: local\ncontexts:\n  - name: local\n  - name: 'bad name'\n    apiUrl: https://old.example.com\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, log := newOptions(t, path)
	opts.Print = printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML, printers.FormatName)
	opts.Print.Output = printers.FormatName
	if err := RunGetContexts(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(log.String(), "warning: "+path+":6: context name \"bad name\"") {
		t.Errorf("warning: %q", log.String())
	}
	opts.Name = "bad name"
	if err := RunUseContext(ctx, opts); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Errorf("use-context of the bad name: %v", err)
	}
	opts.NewName = "old"
	if err := RunRenameContext(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if f, names := readNames(t, path); len(f.Problems) != 0 || !slices.Equal(names, []string{"local", "old"}) {
		t.Fatalf("after the rename: %+v", f)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.Name = "bad name"
	if err := RunDeleteContext(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if f, names := readNames(t, path); len(f.Problems) != 0 || !slices.Equal(names, []string{"local"}) {
		t.Fatalf("after the delete: %+v", f)
	}
}
