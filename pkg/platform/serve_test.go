package platform_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/platform"
)

// Stopping a serving platform (what SIGTERM does to botkit-platform
// serve: platform.Serve's context ends) while clients send writes on
// kept-alive connections: every write either succeeds or is never sent
// (the client's next dial is refused) — none fails with a reset or EOF
// after it was sent (http.Server.Shutdown closed idle connections at once,
// racing a request arriving on one: 1-2 failed writes per signal).
func TestStopDrainsKeptAliveConnections(t *testing.T) {
	eachStore(t, func(t *testing.T, db testDB) {
		srv := platformtest.Open(t, storeOptions(t, db))
		platformtest.CreateOrg(t, srv, "acme", "")
		tok := platformtest.CreateToken(t, srv, "acme", "ci")
		const rounds, clients, before = 6, 8, 100
		for round := range rounds {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			base := "http://" + ln.Addr().String()
			ctx, stop := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- platform.Serve(ctx, platform.HTTPServer(srv.Handler(), nil), ln, nil) }()

			// Clients write in a loop on kept-alive connections; the server is
			// told to stop once they have made `before` writes in all, and each
			// client goes on until its dial is refused.
			tr := &http.Transport{MaxIdleConnsPerHost: clients}
			hc := &http.Client{Transport: tr}
			var sent atomic.Int64
			var mu sync.Mutex
			var failures []string
			var stopOnce sync.Once
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() {
					for i := 0; ; i++ {
						body := fmt.Sprintf(`{"set":{"K%d":"%d"}}`, c, i)
						req, err := http.NewRequest("PATCH", fmt.Sprintf("%s/v1/organizations/acme/secrets/s%d", base, c), strings.NewReader(body))
						if err != nil {
							t.Error(err)
							return
						}
						req.Header.Set("Authorization", "Bearer "+tok)
						req.Header.Set("Content-Type", "application/json")
						resp, err := hc.Do(req)
						if err != nil {
							var oe *net.OpError
							if errors.As(err, &oe) && oe.Op == "dial" {
								return // never sent: the server stopped accepting
							}
							mu.Lock()
							failures = append(failures, err.Error())
							mu.Unlock()
							return
						}
						_, err = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if err != nil {
							mu.Lock()
							failures = append(failures, err.Error())
							mu.Unlock()
							return
						}
						if resp.StatusCode != 200 && resp.StatusCode != 201 {
							t.Errorf("PATCH: %d", resp.StatusCode)
							return
						}
						if sent.Add(1) == before {
							stopOnce.Do(stop)
						}
					}
				})
			}
			wg.Wait()
			stop()
			tr.CloseIdleConnections() // a connection dialed but never used, if any
			if err := <-served; err != nil {
				t.Errorf("round %d: Serve: %v", round, err)
			}
			for _, f := range failures {
				t.Errorf("round %d: a write failed after it was sent: %s", round, f)
			}
			t.Logf("round %d: %d writes, %d failed", round, sent.Load(), len(failures))
		}
	})
}
