package printers

import (
	"fmt"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// PrintRows prints data that is not a platform object (organizations,
// regions) in format: table and wide print header and rows like the object
// tables, json and yaml print v (yaml in the order of v's fields), name prints the first column of each row.
// No rows print NoResourcesMessage on stderr in the row formats.
func PrintRows(ios *iostreams.IOStreams, format string, header []string, rows [][]string, v any) error {
	switch format {
	case FormatTable, FormatWide, "":
		if len(rows) == 0 {
			_, err := fmt.Fprintln(ios.ErrOut, NoResourcesMessage)
			return err
		}
		return writeTable(ios.Out, header, cleanRows(rows))
	case FormatName:
		if len(rows) == 0 {
			_, err := fmt.Fprintln(ios.ErrOut, NoResourcesMessage)
			return err
		}
		for _, r := range rows {
			if _, err := fmt.Fprintln(ios.Out, cell(r[0])); err != nil {
				return err
			}
		}
		return nil
	case FormatJSON:
		return writeJSON(ios.Out, v)
	case FormatYAML:
		return writeOrderedYAML(ios.Out, v)
	}
	return cmdutil.CheckEnum("output", format, Formats())
}
