package agents

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// objectFlags: no -o prints the command's line; -o json|yaml prints what
// it acted on.
func objectFlags() *printers.Flags {
	return printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)
}

// RollbackOptions are the inputs of `botkit cloud agents rollback`.
type RollbackOptions struct {
	cloudutil.Platform
	Name   string
	To     int64 // --to (0: the deployment that served before the serving one)
	Skip   bool
	NoWait bool
	Print  *printers.Flags
}

// NewCmdRollback returns `botkit cloud agents rollback`.
func NewCmdRollback(f *cloudutil.Factory, runF func(context.Context, *RollbackOptions) error) *cobra.Command {
	opts := &RollbackOptions{Platform: cloudutil.NewPlatform(f), Print: objectFlags()}
	cmd := &cobra.Command{
		Use:   "rollback [NAME] [--to N]",
		Short: "Run an earlier deployment's image and secrets again",
		Long: `Make a new deployment of the agent NAME with deployment N's image digest and
secret set version (--to N; default: the deployment that served before the
serving one), and wait for its rollout as botkit deploy does: the old image
runs with the old version's values. The rollback is itself a deployment, so
it can be rolled back.

Asks first on a terminal (--skip: without; required without one). Exit 0
when it serves, 1 when its rollout failed (the deployment serving before it
keeps serving), 3 when the agent or deployment N is missing.`,
		Example: `  botkit cloud agents rollback support-bot
  botkit cloud agents rollback support-bot --to 3 --skip`,
	}
	cmd.Flags().Int64Var(&opts.To, "to", 0, "The deployment `N` to run again (default: the one that served before the serving one)")
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Roll back without confirmation")
	cmd.Flags().BoolVar(&opts.NoWait, "no-wait", false, "Return once the deployment is recorded, without waiting for its rollout")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runRollback)
	_ = cmd.RegisterFlagCompletionFunc("to", completeDeployments(&opts.Platform)) // error ignored: the flag was just added
	return cmd
}

func runRollback(ctx context.Context, opts *RollbackOptions) error {
	if opts.To < 0 {
		return cmdutil.FlagErrorf("--to: want a deployment number (see botkit cloud agents deployments %s)", opts.Name)
	}
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, &opts.Skip)
	if err != nil {
		return err
	}
	ds, err := c.Deployments(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	ref := cloudutil.AgentRef(opts.Name)
	target, ok := rollbackTarget(ds, opts.To)
	if opts.To > 0 && !ok {
		return &resources.Error{Code: resources.CodeNotFound, Message: fmt.Sprintf("%s has no deployment %d (see botkit cloud agents deployments %s)", ref, opts.To, iostreams.Printable(opts.Name))}
	}
	if !opts.Skip {
		what := "the deployment that served before the serving one"
		if ok {
			what = fmt.Sprintf("deployment %d (%s)", target.Number, iostreams.Printable(cloudutil.RunsWith(target)))
		}
		if err := opts.Confirm(ctx, org, fmt.Sprintf("Roll back %s to %s with a new deployment?", ref, what), "rolling back "+ref+" needs confirmation", false); err != nil {
			return err
		}
	}
	req := resources.RollbackRequest{To: opts.To}
	if ok {
		req.To = target.Number // what the question named, whatever was deployed since
	}
	d, err := c.RollbackAgent(ctx, org, opts.Name, req)
	if err != nil {
		return err
	}
	if !opts.NoWait {
		if d, err = cloudutil.WaitRollout(ctx, opts.IO, c, org, opts.Name, d); err != nil {
			return err
		}
	}
	return cloudutil.FinishRollout(ctx, opts.IO, opts.Print, c, org, opts.Name, "rolled back", d)
}

// rollbackTarget is deployment to of ds (newest first), or with to 0 the
// newest one older than the serving deployment that served (superseded).
func rollbackTarget(ds []resources.Deployment, to int64) (resources.Deployment, bool) {
	if to > 0 {
		for _, d := range ds {
			if d.Number == to {
				return d, true
			}
		}
		return resources.Deployment{}, false
	}
	serving := int64(-1)
	for _, d := range ds {
		if d.Result == resources.DeploymentServing {
			serving = d.Number
			break
		}
	}
	for _, d := range ds {
		if d.Number < serving && d.Result == resources.DeploymentSuperseded {
			return d, true
		}
	}
	return resources.Deployment{}, false
}

// ScaleOptions are the inputs of `botkit cloud agents scale`.
type ScaleOptions struct {
	cloudutil.Platform
	Name   string
	Min    int
	Max    int
	MaxSet bool // --max was given
	Print  *printers.Flags
}

// NewCmdScale returns `botkit cloud agents scale`.
func NewCmdScale(f *cloudutil.Factory, runF func(context.Context, *ScaleOptions) error) *cobra.Command {
	opts := &ScaleOptions{Platform: cloudutil.NewPlatform(f), Print: objectFlags()}
	cmd := &cobra.Command{
		Use:   "scale [NAME] --min N [--max M]",
		Short: "Change how many agents run, without a new deployment",
		Long: `Change the agent NAME's scaling: at least --min N agents of the serving
deployment run (0: none until sessions start them), at most --max M (kept as
it is when not given). No deployment is made and nothing is asked: the
platform starts or stops agents of the serving deployment at once.`,
		Example: `  botkit cloud agents scale support-bot --min 2
  botkit cloud agents scale support-bot --min 1 --max 5`,
	}
	cmd.Flags().IntVar(&opts.Min, "min", 0, "Agents to keep running, at least (required)")
	cmd.Flags().IntVar(&opts.Max, "max", 0, "Agents to run, at most (default: as it is)")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runScale)
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !cmd.Flags().Changed("min") {
			return cmdutil.FlagErrorf("--min is required: the number of agents to keep running")
		}
		opts.MaxSet = cmd.Flags().Changed("max")
		return run(cmd, args)
	}
	return cmd
}

func runScale(ctx context.Context, opts *ScaleOptions) error {
	if opts.Min < 0 {
		return cmdutil.FlagErrorf("--min %d: want 0 or more agents", opts.Min)
	}
	if opts.MaxSet && (opts.Max < 1 || opts.Max < opts.Min) {
		return cmdutil.FlagErrorf("--max %d: want at least 1 and at least --min (%d)", opts.Max, opts.Min)
	}
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, nil)
	if err != nil {
		return err
	}
	scaling := resources.AgentScaling{MinAgents: opts.Min, MaxAgents: opts.Max}
	if !opts.MaxSet {
		cur, err := c.Agent(ctx, org, opts.Name)
		if err != nil {
			return err
		}
		if s := cur.Spec.Scaling; s != nil {
			scaling.MaxAgents = s.MaxAgents
		}
		if scaling.MaxAgents > 0 && scaling.MaxAgents < opts.Min {
			return cmdutil.FlagErrorf("--min %d is above %s's maximum of %d agents: give --max too", opts.Min, cloudutil.AgentRef(opts.Name), scaling.MaxAgents)
		}
	}
	a, err := c.PatchAgent(ctx, org, opts.Name, resources.AgentPatch{Scaling: &scaling})
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "note: the next botkit deploy of a deploy file with min_agents or max_agents sets %s's scaling back to the file's, unless the file changes\n", cloudutil.AgentRef(opts.Name))
	return printAgent(&opts.Platform, opts.Print, a, printers.Operation{Ref: cloudutil.AgentRef(opts.Name), Action: "scaled",
		Detail: scaleDetail(scaling) + "; " + readyText(a)})
}

func scaleDetail(s resources.AgentScaling) string {
	if s.MaxAgents == 0 {
		return fmt.Sprintf("min %d, no max", s.MinAgents)
	}
	return fmt.Sprintf("min %d, max %d", s.MinAgents, s.MaxAgents)
}

// readyText is "R/D agents ready".
func readyText(a resources.Agent) string {
	var n resources.AgentCounts
	if a.Status != nil {
		n = a.Status.Agents
	}
	return fmt.Sprintf("%d/%d agents ready", n.Ready, n.Desired)
}

// RestartOptions are the inputs of `botkit cloud agents restart`.
type RestartOptions struct {
	cloudutil.Platform
	Name   string
	Skip   bool
	NoWait bool
	Print  *printers.Flags
}

// NewCmdRestart returns `botkit cloud agents restart`.
func NewCmdRestart(f *cloudutil.Factory, runF func(context.Context, *RestartOptions) error) *cobra.Command {
	opts := &RestartOptions{Platform: cloudutil.NewPlatform(f), Print: objectFlags()}
	cmd := &cobra.Command{
		Use:   "restart [NAME]",
		Short: "Replace every agent of the serving deployment with fresh ones",
		Long: `Restart the agent NAME as a rollout: a new deployment with the serving one's
image digest and secret set version (a new secret set version needs botkit
deploy) starts fresh agents, and once they are ready the old ones stop, as
kubectl rollout restart does. Waits for the rollout (--no-wait: returns once
it is recorded). Asks first on a terminal (--skip: without; required without
one). A missing agent exits 3; a rollout that fails exits 1, and the serving
deployment serves on.`,
		Example: `  botkit cloud agents restart support-bot
  botkit cloud agents restart support-bot --skip`,
	}
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Restart without confirmation")
	cmd.Flags().BoolVar(&opts.NoWait, "no-wait", false, "Return once the deployment is recorded, without waiting for its rollout")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runRestart)
	return cmd
}

func runRestart(ctx context.Context, opts *RestartOptions) error {
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, &opts.Skip)
	if err != nil {
		return err
	}
	ref := cloudutil.AgentRef(opts.Name)
	if err := confirmAgent(ctx, &opts.Platform, c, org, opts.Name, opts.Skip, "restarting", func(cur resources.Agent) string {
		what := ref
		if st := cur.Status; st != nil && st.Deployment > 0 {
			what = fmt.Sprintf("the %s of %s (deployment %d)", resources.Plural(st.Agents.Ready, "running agent"), ref, st.Deployment)
		}
		return "Restart " + what + " (fresh agents, then the old ones stop)?"
	}); err != nil {
		return err
	}
	a, err := c.RestartAgent(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	if a.Status == nil || a.Status.Rollout == 0 {
		return fmt.Errorf("%s: the platform made no restart deployment", ref)
	}
	d, err := c.Deployment(ctx, org, opts.Name, a.Status.Rollout)
	if err != nil {
		return err
	}
	if !opts.NoWait {
		if d, err = cloudutil.WaitRollout(ctx, opts.IO, c, org, opts.Name, d); err != nil {
			return err
		}
	}
	return cloudutil.FinishRollout(ctx, opts.IO, opts.Print, c, org, opts.Name, "restarted", d)
}

// DeleteOptions are the inputs of `botkit cloud agents delete`.
type DeleteOptions struct {
	cloudutil.Platform
	Name  string
	Skip  bool
	Print *printers.Flags
}

// NewCmdDelete returns `botkit cloud agents delete`.
func NewCmdDelete(f *cloudutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{Platform: cloudutil.NewPlatform(f), Print: objectFlags()}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Stop and remove every agent of NAME, and the agent",
		Long: `Stop and remove every agent (container) of the agent NAME, then the agent and
its deployments' history. Its secret set and image pull secret stay. Asks
first on a terminal (--skip: without; required without one). A missing agent
exits 3.`,
		Example: `  botkit cloud agents delete support-bot
  botkit cloud agents delete support-bot --skip`,
	}
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Delete without confirmation")
	agentCommand(cmd, &opts.Platform, &opts.Name, opts.Print, opts, runF, runDelete)
	cmd.Args = cmdutil.ExactArgs(1, "NAME") // deleting names its agent
	return cmd
}

func runDelete(ctx context.Context, opts *DeleteOptions) error {
	c, org, err := begin(ctx, &opts.Platform, opts.Name, opts.Print, &opts.Skip)
	if err != nil {
		return err
	}
	ref := cloudutil.AgentRef(opts.Name)
	if err := confirmAgent(ctx, &opts.Platform, c, org, opts.Name, opts.Skip, "deleting", func(cur resources.Agent) string {
		return fmt.Sprintf("Delete %s (region %s, %s)? Its agents stop and its deployments' history goes with it.", ref, iostreams.Printable(cur.Metadata.Region), readyText(cur))
	}); err != nil {
		return err
	}
	a, err := c.DeleteAgent(ctx, org, opts.Name)
	if err != nil {
		return err
	}
	return printAgent(&opts.Platform, opts.Print, a, printers.Operation{Ref: ref, Action: resources.ActionDeleted})
}
