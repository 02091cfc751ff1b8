package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// auth status checks every context at the same time, each bounded by the
// timeout: two platforms that never answer are both asked before either
// gives up, and both say so. (These two are httptest servers that hang on
// purpose; the real platforms are in testdata/platform/contexts.txtar.)
// Whether both requests are in flight at once is not left to the
// scheduler: each platform answers only once both were asked, with a
// timeout far beyond the test's patience, so contexts checked one after
// the other would never get there; the timeout's message is then checked
// on its own, with a short timeout.
func TestStatusChecksContextsAtOnce(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	both := make(chan struct{})
	meet := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if inFlight == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
			w.WriteHeader(http.StatusUnauthorized) // an answer no client retries
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	a, b := httptest.NewServer(meet), httptest.NewServer(meet)
	t.Cleanup(func() { a.Close(); b.Close() })
	done := make(chan error, 1)
	opts, _ := statusOpts(t, a.URL, b.URL, time.Hour)
	go func() { done <- runStatus(context.Background(), opts) }()
	if err := testenv.Within(t, "auth status to ask both platforms at once", done); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 2 {
		t.Errorf("%d requests at once, want 2 (the contexts are checked in parallel)", most)
	}
}

// Two platforms that never answer: each context says so after the timeout,
// the embedded one is fine.
func TestStatusContextsTimeout(t *testing.T) {
	release := make(chan struct{})
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	a, b := httptest.NewServer(hang), httptest.NewServer(hang)
	t.Cleanup(func() { close(release); a.Close(); b.Close() })
	opts, out := statusOpts(t, a.URL, b.URL, 300*time.Millisecond)
	if err := runStatus(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var list ContextStatusList
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(list.Items) != 3 || list.Context != "a" {
		t.Fatalf("status: %s", out)
	}
	for _, it := range list.Items[:2] {
		if it.OK || it.TokenSource != "keyring" || it.Status != "no answer within 300ms" {
			t.Errorf("%s: %+v", it.Name, it)
		}
	}
	if it := list.Items[2]; !it.OK || it.Platform != "embedded" || it.TokenSource != "not needed" {
		t.Errorf("local: %+v", it)
	}
	if !list.Items[0].Current || list.Items[1].Current {
		t.Errorf("current: %+v", list.Items)
	}
}

// statusOpts are auth status's options, -o json, over contexts a (current,
// organization acme) and b on the platforms at aURL and bURL, each with a
// token in the keyring, and the embedded platform's context local.
func statusOpts(t *testing.T, aURL, bURL string, timeout time.Duration) (*StatusOptions, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	if err := config.Save(filepath.Join(dir, config.FileName), config.File{CurrentContext: "a", Contexts: []config.Context{
		{Name: "a", APIURL: aURL, Organization: "acme"}, {Name: "b", APIURL: bURL}, {Name: "local"},
	}}); err != nil {
		t.Fatal(err)
	}
	getenv := map[string]string{"HOME": dir, config.EnvConfigDir: dir}
	store := memStore{strings.TrimPrefix(aURL, "http://"): "bkp_a", strings.TrimPrefix(bURL, "http://"): "bkp_b"}
	ios, _, out, _ := iostreams.Test()
	opts := &StatusOptions{IO: ios, Credentials: store, NewClient: newClient, Timeout: timeout,
		Config: func() (*config.Config, error) { return config.Load(func(k string) string { return getenv[k] }, "") },
		Print:  printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON)}
	opts.Print.Output = printers.FormatJSON
	return opts, out
}
