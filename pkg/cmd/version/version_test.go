package version

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

func opts(output string) (*Options, *iostreams.IOStreams, func() string) {
	io, _, out, _ := iostreams.Test()
	o := &Options{IO: io, Print: printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML), Version: "v1.2.3",
		Text: func() error { _, err := io.Out.Write([]byte("botkit version v1.2.3\n")); return err }}
	o.Print.Output = output
	return o, io, out.String
}

func TestVersionFormats(t *testing.T) {
	o, _, out := opts("")
	if err := run(context.Background(), o); err != nil || out() != "botkit version v1.2.3\n" {
		t.Errorf("no -o: %q, %v", out(), err)
	}
	o, _, out = opts("json")
	if err := run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var got Info
	if err := json.Unmarshal([]byte(out()), &got); err != nil {
		t.Fatalf("-o json: %v: %q", err, out())
	}
	if want := (Info{Version: "v1.2.3", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}); got != want {
		t.Errorf("-o json = %+v, want %+v", got, want)
	}
	o, _, out = opts("yaml")
	if err := run(context.Background(), o); err != nil || !strings.Contains(out(), "version: v1.2.3\n") {
		t.Errorf("-o yaml: %q, %v", out(), err)
	}
	o, _, _ = opts("table")
	var fe *cmdutil.FlagError
	if err := run(context.Background(), o); !errors.As(err, &fe) {
		t.Errorf("-o table: %v, want a flag error", err)
	}
}
