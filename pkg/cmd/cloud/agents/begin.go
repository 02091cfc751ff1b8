package agents

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/suggest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmd/preflight"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// begin is how every agents command that names an agent starts, once its
// own flags are checked: the name, the output flags, --skip where the
// command confirms (skip nil: it does not), then the platform and the
// organization it acts on.
func begin(ctx context.Context, p *cloudutil.Platform, name string, print *printers.Flags, skip *bool) (*client.Client, string, error) {
	return beginOn(ctx, p, name, print, skip, p.Connect)
}

// beginOn is begin on the platform connect returns (sessions: the one that
// outlives the command, Platform.ConnectServing).
func beginOn(ctx context.Context, p *cloudutil.Platform, name string, print *printers.Flags, skip *bool, connect func(context.Context) (*client.Client, string, error)) (*client.Client, string, error) {
	if err := validateName(name); err != nil {
		return nil, "", err
	}
	if err := print.Validate(); err != nil {
		return nil, "", err
	}
	if skip != nil {
		if err := p.CheckSkip(*skip); err != nil {
			return nil, "", err
		}
	}
	return connect(ctx)
}

// confirmAgent asks question, made from the agent as it is now, unless
// skip; doing is what needs the confirmation ("restarting"), for the
// refusal without a terminal.
func confirmAgent(ctx context.Context, p *cloudutil.Platform, c *client.Client, org, name string, skip bool, doing string, question func(resources.Agent) string) error {
	if skip {
		return nil
	}
	cur, err := c.Agent(ctx, org, name)
	if err != nil {
		return err
	}
	return p.Confirm(ctx, org, question(cur), doing+" "+cloudutil.AgentRef(name)+" needs confirmation", false)
}

// printAgent prints the agent a write left: its rows with -o, else op.
func printAgent(p *cloudutil.Platform, print *printers.Flags, a resources.Agent, op printers.Operation) error {
	if !print.Lines() {
		return print.PrintRows(p.IO, nil, nil, a)
	}
	return printers.PrintOperations(p.IO.Out, op)
}

// agentCommand completes cmd as every command that names one agent is
// made: one NAME argument (completed from the platform) into *name, RunE
// calling runF when given (tests) else run with opts, the output flags and
// --organization.
func agentCommand[O any](cmd *cobra.Command, p *cloudutil.Platform, name *string, print *printers.Flags, opts O, runF, run func(context.Context, O) error) {
	cmd.Args = cmdutil.RangeArgs(0, 1, "at most one NAME")
	cmd.ValidArgsFunction = completeAgentNames(p)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			*name = args[0]
		} else {
			n, err := NameFromDeployFile(cmd.Context(), ".")
			if err != nil {
				return err
			}
			*name = n
		}
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return suggestAgent(cmd.Context(), p, *name, run(cmd.Context(), opts))
	}
	print.AddFlags(cmd)
	addOrganizationFlag(cmd, p)
}

// NameFromDeployFile is the agent a command without NAME acts on: the
// agent_name of the deploy file in dir, found as botkit deploy finds it
// (server/cloud-deploy.toml, then cloud-deploy.toml).
func NameFromDeployFile(ctx context.Context, dir string) (string, error) {
	_, df, err := preflight.Load(ctx, dir)
	if err != nil {
		var fe *cmdutil.FlagError
		if errors.As(err, &fe) {
			return "", cmdutil.FlagErrorf("give the agent's NAME, or run the command in a project directory: %v", err)
		}
		return "", err
	}
	if df.AgentName == "" {
		return "", cmdutil.FlagErrorf("give the agent's NAME: %s has no agent_name", df.Path())
	}
	return df.AgentName, nil
}

// suggestAgent adds to err, when it says the agent name does not exist,
// the organization's agents whose names are close ("did you mean
// support-bot?"). A not-found error about something else (a deployment
// number) is returned as it is: the agent then exists.
func suggestAgent(ctx context.Context, p *cloudutil.Platform, name string, err error) error {
	var re *resources.Error
	if !errors.As(err, &re) || re.Code != resources.CodeNotFound {
		return err
	}
	c, org, cerr := p.Connect(ctx)
	if cerr != nil {
		return err
	}
	as, lerr := c.Agents(ctx, org, "")
	if lerr != nil {
		return err
	}
	names := make([]string, 0, len(as))
	for _, a := range as {
		if a.Metadata.Name == name {
			return err
		}
		names = append(names, a.Metadata.Name)
	}
	hint := suggest.DidYouMean(name, names)
	if hint == "" {
		return err
	}
	out := *re
	out.Message += hint
	return &out
}
