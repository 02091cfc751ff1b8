// Command docgen writes the command reference of botkit and botkit-platform
// from their cobra trees: markdown under docs/reference/ and man pages under
// docs/man/. Run it from the repository root after changing a command:
//
//	go run ./internal/docgen
//
// Its test fails when the committed reference is stale.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmd/root"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform/cli"
)

// manDate is the date in the man pages' header. It is fixed so that the
// reference changes only when a command does.
var manDate = time.Date(2026, time.November, 25, 0, 0, 0, 0, time.UTC)

func main() {
	if err := generate("docs"); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// trees returns the command trees to document, built as the binaries build
// them, over streams that touch no terminal.
func trees() []*cobra.Command {
	ios, _, _, _ := iostreams.Test()
	return []*cobra.Command{
		root.NewCmdRoot(&cloudutil.Factory{Factory: cmdutil.NewFactory(ios)}),
		cli.NewRootCmd(ios),
	}
}

// generate writes dir/reference/*.md and dir/man/*.1, replacing what was
// there.
func generate(dir string) error {
	ref, man := filepath.Join(dir, "reference"), filepath.Join(dir, "man")
	for _, d := range []string{ref, man} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, t := range trees() {
		t.DisableAutoGenTag = true
		if err := doc.GenMarkdownTree(t, ref); err != nil {
			return fmt.Errorf("markdown of %s: %w", t.Name(), err)
		}
		header := &doc.GenManHeader{Title: t.Name(), Section: "1", Date: &manDate, Source: "botkit", Manual: "botkit manual"}
		if err := doc.GenManTree(t, header, man); err != nil {
			return fmt.Errorf("man pages of %s: %w", t.Name(), err)
		}
		// cobra/doc leaves help topics out; they get a page each.
		for _, c := range t.Commands() {
			if !c.IsAdditionalHelpTopicCommand() {
				continue
			}
			page := fmt.Sprintf("## %s help %s\n\n%s\n\n```\n%s```\n", t.Name(), c.Name(), c.Short, c.Long)
			if err := os.WriteFile(filepath.Join(ref, t.Name()+"_"+c.Name()+".md"), []byte(page), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
