package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Every request the client sends with a body says Content-Type:
// application/json (the platform answers 415 to any other), over the
// network and in-process alike; every route that takes a body is used.
func TestBodiesAreSentAsJSON(t *testing.T) {
	srv := platformtest.Open(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	token := platformtest.CreateToken(t, srv, "acme", "ci")
	var mu sync.Mutex
	seen := map[string]string{} // method path -> Content-Type of requests with a body
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength != 0 {
				mu.Lock()
				seen[r.Method+" "+r.URL.Path] = r.Header.Get("Content-Type")
				mu.Unlock()
			}
			r.Header.Set("Authorization", "Bearer "+token) // the in-process client sends none
			h.ServeHTTP(w, r)
		})
	}
	hs := httptest.NewServer(record(srv.Handler()))
	t.Cleanup(hs.Close)
	remote, err := client.New(client.Options{BaseURL: hs.URL, Token: token, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	inProcess := client.NewInProcess(client.InProcess{Handler: record(srv.Handler()), Host: "test"}, client.Options{})
	ctx := context.Background()
	for name, c := range map[string]*client.Client{"remote": remote, "in-process": inProcess} {
		clear(seen)
		obj := resources.Object{SecretSet: &resources.SecretSet{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
			Metadata: resources.ObjectMeta{Name: "put-" + name},
			Spec:     resources.SecretSetSpec{Data: map[string]resources.ValueSource{"K": resources.Literal("v")}},
		}}
		steps := []struct {
			what string
			run  func() error
		}{
			{"merge", func() error {
				_, _, err := c.Merge(ctx, "acme", "bot", resources.Patch{Set: map[string]string{"K": "v"}}, "")
				return err
			}},
			{"replace", func() error { _, _, err := c.Replace(ctx, "acme", obj, ""); return err }},
			{"apply", func() error {
				_, err := c.Apply(ctx, "acme", resources.ApplyRequest{Objects: []resources.Object{obj}})
				return err
			}},
			{"delete", func() error {
				_, err := c.DeleteObjects(ctx, "acme", resources.DeleteRequest{Objects: []resources.ObjectRef{{Kind: resources.KindSecretSet, Name: "put-" + name}}})
				return err
			}},
			{"reseal", func() error { _, err := c.Reseal(ctx, "acme", []string{}); return err }},
			{"preflight", func() error { _, err := c.Preflight(ctx, "acme", resources.PreflightRequest{}); return err }},
			{"put agent", func() error {
				_, _, err := c.PutAgent(ctx, "acme", resources.Agent{Metadata: resources.ObjectMeta{Name: "bot-" + name},
					Spec: resources.AgentSpec{Image: "registry.example/acme/bot:1"}}, "")
				return err
			}},
			{"patch agent", func() error {
				_, err := c.PatchAgent(ctx, "acme", "bot-"+name, resources.AgentPatch{Scaling: &resources.AgentScaling{MinAgents: 2}})
				return err
			}},
			// This platform has no runtime: a deploy, a rollback and a
			// restart are refused (422), once their body is read.
			{"deploy", func() error {
				_, err := c.Deploy(ctx, "acme", "bot-"+name, resources.DeployRequest{})
				return unprocessable(err)
			}},
			{"rollback", func() error {
				_, err := c.RollbackAgent(ctx, "acme", "bot-"+name, resources.RollbackRequest{})
				return unprocessable(err)
			}},
			{"restart", func() error {
				_, err := c.RestartAgent(ctx, "acme", "bot-"+name)
				return unprocessable(err)
			}},
			{"create public key", func() error {
				_, err := c.CreatePublicKey(ctx, "acme", resources.PublicKeyRequest{Name: name})
				return err
			}},
			{"start session", func() error {
				_, err := c.StartSession(ctx, "acme", "bot-"+name, resources.SessionStartRequest{})
				return unprocessable(err)
			}},
		}
		for _, s := range steps {
			if err := s.run(); err != nil {
				t.Errorf("%s %s: %v", name, s.what, err)
			}
		}
		bodyRoutes := 0
		for _, rt := range httpapi.Routes() {
			// The public API is a client's with a public key, not this one's.
			if rt.Body && !strings.HasPrefix(rt.Path, "/v1/public/") {
				bodyRoutes++
			}
		}
		for k, ct := range seen {
			if ct != "application/json" {
				t.Errorf("%s: %s was sent with Content-Type %q", name, k, ct)
			}
		}
		if len(seen) != bodyRoutes {
			t.Errorf("%s: requests with a body %v, want one per route that takes one (%d)", name, seen, bodyRoutes)
		}
	}
}

// unprocessable is nil for the 422 of a platform without a runtime.
func unprocessable(err error) error {
	var re *resources.Error
	if errors.As(err, &re) && re.Code == resources.CodeUnprocessable {
		return nil
	}
	return fmt.Errorf("want the 422 of a region without a runtime, got %v", err)
}
