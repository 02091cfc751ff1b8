// Package prompter asks the user questions for every botkit command: with
// huh's full-screen forms on a terminal, with plain numbered line prompts in
// accessible mode (--accessible, ACCESSIBLE=1, or input that is not a
// terminal but was explicitly allowed), and through a scripted fake in tests.
//
// Callers decide whether they may prompt at all (iostreams.CanPrompt); a
// Prompter never checks that itself.
package prompter

// Option is one choice of a Select or MultiSelect: Value is what the answer
// holds (a flag value), Label what the user sees.
type Option struct {
	Value string
	Label string
}

// Prompter asks questions. flag names the command-line flag that answers the
// question without a prompt (for the error when input ends early). Every
// method returns an error matching context.Canceled (errors.Is) when the
// user pressed Ctrl-C, and a typed end-of-input error naming flag (exit 2)
// when the input ended before an answer.
type Prompter interface {
	// Select asks for one of options; def is the value preselected.
	Select(title, flag, def string, options []Option) (string, error)
	// MultiSelect asks for any number of options; defs are preselected.
	// atLeastOne refuses an empty answer.
	MultiSelect(title, flag string, defs []string, options []Option, atLeastOne bool) ([]string, error)
	// Input asks for a line of text; validate (may be nil) rejects answers
	// with an error shown to the user.
	Input(title, flag, def string, validate func(string) error) (string, error)
	// Password asks for a secret without echoing it. The answer is never
	// shown, logged or put into an error.
	Password(title, flag string) (string, error)
	// Confirm asks a yes/no question.
	Confirm(title, flag string, def bool) (bool, error)
}
