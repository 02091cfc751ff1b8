// Package iostreams carries a command's standard streams and knows whether
// they are terminals, so commands can decide whether to prompt or show
// progress.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the standard streams of one command invocation.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	ci        bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		ci:        os.Getenv("CI") != "",
	}
}

// Test returns streams over buffers (no terminals) and the buffers.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// SetStdinTTY, SetStdoutTTY and SetStderrTTY override terminal detection (tests).
func (s *IOStreams) SetStdinTTY(v bool)  { s.stdinTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// CanPrompt reports whether the command may ask the user questions: stdin,
// stdout and stderr are terminals and CI is not set (docs/development.md: prompts
// never when stdout is piped or CI is set).
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY && s.stdoutTTY && !s.ci }

// CanAskSecret reports whether a secret the command would otherwise read
// from stdin can be asked hidden instead: stdin and stderr are terminals
// and CI is not set, whatever stdout is. A terminal on stdin means a person
// typing; reading it as plain stdin would echo the secret (`botkit seal NAME
// KEY >> manifest.yaml`). Prompters write to stderr.
func (s *IOStreams) CanAskSecret() bool { return s.stdinTTY && s.stderrTTY && !s.ci }

// SetCI overrides the CI detection (tests).
func (s *IOStreams) SetCI(v bool) { s.ci = v }

// ShowProgress reports whether progress and hints may go to stderr: only on
// a terminal, never when stdout is piped or CI is set (docs/development.md).
func (s *IOStreams) ShowProgress() bool { return s.stderrTTY && s.stdoutTTY && !s.ci }

// ShowNotices reports whether a one-time notice meant for a person (the
// embedded platform's first use) may go to stderr: stderr is a terminal and
// CI is not set, whatever stdout is — stderr does not disturb piped output,
// and a script or CI run never sees it.
func (s *IOStreams) ShowNotices() bool { return s.stderrTTY && !s.ci }
