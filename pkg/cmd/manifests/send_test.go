package manifests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// startPlatform runs the real platform over HTTP on 127.0.0.1 and returns
// the real API client of it (organization "local", no token).
func startPlatform(t *testing.T) *client.Client {
	t.Helper()
	url, _ := platformtest.Start(t, platform.Options{NoAuthOrg: "local", DisableProvisioner: true})
	c, err := client.New(client.Options{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// From manifests on disk to the platform and back: plan, apply, diff with
// removed keys and prunes, delete — output lines never hold a value.
func TestPlanApplyDiffDelete(t *testing.T) {
	ctx := context.Background()
	api := startPlatform(t)
	dir := t.TempDir()
	vals := map[string]string{"KEY1": canary, "KEY2": canary + "2", "CREDS": "u:" + canary}
	vars := func(k string) (string, bool) { v, ok := vals[k]; return v, ok }
	load := func() []apply.Group {
		t.Helper()
		res, err := apply.Load(context.Background(), apply.Options{Paths: []string{dir}, Organization: "local", Resolve: apply.ResolveOptions{LookupEnv: vars}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Groups
	}
	write(t, dir, "app.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: app, labels: {team: voice}}
spec:
  data:
    A: {fromEnv: KEY1}
    B: {fromEnv: KEY2}
---
apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: old, labels: {team: voice}}
spec:
  data:
    X: {fromEnv: KEY1}
`)
	write(t, dir, "reg.yaml", "apiVersion: botkit.dev/v1\nkind: ImagePullSecret\nmetadata: {name: reg}\nspec: {host: ghcr.io, credentials: {fromEnv: CREDS}}\n")
	var out, all bytes.Buffer // all: everything written, for the canary check
	opts := applyRequest{Prune: true, Selector: "team=voice"}

	plan, _, err := planDiff(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := writeDiff(io.MultiWriter(&out, &all), plan, "")
	if err != nil {
		t.Fatal(err)
	}
	if !changed || out.String() != "+ secretset/app\n    + A\n    + B\n    + metadata.labels\n        + team: voice\n+ secretset/old\n    + X\n    + metadata.labels\n        + team: voice\n+ imagepullsecret/reg\n    + spec.host\n    + spec.username\n    + spec.credentials\n" {
		t.Errorf("first diff:\n%s", out.String())
	}
	out.Reset()
	res, err := sendApply(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeApplyLines(io.MultiWriter(&out, &all), res); err != nil {
		t.Fatal(err)
	}
	if out.String() != "secretset/app created (version 1)\nsecretset/old created (version 1)\nimagepullsecret/reg created (version 1)\n" {
		t.Errorf("apply:\n%s", out.String())
	}

	// No differences now.
	out.Reset()
	if plan, _, err = planDiff(ctx, api, load(), opts); err != nil {
		t.Fatal(err)
	}
	if changed, err := writeDiff(io.MultiWriter(&out, &all), plan, ""); err != nil || changed || out.Len() != 0 {
		t.Errorf("diff after apply: %v %q", changed, out.String())
	}

	// A key removed, a value changed, an object gone from the manifests.
	write(t, dir, "app.yaml", `apiVersion: botkit.dev/v1
kind: SecretSet
metadata: {name: app, labels: {team: voice}}
spec:
  data:
    A: {fromEnv: KEY2}
`)
	out.Reset()
	if plan, _, err = planDiff(ctx, api, load(), opts); err != nil {
		t.Fatal(err)
	}
	if changed, err := writeDiff(io.MultiWriter(&out, &all), plan, ""); err != nil || !changed || out.String() != "~ secretset/app\n    ~ A\n    - B\n- secretset/old (prune)\n    - X\n" {
		t.Errorf("diff:\n%s", out.String())
	}
	out.Reset()
	dry := opts
	dry.DryRun = true
	dryRes, err := sendApply(ctx, api, load(), dry)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeApplyLines(io.MultiWriter(&out, &all), dryRes); err != nil {
		t.Fatal(err)
	}
	if out.String() != "secretset/app configured (dry run)\nimagepullsecret/reg unchanged (dry run)\nsecretset/old pruned (dry run)\n" {
		t.Errorf("dry-run lines:\n%s", out.String())
	}
	out.Reset()
	res, err = sendApply(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeApplyLines(io.MultiWriter(&out, &all), res); err != nil {
		t.Fatal(err)
	}
	if out.String() != "secretset/app configured (version 2)\nimagepullsecret/reg unchanged\nsecretset/old pruned\n" {
		t.Errorf("apply with prune:\n%s", out.String())
	}

	// delete -f: the objects the manifests name, all or none.
	groups, err := apply.Load(context.Background(), apply.Options{Paths: []string{filepath.Join(dir, "app.yaml"), filepath.Join(dir, "reg.yaml")}, Organization: "local", SkipValues: true})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	del, err := sendDelete(ctx, api, groups.Groups, deleteRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeDeleteLines(io.MultiWriter(&out, &all), del); err != nil {
		t.Fatal(err)
	}
	if out.String() != "secretset/app deleted\nimagepullsecret/reg deleted\n" {
		t.Errorf("delete:\n%s", out.String())
	}
	var ae *resources.Error
	if _, err := sendDelete(ctx, api, groups.Groups, deleteRequest{}); !errors.As(err, &ae) || ae.Code != resources.CodeNotFound {
		t.Errorf("delete of missing objects: %v", err)
	}
	out.Reset()
	del, err = sendDelete(ctx, api, groups.Groups, deleteRequest{IgnoreNotFound: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeDeleteLines(io.MultiWriter(&out, &all), del); err != nil || out.Len() != 0 {
		t.Errorf("ignore not found: %q", out.String())
	}
	if all.Len() == 0 || strings.Contains(all.String(), canary) {
		t.Errorf("output holds a value (or is empty): %q", all.String())
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
