package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// httpAPI is a minimal API over HTTP for these tests: pkg/client (the real
// client) is built separately and has its own tests against the platform.
type httpAPI struct{ url string }

func (a httpAPI) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", a.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		var er resources.ErrorResponse
		_ = json.Unmarshal(data, &er)
		return fmt.Errorf("%d %s: %s", resp.StatusCode, er.Error.Code, er.Error.Message)
	}
	return json.Unmarshal(data, out)
}

func (a httpAPI) Apply(ctx context.Context, org string, req resources.ApplyRequest) (resources.ApplyResult, error) {
	var res resources.ApplyResult
	return res, a.post(ctx, "/v1/organizations/"+org+"/apply", req, &res)
}

func (a httpAPI) DeleteObjects(ctx context.Context, org string, req resources.DeleteRequest) (resources.DeleteResult, error) {
	var res resources.DeleteResult
	return res, a.post(ctx, "/v1/organizations/"+org+"/delete", req, &res)
}

func startPlatform(t *testing.T) httpAPI {
	t.Helper()
	url, _ := platformtest.Start(t, platform.Options{NoAuthOrg: "local", DisableProvisioner: true})
	return httpAPI{url}
}

// From manifests on disk to the platform and back: plan, apply, diff with
// removed keys and prunes, delete — output lines never hold a value.
func TestPlanApplyDiffDelete(t *testing.T) {
	ctx := context.Background()
	api := startPlatform(t)
	dir := t.TempDir()
	vars := env(map[string]string{"KEY1": canary, "KEY2": canary + "2", "CREDS": "u:" + canary})
	load := func() []Group {
		t.Helper()
		res, err := Load(context.Background(), Options{Paths: []string{dir}, Organization: "local", Resolve: ResolveOptions{LookupEnv: vars}})
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
	opts := ApplyOptions{Prune: true, Selector: "team=voice"}

	plan, err := Plan(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	changed, _ := WriteDiff(io.MultiWriter(&out, &all), plan)
	if !changed || out.String() != "+ secretset/app\n    + A\n    + B\n    + metadata.labels\n+ secretset/old\n    + X\n    + metadata.labels\n+ imagepullsecret/reg\n    + spec.host\n    + spec.username\n    + spec.credentials\n" {
		t.Errorf("first diff:\n%s", out.String())
	}
	out.Reset()
	res, err := Apply(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	_ = WriteApplyLines(io.MultiWriter(&out, &all), res)
	if out.String() != "secretset/app created\nsecretset/old created\nimagepullsecret/reg created\n" {
		t.Errorf("apply:\n%s", out.String())
	}

	// No differences now.
	out.Reset()
	plan, _ = Plan(ctx, api, load(), opts)
	if changed, _ := WriteDiff(io.MultiWriter(&out, &all), plan); changed || out.Len() != 0 {
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
	plan, _ = Plan(ctx, api, load(), opts)
	if changed, _ := WriteDiff(io.MultiWriter(&out, &all), plan); !changed || out.String() != "~ secretset/app\n    ~ A\n    - B\n- secretset/old (prune)\n    - X\n" {
		t.Errorf("diff:\n%s", out.String())
	}
	out.Reset()
	_ = WriteApplyLines(io.MultiWriter(&out, &all), plan)
	if out.String() != "secretset/app configured (dry run)\nimagepullsecret/reg unchanged (dry run)\nsecretset/old pruned (dry run)\n" {
		t.Errorf("dry-run lines:\n%s", out.String())
	}
	out.Reset()
	res, err = Apply(ctx, api, load(), opts)
	if err != nil {
		t.Fatal(err)
	}
	_ = WriteApplyLines(io.MultiWriter(&out, &all), res)
	if out.String() != "secretset/app configured\nimagepullsecret/reg unchanged\nsecretset/old pruned\n" {
		t.Errorf("apply with prune:\n%s", out.String())
	}

	// delete -f: the objects the manifests name, all or none.
	groups, err := Load(context.Background(), Options{Paths: []string{filepath.Join(dir, "app.yaml"), filepath.Join(dir, "reg.yaml")}, Organization: "local", SkipValues: true})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	del, err := Delete(ctx, api, groups.Groups, DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = WriteDeleteLines(io.MultiWriter(&out, &all), del)
	if out.String() != "secretset/app deleted\nimagepullsecret/reg deleted\n" {
		t.Errorf("delete:\n%s", out.String())
	}
	if _, err := Delete(ctx, api, groups.Groups, DeleteOptions{}); err == nil || !strings.Contains(err.Error(), "404 not_found") {
		t.Errorf("delete of missing objects: %v", err)
	}
	out.Reset()
	del, err = Delete(ctx, api, groups.Groups, DeleteOptions{IgnoreNotFound: true})
	if err != nil {
		t.Fatal(err)
	}
	if _ = WriteDeleteLines(io.MultiWriter(&out, &all), del); out.Len() != 0 {
		t.Errorf("ignore not found: %q", out.String())
	}
	if all.Len() == 0 || strings.Contains(all.String(), canary) {
		t.Errorf("output holds a value (or is empty): %q", all.String())
	}
}
