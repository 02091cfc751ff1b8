package prompter

import (
	"context"
	"fmt"
	"slices"
	"sync"
)

// TB is the part of testing.TB the fake needs.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Answer is one scripted answer of a Fake: the answer to the first question
// not yet answered whose flag or title is Match. Value is a string (Select,
// Input, Password), a []string (MultiSelect), a bool (Confirm), Default (the
// question's default), or an error the question returns (for example
// context.Canceled, or an *InputEndedError).
type Answer struct {
	Match string
	Value any
}

// Default, as an Answer's Value, takes the question's default.
var Default = defaultAnswer{}

type defaultAnswer struct{}

// Question is a question a Fake was asked.
type Question struct {
	Kind    string // select, multiselect, input, password, confirm
	Title   string
	Flag    string
	Default any
	Options []Option
}

// Fake is a scripted Prompter for tests. Each question takes the first
// unused answer that matches its flag or title, in script order; a question
// no answer matches, an answer of the wrong type, a Select answer that is
// not an option or an Input answer its validator refuses fails the test.
// Answers left unused when the test ends fail it too.
type Fake struct {
	t  TB
	mu *sync.Mutex
	// script and asked are shared by the copies WithContext makes.
	script *[]fakeAnswer
	asked  *[]Question
	ctx    context.Context
}

type fakeAnswer struct {
	Answer
	used bool
}

// NewFake returns a Fake answering with answers.
func NewFake(t TB, answers ...Answer) *Fake {
	script := make([]fakeAnswer, len(answers))
	for i, a := range answers {
		script[i] = fakeAnswer{Answer: a}
	}
	f := &Fake{t: t, mu: &sync.Mutex{}, script: &script, asked: &[]Question{}, ctx: context.Background()}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, a := range *f.script {
			if !a.used {
				t.Errorf("prompter.Fake: scripted answer %q = %v was never asked", a.Match, a.Value)
			}
		}
	})
	return f
}

// Asked returns the questions asked so far, in order.
func (f *Fake) Asked() []Question {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(*f.asked)
}

// WithContext returns the fake answering under ctx: once ctx is done every
// question returns an error matching context.Canceled.
func (f *Fake) WithContext(ctx context.Context) Prompter {
	c := *f
	c.ctx = ctx
	return &c
}

// answer records q and returns the scripted value for it.
func (f *Fake) answer(q Question) (any, error) {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	*f.asked = append(*f.asked, q)
	if f.ctx.Err() != nil {
		return nil, &InterruptedError{Title: q.Title}
	}
	for i := range *f.script {
		a := &(*f.script)[i]
		if a.used || (a.Match != q.Flag && a.Match != q.Title) {
			continue
		}
		a.used = true
		if err, ok := a.Value.(error); ok {
			return nil, err
		}
		if _, ok := a.Value.(defaultAnswer); ok {
			return q.Default, nil
		}
		return a.Value, nil
	}
	f.t.Errorf("prompter.Fake: unexpected %s question %q (flag %s)", q.Kind, q.Title, q.Flag)
	return nil, fmt.Errorf("prompter.Fake: no answer for %q", q.Title)
}

func (f *Fake) wrongType(q string, v any, want string) error {
	f.t.Helper()
	f.t.Errorf("prompter.Fake: answer to %q is %T, want %s", q, v, want)
	return fmt.Errorf("prompter.Fake: bad answer for %q", q)
}

func (f *Fake) Select(title, flag, def string, options []Option) (string, error) {
	f.t.Helper()
	if def == "" && len(options) > 0 {
		def = options[0].Value
	}
	v, err := f.answer(Question{Kind: "select", Title: title, Flag: flag, Default: def, Options: options})
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", f.wrongType(title, v, "string")
	}
	if !slices.ContainsFunc(options, func(o Option) bool { return o.Value == s }) {
		f.t.Errorf("prompter.Fake: answer %q to %q is not one of its options", s, title)
		return "", fmt.Errorf("prompter.Fake: %q is not an option", s)
	}
	return s, nil
}

func (f *Fake) MultiSelect(title, flag string, defs []string, options []Option, atLeastOne bool) ([]string, error) {
	f.t.Helper()
	v, err := f.answer(Question{Kind: "multiselect", Title: title, Flag: flag, Default: slices.Clone(defs), Options: options})
	if err != nil {
		return nil, err
	}
	list, ok := v.([]string)
	if !ok {
		return nil, f.wrongType(title, v, "[]string")
	}
	for _, s := range list {
		if !slices.ContainsFunc(options, func(o Option) bool { return o.Value == s }) {
			f.t.Errorf("prompter.Fake: answer %q to %q is not one of its options", s, title)
			return nil, fmt.Errorf("prompter.Fake: %q is not an option", s)
		}
	}
	if atLeastOne && len(list) == 0 {
		f.t.Errorf("prompter.Fake: empty answer to %q, which needs at least one", title)
		return nil, fmt.Errorf("prompter.Fake: empty answer")
	}
	return append([]string{}, list...), nil
}

func (f *Fake) Input(title, flag, def string, validate func(string) error) (string, error) {
	f.t.Helper()
	v, err := f.answer(Question{Kind: "input", Title: title, Flag: flag, Default: def})
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", f.wrongType(title, v, "string")
	}
	if s == "" {
		s = def
	}
	if validate != nil {
		if err := validate(s); err != nil {
			f.t.Errorf("prompter.Fake: answer %q to %q refused: %v", s, title, err)
			return "", err
		}
	}
	return s, nil
}

func (f *Fake) Password(title, flag string) (string, error) {
	f.t.Helper()
	v, err := f.answer(Question{Kind: "password", Title: title, Flag: flag, Default: ""})
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", f.wrongType(title, v, "string")
	}
	return s, nil
}

func (f *Fake) Confirm(title, flag string, def bool) (bool, error) {
	f.t.Helper()
	v, err := f.answer(Question{Kind: "confirm", Title: title, Flag: flag, Default: def})
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, f.wrongType(title, v, "bool")
	}
	return b, nil
}
