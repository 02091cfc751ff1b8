// Command pccagent is the stand-in of Pipecat Cloud's base image
// (dailyco/pipecat-base) for tests: a static Go program, run FROM scratch,
// that serves the agent side of the session contract the way the base
// image's server does, so that the platform's side of it can be tested on a
// real engine without building a Python image.
//
// The contract it follows:
//   - It listens on $PORT (8080 when unset), on every address.
//   - GET /readyz answers 200 {"status":"ok"} once ready, 503
//     {"status":"not ready"} before; GET /livez answers 200 {"status":"ok"}.
//   - POST /bot starts a session: the body must be a JSON object (422
//     otherwise), the headers X-Daily-Session-Id, X-Daily-Transport-Type,
//     X-Daily-Room-Url and X-Daily-Room-Token describe it. Nothing is
//     answered while the session lasts: the answer, 200 {}, is its end.
//   - GET /ws is a websocket whose query parameter body is the session's
//     body, base64 JSON; the session lasts as long as the socket. This
//     program echoes every message.
//   - POST /api/offer answers a SmallWebRTC offer ({"sdp","type","pc_id"?,
//     "restart_pc"?}) with {"sdp","type":"answer","pc_id"}: a WebRTC
//     connection (pion; UDP over IPv4, host candidates only, no STUN, the
//     answer's candidates gathered), or a renegotiation of the one pc_id
//     names; PATCH /api/offer takes trickled ICE candidates
//     ({"pc_id","candidates":[{"candidate","sdp_mid","sdp_mline_index"}]})
//     and answers {"status":"success"}. Once connected it sends an Opus
//     track (a tone) and speaks RTVI on the peer's data channel: bot-ready
//     in reply to client-ready, then a user and a bot transcript line and
//     ttfb metrics; send-text is answered with bot-output. The connection's
//     end (its data channel or itself closed) ends the /bot session of the
//     same X-Daily-Session-Id, as a bot's pipeline ends with its caller.
//   - SIGTERM: it stops taking connections and exits once the open sessions
//     end, waiting at most SHUTDOWN_TIMEOUT seconds (7200 when unset). The
//     end of a session does not end the process.
//
// What the stand-in adds for tests (none of it is the contract; the names
// are standinapi's):
//   - An offer whose sdp has no media section gets a placeholder answer
//     (no connection), so that proxies can be checked without a peer.
//   - POST /start and POST|PATCH /sessions/{id}/api/offer are the Pipecat
//     development runner's (with CORS for any origin): /start answers
//     {"sessionId"}, and the offer path is /api/offer with that id as
//     X-Daily-Session-Id, so that a web page can call the agent straight.
//   - The tone is the file standinapi.TonePath of its image (no file: no
//     audio); the RTVI lines it sends are standinapi's.
//   - BOTKIT_TEST_READY_AFTER (a Go duration): /readyz answers 503 until
//     that long after the start.
//   - BOTKIT_TEST_PRINT names a variable whose value it prints at its
//     start.
//   - A /bot session also ends when its body has "standinEndAfterMs": N
//     (N ms after it started), when X-PCC-Max-Session-Seconds pass (unless
//     its body has "standinOverrun": true), or when POST /_standin/end
//     says so; not when the caller goes away.
//   - /_standin/ endpoints: GET /_standin/sessions (what /bot, /ws and
//     /api/offer received: headers, body, when, state, why it ended; for a
//     WebRTC connection every data channel message the peer sent and the
//     audio packets both ways), POST
//     /_standin/end[?session=ID] (ends that session, or every open one),
//     POST /_standin/crash[?code=N] (exits with N, 3 when unset, at once),
//     GET /_standin/ice-config (reads $ICE_CONFIG_URL then, as an agent
//     reads its ICE servers, and answers whether it is set, the status
//     and the body it got).
//
// Its log lines (stdout) name sessions by id, never a header's value.
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/webrtc/v4"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
)

// maxBody bounds every request body the stand-in reads.
const maxBody = 1 << 20

// recordedHeaders are the headers a session's record keeps.
var recordedHeaders = []string{
	"X-Daily-Session-Id",
	"X-Daily-Transport-Type",
	"X-Daily-Room-Url",
	"X-Daily-Room-Token",
	"X-Pcc-Max-Session-Seconds",
}

// session is a request of the contract in progress or done.
type session struct {
	standinapi.Session
	// end tells an open session to end, and why.
	end chan string
}

type server struct {
	started    time.Time
	readyAfter time.Duration
	exit       func(code int)
	// open counts the sessions in progress, for the graceful shutdown.
	open sync.WaitGroup

	// api makes the WebRTC connections; tone is the audio they send
	// (Opus frames, none when empty).
	api  *webrtc.API
	tone [][]byte

	mu       sync.Mutex
	sessions []*session
	// peers are the WebRTC connections by pc_id, until their peer leaves.
	peers map[string]*peer
}

func newServer(readyAfter time.Duration, exit func(int)) *server {
	return &server{started: time.Now(), readyAfter: readyAfter, exit: exit, api: newWebRTCAPI(), peers: map[string]*peer{}}
}

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /livez", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	mux.HandleFunc("POST /bot", s.bot)
	mux.HandleFunc("GET /ws", s.ws)
	mux.HandleFunc("POST /api/offer", s.offer)
	mux.HandleFunc("PATCH /api/offer", s.offer)
	mux.HandleFunc("POST "+standinapi.RunnerStartPath, cors(s.runnerStart))
	mux.HandleFunc("POST /sessions/{id}/api/offer", cors(s.runnerOffer))
	mux.HandleFunc("PATCH /sessions/{id}/api/offer", cors(s.runnerOffer))
	mux.HandleFunc("OPTIONS /", cors(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	mux.HandleFunc("GET "+standinapi.SessionsPath, s.list)
	mux.HandleFunc("POST "+standinapi.EndPath, s.endTold)
	mux.HandleFunc("POST "+standinapi.CrashPath, s.crash)
	mux.HandleFunc("GET "+standinapi.ICEConfigPath, iceConfig)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the caller may be gone
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	if time.Since(s.started) < s.readyAfter {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *server) record(kind string, h http.Header, body json.RawMessage) *session {
	sess := &session{Session: standinapi.Session{Kind: kind, ID: h.Get("X-Daily-Session-Id"), Headers: map[string]string{}, Body: body, State: standinapi.StateActive},
		end: make(chan string, 1)}
	sess.Received = time.Now()
	for _, k := range recordedHeaders {
		if v := h.Get(k); v != "" {
			sess.Headers[k] = v
		}
	}
	s.mu.Lock()
	s.sessions = append(s.sessions, sess)
	s.mu.Unlock()
	return sess
}

func (s *server) ended(sess *session, why string) {
	s.mu.Lock()
	sess.State, sess.Ended = standinapi.StateEnded, why
	s.mu.Unlock()
	fmt.Printf("session %s ended (%s, %s)\n", sess.ID, sess.Kind, why)
}

// readObject reads a JSON object body (the base image refuses anything
// else with 422).
func readObject(w http.ResponseWriter, r *http.Request) (json.RawMessage, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"detail": "body too large"})
		return nil, false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "the body must be a JSON object"})
		return nil, false
	}
	return b, true
}

func (s *server) bot(w http.ResponseWriter, r *http.Request) {
	body, ok := readObject(w, r)
	if !ok {
		return
	}
	s.open.Add(1)
	defer s.open.Done()
	sess := s.record(standinapi.KindBot, r.Header, body)
	fmt.Printf("session %s started (bot, transport %q)\n", sess.ID, r.Header.Get("X-Daily-Transport-Type"))
	var opts map[string]any
	_ = json.Unmarshal(body, &opts) // an object already
	var after, maxSecs <-chan time.Time
	if ms, ok := opts[standinapi.EndAfterMsKey].(float64); ok && ms > 0 {
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		after = t.C
	}
	if n, err := strconv.Atoi(r.Header.Get("X-Pcc-Max-Session-Seconds")); err == nil && n > 0 && opts[standinapi.OverrunKey] != true {
		t := time.NewTimer(time.Duration(n) * time.Second)
		defer t.Stop()
		maxSecs = t.C
	}
	var why string
	gone := false
	for why == "" {
		select {
		case <-after:
			why = standinapi.EndedBody
		case <-maxSecs:
			why = standinapi.EndedMaxSeconds
		case why = <-sess.end:
		case <-r.Context().Done():
			// The caller went away: the bot goes on, as the base image's
			// does (its /bot handler is not cancelled when its caller
			// leaves); nobody is left to answer.
			gone = true
			r = r.WithContext(context.Background())
		}
	}
	s.ended(sess, why)
	if !gone {
		writeJSON(w, http.StatusOK, map[string]any{})
	}
}

func (s *server) ws(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if q := r.URL.Query().Get("body"); q != "" {
		if b, err := base64.StdEncoding.DecodeString(q); err == nil && json.Valid(b) {
			body = b
		} else {
			fmt.Println("ws: the body parameter is not base64 JSON; the session has no body")
		}
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept has answered
	}
	s.open.Add(1)
	defer s.open.Done()
	sess := s.record(standinapi.KindWS, r.Header, body)
	fmt.Printf("session %s started (ws)\n", sess.ID)
	c.SetReadLimit(maxBody)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case why := <-sess.end:
			s.ended(sess, why)
			_ = c.Close(websocket.StatusNormalClosure, "session ended") // the reader sees it
		case <-ctx.Done():
		}
	}()
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			break
		}
		if err := c.Write(ctx, typ, msg); err != nil {
			break
		}
		s.mu.Lock()
		sess.Echoed++
		s.mu.Unlock()
	}
	s.mu.Lock()
	active := sess.State == standinapi.StateActive
	s.mu.Unlock()
	if active {
		s.ended(sess, standinapi.EndedClosed)
	}
	_ = c.CloseNow() // already closed, usually
}

// offer answers a SmallWebRTC offer (POST) or takes ICE candidates (PATCH).
func (s *server) offer(w http.ResponseWriter, r *http.Request) {
	body, ok := readObject(w, r)
	if !ok {
		return
	}
	if r.Method == http.MethodPatch {
		var pr patchRequest
		if err := json.Unmarshal(body, &pr); err != nil || pr.PCID == "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "a patch needs pc_id"})
			return
		}
		s.patch(pr) // an unknown pc_id: a placeholder's, taken as it is
		s.ended(s.record(standinapi.KindICE, r.Header, body), standinapi.EndedAnswered)
		writeJSON(w, http.StatusOK, map[string]string{"status": "success"})
		return
	}
	var o offerRequest
	if err := json.Unmarshal(body, &o); err != nil || o.SDP == "" || o.Type != "offer" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"detail": "an offer needs sdp and type \"offer\""})
		return
	}
	if hasMedia(o.SDP) {
		s.webrtcOffer(w, r, body, o)
		return
	}
	answer := map[string]string{"sdp": "v=0\r\ns=standin-answer\r\n", "type": "answer", "pc_id": o.PCID}
	if o.PCID == "" {
		answer["pc_id"] = fmt.Sprintf("pc-%d", time.Now().UnixNano())
	}
	s.ended(s.record(standinapi.KindOffer, r.Header, body), standinapi.EndedAnswered)
	writeJSON(w, http.StatusOK, answer)
}

func (s *server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]standinapi.Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		out = append(out, sess.Session)
	}
	writeJSON(w, http.StatusOK, out)
}

// endTold ends the open session named by ?session=, or every open one.
func (s *server) endTold(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("session")
	n := 0
	s.mu.Lock()
	for _, sess := range s.sessions {
		if sess.State == standinapi.StateActive && (id == "" || sess.ID == id) {
			select {
			case sess.end <- standinapi.EndedTold:
				n++
			default: // told already
			}
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]int{"ended": n})
}

func (s *server) crash(w http.ResponseWriter, r *http.Request) {
	code := standinapi.CrashCode
	if n, err := strconv.Atoi(r.URL.Query().Get("code")); err == nil {
		code = n
	}
	fmt.Printf("crashing with %d\n", code)
	// Whole (its length given) before the flush: the process ends then.
	b := fmt.Appendf(nil, "{\"code\":%d}\n", code)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(b) // the caller may be gone
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	s.exit(code)
}

// envSeconds reads a whole number of seconds from the environment.
func envSeconds(name string, def int) time.Duration {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return time.Duration(def) * time.Second
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	var readyAfter time.Duration
	if v := os.Getenv(standinapi.ReadyAfterEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", standinapi.ReadyAfterEnv, err)
			os.Exit(2)
		}
		readyAfter = d
	}
	if k := os.Getenv(standinapi.PrintEnv); k != "" {
		fmt.Printf("value of %s: %s\n", k, os.Getenv(k))
	}
	s := newServer(readyAfter, os.Exit)
	if b, err := os.ReadFile(standinapi.TonePath); err == nil {
		if s.tone, err = splitFrames(b); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", standinapi.TonePath, err)
			os.Exit(2)
		}
	} else {
		fmt.Printf("no tone (%v): WebRTC peers get no audio\n", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Printf("listening on %s\n", ln.Addr())
	select {
	case err := <-served:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case <-stop:
	}
	fmt.Println("stopping: waiting for the open sessions")
	ctx, cancel := context.WithTimeout(context.Background(), envSeconds("SHUTDOWN_TIMEOUT", 7200))
	defer cancel()
	drained := make(chan struct{})
	go func() { s.open.Wait(); close(drained) }()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintln(os.Stderr, err)
	}
	select {
	case <-drained:
	case <-ctx.Done():
	}
	fmt.Println("stopped")
}
