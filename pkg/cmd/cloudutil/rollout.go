package cloudutil

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// AgentRef is how an agent is named in lines and messages: agent/NAME.
func AgentRef(name string) string { return iostreams.Printable("agent/" + name) }

// WaitRollout waits until deployment d of agent name is no longer rolling
// out (`botkit deploy`, `cloud agents rollback`), saying so on stderr on a
// terminal, and returns it as it ended.
func WaitRollout(ctx context.Context, ios *iostreams.IOStreams, c *client.Client, org, name string, d resources.Deployment) (resources.Deployment, error) {
	if d.Result != resources.DeploymentRollingOut {
		return d, nil
	}
	wctx, cancel := context.WithTimeout(ctx, RolloutWait)
	defer cancel()
	got, err := waitRollout(wctx, ios, c, org, name, d)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return got, fmt.Errorf("gave up after %s waiting for deployment %d of %s to roll out (the platform goes on with it): botkit cloud agents status %s",
			RolloutWait, d.Number, AgentRef(name), iostreams.Printable(name))
	}
	return got, err
}

// RolloutWait bounds a command's wait for a rollout: the platform fails a
// rollout whose agents are not ready within 15 minutes.
const RolloutWait = 16 * time.Minute

func waitRollout(ctx context.Context, ios *iostreams.IOStreams, c *client.Client, org, name string, d resources.Deployment) (resources.Deployment, error) {
	if !ios.ShowProgress() {
		// An interrupt stops the wait (exit 130, quietly, as every
		// command), not the rollout: the platform goes on with it.
		return c.WaitRollout(ctx, org, name, d.Number, nil)
	}
	fmt.Fprintf(ios.ErrOut, "Rolling out deployment %d of %s (%s)...\n", d.Number, AgentRef(name), iostreams.Printable(ImageAt(d)))
	// On a terminal, the agent's rollout line ("deployment N is rolling
	// out: R of D agents ready") each time it changes, looked at once a
	// second at most (as kubectl rollout status prints its lines).
	var last string
	var next time.Time
	return c.WaitRollout(ctx, org, name, d.Number, func(d resources.Deployment) {
		if d.Result != resources.DeploymentRollingOut || time.Now().Before(next) {
			return
		}
		next = time.Now().Add(rolloutLineEvery)
		a, err := c.Agent(ctx, org, name)
		if err != nil || a.Status.Rollout != d.Number || a.Status.Message == last {
			return // the next look tells; the wait's own error is the news
		}
		last = a.Status.Message
		fmt.Fprintln(ios.ErrOut, iostreams.Printable(last))
	})
}

// rolloutLineEvery bounds how often WaitRollout asks for the agent's
// rollout line on a terminal (each ask is one request).
const rolloutLineEvery = time.Second

// ImageAt is IMAGE@DIGEST of a deployment: the image's repository pinned
// by the digest it resolved to (the reference as given when the digest is
// not known yet). The platform's imageDigest may be the digest alone or
// already pinned (REPOSITORY@DIGEST).
func ImageAt(d resources.Deployment) string {
	switch {
	case d.ImageDigest == "":
		return d.Image
	case strings.Contains(d.ImageDigest, "@"):
		return d.ImageDigest
	}
	return Repository(d.Image) + "@" + d.ImageDigest
}

// Repository is an image reference without its tag or digest.
func Repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	return image
}

// RunsWith is what a deployment runs: "IMAGE@DIGEST, secret set S version
// V" (", no secret set" without one).
func RunsWith(d resources.Deployment) string {
	s := ImageAt(d)
	if d.SecretSet == "" {
		return s + ", no secret set"
	}
	return fmt.Sprintf("%s, secret set %s version %d", s, d.SecretSet, d.SecretSetVersion)
}

// RolloutFailed is the error of a deployment that ended failed: exit 1,
// "agent/NAME: deployment N failed: REASON; deployment S still serves",
// then the agents' last log lines the platform sent (values masked by it)
// as details. serving is the agent's serving deployment (0: none).
func RolloutFailed(name string, d resources.Deployment, serving int64) error {
	lines := strings.Split(strings.TrimRight(d.Message, "\n"), "\n")
	reason := lines[0]
	if reason == "" {
		reason = "no reason given"
	}
	var details []string
	for _, l := range lines[1:] {
		details = append(details, "  "+iostreams.Printable(l))
	}
	still := "no deployment serves"
	if serving > 0 {
		still = fmt.Sprintf("deployment %d still serves", serving)
	}
	return cmdutil.WithDetails(cmdutil.ExitError, errors.New(iostreams.Printable(fmt.Sprintf(
		"%s: deployment %d failed: %s; %s", AgentRef(name), d.Number, reason, still))), details)
}

// RolloutDone finishes a deploy or rollback: a failed deployment is
// RolloutFailed; one that serves returns its line, "agent/NAME VERB:
// deployment N, R/D agents ready (IMAGE@DIGEST, secret set S version V)",
// with the agent as it is now. A deployment still rolling out (--no-wait)
// reads "agent/NAME VERB: deployment N rolling out (...)".
func RolloutDone(ctx context.Context, c *client.Client, org, name, verb string, d resources.Deployment) (string, resources.Agent, error) {
	switch d.Result {
	case resources.DeploymentFailed:
		a, err := c.Agent(ctx, org, name)
		if err != nil {
			return "", a, err
		}
		var serving int64
		if a.Status != nil {
			serving = a.Status.Deployment
		}
		return "", a, RolloutFailed(name, d, serving)
	case resources.DeploymentRollingOut:
		return fmt.Sprintf("%s %s: %s rolling out (%s)", AgentRef(name), verb, deploymentName(d), iostreams.Printable(RunsWith(d))), resources.Agent{}, nil
	case resources.DeploymentSuperseded:
		if d.Message != "" { // superseded before it served
			return "", resources.Agent{}, cmdutil.WithCode(cmdutil.ExitConflict, errors.New(iostreams.Printable(fmt.Sprintf(
				"%s: deployment %d was %s", AgentRef(name), d.Number, d.Message))))
		}
	}
	a, err := c.Agent(ctx, org, name)
	if err != nil {
		return "", a, err
	}
	var counts resources.AgentCounts
	if a.Status != nil {
		counts = a.Status.Agents
	}
	return fmt.Sprintf("%s %s: %s, %d/%d agents ready (%s)", AgentRef(name), verb, deploymentName(d), counts.Ready, counts.Desired, iostreams.Printable(RunsWith(d))), a, nil
}

// deploymentName names d in a rollout's last line: "deployment 5", and for
// a rollback the deployment it copied, "deployment 5 (a copy of deployment
// 3)".
func deploymentName(d resources.Deployment) string {
	if d.RollbackOf > 0 {
		return fmt.Sprintf("deployment %d (a copy of deployment %d)", d.Number, d.RollbackOf)
	}
	return fmt.Sprintf("deployment %d", d.Number)
}

// FinishRollout prints the outcome of deployment d of agent name (`botkit
// deploy`, `cloud agents rollback`): -o prints the deployment, else its
// line (RolloutDone; after a note when the agent scaled to zero). A failed
// deployment is exit 1, after -o printed it.
func FinishRollout(ctx context.Context, ios *iostreams.IOStreams, p *printers.Flags, c *client.Client, org, name, verb string, d resources.Deployment) error {
	line, a, err := RolloutDone(ctx, c, org, name, verb, d)
	if !p.Lines() {
		if perr := p.PrintRows(ios, nil, nil, d); perr != nil {
			return perr
		}
		return err
	}
	if err != nil {
		return err
	}
	if a.Status != nil && d.Result == resources.DeploymentServing && a.Status.Agents.Desired == 0 {
		fmt.Fprintf(ios.ErrOut, "note: %s wants 0 agents (min_agents 0): its image booted, then it scaled to zero; each session starts an agent and waits for it to boot (botkit cloud agents scale %s --min 1 keeps one warm)\n",
			AgentRef(name), iostreams.Printable(name))
	}
	_, err = fmt.Fprintln(ios.Out, line)
	return err
}
