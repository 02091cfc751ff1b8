package prompter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/huh"
	"golang.org/x/term"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// longList is the number of options above which a list gets a fixed height
// and a filter hint.
const longList = 8

// huhPrompter asks with huh's full-screen forms, one question per form, so
// that each question may depend on the answers before it. After each answer
// it leaves "title: answer" on screen (the form clears itself).
type huhPrompter struct {
	ios *iostreams.IOStreams
	ctx context.Context
}

func (p *huhPrompter) WithContext(ctx context.Context) Prompter {
	return &huhPrompter{ios: p.ios, ctx: ctx}
}

func huhOptions(options []Option) []huh.Option[string] {
	out := make([]huh.Option[string], len(options))
	for i, o := range options {
		out[i] = huh.NewOption(o.Label, o.Value)
	}
	return out
}

// run shows field until it is answered.
func (p *huhPrompter) run(title string, field huh.Field) error {
	if err := p.ctx.Err(); err != nil {
		return interruptedOr(p.ctx, title, err)
	}
	form := huh.NewForm(huh.NewGroup(field)).WithInput(p.ios.In).WithOutput(p.ios.ErrOut).WithShowHelp(true).WithKeyMap(keyMap())
	if !termHasWidth(p.ios.ErrOut) {
		// A terminal that reports no size (some containers) would give
		// huh's text input a negative width, which panics.
		form = form.WithWidth(80)
	}
	if err := form.RunWithContext(p.ctx); err != nil {
		if errors.Is(err, huh.ErrUserAborted) || p.ctx.Err() != nil {
			return &InterruptedError{Title: title}
		}
		return fmt.Errorf("%s: %w", title, err)
	}
	return nil
}

func (p *huhPrompter) echo(title, answer string) {
	fmt.Fprintf(p.ios.ErrOut, "%s: %s\n", title, answer)
}

// selectField builds the full-screen select of Select. huh scrolls its list
// to the preselected option, hiding the ones above it, so the default goes
// first and every option shows.
func selectField(title, def string, options []Option, value *string) *huh.Select[string] {
	opts := huhOptions(defaultFirst(options, def))
	*value = def
	if def == "" && len(options) > 0 {
		*value = options[0].Value
	}
	s := huh.NewSelect[string]().Title(title).Options(opts...).Value(value)
	if len(options) > longList {
		s = s.Height(longList + 4).Description("Type / to filter")
	}
	return s
}

// keyMap is huh's key map with the multi-select's keys named as the
// field's help text names them: huh's footer says "x toggle" for a key that
// is space as well, and "submit"; the help text and the footer both say
// "space select", "enter confirm" (multiSelectHelp reads them from here).
func keyMap() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.MultiSelect.Toggle.SetHelp("space", "select")
	km.MultiSelect.Submit.SetHelp("enter", "confirm")
	km.MultiSelect.Next.SetHelp("enter", "confirm")
	return km
}

// multiSelectHelp is the help text under a multi-select's title, from the
// bindings of km that its footer shows.
func multiSelectHelp(km *huh.KeyMap, filterable bool) string {
	t, s := km.MultiSelect.Toggle.Help(), km.MultiSelect.Submit.Help()
	h := fmt.Sprintf("%s to %s, %s to %s", t.Key, t.Desc, s.Key, s.Desc)
	if filterable {
		f := km.MultiSelect.Filter.Help()
		h += fmt.Sprintf(", %s to %s", f.Key, f.Desc)
	}
	return h
}

// multiSelectField builds the full-screen multi-select of MultiSelect, with
// keyMap's keys. Options are set before the value: huh scrolls the list to
// the first preselected option when the value comes first, and a two-line
// list then shows only that option.
func multiSelectField(title string, defs []string, options []Option, atLeastOne bool, value *[]string) *huh.MultiSelect[string] {
	km := keyMap()
	filterable := len(options) > longList
	*value = append([]string{}, defs...)
	m := huh.NewMultiSelect[string]().Title(title).Options(huhOptions(options)...).Value(value).Filterable(filterable)
	if atLeastOne {
		toggle := km.MultiSelect.Toggle.Help()
		m = m.Validate(func(v []string) error {
			if len(v) == 0 {
				return fmt.Errorf("choose at least one (%s to %s)", toggle.Key, toggle.Desc)
			}
			return nil
		})
	}
	if filterable {
		m = m.Height(longList + 4)
	}
	m = m.Description(multiSelectHelp(km, filterable))
	m.WithKeyMap(km)
	return m
}

func (p *huhPrompter) Select(title, flag, def string, options []Option) (string, error) {
	var v string
	if err := p.run(title, selectField(title, def, options, &v)); err != nil {
		return "", err
	}
	p.echo(title, labelOf(options, v))
	return v, nil
}

func (p *huhPrompter) MultiSelect(title, flag string, defs []string, options []Option, atLeastOne bool) ([]string, error) {
	var v []string
	if err := p.run(title, multiSelectField(title, defs, options, atLeastOne, &v)); err != nil {
		return nil, err
	}
	labels := make([]string, 0, len(v))
	for _, x := range v {
		labels = append(labels, labelOf(options, x))
	}
	if len(labels) == 0 {
		labels = []string{"none"}
	}
	p.echo(title, strings.Join(labels, ", "))
	if v == nil {
		v = []string{}
	}
	return v, nil
}

func (p *huhPrompter) Input(title, flag, def string, validate func(string) error) (string, error) {
	var v string
	// The default is a placeholder, so that typing replaces it rather than
	// appending to it; an empty answer is the default.
	in := huh.NewInput().Title(title).Placeholder(def).Value(&v).Validate(func(s string) error {
		if validate == nil {
			return nil
		}
		if strings.TrimSpace(s) == "" {
			s = def
		}
		return validate(strings.TrimSpace(s))
	})
	if err := p.run(title, in); err != nil {
		return "", err
	}
	if v = strings.TrimSpace(v); v == "" {
		v = def
	}
	p.echo(title, v)
	return v, nil
}

// passwordField asks for a secret showing nothing as it is typed: no
// asterisks, which would tell its length to anyone watching the screen.
func passwordField(title string, value *string) *huh.Input {
	return huh.NewInput().Title(title).EchoMode(huh.EchoModeNone).Value(value)
}

func (p *huhPrompter) Password(title, flag string) (string, error) {
	var v string
	if err := p.run(title, passwordField(title, &v)); err != nil {
		return "", err
	}
	p.echo(title, "(hidden)")
	return v, nil
}

func (p *huhPrompter) Confirm(title, flag string, def bool) (bool, error) {
	v := def
	if err := p.run(title, huh.NewConfirm().Title(title).Value(&v)); err != nil {
		return false, err
	}
	if v {
		p.echo(title, "yes")
	} else {
		p.echo(title, "no")
	}
	return v, nil
}

// termHasWidth reports whether out is a terminal that knows its width.
func termHasWidth(out io.Writer) bool {
	f, ok := out.(*os.File)
	if !ok {
		return false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	return err == nil && width > 0
}

// defaultFirst returns options with the one whose value is def moved to the
// front, the others in their order.
func defaultFirst(options []Option, def string) []Option {
	out := make([]Option, 0, len(options))
	for _, o := range options {
		if o.Value == def {
			out = append(out, o)
		}
	}
	for _, o := range options {
		if o.Value != def {
			out = append(out, o)
		}
	}
	return out
}
