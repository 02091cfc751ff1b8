package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/config"
)

// ExitCodeDoc says what one exit code means.
type ExitCodeDoc struct {
	Code    int
	Meaning string
}

// ExitCodes is the table of exit codes every command of botkit and
// botkit-platform ends with: the one place it is written (`botkit help
// exit-codes` and the docs print it).
var ExitCodes = []ExitCodeDoc{
	{ExitOK, "success (diff: no differences)"},
	{ExitError, "runtime failure: network, server error, a resource ended failed, a master key missing or not the one the stored values were encrypted with; diff: differences found"},
	{ExitUsage, "usage or invalid input: bad flags, invalid names, keys, config or manifests, values over the limits, a confirmation needed but no terminal"},
	{ExitNotFound, "not found"},
	{ExitAuth, "not authenticated or not authorized; no keyring to keep a token in"},
	{ExitConflict, "conflict: concurrent modification, region mismatch, name taken by the other kind"},
	{ExitInterrupted, "interrupted (Ctrl-C, SIGTERM)"},
}

// EnvDoc says what one environment variable does.
type EnvDoc struct {
	Name    string
	Meaning string
}

// Environment is the table of environment variables botkit reads: the one
// place it is written (`botkit help environment` and the docs print it).
var Environment = []EnvDoc{
	{config.EnvContext, "context the cloud commands act in (botkit config get-contexts); --context wins over it, it wins over the current context."},
	{config.EnvAPIURL, "URL of the platform the cloud commands talk to; wins over the context's. Unset: the context's, else the embedded local platform."},
	{config.EnvToken, "API token; wins over the keyring and the config file."},
	{config.EnvOrg, "organization the cloud commands act on; wins over the context's."},
	{config.EnvConfigDir, "directory of config.yaml (default $XDG_CONFIG_HOME/botkit, else ~/.config/botkit)."},
	{config.EnvInsecureHTTP, "=1 lets the API token go over plain http:// to a platform that is not on this machine (refused otherwise: use https://)."},
	{config.EnvCAFile, "PEM file of the CA that signs the platform's certificate, trusted besides the system's CAs; wins over the context's certificateAuthority (auth login --certificate-authority)."},
	{"XDG_CONFIG_HOME", "base of the config directory."},
	{"XDG_DATA_HOME", "base of the embedded local platform's directory ($XDG_DATA_HOME/botkit, default ~/.local/share/botkit)."},
	{"CI", "when set, nothing prompts and no progress or summary is printed; a prompt that is needed is an error naming the flag that answers it."},
	{"ACCESSIBLE", "when set, prompts are plain numbered lines read from stdin (as --accessible), for screen readers and scripts."},
}

// NewHelpTopic returns a command that only documents: `botkit help NAME`
// prints long. It runs nothing, so cobra lists it under "Additional help
// topics" rather than among the commands.
func NewHelpTopic(name, short, long string) *cobra.Command {
	return &cobra.Command{Use: name, Short: short, Long: long}
}

// ExitCodesHelp is the text of `help exit-codes`.
func ExitCodesHelp(command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Exit codes of every %s command:\n\n", command)
	for _, e := range ExitCodes {
		fmt.Fprintf(&b, "  %-4d %s\n", e.Code, e.Meaning)
	}
	b.WriteString("\nErrors go to stderr as \"error: ...\", one line per problem, naming the flag, key,\nfile:line or resource at fault. Data goes to stdout.\n")
	return b.String()
}

// EnvironmentHelp is the text of `help environment`.
func EnvironmentHelp() string {
	var b strings.Builder
	b.WriteString("Environment variables botkit reads:\n\n")
	for _, e := range Environment {
		fmt.Fprintf(&b, "  %s\n      %s\n", e.Name, e.Meaning)
	}
	return b.String()
}
