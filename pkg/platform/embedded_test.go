package platform_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/platform/service"
)

// The embedded mode of the CLI: the handler in-process over a SQLite file,
// organization "local", no token.
func TestEmbeddedNoAuthOrg(t *testing.T) {
	ctx := context.Background()
	srv := platformtest.Open(t, platform.Options{DataDir: t.TempDir(), NoAuthOrg: "local", AllowPrivateRegistries: true, PollInterval: 50 * time.Millisecond})
	h := srv.Handler()
	do := func(method, path, body, token string) *httptest.ResponseRecorder {
		req := jsonRequest(method, path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := do("GET", "/v1/me", "", ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"name":"local"`) {
		t.Fatalf("me: %d %s", rec.Code, rec.Body)
	}
	if rec := do("PATCH", "/v1/organizations/local/secrets/app", `{"set":{"A":"1"}}`, ""); rec.Code != http.StatusCreated {
		t.Fatalf("patch: %d %s", rec.Code, rec.Body)
	}
	// A token is still checked when sent.
	if rec := do("GET", "/v1/me", "", "bkp_wrong"); rec.Code != http.StatusUnauthorized {
		t.Errorf("bad token in no-auth mode: %d", rec.Code)
	}
	// Admin functions in-process.
	if _, err := srv.Admin().CreateOrg(ctx, "team", ""); err != nil {
		t.Fatal(err)
	}
	tok, info, err := srv.Admin().CreateToken(ctx, "team", "ci")
	if err != nil || !strings.HasPrefix(tok, service.TokenPrefix) || info.Organization != "team" {
		t.Fatalf("create token: %v %+v", err, info)
	}
	if rec := do("GET", "/v1/organizations/local/secrets/app", "", tok); rec.Code != http.StatusNotFound {
		t.Errorf("team token reading local: %d", rec.Code)
	}
	if rec := do("GET", "/v1/me", "", tok); !strings.Contains(rec.Body.String(), `"user":"ci"`) {
		t.Errorf("me with token: %s", rec.Body)
	}
	if err := srv.Admin().RevokeToken(ctx, info.ID); err != nil {
		t.Fatal(err)
	}
	if rec := do("GET", "/v1/me", "", tok); rec.Code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d", rec.Code)
	}
	// The provisioner runs in-process too.
	testenv.Eventually(t, "secret set app to become ready", func() bool {
		return strings.Contains(do("GET", "/v1/organizations/local/secrets/app", "", "").Body.String(), `"state":"ready"`)
	})
}

// Without NoAuthOrg a request without a token is refused.
func TestNoTokenRefused(t *testing.T) {
	srv := platformtest.Open(t, platform.Options{DataDir: t.TempDir(), DisableProvisioner: true})
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/v1/me", nil))
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"code":"unauthenticated"`) {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
}

// jsonRequest is an in-process request with a JSON body, as the CLI's
// client sends it (Content-Type: application/json).
func jsonRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	req.Header.Set("Content-Type", "application/json")
	return req
}
