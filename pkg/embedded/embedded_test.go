package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/embedded"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// TestMain lets the test binary act as a separate botkit process writing to
// the embedded platform (see TestEmbeddedConcurrentProcesses): with
// EMBEDDED_CHILD_DIR set it opens the embedded platform there, merges the
// keys given in EMBEDDED_CHILD_KEYS into set "shared", closes and exits.
func TestMain(m *testing.M) {
	if dir := os.Getenv("EMBEDDED_CHILD_DIR"); dir != "" {
		os.Exit(child(dir, strings.Fields(os.Getenv("EMBEDDED_CHILD_KEYS"))))
	}
	os.Exit(m.Run())
}

func child(dir string, keys []string) int {
	ctx := context.Background()
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := 0
	for _, k := range keys {
		if _, _, err := c.Merge(ctx, client.EmbeddedOrg, "shared", resources.Patch{Set: map[string]string{k: canary}}, ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	return code
}

// state reads an object's state without provisioning anything (the
// provisioner of this reader is disabled).
func state(t *testing.T, dir, name string) (string, []string) {
	t.Helper()
	srv := platformtest.Open(t, platform.Options{DataDir: dir, NoAuthOrg: client.EmbeddedOrg, DisableProvisioner: true})
	defer srv.Close()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/organizations/local/secrets/"+name, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", name, rec.Code, rec.Body)
	}
	var o resources.Object
	if err := o.UnmarshalJSON(rec.Body.Bytes()); err != nil {
		t.Fatal(err)
	}
	var keys []string
	if o.SecretSet != nil {
		keys = o.SecretSet.Spec.Keys
	}
	return o.Status().State, keys
}

// What a command wrote is provisioned before the command ends: the next
// reader sees it ready without any provisioner of its own.
func TestEmbeddedCloseProvisions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Merge(ctx, client.EmbeddedOrg, "demo", resources.Patch{Set: map[string]string{"A": "1"}}, ""); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := state(t, dir, "demo"); st != resources.StateReady {
		t.Fatalf("after close: %s", st)
	}
}

// An object left pending by an earlier process (here: written with the
// provisioner disabled, as a killed process would leave it) is provisioned
// by the next command, whatever that command does.
func TestEmbeddedPicksUpLeftPending(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv := platformtest.Open(t, platform.Options{DataDir: dir, NoAuthOrg: client.EmbeddedOrg, DisableProvisioner: true})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("PATCH", "/v1/organizations/local/secrets/left", strings.NewReader(`{"set":{"A":"1"}}`))
	req.Header.Set("Content-Type", "application/json")
	srv.Handler().ServeHTTP(rec, req)
	srv.Close()
	if rec.Code != http.StatusCreated {
		t.Fatalf("write: %d %s", rec.Code, rec.Body)
	}
	if st, _ := state(t, dir, "left"); st != resources.StatePending {
		t.Fatalf("setup: %s", st)
	}

	// A read-only command picks it up.
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Regions(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := state(t, dir, "left"); st != resources.StateReady {
		t.Fatalf("after the next command: %s", st)
	}
}

// Several processes writing distinct keys to one set of the embedded
// platform at the same moment lose nothing, on a fresh data directory
// (master key, schema and organization created concurrently too).
func TestEmbeddedConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	dir := filepath.Join(t.TempDir(), "botkit")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const procs, perProc = 8, 5
	var want []string
	var wg sync.WaitGroup
	errs := make([]string, procs)
	for p := range procs {
		var keys []string
		for k := range perProc {
			keys = append(keys, fmt.Sprintf("P%d_K%d", p, k))
		}
		want = append(want, keys...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), "EMBEDDED_CHILD_DIR="+dir, "EMBEDDED_CHILD_KEYS="+strings.Join(keys, " "))
			out, err := cmd.CombinedOutput()
			if err != nil {
				errs[p] = fmt.Sprintf("process %d: %v: %s", p, err, out)
			}
			if strings.Contains(string(out), canary) {
				errs[p] = fmt.Sprintf("process %d printed a value", p)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
	st, keys := state(t, dir, "shared")
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Fatalf("keys after %d concurrent processes: got %d %v, want %d", procs, len(keys), keys, len(want))
	}
	if st != resources.StateReady {
		t.Errorf("state %s after every process closed", st)
	}
	// The value never lands in the data directory in clear.
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), canary) {
			t.Errorf("%s holds a value in clear", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// canary is a value no output or file in clear may hold.
const canary = "CANARY-7f3a9c-value-never-shown"

// The embedded platform: the same client code over the handler in-process.
func TestEmbedded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Embedded() || c.Host() != client.EmbeddedHost || c.BaseURL() != "" {
		t.Fatalf("embedded %v host %q", c.Embedded(), c.Host())
	}
	me, err := c.Me(ctx)
	if err != nil || len(me.Organizations) != 1 || me.Organizations[0].Name != client.EmbeddedOrg {
		t.Fatalf("me: %v %+v", err, me)
	}
	if _, created, err := c.Merge(ctx, client.EmbeddedOrg, "demo", resources.Patch{Set: map[string]string{"A": canary}}, client.IfAbsent); err != nil || !created {
		t.Fatalf("merge: %v %v", created, err)
	}
	o, err := c.Wait(ctx, client.EmbeddedOrg, "demo")
	if err != nil || o.Status().State != resources.StateReady {
		t.Fatalf("wait: %v %+v", err, o.Status())
	}
	_, err = c.Get(ctx, client.EmbeddedOrg, "nope")
	var ae *resources.Error
	if !errors.As(err, &ae) || ae.Code != resources.CodeNotFound || cmdutil.ExitCode(err) != cmdutil.ExitNotFound {
		t.Fatalf("get of a missing set: %v, want a not_found *resources.Error (exit 3), as over the network", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened: the data is there.
	c, err = embedded.Open(ctx, dir, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	items, err := c.List(ctx, client.EmbeddedOrg, client.ListOptions{})
	if err != nil || len(items) != 1 || items[0].Meta().Name != "demo" {
		t.Fatalf("list after reopen: %v %+v", err, items)
	}
}

// An image pull secret a command writes is verified before the command
// ends: 50 commands in a row against a real registry on 127.0.0.1 (fast:
// the check ends while the command closes) leave none of them pending. The
// background provisioner's claim used to race the drain at close.
func TestEmbeddedLeavesNoImagePullSecretPending(t *testing.T) {
	registrytest.Need(t)
	reg, err := registrytest.Start(t.TempDir(), "robot", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Stop()
	ctx := context.Background()
	dir := t.TempDir()
	creds := "robot:s3cret"
	for i := range 50 {
		name := fmt.Sprintf("reg-%d", i)
		c, err := embedded.Open(ctx, dir, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Merge(ctx, client.EmbeddedOrg, name, resources.Patch{Kind: resources.KindImagePullSecret, Host: reg.URL, Credentials: &creds}, ""); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if st, _ := state(t, dir, name); st != resources.StateReady {
			t.Fatalf("command %d left %s %s", i+1, name, st)
		}
	}
}
