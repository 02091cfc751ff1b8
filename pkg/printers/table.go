package printers

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Placeholders of empty cells.
const (
	notApplicable = "-"         // KEYS of an image pull secret, HOST of a secret set
	none          = "<none>"    // no labels
	unknown       = "<unknown>" // no status or no creation time
)

// Column headers of the table and wide formats.
var (
	tableHeader = []string{"NAME", "KIND", "REGION", "KEYS", "STATUS", "AGE"}
	wideHeader  = append(slices.Clone(tableHeader), "ORGANIZATION", "HOST", "LABELS")
)

type tablePrinter struct {
	now  func() time.Time
	wide bool
}

// row returns the cells of o's row.
func (p *tablePrinter) row(o resources.Object) []string {
	m := o.Meta()
	keys, host := notApplicable, notApplicable
	switch {
	case o.SecretSet != nil:
		keys = strconv.Itoa(len(keysOf(o.SecretSet)))
	case o.ImagePullSecret != nil:
		host = o.ImagePullSecret.Spec.Host
	}
	r := []string{m.Name, o.Kind(), m.Region, keys, state(o), Age(m.CreationTimestamp, p.now())}
	if p.wide {
		r = append(r, m.Organization, host, formatLabels(m.Labels))
	}
	for i := range r {
		r[i] = cell(r[i])
	}
	return r
}

func (p *tablePrinter) PrintList(ios *iostreams.IOStreams, objs []resources.Object) error {
	if len(objs) == 0 {
		_, err := fmt.Fprintln(ios.ErrOut, NoResourcesMessage)
		return err
	}
	header := tableHeader
	if p.wide {
		header = wideHeader
	}
	rows := make([][]string, 0, len(objs))
	for _, o := range objs {
		if o.Meta() == nil {
			_, err := redact(o)
			return err
		}
		rows = append(rows, p.row(o))
	}
	return writeTable(ios.Out, header, rows)
}

// PrintObject prints a detail view: every field but the values, one per
// line, then the key names of a secret set one per line.
func (p *tablePrinter) PrintObject(ios *iostreams.IOStreams, obj resources.Object) error {
	o, err := redact(obj)
	if err != nil {
		return err
	}
	m := o.Meta()
	st := o.Status()
	fields := [][]string{
		{"Name:", m.Name},
		{"Kind:", o.Kind()},
		{"Organization:", m.Organization},
		{"Region:", m.Region},
		{"Labels:", formatLabels(m.Labels)},
		{"Status:", state(o)},
	}
	if st != nil && st.Message != "" {
		fields = append(fields, []string{"Message:", st.Message})
	}
	fields = append(fields, []string{"Age:", Age(m.CreationTimestamp, p.now())})
	var keys []string
	switch {
	case o.SecretSet != nil:
		keys = o.SecretSet.Spec.Keys
		fields = append(fields, []string{"Keys:", strconv.Itoa(len(keys))})
	case o.ImagePullSecret != nil:
		fields = append(fields,
			[]string{"Host:", o.ImagePullSecret.Spec.Host},
			[]string{"Username:", o.ImagePullSecret.Spec.Username})
	}
	var b bytes.Buffer
	if err := writeTable(&b, nil, cleanRows(fields)); err != nil {
		return err
	}
	for _, k := range keys {
		b.WriteString("  " + cell(k) + "\n")
	}
	_, err = ios.Out.Write(b.Bytes())
	return err
}

func cleanRows(rows [][]string) [][]string {
	for _, r := range rows {
		for i := range r {
			r[i] = cell(r[i])
		}
	}
	return rows
}

// writeTable renders rows kubectl-style: no borders or lines, columns left
// aligned and three spaces apart (a column as wide as its widest cell, in
// runes, as kubectl's tabwriter counts), no trailing spaces. A nil header
// prints no header row.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	all := rows
	if header != nil {
		all = append([][]string{header}, rows...)
	}
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b []byte
	for _, r := range all {
		for i, c := range r {
			b = append(b, c...)
			if i < len(r)-1 {
				for range widths[i] - utf8.RuneCountInString(c) + len(columnGap) {
					b = append(b, ' ')
				}
			}
		}
		// No trailing spaces (a last column of short cells).
		for len(b) > 0 && b[len(b)-1] == ' ' {
			b = b[:len(b)-1]
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// columnGap separates the columns of a table.
const columnGap = "   "

// state is the STATUS cell: the status's state, or <unknown>.
func state(o resources.Object) string {
	if st := o.Status(); st != nil && st.State != "" {
		return st.State
	}
	return unknown
}

// formatLabels returns "k=v,k2=v2" sorted by key, or <none>.
func formatLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return none
	}
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

// cell makes s safe for one table cell: control characters (a newline, an
// escape sequence from a server message) become spaces, and an empty cell
// shows as "-" so columns stay aligned for awk and cut.
func cell(s string) string {
	s = iostreams.Printable(s)
	if strings.TrimSpace(s) == "" {
		return notApplicable
	}
	return s
}

// Age formats the time since t the way kubectl's AGE column does: 0s-59s,
// then minutes, hours, days up to a year, then years. A missing t is
// <unknown>; a t in the future (clock skew) is 0s.
func Age(t *time.Time, now time.Time) string {
	if t == nil || t.IsZero() {
		return unknown
	}
	d := now.Sub(*t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
	return fmt.Sprintf("%dy", int(d/(365*24*time.Hour)))
}
