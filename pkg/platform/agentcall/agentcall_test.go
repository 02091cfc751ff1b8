package agentcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/platform/agentcall"
)

// Answers the contract does not have, from an agent on 127.0.0.1; the
// contract itself is checked against the stand-in on an engine (TestEngine).
func TestAnswersOutsideTheContract(t *testing.T) {
	held := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/elsewhere", http.StatusFound) })
	mux.HandleFunc("POST /bot", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // error ignored: the body is asserted below
		switch r.Header.Get(agentcall.HeaderSessionID) {
		case "fails":
			http.Error(w, strings.Repeat("x", 1000), http.StatusInternalServerError)
		case "short":
			if string(b) != "{}" {
				t.Errorf("a session without a body sent %q", b)
			}
			_, _ = w.Write([]byte("{}")) // error ignored: the client asserts the answer
		case "held":
			close(held)
			<-r.Context().Done()
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	endpoint := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()

	var e *agentcall.Error
	if err := agentcall.Ready(ctx, endpoint); !errors.As(err, &e) || e.Status != http.StatusFound || e.NotReady() {
		t.Errorf("a redirect from /readyz: %v (followed?)", err)
	}
	// A refusal is the start's error, or, when it came after the accept
	// window (a loaded machine), the call's end.
	refused, err := agentcall.StartBot(ctx, endpoint, agentcall.SessionStart{ID: "fails"})
	if err == nil {
		testenv.Within(t, "the refused call's end", refused.Done())
		err = refused.Err()
	}
	if !errors.As(err, &e) || e.Status != 500 || len(e.Detail) > 200 {
		t.Errorf("a refused session: %v", err)
	}
	call, err := agentcall.StartBot(ctx, endpoint, agentcall.SessionStart{ID: "short"})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Within(t, "a session ended at once", call.Done())
	if call.Err() != nil {
		t.Errorf("a session ended at once: %v", call.Err())
	}
	c := &agentcall.Client{AcceptWindow: 1}
	call, err = c.StartBot(ctx, endpoint, agentcall.SessionStart{ID: "held", Body: json.RawMessage(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Within(t, "the agent holding the session", held)
	if call.Err() != nil {
		t.Errorf("an open call has an error: %v", call.Err())
	}
	call.Cancel()
	testenv.Within(t, "the cancelled call's end", call.Done())
	if !errors.Is(call.Err(), context.Canceled) {
		t.Errorf("a cancelled call ended with %v", call.Err())
	}
	if _, err := agentcall.StartBot(ctx, endpoint, agentcall.SessionStart{ID: "x", RoomURL: "https://example.daily.co/r"}); err == nil {
		t.Error("a room without its token was sent")
	}
}
