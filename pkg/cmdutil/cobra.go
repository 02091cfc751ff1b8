package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// TypeUsageErrors makes every usage error of the command tree under root
// typed, so that ExitCode maps it to exit 2 without looking at its text:
// flag parse errors become *FlagError, argument validator errors become
// *ArgsError, and a command group given an unknown subcommand answers an
// *ArgsError naming it, with cobra's suggestions ("did you mean secrets?").
// A flag that holds one value (not a list or a count) given twice is a flag
// error too (see onceFlags). Call it once the tree is complete.
func TypeUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if ive, ok := errors.AsType[*pflag.InvalidValueError](err); ok && errors.Is(err, errRepeated) {
			// Named without its values: a flag's value may be a secret.
			err = fmt.Errorf("--%s: %w", ive.GetFlag().Name, errRepeated)
		}
		return &FlagError{Err: fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		onceFlags(c.Flags())
		onceFlags(c.PersistentFlags())
		switch {
		case c.HasSubCommands() && !c.Runnable():
			c.Args = unknownSubcommand
			// A bare group prints its help (exit 0); cobra would skip
			// argument validation for a command that cannot run.
			c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
		case c.Args != nil:
			validate := c.Args
			c.Args = func(c *cobra.Command, args []string) error {
				if err := validate(c, args); err != nil {
					var ae *ArgsError
					if errors.As(err, &ae) {
						return err
					}
					return &ArgsError{Err: fmt.Errorf("%s: %w", c.CommandPath(), err)}
				}
				return nil
			}
		case c.HasSubCommands():
			c.Args = unknownSubcommand
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// onceFlags makes every flag of fs that holds one value refuse a second
// one: `--to 1 --to 2` is a usage error, not the last value silently
// winning. Lists (-f a -f b: pflag's slice and array values, string maps)
// and counts accumulate and stay as they are. Persistent flags are one
// *pflag.Flag shared by the commands under theirs: wrapped once.
func onceFlags(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		switch f.Value.(type) {
		case *onceValue, onceBool:
			return
		}
		if _, list := f.Value.(pflag.SliceValue); list {
			return
		}
		switch f.Value.Type() {
		case "count", "stringToString", "stringToInt", "stringToInt64":
			return
		}
		once := &onceValue{Value: f.Value, flag: f}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = onceBool{once}
			return
		}
		f.Value = once
	})
}

// onceValue is a flag's value that can be given once per command line.
type onceValue struct {
	pflag.Value
	flag *pflag.Flag
}

// errRepeated is a flag given twice.
var errRepeated = errors.New("given more than once (give it once)")

func (v *onceValue) Set(s string) error {
	if v.flag.Changed {
		return errRepeated
	}
	return v.Value.Set(s)
}

// onceBool is a boolean flag's onceValue: still boolean to pflag.
type onceBool struct{ *onceValue }

func (onceBool) IsBoolFlag() bool { return true }

func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	// cobra's suggestions: a name within two edits or starting with what
	// was typed, or naming it in its SuggestFor ("secret" → secrets).
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2 // cobra's default, set only by its own lookup
	}
	hint := ""
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		hint = "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &ArgsError{Err: fmt.Errorf("unknown command %q for %q%s (available: %s)", args[0], c.CommandPath(), hint, strings.Join(names, ", "))}
}

// ExactArgs accepts exactly n arguments; what names them for the error
// ("NAME KEY").
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return &ArgsError{Err: fmt.Errorf("%s: expected %s, got %s", c.CommandPath(), what, resources.Plural(len(args), "argument"))}
		}
		return nil
	}
}

// RangeArgs accepts between min and max arguments (max < 0: no upper bound).
func RangeArgs(min, max int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return &ArgsError{Err: fmt.Errorf("%s: expected %s, got %s", c.CommandPath(), what, resources.Plural(len(args), "argument"))}
		}
		return nil
	}
}

// Execute runs root with args and returns the process exit code. Errors are
// printed to io.ErrOut as "error: ...", one line per problem; an interrupt
// (ctx cancelled) is exit 130 whatever the command returned.
func Execute(ctx context.Context, root *cobra.Command, io *iostreams.IOStreams, args []string) int {
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		// Interrupted (Ctrl-C, SIGTERM): exit 130 without a word, as a
		// shell command does; "context canceled" tells the user nothing.
		return ExitInterrupted
	}
	for _, line := range ErrorLines(err) {
		// A line may carry a server's message: never a terminal escape.
		fmt.Fprintf(io.ErrOut, "error: %s\n", iostreams.Printable(line))
	}
	for _, line := range ErrorDetails(err) {
		fmt.Fprintf(io.ErrOut, "%s\n", iostreams.Printable(line))
	}
	return ExitCode(err)
}

// Summary is what a command's parent knows of it without building it: the
// fields `botkit --help` lists and cobra finds a command by (its name from
// Use, its aliases), its one-line help, its group and whether it is hidden.
// A command's constructor takes them from its package's Summary, and botkit's
// root stands a stub made from the same Summary for each top-level command
// the arguments do not reach (pkg/cmd/root), so the two cannot differ.
type Summary struct {
	Use     string
	Aliases []string
	Short   string
	GroupID string
	Hidden  bool
}

// Stub returns a command with only s's fields: it lists in its parent's
// help as the real command does (runnable, so available) and is found by
// the same names, but has no flags or subcommands, and running it is an
// internal error (the real command must have replaced it by then).
func (s Summary) Stub() *cobra.Command {
	return &cobra.Command{
		Use: s.Use, Aliases: s.Aliases, Short: s.Short, GroupID: s.GroupID, Hidden: s.Hidden,
		RunE: func(c *cobra.Command, _ []string) error {
			return fmt.Errorf("internal error: %s was run before it was built", c.CommandPath())
		},
	}
}
