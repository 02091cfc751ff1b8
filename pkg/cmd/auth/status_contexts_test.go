package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/config"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/printers"
)

// auth status checks every context at the same time, each bounded by the
// timeout: two platforms that never answer are both asked before either
// gives up, and both say so. (These two are httptest servers that hang on
// purpose; the real platforms are in testdata/platform/contexts.txtar.)
func TestStatusChecksContextsAtOnce(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	release := make(chan struct{})
	hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	})
	a, b := httptest.NewServer(hang), httptest.NewServer(hang)
	t.Cleanup(func() { close(release); a.Close(); b.Close() })
	dir := t.TempDir()
	if err := config.Save(filepath.Join(dir, config.FileName), config.File{CurrentContext: "a", Contexts: []config.Context{
		{Name: "a", APIURL: a.URL, Organization: "acme"}, {Name: "b", APIURL: b.URL}, {Name: "local"},
	}}); err != nil {
		t.Fatal(err)
	}
	getenv := map[string]string{"HOME": dir, config.EnvConfigDir: dir}
	store := memStore{strings.TrimPrefix(a.URL, "http://"): "bkp_a", strings.TrimPrefix(b.URL, "http://"): "bkp_b"}
	ios, _, out, _ := iostreams.Test()
	opts := &StatusOptions{IO: ios, Credentials: store, NewClient: newClient, Timeout: 300 * time.Millisecond,
		Config: func() (*config.Config, error) { return config.Load(func(k string) string { return getenv[k] }, "") },
		Print:  printers.NewFlags().WithFormats(printers.FormatTable, printers.FormatJSON)}
	opts.Print.Output = printers.FormatJSON
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
	mu.Lock()
	defer mu.Unlock()
	if most != 2 {
		t.Errorf("%d requests at once, want 2 (the contexts are checked in parallel)", most)
	}
}
