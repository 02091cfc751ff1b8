package prompter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

var colors = []Option{{"red", "Red"}, {"green", "Green"}, {"blue", "Blue"}}

// line returns an accessible prompter reading input, and its stderr.
func line(t *testing.T, input string) (Prompter, *strings.Builder, *strings.Builder) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	ios.In = strings.NewReader(input)
	errOut := &strings.Builder{}
	ios.ErrOut = errOut
	t.Cleanup(func() {
		if out.Len() > 0 {
			t.Errorf("prompts went to stdout: %q", out)
		}
	})
	return New(ios, true), errOut, nil
}

func TestLineSelect(t *testing.T) {
	for _, c := range []struct{ input, want string }{
		{"\n", "green"},        // Enter: the default
		{"3\n", "blue"},        // a number
		{"9\nx\n1\n", "red"},   // refused twice, then an answer
		{"  2  \r\n", "green"}, // spaces and CRLF
		{"1", "red"},           // a last line without newline counts
	} {
		p, errOut, _ := line(t, c.input)
		got, err := p.Select("Color", "--color", "green", colors)
		if err != nil || got != c.want {
			t.Errorf("input %q: got %q, %v; want %q", c.input, got, err, c.want)
		}
		if !strings.Contains(errOut.String(), "Color (Enter for Green)\n1. Red\n2. Green\n3. Blue\n") {
			t.Errorf("menu:\n%s", errOut)
		}
	}
	p, errOut, _ := line(t, "9\n1\n")
	if _, err := p.Select("Color", "--color", "", colors); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "Invalid: must be a number between 1 and 3") {
		t.Errorf("no refusal shown:\n%s", errOut)
	}
}

func TestLineMultiSelect(t *testing.T) {
	for _, c := range []struct {
		input string
		defs  []string
		want  []string
	}{
		{"\n", []string{"blue"}, []string{"blue"}},       // an empty line accepts the defaults shown
		{"0\n", []string{"blue"}, []string{"blue"}},      // so does 0
		{"1\n3\n0\n", []string{"blue"}, []string{"red"}}, // toggle red on, blue off
		{"2\n\n", nil, []string{"green"}},                // empty line accepts the selection shown
		{"\n", nil, []string{}},                          // nothing chosen, allowed
		{"7\n1\n0\n", nil, []string{"red"}},              // out of range refused
	} {
		p, errOut, _ := line(t, c.input)
		got, err := p.MultiSelect("Colors", "--color", c.defs, colors, false)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("input %q defs %v: got %q, %v; want %q\n%s", c.input, c.defs, got, err, c.want, errOut)
		}
	}
	// atLeastOne: an empty answer is refused and asked again.
	p, errOut, _ := line(t, "\n2\n\n")
	got, err := p.MultiSelect("Colors", "--color", nil, colors, true)
	if err != nil || !reflect.DeepEqual(got, []string{"green"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if !strings.Contains(errOut.String(), "Choose at least one") || !strings.Contains(errOut.String(), "2. ✓ Green") {
		t.Errorf("transcript:\n%s", errOut)
	}
}

func TestLineInputConfirmPassword(t *testing.T) {
	p, errOut, _ := line(t, "\nbad name\ngood\ny\n\nhunter2\n")
	name, err := p.Input("Name", "--name", "def", nil)
	if err != nil || name != "def" {
		t.Errorf("default input: %q %v", name, err)
	}
	name, err = p.Input("Name", "--name", "", func(s string) error {
		if strings.Contains(s, " ") {
			return errors.New("no spaces")
		}
		return nil
	})
	if err != nil || name != "good" {
		t.Errorf("validated input: %q %v", name, err)
	}
	yes, err := p.Confirm("Sure?", "--yes", false)
	if err != nil || !yes {
		t.Errorf("confirm y: %v %v", yes, err)
	}
	def, err := p.Confirm("Sure?", "--yes", true)
	if err != nil || !def {
		t.Errorf("confirm default: %v %v", def, err)
	}
	pw, err := p.Password("Password", "--password-stdin")
	if err != nil || pw != "hunter2" {
		t.Errorf("password: %q %v", pw, err)
	}
	if strings.Contains(errOut.String(), "hunter2") {
		t.Errorf("the password was echoed:\n%s", errOut)
	}
	if !strings.Contains(errOut.String(), "no spaces") || !strings.Contains(errOut.String(), "Sure? [y/N]") {
		t.Errorf("transcript:\n%s", errOut)
	}
}

// The prompter reads no further than the answers it needs: what follows is
// left for whoever reads stdin next.
func TestLineReadsOnlyItsAnswers(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	r := strings.NewReader("1\nrest of input\n")
	ios.In = r
	p := New(ios, true)
	if _, err := p.Select("Color", "--color", "", colors); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(rest) != "rest of input\n" {
		t.Errorf("left %q", rest)
	}
}

func TestLineEndOfInput(t *testing.T) {
	ask := map[string]func(Prompter) error{
		"select":      func(p Prompter) error { _, err := p.Select("Q", "--flag", "", colors); return err },
		"multiselect": func(p Prompter) error { _, err := p.MultiSelect("Q", "--flag", nil, colors, true); return err },
		"input":       func(p Prompter) error { _, err := p.Input("Q", "--flag", "d", nil); return err },
		"password":    func(p Prompter) error { _, err := p.Password("Q", "--flag"); return err },
		"confirm":     func(p Prompter) error { _, err := p.Confirm("Q", "--flag", true); return err },
	}
	for name, f := range ask {
		for _, input := range []string{"", "x\n"} { // nothing, or only refused answers
			if name == "input" || name == "password" {
				input = ""
			}
			p, _, _ := line(t, input)
			err := f(p)
			var ie *InputEndedError
			if !errors.As(err, &ie) || ie.Flag != "--flag" || ie.Title != "Q" {
				t.Errorf("%s %q: err %v, want InputEndedError", name, input, err)
				continue
			}
			if ie.ErrorCode() != resources.CodeInvalid { // exit 2
				t.Errorf("%s: code %q", name, ie.ErrorCode())
			}
			if !strings.Contains(err.Error(), "--flag") {
				t.Errorf("%s: %q does not name the flag", name, err)
			}
		}
	}
}

// A question waiting for input ends at once when the context does.
func TestLineInterrupted(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	ios, _, _, _ := iostreams.Test()
	ios.In = r
	ctx, cancel := context.WithCancel(context.Background())
	p := New(ios, true).WithContext(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { _, err := p.Select("Color", "--color", "", colors); done <- err }()
	if err := testenv.Within(t, "the question to end with its context", done); !errors.Is(err, context.Canceled) { // exit 130
		t.Errorf("err %v", err)
	}
	// A cancelled context ends every later question before it is asked.
	if _, err := p.Confirm("Again?", "--yes", false); !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
}

func viewOf(f huh.Field) string {
	f = f.WithTheme(huh.ThemeBase()).WithWidth(80)
	f.Focus()
	return f.View()
}

// Full-screen multi-select: every option shows, whichever are preselected
// (huh scrolled a two-option list to the preselected second one).
func TestFullScreenMultiSelectShowsEveryOption(t *testing.T) {
	opts := []Option{{"daily", "Daily (daily)"}, {"smallwebrtc", "SmallWebRTC (smallwebrtc)"}}
	for _, defs := range [][]string{nil, {"smallwebrtc"}, {"daily", "smallwebrtc"}} {
		var v []string
		view := viewOf(multiSelectField("Transports", defs, opts, true, &v))
		for _, o := range opts {
			if !strings.Contains(view, o.Label) {
				t.Errorf("defs %v: %q not shown:\n%s", defs, o.Label, view)
			}
		}
		if !reflect.DeepEqual(v, append([]string{}, defs...)) {
			t.Errorf("value %v, want %v", v, defs)
		}
	}
	var many []Option
	for i := range 12 {
		many = append(many, Option{fmt.Sprint(i), fmt.Sprintf("Option %d", i)})
	}
	var v []string
	view := viewOf(multiSelectField("Many", []string{"11"}, many, false, &v))
	if !strings.Contains(view, "Option 0") {
		t.Errorf("a long list does not start at its top:\n%s", view)
	}
}

func TestFullScreenSelectShowsDefaultAndOthers(t *testing.T) {
	var v string
	view := viewOf(selectField("Color", "blue", colors, &v))
	for _, o := range colors {
		if !strings.Contains(view, o.Label) {
			t.Errorf("%q not shown:\n%s", o.Label, view)
		}
	}
	if v != "blue" {
		t.Errorf("value %q", v)
	}
	if got := defaultFirst(colors, "zz"); !reflect.DeepEqual(got, colors) {
		t.Errorf("unknown default reordered: %v", got)
	}
}

// The full-screen password prompt shows nothing per character typed: not
// the secret, not an asterisk.
func TestFullScreenPasswordShowsNothing(t *testing.T) {
	const canary = "CANARYsecret42"
	var v string
	f := passwordField("API token", &v).WithTheme(huh.ThemeBase()).WithWidth(80)
	f.Focus()
	empty := f.View()
	var field tea.Model = f
	for _, r := range canary {
		field, _ = field.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	view := field.View()
	if strings.Contains(view, canary) || strings.Contains(view, "*") || view != empty {
		t.Errorf("typing shows something:\nbefore: %q\nafter:  %q", empty, view)
	}
	if got := field.(*huh.Input).GetValue(); got != canary {
		t.Errorf("value %q", got)
	}
}

// recorder is a TB that records failures instead of failing.
type recorder struct {
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) finish() {
	for _, f := range r.cleanups {
		f()
	}
}

func TestFake(t *testing.T) {
	rec := &recorder{}
	f := NewFake(rec,
		Answer{"--color", "blue"},
		Answer{"Colors", []string{"red"}},
		Answer{"--name", Default},
		Answer{"Sure?", true},
		Answer{"--token", "s3cret"},
		Answer{"--color", context.Canceled},
	)
	var p Prompter = f
	if v, err := p.Select("Color", "--color", "", colors); v != "blue" || err != nil {
		t.Errorf("select %q %v", v, err)
	}
	if v, err := p.MultiSelect("Colors", "--colors", nil, colors, true); !reflect.DeepEqual(v, []string{"red"}) || err != nil {
		t.Errorf("multiselect %q %v", v, err)
	}
	if v, err := p.Input("Name", "--name", "bot", nil); v != "bot" || err != nil {
		t.Errorf("input %q %v", v, err)
	}
	if v, err := p.Confirm("Sure?", "--yes", false); !v || err != nil {
		t.Errorf("confirm %v %v", v, err)
	}
	if v, err := p.Password("Token", "--token"); v != "s3cret" || err != nil {
		t.Errorf("password %q %v", v, err)
	}
	if _, err := p.Select("Color", "--color", "", colors); !errors.Is(err, context.Canceled) {
		t.Errorf("scripted error: %v", err)
	}
	if len(f.Asked()) != 6 || f.Asked()[2].Default != "bot" {
		t.Errorf("asked %+v", f.Asked())
	}
	rec.finish()
	if len(rec.errs) > 0 {
		t.Errorf("a well-scripted fake failed the test: %v", rec.errs)
	}
}

func TestFakeFailsTheTest(t *testing.T) {
	for name, c := range map[string]struct {
		answers []Answer
		ask     func(Prompter)
	}{
		"unexpected question": {nil, func(p Prompter) { _, _ = p.Confirm("Sure?", "--yes", false) }}, // error ignored: the fake fails the test, asserted below
		"unused answer":       {[]Answer{{"--never", "x"}}, func(Prompter) {}},
		"not an option":       {[]Answer{{"--color", "purple"}}, func(p Prompter) { _, _ = p.Select("Color", "--color", "", colors) }}, // error ignored: as above
		"wrong type":          {[]Answer{{"--yes", "yes"}}, func(p Prompter) { _, _ = p.Confirm("Sure?", "--yes", false) }},            // error ignored: as above
		"refused by validate": {[]Answer{{"--name", "x"}}, func(p Prompter) {
			_, _ = p.Input("Name", "--name", "", func(string) error { return errors.New("no") }) // error ignored: as above
		}},
		"empty when one needed": {[]Answer{{"--c", []string{}}}, func(p Prompter) { _, _ = p.MultiSelect("C", "--c", nil, colors, true) }}, // error ignored: as above
	} {
		rec := &recorder{}
		c.ask(NewFake(rec, c.answers...))
		rec.finish()
		if len(rec.errs) == 0 {
			t.Errorf("%s: the fake did not fail the test", name)
		}
	}
	// A cancelled context interrupts the fake too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recorder{}
	p := NewFake(rec).WithContext(ctx)
	if _, err := p.Confirm("Sure?", "--yes", false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fake: %v", err)
	}
}

// The full-screen multi-select's help text and its footer name the same
// keys: space selects (huh's footer said "x toggle"), enter confirms.
func TestFullScreenMultiSelectHelpAgreesWithFooter(t *testing.T) {
	opts := []Option{{"daily", "Daily (daily)"}, {"smallwebrtc", "SmallWebRTC (smallwebrtc)"}}
	var many []Option
	for i := range 12 {
		many = append(many, Option{fmt.Sprint(i), fmt.Sprintf("Option %d", i)})
	}
	for _, options := range [][]Option{opts, many} {
		var v []string
		field := multiSelectField("Transports", nil, options, false, &v)
		form := huh.NewForm(huh.NewGroup(field)).WithShowHelp(true).WithKeyMap(keyMap()).WithTheme(huh.ThemeBase()).WithWidth(120)
		form.Init()
		view := form.View()
		wantHelp := "space to select, enter to confirm"
		if len(options) > longList {
			wantHelp += ", / to filter"
		}
		for _, want := range []string{wantHelp, "space select", "enter confirm"} {
			if !strings.Contains(view, want) {
				t.Errorf("%d options: view lacks %q:\n%s", len(options), want, view)
			}
		}
		for _, stale := range []string{"x toggle", "submit", "Space selects"} {
			if strings.Contains(view, stale) {
				t.Errorf("%d options: view shows %q:\n%s", len(options), stale, view)
			}
		}
		// The key the footer names does select.
		for _, b := range field.KeyBinds() {
			if b.Help().Key == "space" && !slices.Contains(b.Keys(), " ") {
				t.Errorf("footer says space for %v", b.Keys())
			}
		}
	}
}
