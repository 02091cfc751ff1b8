// Package deploy is `botkit deploy`: the end of the journey from a project
// to a running bot (docs/deploy.md). It reads the project's deploy file as
// preflight does, runs preflight's checks (a failed one deploys nothing),
// creates or updates the Agent, makes a deployment and waits for its
// rollout.
package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmd/preflight"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/deployfile"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Options are the inputs of `botkit deploy`.
type Options struct {
	cloudutil.Platform
	Path   string // PATH: a project directory or the deploy file
	Image  string // --image: replaces the deploy file's image
	Skip   bool   // --skip: no confirmation of an update
	NoWait bool   // --no-wait: return once the deployment is recorded
	DryRun bool   // --dry-run: print the plan, write nothing
	Print  *printers.Flags
}

// CmdSummary is what `botkit --help` lists of `botkit deploy`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "deploy [PATH]",
	Short: "Deploy a project's agent to the platform and wait until it runs",
}

// NewCmdDeploy returns `botkit deploy`.
func NewCmdDeploy(f *cloudutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Platform: cloudutil.NewPlatform(f), Print: newPrintFlags()}
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Deploy the project's agent: read its deploy file (server/cloud-deploy.toml,
else cloud-deploy.toml, under PATH, default .; or PATH itself) as botkit
preflight does, run every preflight check (after waiting for a secret set or
image pull secret still pending; a failed check deploys nothing: exit 1), create or update the Agent (agent_name, image, image_credentials,
secret_set, region, [scaling] min_agents/max_agents, agent_profile), make a
deployment and wait until its agents run.

A deployment pins the image's digest and the secret set's current version:
the agent runs exactly those until the next deploy. Updating an agent that
exists asks first on a terminal (--skip: without; required without one); a
first deploy does not ask. An update keeps the agent's labels, and its profile
and scaling when the file has no agent_profile or [scaling]. --image REF
deploys another image than the file's.
--no-wait returns once the deployment is recorded; --dry-run prints the plan
and writes nothing.

The last line says what runs:
  agent/NAME deployed: deployment N, R/D agents ready (IMAGE@DIGEST, secret set S version V)

Exit 0 when the deployment serves, 1 when a check or the rollout failed (the
reason and the agents' last log lines, values masked), 2 for bad usage or a
broken deploy file, 3 when something it names is missing, 5 on a conflict
(the agent exists in another region, or changed meanwhile). Watch the agent
with botkit cloud agents status NAME and botkit cloud agents logs NAME -f.`,
		Example: `  botkit deploy
  botkit deploy ./my-bot --image registry.example.com/acme/my-bot:0.2
  botkit deploy --dry-run
  botkit deploy --skip --no-wait -o json`,
		Args: cmdutil.RangeArgs(0, 1, "at most one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = "."
			if len(args) == 1 {
				opts.Path = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Image, "image", "", "Deploy this image `REF` (tag or digest) instead of the deploy file's image")
	cmdutil.SkipFlag(cmd.Flags(), &opts.Skip, "Update an existing agent without confirmation")
	cmd.Flags().BoolVar(&opts.NoWait, "no-wait", false, "Return once the deployment is recorded, without waiting for its rollout")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "Print what would be deployed; write nothing")
	opts.Print.AddFlags(cmd)
	cloudutil.AddOrganizationFlag(cmd, &opts.Organization)
	return cmd
}

// newPrintFlags: no -o prints lines; -o json|yaml prints the deployment.
func newPrintFlags() *printers.Flags {
	return printers.NewFlags().WithLines().WithFormats(printers.FormatJSON, printers.FormatYAML)
}

// Run runs `botkit deploy`.
func Run(ctx context.Context, opts *Options) error {
	if opts.Print == nil {
		opts.Print = newPrintFlags()
	}
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	if err := preflight.CheckImageFlag(opts.Image); err != nil {
		return err
	}
	path, df, err := preflight.Load(ctx, opts.Path)
	if err != nil {
		return err
	}
	if opts.Image != "" {
		df.Image = opts.Image
	}
	if df.Image == "" {
		return cmdutil.FlagErrorf("%s names no image (build_id is a Pipecat Cloud build, which this platform does not run): set image in it or give --image", path)
	}
	if err := opts.CheckSkip(opts.Skip); err != nil {
		return err
	}
	c, org, err := opts.Connect(ctx)
	if err != nil {
		return err
	}
	// The agent as it stands is read while the checks run (a read: the
	// checks decide whether anything is written).
	name := df.AgentName
	type agentRead struct {
		a   resources.Agent
		err error
	}
	read := make(chan agentRead, 1)
	go func() {
		a, err := c.Agent(ctx, org, name)
		read <- agentRead{a, err}
	}()
	// A secret set or image pull secret written just before is waited
	// for: the deployment pins what they are once ready.
	report, err := preflight.Check(ctx, c, org, path, df, true)
	got := <-read
	if err != nil {
		return err
	}
	if err := checksPassed(opts.IO, report); err != nil {
		return err
	}
	want := agentOf(df, report.Metadata.Region)
	cur, err := got.a, got.err
	exists := err == nil
	if err != nil && !errors.Is(err, &resources.Error{Code: resources.CodeNotFound}) {
		return err
	}
	if exists {
		if cur.Metadata.Region != want.Metadata.Region {
			whose := "the deploy file's region"
			if df.Region == "" {
				whose = "the organization's default region: the deploy file names none"
			}
			return cmdutil.WithCode(cmdutil.ExitConflict, fmt.Errorf("%s is in region %s, not %s (%s): an agent does not move between regions; set region in %s, or delete the agent first",
				cloudutil.AgentRef(name), iostreams.Printable(cur.Metadata.Region), iostreams.Printable(want.Metadata.Region), whose, path))
		}
		// PUT replaces the labels too: keep the agent's. What the file
		// leaves out keeps its value too (a scale made by `cloud agents
		// scale`, a profile set through apply).
		want.Metadata.Labels = maps.Clone(cur.Metadata.Labels)
		if want.Spec.Profile == "" {
			want.Spec.Profile = cur.Spec.Profile
		}
		if want.Spec.Scaling == nil {
			want.Spec.Scaling = cur.Spec.Scaling
		}
	}
	changes := specChanges(cur.Spec, want.Spec, exists)
	scaling := ""
	if exists && printers.ScalingText(cur.Spec.Scaling) != printers.ScalingText(want.Spec.Scaling) {
		scaling = cloudutil.ScalingChange(cur.Spec.Scaling, want.Spec.Scaling, path)
		for i, c := range changes {
			if strings.HasPrefix(c, "scaling ") {
				changes[i] = scaling
			}
		}
	}
	if opts.DryRun {
		return dryRun(ctx, opts, c, org, cur, want, exists, changes)
	}
	if exists {
		what := "redeploy it as it is (secret set's current version)"
		if len(changes) > 0 {
			what = strings.Join(changes, "; ")
		}
		q := fmt.Sprintf("Update %s in region %s with a new deployment: %s?", cloudutil.AgentRef(name), iostreams.Printable(cur.Metadata.Region), iostreams.Printable(what))
		if err := opts.Confirm(ctx, org, q, "updating "+cloudutil.AgentRef(name)+" needs confirmation", opts.Skip); err != nil {
			return err
		}
	}
	// The agent and its deployment are one write: a deploy the platform
	// refuses (no engine for the region, say) changes nothing.
	if exists {
		want.Metadata.ResourceVersion = cur.Metadata.ResourceVersion
	}
	d, err := c.Deploy(ctx, org, name, resources.DeployRequest{Agent: &want})
	if err != nil {
		return err
	}
	if scaling != "" {
		// Said whatever the confirmation: a scale made with `cloud agents
		// scale` is set back by the file.
		fmt.Fprintf(opts.IO.ErrOut, "%s: %s\n", cloudutil.AgentRef(name), iostreams.Printable(scaling))
	}
	if !opts.NoWait {
		if d, err = cloudutil.WaitRollout(ctx, opts.IO, c, org, name, d); err != nil {
			return err
		}
	}
	if err := cloudutil.FinishRollout(ctx, opts.IO, opts.Print, c, org, name, "deployed", d); err != nil || opts.NoWait || !opts.Print.Lines() {
		return err
	}
	hint, platformURL := callHint(ctx, opts.ServingPlatform, name)
	fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", hint)
	if hint := clientHint(path, name, platformURL); hint != "" {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", hint)
	}
	return nil
}

// callHint says how to call the agent deployed: a session started with
// botkit cloud agents start, on a platform that serves sessions (the
// command that starts one when the local context has none). platformURL is
// that platform's URL, "" when unknown.
func callHint(ctx context.Context, serving func(context.Context) (*client.Client, error), name string) (hint, platformURL string) {
	start := "botkit cloud agents start " + iostreams.Printable(name)
	if serving != nil {
		c, err := serving(ctx)
		if errors.Is(err, cloudutil.ErrNoServingPlatform) {
			return "to call it, serve sessions with botkit-platform serve --local in another terminal, then start one: " + start, ""
		}
		if err == nil {
			platformURL = c.BaseURL()
		}
	}
	return "to call it, start a session: " + start, platformURL
}

// hasLine reports whether a line of example (a client's env.example)
// begins with prefix: the variable that names the agent it calls.
func hasLine(example []byte, prefix string) bool {
	for line := range bytes.Lines(example) {
		if bytes.HasPrefix(line, []byte(prefix)) {
			return true
		}
	}
	return false
}

// clientHint says how to point the project's web client at the agent
// deployed, for the React clients botkit create makes (their env.example
// names the agent's variables; VITE_ ones for the Vite client, which calls
// the platform from the browser and so needs a key for its origin); "" when
// the project of deployFile has no such client.
func clientHint(deployFile, name, platformURL string) string {
	root := filepath.Dir(deployFile)
	if filepath.Base(root) == "server" {
		root = filepath.Dir(root)
	}
	dir := filepath.Join(root, "client")
	example, err := os.ReadFile(filepath.Join(dir, "env.example"))
	if err != nil {
		return "" // no client of botkit create's: nothing to point
	}
	prefix, key := "", "botkit cloud organizations keys create --name web"
	switch {
	case hasLine(example, "VITE_AGENT_NAME="):
		prefix, key = "VITE_", key+" --allowed-origin http://localhost:5173"
	case !hasLine(example, "AGENT_NAME="):
		return ""
	}
	vars := prefix + "AGENT_NAME=" + iostreams.Printable(name)
	if platformURL != "" {
		vars += ", " + prefix + "PLATFORM_URL=" + iostreams.Printable(platformURL)
	}
	return fmt.Sprintf("to call it from the web client, set %s and %sPUBLIC_KEY (a public key: %s) in %s",
		vars, prefix, key, iostreams.Printable(filepath.Join(dir, ".env.local")))
}

// checksPassed prints the warnings of the preflight report on stderr and
// turns its failed checks into the error (exit 1), one line per check.
func checksPassed(ios *iostreams.IOStreams, report resources.PreflightReport) error {
	var failed []string
	for _, c := range report.Checks {
		switch c.Result {
		case resources.CheckWarning:
			fmt.Fprintf(ios.ErrOut, "warning: preflight %s: %s\n", c.ID, preflight.CheckLine(report, c))
		case resources.CheckFail:
			failed = append(failed, fmt.Sprintf("preflight %s: %s", c.ID, preflight.CheckLine(report, c)))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	failed = append(failed, "nothing was deployed (botkit preflight shows every check)")
	return cloudutil.FailedErr(failed) // exit 1, a line each
}

// agentOf is the Agent the deploy file describes, in region.
func agentOf(df *deployfile.File, region string) resources.Agent {
	a := resources.Agent{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindAgent},
		Metadata: resources.ObjectMeta{Name: df.AgentName, Region: region},
		Spec: resources.AgentSpec{Image: df.Image, ImagePullSecret: df.ImageCredentials, SecretSet: df.SecretSet,
			Profile: df.AgentProfile},
	}
	if df.MaxSessionDuration != nil {
		a.Spec.MaxSessionDuration = *df.MaxSessionDuration
	}
	if s := df.Scaling; s != nil {
		a.Spec.Scaling = &resources.AgentScaling{}
		if s.MinAgents != nil {
			a.Spec.Scaling.MinAgents = *s.MinAgents
		}
		if s.MaxAgents != nil {
			a.Spec.Scaling.MaxAgents = *s.MaxAgents
		}
	}
	return a
}

// specChanges says what a deploy changes in an existing agent's spec, one
// phrase per field ("image A → B"); names only.
func specChanges(cur, want resources.AgentSpec, exists bool) []string {
	if !exists {
		return nil
	}
	var out []string
	change := func(field, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %s → %s", field, cloudutil.OrNone(a), cloudutil.OrNone(b)))
		}
	}
	change("image", cur.Image, want.Image)
	change("image pull secret", cur.ImagePullSecret, want.ImagePullSecret)
	change("secret set", cur.SecretSet, want.SecretSet)
	change("scaling", printers.ScalingText(cur.Scaling), printers.ScalingText(want.Scaling))
	change("profile", cur.Profile, want.Profile)
	return out
}

// dryRun prints the plan: what happens to the Agent, and the deployment
// that would be made (its digest asked from the platform's own dry run
// when the agent exists with the same image pull secret).
func dryRun(ctx context.Context, opts *Options, c *client.Client, org string, cur, want resources.Agent, exists bool, changes []string) error {
	name := want.Metadata.Name
	op := printers.Operation{Ref: cloudutil.AgentRef(name), Action: resources.ActionCreated, DryRun: true}
	d := resources.Deployment{Number: 1, Image: want.Spec.Image, ImagePullSecret: want.Spec.ImagePullSecret, SecretSet: want.Spec.SecretSet,
		Profile: want.Spec.Profile, Source: "deploy", Result: resources.DeploymentRollingOut}
	if exists {
		op.Action, op.Detail = resources.ActionUnchanged, ""
		if len(changes) > 0 {
			op.Action, op.Detail = resources.ActionConfigured, strings.Join(changes, "; ")
		}
		if cur.Spec.ImagePullSecret == want.Spec.ImagePullSecret && cur.Spec.SecretSet == want.Spec.SecretSet {
			pd, err := c.Deploy(ctx, org, name, resources.DeployRequest{Image: want.Spec.Image, DryRun: true})
			if err != nil {
				return err
			}
			d = pd
		} else {
			ds, err := c.Deployments(ctx, org, name)
			if err != nil {
				return err
			}
			if len(ds) > 0 {
				d.Number = ds[0].Number + 1
			}
		}
	}
	if d.SecretSet != "" && d.SecretSetVersion == 0 {
		set, err := c.Get(ctx, org, d.SecretSet)
		if err != nil {
			return err
		}
		d.SecretSetVersion = set.Meta().Generation
	}
	if !opts.Print.Lines() {
		return opts.Print.PrintRows(opts.IO, nil, nil, d)
	}
	digest := ""
	if d.ImageDigest == "" {
		digest = "; its digest is resolved at deploy"
	}
	return printers.PrintOperations(opts.IO.Out, op,
		printers.Operation{Ref: cloudutil.AgentRef(name), Action: fmt.Sprintf("deployment %d", d.Number), Detail: cloudutil.RunsWith(d) + digest, DryRun: true})
}
