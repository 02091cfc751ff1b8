package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const canary = "CANARY-7f3a9c-value-never-shown"

// platformServer runs the real platform handler over real HTTP on
// 127.0.0.1 on a temporary SQLite database, with an organization "acme" and
// a token for it.
func platformServer(t *testing.T) (url, token string, srv *platform.Server) {
	t.Helper()
	url, srv = platformtest.Start(t, platform.Options{PollInterval: 50 * time.Millisecond})
	platformtest.CreateOrg(t, srv, "acme", "eu-central")
	return url, platformtest.CreateToken(t, srv, "acme", "ci"), srv
}

func newClient(t *testing.T, url, token string) *client.Client {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: url, Token: token, PollInterval: 20 * time.Millisecond, UserAgent: client.UserAgent("test")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRemoteRoundTrip(t *testing.T) {
	ctx := context.Background()
	url, token, _ := platformServer(t)
	c := newClient(t, url, token)
	if c.Embedded() || c.Host() == "" || !strings.HasPrefix(c.Host(), "127.0.0.1:") {
		t.Fatalf("host %q embedded %v", c.Host(), c.Embedded())
	}

	me, err := c.Me(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if me.User != "ci" || len(me.Organizations) != 1 || me.Organizations[0].Name != "acme" || me.Organizations[0].DefaultRegion != "eu-central" {
		t.Fatalf("me: %+v", me)
	}
	regions, err := c.Regions(ctx)
	if err != nil || len(regions) != 4 {
		t.Fatalf("regions: %v %+v", err, regions)
	}

	obj, created, err := c.Merge(ctx, "acme", "app", resources.Patch{Set: map[string]string{"B": canary, "A": "1"}}, "")
	if err != nil || !created {
		t.Fatalf("merge: created %v err %v", created, err)
	}
	if obj.SecretSet == nil || !slices.Equal(obj.SecretSet.Spec.Keys, []string{"A", "B"}) || obj.Meta().Region != "eu-central" {
		t.Fatalf("merge answer: %+v", obj.SecretSet)
	}
	rv := obj.Meta().ResourceVersion
	obj, created, err = c.Merge(ctx, "acme", "app", resources.Patch{Set: map[string]string{"C": "3"}}, rv)
	if err != nil || created {
		t.Fatalf("conditional merge: created %v err %v", created, err)
	}
	// A stale version is a conflict (exit 5).
	_, _, err = c.Merge(ctx, "acme", "app", resources.Patch{Set: map[string]string{"D": "4"}}, rv)
	expectAPIError(t, err, http.StatusConflict, resources.CodeConflict, cmdutil.ExitConflict)
	// IfAbsent on an existing object is a conflict too.
	_, _, err = c.Merge(ctx, "acme", "app", resources.Patch{Set: map[string]string{"D": "4"}}, client.IfAbsent)
	expectAPIError(t, err, http.StatusConflict, resources.CodeConflict, cmdutil.ExitConflict)

	ready, err := c.Wait(ctx, "acme", "app")
	if err != nil || ready.Status() == nil || ready.Status().State != resources.StateReady {
		t.Fatalf("wait: %v %+v", err, ready.Status())
	}
	got, err := c.Get(ctx, "acme", "app")
	if err != nil || !slices.Equal(got.SecretSet.Spec.Keys, []string{"A", "B", "C"}) {
		t.Fatalf("get: %v %+v", err, got.SecretSet)
	}
	got, err = c.DeleteKey(ctx, "acme", "app", "B")
	if err != nil || !slices.Equal(got.SecretSet.Spec.Keys, []string{"A", "C"}) {
		t.Fatalf("delete key: %v %+v", err, got.SecretSet)
	}
	_, err = c.DeleteKey(ctx, "acme", "missing", "B")
	expectAPIError(t, err, http.StatusNotFound, resources.CodeNotFound, cmdutil.ExitNotFound)

	if _, err := c.Delete(ctx, "acme", "app"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(ctx, "acme", "app")
	expectAPIError(t, err, http.StatusNotFound, resources.CodeNotFound, cmdutil.ExitNotFound)
	// Another organization: the same 404.
	_, err = c.List(ctx, "other", client.ListOptions{})
	expectAPIError(t, err, http.StatusNotFound, resources.CodeNotFound, cmdutil.ExitNotFound)
	// Invalid input is exit 2.
	_, _, err = c.Merge(ctx, "acme", "app", resources.Patch{Set: map[string]string{"1BAD": canary}}, "")
	expectAPIError(t, err, http.StatusBadRequest, resources.CodeInvalid, cmdutil.ExitUsage)
	if strings.Contains(err.Error(), canary) {
		t.Fatalf("error shows the value: %v", err)
	}
}

func expectAPIError(t *testing.T, err error, status int, code string, exit int) {
	t.Helper()
	var ae *resources.Error
	if !errors.As(err, &ae) || ae.Code != code || resources.HTTPStatus(ae.Code) != status {
		t.Fatalf("error %v (%T), want a *resources.Error %s (HTTP %d)", err, err, code, status)
	}
	if got := cmdutil.ExitCode(err); got != exit {
		t.Fatalf("exit code of %v: %d, want %d", err, got, exit)
	}
	if ae.Message == "" {
		t.Fatal("API error without a message")
	}
}

// List follows continue pages until the last one.
func TestListFollowsPages(t *testing.T) {
	ctx := context.Background()
	url, token, _ := platformServer(t)
	c := newClient(t, url, token)
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("set-%d", i)
		want = append(want, name)
		if _, _, err := c.Merge(ctx, "acme", name, resources.Patch{Set: map[string]string{"K": "v"}, Region: []string{"us-west", "eu-central"}[i%2]}, ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, limit := range []int{0, 1, 2, 3, 7, 100} {
		items, err := c.List(ctx, "acme", client.ListOptions{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, it := range items {
			names = append(names, it.Meta().Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("limit %d: %v", limit, names)
		}
	}
	items, err := c.List(ctx, "acme", client.ListOptions{Limit: 2, Region: "us-west", Kind: resources.KindSecretSet})
	if err != nil || len(items) != 4 {
		t.Fatalf("filtered: %v %d", err, len(items))
	}
	_, err = c.List(ctx, "acme", client.ListOptions{Region: "mars"})
	expectAPIError(t, err, http.StatusBadRequest, resources.CodeInvalid, cmdutil.ExitUsage)
}

// A refused token is exit 4 and says what to do.
func TestUnauthenticated(t *testing.T) {
	url, _, _ := platformServer(t)
	c, err := client.New(client.Options{BaseURL: url, Token: "bkp_" + strings.Repeat("A", 52), AuthHint: "run botkit auth login"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(context.Background())
	expectAPIError(t, err, http.StatusUnauthorized, resources.CodeUnauthenticated, cmdutil.ExitAuth)
	if !strings.HasSuffix(err.Error(), ": run botkit auth login") || strings.Contains(err.Error(), "AAAA") {
		t.Fatalf("message: %v", err)
	}
}

// A platform that cannot be reached is a runtime failure (exit 1) naming
// the host.
func TestNetworkErrors(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := client.New(client.Options{BaseURL: "http://" + addr, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(ctx)
	var ne *client.NetworkError
	if !errors.As(err, &ne) || ne.Host != addr || !strings.Contains(err.Error(), "cannot reach the platform at "+addr) {
		t.Fatalf("error %v (%T)", err, err)
	}
	if cmdutil.ExitCode(err) != cmdutil.ExitError {
		t.Fatalf("exit %d", cmdutil.ExitCode(err))
	}

	// No answer within the timeout.
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block)
	if c, err = client.New(client.Options{BaseURL: slow.URL, Timeout: 100 * time.Millisecond, Retries: -1}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(ctx)
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Fatalf("timeout error %v", err)
	}

	// An interrupt is an interrupt (exit 130), not a network error.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if c, err = client.New(client.Options{BaseURL: slow.URL, Retries: -1}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(cctx)
	if !errors.Is(err, context.Canceled) || cmdutil.ExitCode(err) != cmdutil.ExitInterrupted {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8787", "https://api.example.com/", "https://api.example.com/prefix"} {
		if _, err := client.ParseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "api.example.com", "ftp://x", "https://user:" + canary + "@host", "https://host/?q=1",
		"http://u:" + canary + "%zz@host", "https://host/?token=" + canary, "https://host#" + canary, "http://" + canary + "@host:x"} {
		_, err := client.ParseURL(bad)
		if err == nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage || strings.Contains(err.Error(), canary) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Apply and DeleteObjects: one request each for many objects, all or
// nothing; a failure carries every failing object in Details, never a
// value.
func TestApplyAndDeleteObjects(t *testing.T) {
	ctx := context.Background()
	url, token, _ := platformServer(t)
	c := newClient(t, url, token)
	set := func(name, region string, values map[string]string) resources.Object {
		data := map[string]resources.ValueSource{}
		for k, v := range values {
			data[k] = resources.Literal(v)
		}
		return resources.Object{SecretSet: &resources.SecretSet{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{Name: name, Region: region},
			Spec:     resources.SecretSetSpec{Data: data},
		}}
	}
	res, err := c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{
		set("a", "", map[string]string{"K": canary}), set("b", "us-east", map[string]string{"K": "1"}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].Action != resources.ActionCreated || res.Items[1].Action != resources.ActionCreated {
		t.Fatalf("apply: %+v", res.Items)
	}
	if res.Items[0].Region != "eu-central" {
		t.Errorf("a went to %s, want the organization's default eu-central", res.Items[0].Region)
	}

	// b cannot move region, and c is fine: nothing is applied, and the
	// error names b in its details.
	_, err = c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{
		set("c", "", map[string]string{"K": "1"}), set("b", "ap-south", map[string]string{"K": canary}),
	}})
	expectAPIError(t, err, http.StatusConflict, resources.CodeConflict, cmdutil.ExitConflict)
	var ae *resources.Error
	errors.As(err, &ae)
	if len(ae.Details) != 1 || ae.Details[0].Name != "b" || ae.Details[0].Index != 1 || ae.Details[0].Message == "" {
		t.Fatalf("details %+v, want objects[1] b", ae.Details)
	}
	if strings.Contains(fmt.Sprint(ae, ae.Details), canary) {
		t.Fatal("the error holds a value")
	}
	if _, err := c.Get(ctx, "acme", "c"); !errors.As(err, &ae) || ae.Code != resources.CodeNotFound {
		t.Fatalf("c after a failed apply: %v, want not found", err)
	}

	// Delete: a missing object is a 404 and nothing goes; with
	// IgnoreNotFound the others go.
	refs := []resources.ObjectRef{{Kind: resources.KindSecretSet, Name: "a"}, {Kind: resources.KindSecretSet, Name: "missing"}}
	_, err = c.DeleteObjects(ctx, "acme", resources.DeleteRequest{Objects: refs})
	expectAPIError(t, err, http.StatusNotFound, resources.CodeNotFound, cmdutil.ExitNotFound)
	if _, err := c.Get(ctx, "acme", "a"); err != nil {
		t.Fatalf("a after a failed delete: %v", err)
	}
	del, err := c.DeleteObjects(ctx, "acme", resources.DeleteRequest{Objects: refs, IgnoreNotFound: true})
	if err != nil || len(del.Items) != 2 || del.Items[0].Action != resources.ActionDeleted || del.Items[1].Action != resources.ActionNotFound {
		t.Fatalf("delete: %v %+v", err, del.Items)
	}
}

// An answer whose body is larger than MaxResponseBytes is refused once the
// limit is read, not read to its end: a broken or hostile platform cannot
// make the CLI hold hundreds of MB.
func TestResponseBodyIsCapped(t *testing.T) {
	var sent atomic.Int64
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 1<<20)
		_, _ = w.Write([]byte(`{"user":"x","organizations":[]`)) // error ignored: the client hangs up mid-body
		for range 200 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer hs.Close()
	c, err := client.New(client.Options{BaseURL: hs.URL, Token: "t", Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Me(context.Background())
	var tl *client.ResponseTooLargeError
	if !errors.As(err, &tl) || cmdutil.ExitCode(err) != cmdutil.ExitError || !strings.Contains(err.Error(), "over 64 MiB") {
		t.Fatalf("a 200 MB answer: %v (%T)", err, err)
	}
	if s := sent.Load(); s > 100<<20 {
		t.Errorf("the client read %d MB of the answer, want it to stop after 64", s>>20)
	}
}

// A token goes over plain http:// only to this machine, unless allowed.
func TestTokenNotSentOverPlainHTTP(t *testing.T) {
	for _, tc := range []struct {
		url, token string
		allow, ok  bool
	}{
		{"http://platform.example.com", canary, false, false},
		{"http://10.1.2.3:8787", canary, false, false},
		{"http://platform.example.com", "tok", true, true},
		{"http://platform.example.com", "", false, true},
		{"https://platform.example.com", "tok", false, true},
		{"http://127.0.0.1:8787", "tok", false, true},
		{"http://[::1]:8787", "tok", false, true},
		{"http://localhost:8787", "tok", false, true},
	} {
		_, err := client.New(client.Options{BaseURL: tc.url, Token: tc.token, AllowInsecureHTTP: tc.allow})
		if tc.ok != (err == nil) {
			t.Errorf("%s (token %v, allowed %v): %v", tc.url, tc.token != "", tc.allow, err)
		}
		if err != nil && (cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), config.EnvInsecureHTTP+"=1") || strings.Contains(err.Error(), tc.token)) {
			t.Errorf("%s: %v, want exit 2 naming %s", tc.url, err, config.EnvInsecureHTTP)
		}
	}
}
