// Package preflight is `botkit preflight`: before a deploy, it checks the
// project's deploy file and everything it names on the platform (the
// secret set and its keys, the image pull secret, the image in its
// registry) and reports every problem at once. Nothing is written.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/deployfile"
	"github.com/botkit-dev/botkit/pkg/dotenv"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Options are the inputs of `botkit preflight`.
type Options struct {
	IO *iostreams.IOStreams
	// APIClient returns the client of the configured platform.
	APIClient func(ctx context.Context) (*client.Client, error)
	// ResolveOrg turns --organization into the organization to act in.
	ResolveOrg   func(ctx context.Context, flag string) (string, error)
	Organization string
	Path         string // PATH: a project directory or the deploy file
	Wait         bool   // wait for a pending secret set or image pull secret
	Image        string // --image: check this image instead of the deploy file's
	Print        *printers.Flags
}

// The deploy file's names, looked for in a project directory, in order.
var deployFiles = []string{filepath.Join("server", "cloud-deploy.toml"), "cloud-deploy.toml"}

// maxFileBytes bounds the deploy file and .env.example.
const maxFileBytes = 1 << 20

// ErrFailed ends a preflight with a failed check: exit 1, the report said
// it all.
var ErrFailed error = cmdutil.SilentError{Code: cmdutil.ExitError}

// CmdSummary is what `botkit --help` lists of `botkit preflight`: the command's Use and
// Short, and the root's stand-in for it until the arguments reach it.
var CmdSummary = cmdutil.Summary{
	Use:   "preflight [PATH]",
	Short: "Check a project's deploy before deploying it",
}

// NewCmdPreflight returns `botkit preflight`.
func NewCmdPreflight(f *cloudutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, APIClient: f.APIClient, ResolveOrg: f.Organization,
		Print: printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   CmdSummary.Use,
		Short: CmdSummary.Short,
		Long: `Check everything a deploy of the project needs, before deploying: the deploy
file (server/cloud-deploy.toml, else cloud-deploy.toml, under PATH, default .;
or PATH itself) and what it names on the platform:

  deploy-file, agent-name, image-reference, scaling, ...   the file's keys and values
  region              the region the agent deploys to (default: the organization's)
  secret-set          exists, in that region, ready
  secret-set-keys     holds every key of .env.example (commented keys, and those
                      under "# Local run only", are optional),
                      none of the required ones empty; values are never read
  image-pull-secret   exists, in that region, ready, for the image's registry
  image               the registry has the image: the platform asks it with the pull
                      secret's credentials, which never reach this machine
  image-platform      the image is built for the platform of the region's engine
                      (linux/arm64, what Pipecat Cloud runs, where the region has none)

Every check runs and every problem is reported at once; nothing is written.
Exit 0 when no check failed (warnings allowed), 1 when one failed, 2 for a
broken deploy file (each problem at file:line) or bad usage. -o json|yaml
prints a PreflightReport with one entry per check (stable ids) for scripts.`,
		Example: `  botkit preflight
  botkit preflight ./my-bot --wait
  botkit preflight --image ghcr.io/acme/bot:2
  botkit preflight server/cloud-deploy.toml -o json | jq -r '.checks[] | select(.result != "ok") | .id'`,
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
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "Wait for a pending secret set or image pull secret before checking")
	cmd.Flags().StringVar(&opts.Image, "image", "", "Check this image `REF` (tag or digest) instead of the deploy file's image, as deploy --image deploys it")
	opts.Print.AddFlags(cmd)
	cloudutil.AddOrganizationFlag(cmd, &opts.Organization)
	return cmd
}

// Run runs `botkit preflight`.
func Run(ctx context.Context, opts *Options) error {
	if err := opts.Print.Validate(); err != nil {
		return err
	}
	if err := CheckImageFlag(opts.Image); err != nil {
		return err
	}
	path, df, err := Load(ctx, opts.Path)
	if err != nil {
		return err
	}
	if opts.Image != "" {
		df.Image = opts.Image
	}
	c, org, err := connect(ctx, opts)
	if err != nil {
		return err
	}
	report, err := Check(ctx, c, org, path, df, opts.Wait)
	if err != nil {
		return err
	}
	if err := printReport(opts, report); err != nil {
		return err
	}
	if report.Result == resources.CheckFail {
		return ErrFailed
	}
	return nil
}

// CheckImageFlag checks --image (of preflight and deploy) before anything
// is read: empty (the deploy file's image) or one word.
func CheckImageFlag(image string) error {
	if image != "" && (strings.TrimSpace(image) != image || strings.ContainsAny(image, " \t\n")) {
		return cmdutil.FlagErrorf("--image %q: not an image reference", image)
	}
	return nil
}

// Load finds the deploy file PATH names (a project directory or the file
// itself) and parses it: a broken file is every problem at file:line, exit
// 2. It returns the file's path and contents. `botkit deploy` loads its
// file through it too.
func Load(ctx context.Context, pathArg string) (string, *deployfile.File, error) {
	path, err := findDeployFile(pathArg)
	if err != nil {
		return "", nil, err
	}
	data, err := ctxio.ReadFile(ctx, path, maxFileBytes)
	if err != nil {
		if ctx.Err() != nil {
			return "", nil, err
		}
		return "", nil, cmdutil.FlagErrorf("%s: %v", path, err)
	}
	df, err := deployfile.Parse(path, data)
	if err != nil {
		return "", nil, err // a broken file: every problem at file:line, exit 2
	}
	return path, df, nil
}

// Check runs every check of the deploy file df (read from path) in org:
// the file's own, then the platform's (with wait, after waiting for a
// pending secret set or image pull secret). The report's result is fail
// when one check failed; `botkit deploy` runs it before anything is
// written.
func Check(ctx context.Context, c *client.Client, org, path string, df *deployfile.File, wait bool) (resources.PreflightReport, error) {
	// One result per check id: the file's checks and the platform's go
	// through resources.AddCheck.
	var checks []resources.PreflightCheck
	add := func(c resources.PreflightCheck) { checks = resources.AddCheck(checks, c) }
	add(resources.PreflightCheck{ID: "deploy-file", Result: resources.CheckOK, Detail: path})
	local := localChecks(df)
	for _, c := range local {
		add(c)
	}
	required, optional, envCheck := envKeys(ctx, path)
	add(envCheck)

	failed := func(id string) bool {
		return slices.ContainsFunc(local, func(c resources.PreflightCheck) bool { return c.ID == id && c.Result == resources.CheckFail })
	}
	// The platform is asked only about what the file names validly (the
	// file's failures are said above).
	req := resources.PreflightRequest{Region: df.Region, SecretSet: df.SecretSet, RequiredKeys: required, OptionalKeys: optional,
		ImagePullSecret: df.ImageCredentials, Image: df.Image}
	regionFailed := failed("region")
	if regionFailed {
		req.Region = ""
	}
	if failed("secret-set") {
		req.SecretSet, req.RequiredKeys, req.OptionalKeys = "", nil, nil
	}
	if failed("image-pull-secret") {
		req.ImagePullSecret = ""
	}
	if wait {
		if err := waitPending(ctx, c, org, req.SecretSet, req.ImagePullSecret); err != nil {
			return resources.PreflightReport{}, err
		}
	}
	res, err := c.Preflight(ctx, org, req)
	if err != nil {
		return resources.PreflightReport{}, err
	}
	for _, rc := range res.Checks {
		rc.Line = lineOf(df, rc.ID)
		switch {
		case rc.ID == "region" && regionFailed:
			continue // the file's region is wrong: said above
		case regionFailed && rc.Result != resources.CheckFail && (rc.ID == "secret-set" && req.SecretSet != "" || rc.ID == "image-pull-secret" && req.ImagePullSecret != ""):
			// Found in the organization's default region, which is not
			// where the file deploys: not a pass.
			rc.Result = resources.CheckFail
			rc.Detail = fmt.Sprintf("the deploy file's region is not valid: fix region, then check again (%s)", rc.Detail)
		case rc.ID == "secret-set-keys" && envCheck.Result != resources.CheckOK:
			rc.Result = resources.CheckWarning
			rc.Detail = "not checked: " + envCheck.Detail
		case rc.ID == "secret-set" && req.SecretSet == "" && envCheck.Result != resources.CheckOK:
			rc.Detail = "none named; the project's keys are unchecked (" + envCheck.Detail + ")"
		case rc.ID == "image" && df.Image == "" && df.BuildID == "":
			rc.Result = resources.CheckFail
			rc.Detail = "not checked: the deploy file names no image (and no build_id)"
			rc.Line = 0
		}
		add(rc)
	}
	return resources.PreflightReport{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindPreflightReport},
		Metadata: resources.PreflightMeta{File: path, Organization: org, Region: res.Region},
		Result:   resources.WorstResult(checks), Checks: checks,
	}, nil
}

// CheckLine is how a check reads on one line: its detail, after the deploy
// file's file:line when it is about one.
func CheckLine(report resources.PreflightReport, c resources.PreflightCheck) string {
	detail := c.Detail
	if c.Line > 0 {
		detail = fmt.Sprintf("%s:%d: %s", report.Metadata.File, c.Line, detail)
	}
	return iostreams.Printable(detail)
}

func printReport(opts *Options, report resources.PreflightReport) error {
	rows := make([][]string, 0, len(report.Checks))
	for _, c := range report.Checks {
		rows = append(rows, []string{c.ID, c.Result, CheckLine(report, c)})
	}
	return opts.Print.PrintRows(opts.IO, []string{"CHECK", "RESULT", "DETAIL"}, rows, report)
}

// findDeployFile returns the deploy file PATH names: PATH itself when it is
// a file, else the first of deployFiles under it.
func findDeployFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", cmdutil.FlagErrorf("PATH %s: %v", path, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return path, nil
	}
	for _, name := range deployFiles {
		p := filepath.Join(path, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", cmdutil.FlagErrorf("no deploy file in %s (looked for %s): give the project directory or the file", path, strings.Join(deployFiles, ", "))
}

// localChecks turns the deploy file's findings into checks: one row per
// check id, ok when it has no finding.
func localChecks(df *deployfile.File) []resources.PreflightCheck {
	findings := df.Check()
	var out []resources.PreflightCheck
	seen := map[string]bool{}
	for _, f := range findings {
		seen[f.Check] = true
		result := resources.CheckFail
		if f.Severity == deployfile.Warning {
			result = resources.CheckWarning
		}
		out = append(out, resources.PreflightCheck{ID: f.Check, Result: result, Line: f.Line, Detail: f.Key + ": " + f.Message})
	}
	ok := func(id string, line int, format string, args ...any) {
		if !seen[id] {
			out = append(out, resources.PreflightCheck{ID: id, Result: resources.CheckOK, Line: line, Detail: fmt.Sprintf(format, args...)})
		}
	}
	ok("agent-name", df.Line("agent_name"), "%s", df.AgentName)
	if df.Image != "" {
		ok("image-reference", df.Line("image"), "%s", df.Image)
	} else {
		ok("image-reference", df.Line("build_id"), "built by Pipecat Cloud (build_id %s)", df.BuildID)
	}
	if s := df.Scaling; s != nil {
		minA, maxA := 0, "no maximum"
		if s.MinAgents != nil {
			minA = *s.MinAgents
		}
		if s.MaxAgents != nil {
			maxA = fmt.Sprint(*s.MaxAgents)
		}
		ok("scaling", df.Line("scaling"), "%d to %s agents", minA, maxA)
	}
	if df.MaxSessionDuration != nil {
		ok("session", df.Line("max_session_duration"), "at most %d s", *df.MaxSessionDuration)
	}
	if df.KrispViva != nil {
		ok("krisp", df.Line("krisp_viva"), "audio filter %s", df.KrispViva.AudioFilter)
	}
	// Keep the file's order: the checks of lines first, by line.
	slices.SortStableFunc(out, func(a, b resources.PreflightCheck) int { return a.Line - b.Line })
	return out
}

var optionalKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*#\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=`) })

// envKeys reads the keys the project needs from .env.example beside the
// deploy file (else in the project's server/): its KEY= lines are
// required, its commented "# KEY=" lines optional.
func envKeys(ctx context.Context, deployFile string) (required, optional []string, check resources.PreflightCheck) {
	dir := filepath.Dir(deployFile)
	candidates := []string{filepath.Join(dir, ".env.example"), filepath.Join(dir, "server", ".env.example")}
	for _, p := range candidates {
		data, err := ctxio.ReadFile(ctx, p, maxFileBytes)
		if err != nil {
			continue
		}
		pairs, dups, err := dotenv.ParseBytesDuplicates(p, data)
		if err != nil {
			return nil, nil, resources.PreflightCheck{ID: "env-example", Result: resources.CheckFail, Detail: err.Error()}
		}
		// The keys after the local-only heading are read by a local run
		// only (the development runner's Daily rooms): optional here.
		localFrom := 0
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), resources.LocalOnlyEnvHeading) {
				localFrom = i + 1
				break
			}
		}
		for _, pr := range pairs {
			if localFrom > 0 && pr.Line > localFrom {
				if !slices.Contains(optional, pr.Key) {
					optional = append(optional, pr.Key)
				}
				continue
			}
			if !slices.Contains(required, pr.Key) {
				required = append(required, pr.Key)
			}
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := optionalKeyRE().FindStringSubmatch(line); m != nil && !slices.Contains(required, m[1]) && !slices.Contains(optional, m[1]) {
				optional = append(optional, m[1])
			}
		}
		detail := fmt.Sprintf("%s: %d required keys", p, len(required))
		if len(optional) > 0 {
			detail += fmt.Sprintf(", %d optional", len(optional))
		}
		if len(dups) > 0 {
			// A key given twice: its last line wins, which may not be
			// the line its author edits.
			warn := make([]string, 0, len(dups))
			for _, d := range dups {
				warn = append(warn, d.String())
			}
			return required, optional, resources.PreflightCheck{ID: "env-example", Result: resources.CheckWarning, Line: dups[0].Line,
				Detail: strings.Join(warn, "; ")}
		}
		return required, optional, resources.PreflightCheck{ID: "env-example", Result: resources.CheckOK, Detail: detail}
	}
	return nil, nil, resources.PreflightCheck{ID: "env-example", Result: resources.CheckWarning,
		Detail: "no .env.example beside the deploy file or in server/: the keys the project needs are unknown, so the secret set's keys are not checked"}
}

// lineOf is the deploy file's line a platform check is about.
func lineOf(df *deployfile.File, id string) int {
	switch id {
	case "region":
		return df.Line("region")
	case "secret-set", "secret-set-keys":
		return df.Line("secret_set")
	case "image-pull-secret":
		return df.Line("image_credentials")
	case "image", "image-platform":
		return df.Line("image")
	}
	return 0
}

// waitPending waits until the named objects that exist are no longer
// pending (the checks then report them as they are).
func waitPending(ctx context.Context, c *client.Client, org string, names ...string) error {
	for _, name := range names {
		if name == "" {
			continue
		}
		o, err := c.Get(ctx, org, name)
		if errors.Is(err, &resources.Error{Code: resources.CodeNotFound}) {
			continue // the check says so
		}
		if err != nil {
			return err
		}
		if st := o.Status(); st != nil && st.State == resources.StatePending {
			if _, err := c.Wait(ctx, org, name); err != nil {
				return err
			}
		}
	}
	return nil
}

func connect(ctx context.Context, opts *Options) (*client.Client, string, error) {
	return cloudutil.Connect(ctx, opts.APIClient, opts.ResolveOrg, opts.Organization)
}
