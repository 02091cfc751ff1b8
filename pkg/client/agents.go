package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// The agents' API (docs/deploy.md): /v1/organizations/{org}/agents/...

// Agents lists the organization's agents (of one region when region is
// not "").
func (c *Client) Agents(ctx context.Context, org, region string) ([]resources.Agent, error) {
	q := url.Values{}
	if region != "" {
		q.Set("region", region)
	}
	var l resources.AgentList
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents"), q, nil, nil, &l)
	return l.Items, err
}

// Agent returns one agent with its status.
func (c *Client) Agent(ctx context.Context, org, name string) (resources.Agent, error) {
	var a resources.Agent
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name), nil, nil, nil, &a)
	return a, err
}

// PutAgent creates the agent or replaces its spec and labels (no
// deployment is made: Deploy makes one). ifMatch as in Replace. created
// reports whether the agent was created.
func (c *Client) PutAgent(ctx context.Context, org string, a resources.Agent, ifMatch string) (out resources.Agent, created bool, err error) {
	body, err := json.Marshal(a)
	if err != nil {
		return out, false, fmt.Errorf("encoding agent %s: %w", a.Metadata.Name, err)
	}
	h := http.Header{}
	if ifMatch != "" {
		h.Set("If-Match", ifMatch)
	}
	status, err := c.do(ctx, http.MethodPut, orgPath(org, "agents", a.Metadata.Name), nil, h, body, &out)
	return out, status == http.StatusCreated, err
}

// PatchAgent changes an agent's scaling or labels without a deployment
// (`cloud agents scale`). Never retried.
func (c *Client) PatchAgent(ctx context.Context, org, name string, p resources.AgentPatch) (resources.Agent, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return resources.Agent{}, fmt.Errorf("encoding the change of agent %s: %w", name, err)
	}
	var a resources.Agent
	_, err = c.do(ctx, http.MethodPatch, orgPath(org, "agents", name), nil, nil, body, &a)
	return a, err
}

// DeleteAgent stops and removes every agent (container) of name and the
// Agent, and returns it as it was.
func (c *Client) DeleteAgent(ctx context.Context, org, name string) (resources.Agent, error) {
	var a resources.Agent
	_, err := c.do(ctx, http.MethodDelete, orgPath(org, "agents", name), nil, nil, nil, &a)
	return a, err
}

// Deploy makes a deployment of the agent's spec (POST
// .../agents/{name}/deployments) and returns it once recorded (its rollout
// goes on: WaitRollout waits for it). Never retried.
func (c *Client) Deploy(ctx context.Context, org, name string, req resources.DeployRequest) (resources.Deployment, error) {
	var d resources.Deployment
	err := c.post(ctx, orgPath(org, "agents", name, "deployments"), req, &d)
	return d, err
}

// Deployments lists the agent's deployments, newest first.
func (c *Client) Deployments(ctx context.Context, org, name string) ([]resources.Deployment, error) {
	var l resources.DeploymentList
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name, "deployments"), nil, nil, nil, &l)
	return l.Items, err
}

// Deployment returns one deployment of the agent.
func (c *Client) Deployment(ctx context.Context, org, name string, number int64) (resources.Deployment, error) {
	var d resources.Deployment
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name, "deployments", strconv.FormatInt(number, 10)), nil, nil, nil, &d)
	return d, err
}

// AgentStatus returns the agent, its latest deployment and every agent
// (container) running for it.
func (c *Client) AgentStatus(ctx context.Context, org, name string) (resources.AgentStatusReport, error) {
	var r resources.AgentStatusReport
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name, "status"), nil, nil, nil, &r)
	return r, err
}

// RollbackAgent makes a new deployment with an earlier deployment's image
// digest and secret set version. Never retried.
func (c *Client) RollbackAgent(ctx context.Context, org, name string, req resources.RollbackRequest) (resources.Deployment, error) {
	var d resources.Deployment
	err := c.post(ctx, orgPath(org, "agents", name, "rollback"), req, &d)
	return d, err
}

// RestartAgent restarts every agent of the serving deployment.
func (c *Client) RestartAgent(ctx context.Context, org, name string) (resources.Agent, error) {
	var a resources.Agent
	err := c.post(ctx, orgPath(org, "agents", name, "restart"), struct{}{}, &a)
	return a, err
}

// WaitRollout polls deployment number of the agent until its result is no
// longer rolling-out (or ctx ends) and returns it. Each poll is a GET: it
// only reads (the platform's controller moves the rollout). progress, when
// not nil, is called with the agent after each poll (a terminal shows it).
func (c *Client) WaitRollout(ctx context.Context, org, name string, number int64, progress func(resources.Deployment)) (resources.Deployment, error) {
	delay := 50 * time.Millisecond
	for {
		d, err := c.Deployment(ctx, org, name, number)
		if err != nil {
			return d, err
		}
		if progress != nil {
			progress(d)
		}
		if d.Result != resources.DeploymentRollingOut {
			return d, nil
		}
		most := maxRolloutPoll
		if c.inProcess != nil {
			most = maxRolloutPollInProcess
		}
		if err := pauseUpTo(ctx, &delay, most); err != nil {
			return d, err
		}
	}
}

// maxRolloutPoll caps the pause between two looks at a rollout: a rollout
// ends a settle time after its agents started, and a user waits for the
// look that sees it. An in-process platform (the embedded one) is looked
// at more often: a look costs no network.
const (
	maxRolloutPoll          = 250 * time.Millisecond
	maxRolloutPollInProcess = 50 * time.Millisecond
)

// LogOptions choose the log lines of AgentLogs.
type LogOptions struct {
	Follow bool
	// Since: lines written this long ago or later (0: all).
	Since time.Duration
	// Tail: the last Tail lines of each agent (0: all).
	Tail int
	// Session: only the lines of that session's agent ("": every agent).
	Session string
}

// AgentLogs streams the agents' log lines (GET .../agents/{name}/logs, JSON
// lines) to fn until the stream ends, ctx ends or fn returns an error.
// Values of the agent's secret set arrive masked: the platform masks them.
func (c *Client) AgentLogs(ctx context.Context, org, name string, opts LogOptions, fn func(resources.AgentLogLine) error) error {
	u := *c.base
	p := orgPath(org, "agents", name, "logs")
	u.Path = c.base.Path + p
	u.RawPath = c.base.Path + p
	q := url.Values{}
	if opts.Follow {
		q.Set("follow", "true")
	}
	if opts.Since > 0 {
		q.Set("since", opts.Since.String())
	}
	if opts.Tail > 0 {
		q.Set("tail", strconv.Itoa(opts.Tail))
	}
	if opts.Session != "" {
		q.Set("session", opts.Session)
	}
	u.RawQuery = q.Encode()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !opts.Follow {
		var tcancel context.CancelFunc
		rctx, tcancel = context.WithTimeout(rctx, c.timeout)
		defer tcancel()
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("building the request to %s: %w", c.host, err)
	}
	req.Header.Set("User-Agent", c.ua)
	req.Header.Set("Accept", "application/x-ndjson")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.netErr(ctx, rctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := readLimited(resp)
		return c.apiError(resp, data)
	}
	// One JSON value after another, whatever a line's length (a line of
	// several MiB is one log line, not an error).
	dec := json.NewDecoder(resp.Body)
	for {
		var l resources.AgentLogLine
		err := dec.Decode(&l)
		if err == io.EOF {
			return nil
		}
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return &resources.Error{Code: resources.CodeInternal,
				Message: fmt.Sprintf("the platform at %s sent a log line that is not the API's JSON (%s)", c.host, describeJSONError(err))}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return c.netErr(ctx, rctx, err)
		}
		if err := fn(l); err != nil {
			return err
		}
	}
}

// readLimited reads an error answer's body, at most MaxResponseBytes.
func readLimited(resp *http.Response) ([]byte, error) {
	return io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
}
