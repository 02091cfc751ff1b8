package printers

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Agents and their deployments (docs/deploy.md) print as rows: table and wide
// through the object tables' layout, json and yaml as the API's objects in
// their fields' order, name as agent/NAME.

// Column headers of agents and deployments.
var (
	AgentHeader          = []string{"NAME", "REGION", "STATE", "AGENTS", "DEPLOYMENT", "IMAGE", "AGE"}
	AgentWideHeader      = append(slices.Clone(AgentHeader), "SESSIONS", "ORGANIZATION", "PROFILE", "SECRET SET", "IMAGE PULL SECRET", "DIGEST", "LABELS", "MESSAGE")
	DeploymentHeader     = []string{"DEPLOYMENT", "AGE", "ACTOR", "SOURCE", "TAG", "IMAGE DIGEST", "SECRET SET VERSION", "RESULT"}
	DeploymentWideHeader = append(slices.Clone(DeploymentHeader), "IMAGE", "SECRET SET", "PROFILE", "ROLLBACK OF", "MESSAGE")
	RunningAgentHeader   = []string{"AGENT", "CONTAINER", "DEPLOYMENT", "STATE", "HEALTH", "RESTARTS", "STARTED", "LAST EXIT"}
)

// AgentName is how -o name prints an agent: agent/NAME.
func AgentName(name string) string { return strings.ToLower(resources.KindAgent) + "/" + name }

// AgentRow returns the cells of an agent's row (wide: the wide columns too).
func AgentRow(a resources.Agent, now time.Time, wide bool) []string {
	st := a.Status
	if st == nil {
		st = &resources.AgentStatus{}
	}
	stateCell := st.State
	if stateCell == "" {
		stateCell = unknown
	}
	deployment := notApplicable
	if st.Deployment > 0 {
		deployment = strconv.FormatInt(st.Deployment, 10)
	}
	if st.Rollout > 0 {
		deployment += fmt.Sprintf(" (%d rolling out)", st.Rollout)
	}
	r := []string{a.Metadata.Name, a.Metadata.Region, stateCell, fmt.Sprintf("%d/%d", st.Agents.Ready, st.Agents.Desired),
		deployment, runningImage(a), Age(a.Metadata.CreationTimestamp, now)}
	if wide {
		r = append(r, sessionsCell(st), a.Metadata.Organization, a.Spec.Profile, a.Spec.SecretSet, a.Spec.ImagePullSecret, Digest(st.ImageDigest),
			formatLabels(a.Metadata.Labels), firstLine(st.Message))
	}
	for i := range r {
		r[i] = cell(r[i])
	}
	return r
}

// runningImage is the image an agent runs: its serving deployment's, else
// (nothing serves) the spec's.
func runningImage(a resources.Agent) string {
	if st := a.Status; st != nil && st.Image != "" {
		return st.Image
	}
	return a.Spec.Image
}

// imageCell is the image an agent runs, and the spec's when the next
// deployment runs another.
func imageCell(a resources.Agent) string {
	run := runningImage(a)
	if run != a.Spec.Image {
		return run + " (spec: " + a.Spec.Image + ")"
	}
	return run
}

// DeploymentRow returns the cells of a deployment's row.
func DeploymentRow(d resources.Deployment, now time.Time, wide bool) []string {
	version := notApplicable
	if d.SecretSet != "" {
		version = strconv.FormatInt(d.SecretSetVersion, 10)
	}
	r := []string{strconv.FormatInt(d.Number, 10), Age(&d.At, now), d.Actor, d.Source, ImageTag(d.Image), Digest(d.ImageDigest), version, d.Result}
	if wide {
		rollbackOf := notApplicable
		if d.RollbackOf > 0 {
			rollbackOf = strconv.FormatInt(d.RollbackOf, 10)
		}
		r = append(r, d.Image, d.SecretSet, d.Profile, rollbackOf, firstLine(d.Message))
	}
	for i := range r {
		r[i] = cell(r[i])
	}
	return r
}

// ImageTag is the tag of an image reference as given: "latest" when it
// names neither a tag nor a digest (what Docker pulls), "-" when it names
// a digest only or does not parse.
func ImageTag(image string) string {
	r, err := resources.ParseImageRef(image)
	switch {
	case err != nil:
		return notApplicable
	case r.Tag != "":
		return r.Tag
	case r.Digest != "":
		return notApplicable
	}
	return "latest"
}

// RunningAgentRow returns the cells of a running agent (container).
func RunningAgentRow(r resources.RunningAgent, now time.Time) []string {
	id := r.ID
	if len(id) > 12 {
		id = id[:12]
	}
	started := unknown
	if !r.StartedAt.IsZero() {
		started = Age(&r.StartedAt, now) + " ago"
	}
	lastExit := r.LastExit
	if lastExit == "" {
		lastExit = notApplicable
	}
	out := []string{r.Name, id, strconv.FormatInt(r.Deployment, 10), r.State, r.Health, strconv.Itoa(r.Restarts), started, lastExit}
	for i := range out {
		out[i] = cell(out[i])
	}
	return out
}

// Digest is the digest of an image digest as the platform gives it
// (sha256:..., or REPOSITORY@sha256:...).
func Digest(s string) string { return resources.DigestOf(s) }

// firstLine is the first line of a message (a failure's reason; its log
// lines are for the detail views).
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// PrintAgents prints agents as a list: rows (table, wide), agent/NAME per
// line (name), or a List (json, yaml, --jq, templates).
func (f *Flags) PrintAgents(ios *iostreams.IOStreams, agents []resources.Agent) error {
	l := resources.AgentList{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindList}, Items: agents}
	if l.Items == nil {
		l.Items = []resources.Agent{}
	}
	now := f.clock()
	header, wide := AgentHeader, f.Output == FormatWide
	if wide {
		header = AgentWideHeader
	}
	rows := make([][]string, 0, len(agents))
	for _, a := range agents {
		if f.Output == FormatName {
			rows = append(rows, []string{AgentName(a.Metadata.Name)})
			continue
		}
		rows = append(rows, AgentRow(a, now, wide))
	}
	return f.PrintRows(ios, header, rows, l)
}

// PrintDeployments prints an agent's deployments, newest first.
func (f *Flags) PrintDeployments(ios *iostreams.IOStreams, ds []resources.Deployment) error {
	l := resources.DeploymentList{Items: ds}
	if l.Items == nil {
		l.Items = []resources.Deployment{}
	}
	now := f.clock()
	header, wide := DeploymentHeader, f.Output == FormatWide
	if wide {
		header = DeploymentWideHeader
	}
	rows := make([][]string, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, DeploymentRow(d, now, wide))
	}
	return f.PrintRows(ios, header, rows, l)
}

// PrintAgentStatus prints an agent's status report: in table and wide a
// detail view (the agent, its serving and latest deployments, the drift
// line, then a row per running agent); otherwise the report itself.
func (f *Flags) PrintAgentStatus(ios *iostreams.IOStreams, r resources.AgentStatusReport) error {
	if !f.IsTable() {
		return f.PrintRows(ios, nil, nil, r)
	}
	now := f.clock()
	a := r.Agent
	st := a.Status
	if st == nil {
		st = &resources.AgentStatus{}
	}
	fields := [][]string{
		{"Name:", a.Metadata.Name},
		{"Organization:", a.Metadata.Organization},
		{"Region:", a.Metadata.Region},
		{"Labels:", formatLabels(a.Metadata.Labels)},
		{"State:", st.State},
		{"Agents:", agentsCell(st)},
		{"Image:", imageCell(a)},
		{"Image pull secret:", a.Spec.ImagePullSecret},
		{"Secret set:", a.Spec.SecretSet},
		{"Profile:", a.Spec.Profile},
		{"Scaling:", scalingCell(a.Spec.Scaling)},
	}
	serving := notApplicable
	if st.Deployment > 0 {
		serving = strconv.FormatInt(st.Deployment, 10)
		if st.ImageDigest != "" {
			serving += " (digest " + Digest(st.ImageDigest)
			if st.SecretSetVersion > 0 {
				serving += fmt.Sprintf(", secret set version %d", st.SecretSetVersion)
			}
			serving += ")"
		}
	}
	fields = append(fields, []string{"Serving deployment:", serving})
	if d := r.Deployment; d != nil && d.Number != st.Deployment {
		latest := fmt.Sprintf("%d %s, %s ago by %s", d.Number, d.Result, Age(&d.At, now), d.Actor)
		if d.Message != "" {
			latest += ": " + firstLine(d.Message)
		}
		fields = append(fields, []string{"Latest deployment:", latest})
	}
	if st.Message != "" {
		fields = append(fields, []string{"Message:", firstLine(st.Message)})
	}
	if st.Drift != "" {
		fields = append(fields, []string{"Drift:", st.Drift})
	}
	fields = append(fields, []string{"Age:", Age(a.Metadata.CreationTimestamp, now)})
	var b bytes.Buffer
	if err := writeTable(&b, nil, cleanRows(fields)); err != nil {
		return err
	}
	b.WriteString("\n")
	if len(r.Running) == 0 {
		b.WriteString("No agents running\n")
	} else {
		rows := make([][]string, 0, len(r.Running))
		for _, ra := range r.Running {
			rows = append(rows, RunningAgentRow(ra, now))
		}
		if err := writeTable(&b, RunningAgentHeader, rows); err != nil {
			return err
		}
	}
	// The reason's log lines (masked by the platform), as the platform
	// sent them.
	if d := r.Deployment; d != nil && d.Result == resources.DeploymentFailed {
		if _, logs, ok := strings.Cut(strings.TrimRight(d.Message, "\n"), "\n"); ok {
			// The platform's own heading of the lines is this one's.
			logs = strings.TrimPrefix(strings.TrimPrefix(logs, resources.LastLogLines), "\n")
			fmt.Fprintf(&b, "\nDeployment %d's last log lines:\n", d.Number)
			for _, l := range strings.Split(logs, "\n") {
				b.WriteString("  " + iostreams.Printable(l) + "\n")
			}
		}
	}
	_, err := ios.Out.Write(b.Bytes())
	return err
}

func scalingCell(s *resources.AgentScaling) string {
	if s == nil {
		return "default"
	}
	return ScalingText(s)
}

// ScalingText is "min N, max M" ("min N, no max"; "" without scaling).
func ScalingText(s *resources.AgentScaling) string {
	if s == nil {
		return ""
	}
	if s.MaxAgents == 0 {
		return fmt.Sprintf("min %d, no max", s.MinAgents)
	}
	return fmt.Sprintf("min %d, max %d", s.MinAgents, s.MaxAgents)
}

func (f *Flags) clock() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}
