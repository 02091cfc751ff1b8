package cmdutil

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// BoolPair registers a boolean flag --name (with its optional shorthand) and
// its negation --no-name on fs, both writing *p (which starts at def).
// `--name=false` and `--no-name` mean the same; giving both forms is a flag
// error (exit 2).
func BoolPair(fs *pflag.FlagSet, p *bool, name, short string, def bool, usage string) {
	*p = def
	pair := &boolPair{target: p, name: name}
	pos := fs.VarPF(boolSide{pair: pair}, name, short, usage)
	pos.NoOptDefVal = "true"
	neg := fs.VarPF(boolSide{pair: pair, negate: true}, "no-"+name, "", "Same as --"+name+"=false")
	neg.NoOptDefVal = "true"
	pos.DefValue = strconv.FormatBool(def)
	neg.DefValue = "false"
}

type boolPair struct {
	target   *bool
	name     string
	pos, neg bool // which forms were given
}

// boolSide is one form of a pair as a pflag.Value.
type boolSide struct {
	pair   *boolPair
	negate bool
}

func (s boolSide) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	if s.negate {
		s.pair.neg = true
		b = !b
	} else {
		s.pair.pos = true
	}
	if s.pair.pos && s.pair.neg {
		return fmt.Errorf("--%s and --no-%s cannot be used together", s.pair.name, s.pair.name)
	}
	*s.pair.target = b
	return nil
}

func (s boolSide) String() string {
	if s.pair == nil || s.pair.target == nil {
		return "false"
	}
	return strconv.FormatBool(*s.pair.target != s.negate)
}

func (s boolSide) Type() string { return "bool" }

// IsBoolFlag lets pflag accept the flag without a value.
func (s boolSide) IsBoolFlag() bool { return true }

// EnumFlag registers --name (with its optional shorthand) on cmd: a string
// flag whose value must be one of values, checked when the flag is parsed
// (a flag error, exit 2, naming the valid values). The values appear in the
// flag's help and are its shell completions.
func EnumFlag(cmd *cobra.Command, p *string, name, short, def string, values []string, usage string) {
	*p = def
	cmd.Flags().VarP(&enumValue{target: p, values: values}, name, short, usage+" (one of: "+strings.Join(values, "|")+")")
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

type enumValue struct {
	target *string
	values []string
}

func (e *enumValue) Set(v string) error {
	if !slices.Contains(e.values, v) {
		return errUnknownValue(v, e.values)
	}
	*e.target = v
	return nil
}

func errUnknownValue(v string, values []string) error {
	return fmt.Errorf("unknown value %q (valid: %s)", v, strings.Join(values, ", "))
}

// CheckEnum checks an enumerated flag's value for a caller that did not
// parse it (a command's run function called without cobra): the same
// message as EnumFlag's, as a flag error (exit 2).
func CheckEnum(name, v string, values []string) error {
	if slices.Contains(values, v) {
		return nil
	}
	return &FlagError{Err: fmt.Errorf("--%s: %w", name, errUnknownValue(v, values))}
}

func (e *enumValue) String() string {
	if e.target == nil {
		return ""
	}
	return *e.target
}

func (e *enumValue) Type() string { return "string" }

// SkipFlag registers --skip/-s on fs, the flag that answers a command's
// confirmation, and --yes/-y as its alias (the name gh and pipecat cloud
// use): either sets *p. The alias is hidden; the usage names it.
func SkipFlag(fs *pflag.FlagSet, p *bool, usage string) {
	fs.BoolVarP(p, "skip", "s", false, usage+" (also --yes, -y)")
	fs.BoolVarP(p, "yes", "y", false, "Same as --skip")
	_ = fs.MarkHidden("yes") // error ignored: the flag was just added
}
