// Package sessions measures the platform's sessions against their floors,
// measured in the same run on the same engine: bench/sessions.sh runs it
// and prints the ratios (it prints; it does not judge).
//
// Everything is real and private to the run: a Docker Engine (dockerd with
// its own roots and socket), a docker-registry with htpasswd holding the
// stand-in of Pipecat Cloud's base image (dockertest's pccagent, FROM
// scratch), and botkit-platform built from this checkout, run as `serve`
// over a SQLite data directory with the engine as its region's runtime.
// The agents run on the platform's own network; the floors' containers
// join the same network.
//
// The measures, over ROUNDS rounds (default 5), the platform and its floor
// alternating so that a change of load hits both alike:
//   - warm start: from POST /v1/public/{agent}/start (a public key) until
//     the agent has received POST /bot (the stand-in's record of when it
//     had the request, by the same clock), minAgents 20; its floor, a
//     direct POST /bot from this process to an idle container of the same
//     image that has received nothing yet. Goal: median within 2x. Then
//     20 starters at once, ROUNDS times: the p99.
//   - cold start (minAgents 0): the same, until /bot arrives; its floor,
//     the engine API's create and start of the same image on the same
//     network until the container's first /readyz 200. Goal: within 1.2x.
//   - proxy: POST api/offer through /v1/public/{agent}/sessions/{id}/
//     against the same request sent to the agent's address directly
//     (goal: median within 1.3x), and two peers between the same caller
//     and agent, each a process of its own: a bare TCP relay (the cost of
//     any process's hop on this machine) and Go's reverse proxy with
//     nothing else (what the platform's HTTP server and client cost before
//     its key, store and log); a websocket echo of 160-byte frames
//     every 20 ms (8 kHz μ-law, 20 ms) through wsUrl against one to the
//     agent's /ws directly, side by side (goal: p99 added at most 2 ms).
//   - phone call relay: the same echo through /ws/generic (a call the
//     platform starts and relays message by message) against the same
//     agent's /ws directly, side by side (goal: p99 added at most 2 ms).
//   - burst: 200 starts at once against maxAgents 10 (want 10 answered 200
//     and 190 answered 429), then every session ended: what is left (no
//     session live, no agent beyond minAgents) and the platform process's
//     resident memory (VmRSS) before and after, and its peak (VmHWM).
//   - 50 phone calls at once through /ws/generic on one platform, each an
//     echo of 20 ms frames for 10 s: the relay's added latency over all of
//     them, and the platform's VmRSS and goroutines (its /metrics) before,
//     during (every second) and after (goal: flat).
package sessions

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/registrytest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/platform/agentcall"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
	"github.com/botkit-dev/botkit/pkg/resources"
)

const (
	org = "bench"
	// The agents: warm (minAgents 20), cold (minAgents 0) and burst.
	warmAgent, warmMin, warmMax = "warm", 20, 60
	coldAgent                   = "cold"
	burstAgent, burstMin        = "burst", 2
	// The agent of the concurrent phone calls: one agent a call.
	phoneAgent, phoneCalls, phoneSeconds = "phones", 50, 10
	burstMax, burstStarts                = 10, 200
	concurrent                           = 20
	// frame is 20 ms of 8 kHz μ-law audio.
	frame, framePeriod = 160, 20 * time.Millisecond
)

type rig struct {
	b      *testing.B
	eng    *dockertest.Engine
	rt     *docker.Runtime
	image  dockertest.Image
	srv    *platformtest.Server
	log    string // the server's log
	c      *client.Client
	key    string
	http   *http.Client
	direct *http.Client
}

func BenchmarkSessions(b *testing.B) {
	dockertest.Need(b)
	registrytest.Need(b)
	rounds := testenv.Rounds(b, 5)
	r := setUp(b)
	r.deploy(warmAgent, warmMin, warmMax)
	r.deploy(coldAgent, 0, 1)
	r.deploy(burstAgent, burstMin, burstMax)
	r.waitPool(warmAgent, warmMin)
	r.waitPool(burstAgent, burstMin)

	// One of each, not measured: the first requests of a process.
	p := r.peer()
	r.direct1(p)
	r.removePeer(p)
	r.warmStart()

	// Warm and cold starts with their floors, alternating. A round: three
	// floor containers started (the cold floor), two cold starts, then
	// three warm starts each beside a direct /bot to one of the floor's
	// containers (idle, unused).
	var warm, warmAnswer, direct, cold, coldAnswer, peerReady []time.Duration
	var coldFailed []string
	for i := 0; i < rounds; i++ {
		r.waitPool(warmAgent, warmMin) // the previous round's refills done
		var peers []peer
		for j := 0; j < 3; j++ {
			p := r.peer()
			peerReady = append(peerReady, p.ready)
			peers = append(peers, p)
		}
		for j := 0; j < 2; j++ {
			got, answered, why := r.coldStart()
			if why != "" {
				coldFailed = append(coldFailed, why)
				continue
			}
			cold, coldAnswer = append(cold, got), append(coldAnswer, answered)
		}
		for _, p := range peers {
			got, answered := r.warmStart()
			warm, warmAnswer = append(warm, got), append(warmAnswer, answered)
			direct = append(direct, r.direct1(p))
			r.removePeer(p)
		}
	}
	var conc []time.Duration
	for i := 0; i < rounds; i++ {
		conc = append(conc, r.concurrentStarts()...)
	}
	offers, offersDirect, offersRelay, offersStd, ws, wsDirect := r.proxy(rounds)
	relayed, relayDirect := r.relay(rounds)
	probes := r.probe(rounds)
	burst := r.burst()
	r.deploy(phoneAgent, phoneCalls, phoneCalls)
	calls := r.calls()

	fmt.Printf("rounds: %d (alternating); load average at the end: %s\n", rounds, loadavg())
	report("warm start: /start until the agent has /bot", warm)
	report("warm start: /start answered (its accept window: "+agentcall.DefaultAcceptWindow.String()+")", warmAnswer)
	report("warm floor: a direct POST /bot to an idle agent until it has it", direct)
	fmt.Printf("warm start: ratio of the medians: %.2fx (goal <= 2x)\n", ratio(warm, direct))
	report(fmt.Sprintf("warm start, %d starters at once (%d rounds): until each agent has /bot", concurrent, rounds), conc)
	fmt.Printf("warm start, %d at once: p99 %s; p99 / warm floor's median: %.1fx\n", concurrent, pct(conc, 99).Round(time.Millisecond), float64(pct(conc, 99))/float64(median(direct)))
	report("cold start (minAgents 0): /start until the agent has /bot", cold)
	report("cold start: /start answered", coldAnswer)
	report("cold floor: engine API create + start until the first /readyz 200", peerReady)
	fmt.Printf("cold start: ratio of the medians: %.2fx (goal <= 1.2x)\n", ratio(cold, peerReady))
	fmt.Printf("cold start: %d of %d answered an error, not measured\n", len(coldFailed), len(cold)+len(coldFailed))
	for _, why := range coldFailed {
		fmt.Printf("cold start: answered %s\n", why)
	}
	reportMicro("proxy: POST api/offer through the platform", offers)
	reportMicro("proxy: POST api/offer to the agent directly", offersDirect)
	fmt.Printf("proxy: api/offer ratio of the medians: %.2fx (goal <= 1.3x)\n", ratio(offers, offersDirect))
	reportMicro("proxy peer: POST api/offer through a bare TCP relay (a process of its own)", offersRelay)
	reportMicro("proxy peer: POST api/offer through Go's reverse proxy alone (a process of its own)", offersStd)
	fmt.Printf("proxy peers: the relay / directly %.2fx (any process's hop); Go's reverse proxy / directly %.2fx; through the platform / Go's reverse proxy %.2fx (the platform's own cost)\n",
		ratio(offersRelay, offersDirect), ratio(offersStd, offersDirect), ratio(offers, offersStd))
	reportMicro("websocket echo of 160-byte frames every 20 ms through wsUrl", ws)
	reportMicro("websocket echo of 160-byte frames every 20 ms to /ws directly", wsDirect)
	fmt.Printf("websocket: added latency: median %s, p99 %s (goal <= 2ms)\n",
		(median(ws) - median(wsDirect)).Round(time.Microsecond), (pct(ws, 99) - pct(wsDirect, 99)).Round(time.Microsecond))
	reportMicro("phone call: echo of 160-byte frames every 20 ms through /ws/generic", relayed)
	reportMicro("phone call: echo of 160-byte frames every 20 ms to /ws directly", relayDirect)
	fmt.Printf("phone call relay: added latency: median %s, p99 %s (goal <= 2ms)\n",
		(median(relayed) - median(relayDirect)).Round(time.Microsecond), (pct(relayed, 99) - pct(relayDirect, 99)).Round(time.Microsecond))
	probes.print()
	burst.print()
	calls.print()

	b.ReportMetric(ratio(warm, direct), "x/warm-start")
	b.ReportMetric(float64(pct(conc, 99))/1e6, "ms/warm-start-p99-20")
	b.ReportMetric(ratio(cold, peerReady), "x/cold-start")
	b.ReportMetric(ratio(offers, offersDirect), "x/offer")
	b.ReportMetric(ratio(offers, offersStd), "x/offer-over-go-proxy")
	b.ReportMetric(float64(pct(ws, 99)-pct(wsDirect, 99))/1e6, "ms/ws-added-p99")
	b.ReportMetric(float64(pct(relayed, 99)-pct(relayDirect, 99))/1e6, "ms/relay-added-p99")
	b.ReportMetric(float64(pct(calls.echo, 99))/1e6, "ms/calls-50-echo-p99")
}

// callsResult is what 50 phone calls at once did: every echo's round
// trip, and the platform's memory and goroutines around them.
type callsResult struct {
	echo                          []time.Duration
	failed                        []string
	rss, goroutines               []int // before, each second during, after
	rssAfter, goroutinesAfter     int
	rssLater, goroutinesLater     int // 35 s after
	rssBefore, goroutinesBefore   int
	sessionsLive, sessionsRecords int
}

// calls opens phoneCalls phone calls at once through /ws/generic, each an
// echo of 160-byte frames every 20 ms for phoneSeconds, then closes them.
func (r *rig) calls() callsResult {
	r.waitPool(phoneAgent, phoneCalls)
	var res callsResult
	res.rssBefore, _ = r.memory()
	res.goroutinesBefore = r.goroutines()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < phoneCalls; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			echo, err := r.call(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.failed = append(res.failed, err.Error())
			}
			res.echo = append(res.echo, echo...)
		}()
	}
	close(gate)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-tick.C:
			rss, _ := r.memory()
			res.rss, res.goroutines = append(res.rss, rss), append(res.goroutines, r.goroutines())
		}
	}
	// The calls' sessions end with their sockets.
	testenv.Eventually(r.b, "the calls' sessions ended", func() bool {
		list, err := r.c.Sessions(ctx, org, phoneAgent)
		if err != nil {
			return false
		}
		res.sessionsLive, res.sessionsRecords = 0, len(list)
		for _, s := range list {
			if s.State == resources.SessionStarting || s.State == resources.SessionActive {
				res.sessionsLive++
			}
		}
		return res.sessionsLive == 0
	})
	// Settled: the calls' agents gone, the pool refilled.
	r.waitPool(phoneAgent, phoneCalls)
	time.Sleep(2 * time.Second)
	res.rssAfter, _ = r.memory()
	res.goroutinesAfter = r.goroutines()
	// The idle connections to agents close after 30 s (agentcall's
	// IdleConnTimeout): what is left then.
	time.Sleep(35 * time.Second)
	res.rssLater, _ = r.memory()
	res.goroutinesLater = r.goroutines()
	return res
}

// call is one phone call: /ws/generic, an echo of 160-byte frames every
// 20 ms for phoneSeconds, the round trip of each.
func (r *rig) call(ctx context.Context) ([]time.Duration, error) {
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.srv.URL, "http")+"/ws/generic/"+phoneAgent+"."+org,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + r.key}}})
	if err != nil {
		return nil, fmt.Errorf("dialing /ws/generic: %w", err)
	}
	defer c.CloseNow() // error ignored: closed below when all went well
	frame := bytes.Repeat([]byte{0xff}, 160)
	var out []time.Duration
	for i := 0; i < phoneSeconds*50; i++ {
		sent := time.Now()
		if err := c.Write(ctx, websocket.MessageBinary, frame); err != nil {
			return out, err
		}
		if _, _, err := c.Read(ctx); err != nil {
			return out, err
		}
		out = append(out, time.Since(sent))
		time.Sleep(time.Until(sent.Add(20 * time.Millisecond)))
	}
	return out, c.Close(websocket.StatusNormalClosure, "")
}

// goroutines reads go_goroutines from the platform's /metrics.
func (r *rig) goroutines() int {
	resp, err := r.http.Get(r.srv.URL + "/metrics")
	if err != nil {
		r.b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				r.b.Fatal(err)
			}
			return int(n)
		}
	}
	r.b.Fatalf("no go_goroutines in /metrics: %v", sc.Err())
	return 0
}

func (res callsResult) print() {
	reportMicro(fmt.Sprintf("%d phone calls at once, %d s each: every frame's echo through /ws/generic", phoneCalls, phoneSeconds), res.echo)
	if len(res.failed) > 0 {
		fmt.Printf("%d phone calls at once: %d failed, the first: %s\n", phoneCalls, len(res.failed), res.failed[0])
	}
	kib := func(kb []int) string {
		var out []string
		for _, k := range kb {
			out = append(out, fmt.Sprintf("%.1f", mib(k)))
		}
		return strings.Join(out, " ")
	}
	ints := func(ns []int) string {
		var out []string
		for _, n := range ns {
			out = append(out, strconv.Itoa(n))
		}
		return strings.Join(out, " ")
	}
	fmt.Printf("%d phone calls at once: the platform's VmRSS (MiB) before %.1f, each second %s, after (the pool refilled) %.1f, 35 s later %.1f\n",
		phoneCalls, mib(res.rssBefore), kib(res.rss), mib(res.rssAfter), mib(res.rssLater))
	fmt.Printf("%d phone calls at once: the platform's goroutines before %d, each second %s, after (the pool refilled) %d, 35 s later %d\n",
		phoneCalls, res.goroutinesBefore, ints(res.goroutines), res.goroutinesAfter, res.goroutinesLater)
	fmt.Printf("%d phone calls at once: %d sessions recorded, %d live after the calls\n", phoneCalls, res.sessionsRecords, res.sessionsLive)
}

func setUp(b *testing.B) *rig {
	eng := dockertest.Start(b)
	dir := b.TempDir()
	const user = "bench"
	pass := "bench-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	host := registrytest.StartFor(b, filepath.Join(dir, "registry"), user, pass).Host()
	img := eng.PushAgent(b, host, "bench/pcc:1", user, pass, dockertest.ImageOptions{Standin: true})
	rt, err := docker.NewRuntime(eng.Host)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rt.Close)

	bin, err := platformtest.Build(dir)
	if err != nil {
		b.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	tok, err := platformtest.CreateOrgToken(bin, data, org)
	if err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(dir, "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logf.Close() })
	srv, err := platformtest.Serve(bin, data, logf, "--runtime", "us-west=docker://"+strings.TrimPrefix(eng.Host, "unix://"),
		"--agent-settle", "300ms", "--allow-private-registries", "--log-format", "json")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Stop)
	c, err := client.New(client.Options{BaseURL: srv.URL, Token: tok, Timeout: 5 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	creds := user + ":" + pass
	if _, _, err := c.Merge(ctx, org, "reg", resources.Patch{Kind: resources.KindImagePullSecret, Host: host, Credentials: &creds}, ""); err != nil {
		b.Fatal(err)
	}
	if _, err := c.WaitAll(ctx, org, []string{"reg"}); err != nil {
		b.Fatal(err)
	}
	k, err := c.CreatePublicKey(ctx, org, resources.PublicKeyRequest{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	transport := func() *http.Client {
		return &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 512}}
	}
	return &rig{b: b, eng: eng, rt: rt, image: img, srv: srv, log: logPath, c: c, key: k.Key, http: transport(), direct: transport()}
}

// deploy deploys agent name with minAgents min and maxAgents max and waits
// for it to serve.
func (r *rig) deploy(name string, min, max int) {
	ctx := context.Background()
	a := resources.Agent{Metadata: resources.ObjectMeta{Name: name}, Spec: resources.AgentSpec{Image: r.image.Ref, ImagePullSecret: "reg",
		Scaling: &resources.AgentScaling{MinAgents: min, MaxAgents: max}}}
	d, err := r.c.Deploy(ctx, org, name, resources.DeployRequest{Agent: &a})
	if err != nil {
		r.b.Fatal(err)
	}
	if d, err = r.c.WaitRollout(ctx, org, name, d.Number, nil); err != nil || d.Result != resources.DeploymentServing {
		r.b.Fatalf("rollout of %s: %+v %v", name, d, err)
	}
}

// waitPool waits until agent name has idle agents idle and none in a
// session.
func (r *rig) waitPool(name string, idle int) {
	testenv.Eventually(r.b, fmt.Sprintf("%s: %d idle agents, none in a session", name, idle), func() bool {
		st, err := r.c.AgentStatus(context.Background(), org, name)
		return err == nil && st.Agent.Status.Pool != nil && st.Agent.Status.Pool.Idle == idle && st.Agent.Status.Pool.InSession == 0
	})
}

// answer is a start's answer: when it was sent, how long until it was
// answered, its status, and its body (or the error's message).
type answer struct {
	sent time.Time
	took time.Duration
	code int
	out  resources.SessionStarted
	why  string
	err  error
}

// start sends POST /v1/public/{agent}/start with the public key (from any
// goroutine: a failure is in the answer's err).
func (r *rig) start(agent string, req resources.SessionStartRequest) (a answer) {
	body, err := json.Marshal(req)
	if err != nil {
		return answer{err: err}
	}
	hr, err := http.NewRequest(http.MethodPost, r.srv.URL+"/v1/public/"+agent+"/start", bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Authorization", "Bearer "+r.key)
	a.sent = time.Now()
	resp, err := r.http.Do(hr)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a.took, a.code = time.Since(a.sent), resp.StatusCode
	if err != nil {
		a.err = err
		return a
	}
	if a.code == http.StatusOK {
		a.err = json.Unmarshal(b, &a.out)
		return a
	}
	var e struct {
		Error resources.Error `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		a.why = e.Error.Message
	} else {
		a.why = strings.TrimSpace(string(b))
	}
	return a
}

// must is a start's answer that the benchmark needs to be 200.
func (r *rig) must(what string, a answer) answer {
	if a.err != nil || a.code != http.StatusOK {
		r.b.Fatalf("%s: %d %s %v", what, a.code, a.why, a.err)
	}
	return a
}

// agents returns agent name's containers.
func (r *rig) agents(name string) []runtime.Agent {
	cs, err := r.rt.List(context.Background(), runtime.Selector{runtime.LabelOrganization: org, runtime.LabelAgent: name})
	if err != nil {
		r.b.Fatal(err)
	}
	return cs
}

// received finds, among agent name's containers, the /bot records of
// sessions ids: by id, the record and the stand-in that has it.
func (r *rig) received(name string, ids ...string) map[string]received {
	out := map[string]received{}
	if !testenv.Poll(func() bool {
		for _, c := range r.agents(name) {
			if c.Endpoint == "" {
				continue
			}
			s := dockertest.Standin{Endpoint: c.Endpoint}
			recs, err := s.Sessions(context.Background())
			if err != nil {
				continue
			}
			for _, rec := range recs {
				if rec.Kind == standinapi.KindBot && slices.Contains(ids, rec.ID) {
					out[rec.ID] = received{rec: rec, s: s}
				}
			}
		}
		return len(out) == len(ids)
	}) {
		// What the platform says of the sessions no agent has, and what
		// its log says of them.
		var why []string
		for _, id := range ids {
			if _, ok := out[id]; ok {
				continue
			}
			ses, err := r.c.Session(context.Background(), org, name, id)
			why = append(why, fmt.Sprintf("%s: %+v %v", id, ses, err))
			log, _ := os.ReadFile(r.log) // error ignored: the log is a courtesy of the failure's message
			for _, l := range strings.Split(string(log), "\n") {
				if strings.Contains(l, id) {
					why = append(why, "  "+l)
				}
			}
		}
		r.b.Fatalf("%s: %d of %d sessions started are on none of its agents after %s:\n%s", name, len(ids)-len(out), len(ids), testenv.Patience, strings.Join(why, "\n"))
	}
	return out
}

type received struct {
	rec standinapi.Session
	s   dockertest.Standin
}

// end ends the sessions of recs (their agents' /bot answers, and what
// else of the session is still open on the agent: its /ws).
func (r *rig) end(recs map[string]received) {
	for id, rc := range recs {
		if n, err := rc.s.End(context.Background(), id); err != nil || n < 1 {
			r.b.Fatalf("ending session %s: %d %v", id, n, err)
		}
	}
}

// warmStart starts a session on the warm agent (its pool full) and
// returns how long until its agent had /bot and until /start answered;
// the session is then ended.
func (r *rig) warmStart() (time.Duration, time.Duration) {
	r.waitPool(warmAgent, warmMin)
	a := r.must("warm start", r.start(warmAgent, resources.SessionStartRequest{}))
	recs := r.received(warmAgent, a.out.SessionID)
	r.end(recs)
	return recs[a.out.SessionID].rec.Received.Sub(a.sent), a.took
}

// coldStart starts a session on the cold agent (nothing running) and
// returns how long until its agent had /bot and until /start answered;
// the session is then ended and its agent gone. A start that the
// platform answers with an error is counted, not measured: why is
// returned ("" for a session started).
func (r *rig) coldStart() (time.Duration, time.Duration, string) {
	testenv.Eventually(r.b, "cold: no agent", func() bool { return len(r.agents(coldAgent)) == 0 })
	a := r.start(coldAgent, resources.SessionStartRequest{})
	if a.err != nil {
		r.b.Fatalf("cold start: %v", a.err)
	}
	if a.code != http.StatusOK {
		testenv.Eventually(r.b, "cold: the failed start's agent gone", func() bool { return len(r.agents(coldAgent)) == 0 })
		return 0, 0, fmt.Sprintf("%d: %s", a.code, a.why)
	}
	recs := r.received(coldAgent, a.out.SessionID)
	r.end(recs)
	testenv.Eventually(r.b, "cold: its agent gone", func() bool { return len(r.agents(coldAgent)) == 0 })
	return recs[a.out.SessionID].rec.Received.Sub(a.sent), a.took, ""
}

// concurrentStarts starts `concurrent` sessions on the warm agent at once
// (its pool full) and returns how long each took until its agent had
// /bot; they are then ended.
func (r *rig) concurrentStarts() []time.Duration {
	r.waitPool(warmAgent, warmMin)
	got := make([]answer, concurrent)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			got[i] = r.start(warmAgent, resources.SessionStartRequest{})
		}()
	}
	close(gate)
	wg.Wait()
	var ids []string
	for _, g := range got {
		ids = append(ids, r.must(fmt.Sprintf("%d starts at once", concurrent), g).out.SessionID)
	}
	recs := r.received(warmAgent, ids...)
	r.end(recs)
	var out []time.Duration
	for _, g := range got {
		out = append(out, recs[g.out.SessionID].rec.Received.Sub(g.sent))
	}
	return out
}

// peer is a container of the same image started through the engine's API
// on the agents' network: the floors.
type peer struct {
	id, endpoint string
	ready        time.Duration
}

// peer creates and starts a container of the image on the agents' network
// and waits for its first /readyz 200; ready is that time.
func (r *rig) peer() peer {
	ctx := context.Background()
	var created struct {
		ID string `json:"Id"`
	}
	body := map[string]any{"Image": r.image.Pinned(), "Env": []string{"PORT=8080"},
		"HostConfig": map[string]any{"NetworkMode": runtime.DefaultNetwork}, "Labels": map[string]string{"bench": "peer"}}
	poll := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	start := time.Now()
	if err := r.eng.Client.Do(ctx, http.MethodPost, "/containers/create", nil, body, &created); err != nil {
		r.b.Fatal(err)
	}
	if err := r.eng.Client.Do(ctx, http.MethodPost, "/containers/"+created.ID+"/start", nil, nil, nil); err != nil {
		r.b.Fatal(err)
	}
	var inspect struct {
		NetworkSettings struct {
			Networks map[string]struct {
				IPAddress string `json:"IPAddress"`
			} `json:"Networks"`
		} `json:"NetworkSettings"`
	}
	if err := r.eng.Client.Do(ctx, http.MethodGet, "/containers/"+created.ID+"/json", nil, nil, &inspect); err != nil {
		r.b.Fatal(err)
	}
	ip := inspect.NetworkSettings.Networks[runtime.DefaultNetwork].IPAddress
	if ip == "" {
		r.b.Fatalf("the floor's container has no address on %s", runtime.DefaultNetwork)
	}
	endpoint := ip + ":8080"
	for {
		resp, err := poll.Get("http://" + endpoint + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(start) > testenv.Patience {
			r.b.Fatalf("the floor's container was not ready within %s: %v", testenv.Patience, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return peer{id: created.ID, endpoint: endpoint, ready: time.Since(start)}
}

func (r *rig) removePeer(p peer) {
	if err := r.eng.Client.Do(context.Background(), http.MethodDelete, "/containers/"+p.id, url.Values{"force": {"true"}}, nil, nil); err != nil {
		r.b.Fatal(err)
	}
}

// direct1 sends POST /bot to the floor's container p as the platform does
// (a new connection, the contract's headers) and returns how long until
// it had it; the session is then ended.
func (r *rig) direct1(p peer) time.Duration {
	id := fmt.Sprintf("direct-%d", time.Now().UnixNano())
	req, err := http.NewRequest(http.MethodPost, "http://"+p.endpoint+"/bot", strings.NewReader("{}"))
	if err != nil {
		r.b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Daily-Session-Id", id)
	req.Header.Set("X-Daily-Transport-Type", "webrtc")
	req.Header.Set("X-Pcc-Max-Session-Seconds", "7200")
	req.Close = true
	one := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	done := make(chan error, 1)
	sent := time.Now()
	go func() {
		resp, err := one.Do(req)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	s := dockertest.Standin{Endpoint: p.endpoint}
	var rec standinapi.Session
	testenv.Eventually(r.b, "the floor's container has /bot", func() bool {
		recs, err := s.Sessions(context.Background())
		if err != nil {
			return false
		}
		i := slices.IndexFunc(recs, func(x standinapi.Session) bool { return x.ID == id })
		if i >= 0 {
			rec = recs[i]
		}
		return i >= 0
	})
	if n, err := s.End(context.Background(), id); err != nil || n != 1 {
		r.b.Fatalf("ending the direct session: %d %v", n, err)
	}
	if err := testenv.Within(r.b, "the direct /bot's answer", done); err != nil {
		r.b.Fatal(err)
	}
	return rec.Received.Sub(sent)
}

// proxy measures, on one websocket session of the warm agent, api/offer
// round trips through the platform, directly, through the bare relay and
// through Go's reverse proxy (in turn, 40 each per round), then the websocket echo through wsUrl and directly, side by
// side (2 s per round).
func (r *rig) proxy(rounds int) (offers, offersDirect, offersRelay, offersStd, ws, wsDirect []time.Duration) {
	r.waitPool(warmAgent, warmMin)
	started := r.must("websocket start", r.start(warmAgent, resources.SessionStartRequest{Transport: resources.TransportWebsocket})).out
	recs := r.received(warmAgent, started.SessionID)
	endpoint := recs[started.SessionID].s.Endpoint
	offer := func(u string, h http.Header, i int) time.Duration {
		body := fmt.Sprintf(`{"sdp":"v=0\r\ns=bench\r\n","type":"offer","pc_id":"pc-%d"}`, i)
		req, err := http.NewRequest(http.MethodPost, u, strings.NewReader(body))
		if err != nil {
			r.b.Fatal(err)
		}
		req.Header = h.Clone()
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := r.http.Do(req)
		if err != nil {
			r.b.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(fmt.Sprintf(`"pc-%d"`, i))) {
			r.b.Fatalf("offer to %s: %d %s %v", u, resp.StatusCode, b, err)
		}
		return d
	}
	through := r.srv.URL + "/v1/public/" + warmAgent + "/sessions/" + started.SessionID + "/api/offer"
	viaKey := http.Header{"Authorization": {"Bearer " + r.key}}
	toAgent := http.Header{"X-Daily-Session-Id": {started.SessionID}}
	relayed := "http://" + startRelay(r.b, "tcp", endpoint) + "/api/offer"
	stdlib := "http://" + startRelay(r.b, "http", endpoint) + "/api/offer"
	for i := 0; i < 5; i++ { // the connections made: not measured
		offer(through, viaKey, i)
		offer("http://"+endpoint+"/api/offer", toAgent, i)
		offer(relayed, toAgent, i)
		offer(stdlib, toAgent, i)
	}
	for i := 0; i < 40*rounds; i++ {
		offers = append(offers, offer(through, viaKey, i))
		offersDirect = append(offersDirect, offer("http://"+endpoint+"/api/offer", toAgent, i))
		offersRelay = append(offersRelay, offer(relayed, toAgent, i))
		offersStd = append(offersStd, offer(stdlib, toAgent, i))
	}

	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	viaURL, _, err := websocket.Dial(ctx, started.WSURL, nil)
	if err != nil {
		r.b.Fatalf("dialing wsUrl: %v", err)
	}
	defer viaURL.CloseNow()
	toWS, _, err := websocket.Dial(ctx, "ws://"+endpoint+"/ws", nil)
	if err != nil {
		r.b.Fatalf("dialing the agent's /ws: %v", err)
	}
	defer toWS.CloseNow()
	ws, wsDirect = r.echoes(ctx, viaURL, toWS, rounds)
	viaURL.Close(websocket.StatusNormalClosure, "")
	toWS.Close(websocket.StatusNormalClosure, "")
	r.end(recs)
	return offers, offersDirect, offersRelay, offersStd, ws, wsDirect
}

// echoes sends a 20 ms frame every 20 ms on both a and b, side by side
// (half a period apart), for 2 s per round, and returns each one's echo
// round trips (the first ten not measured).
func (r *rig) echoes(ctx context.Context, a, b *websocket.Conn, rounds int) (viaA, viaB []time.Duration) {
	n := int(time.Duration(rounds) * 2 * time.Second / framePeriod)
	var wg sync.WaitGroup
	echo := func(c *websocket.Conn, offset time.Duration, out *[]time.Duration) {
		defer wg.Done()
		msg := bytes.Repeat([]byte{0xff}, frame) // μ-law silence
		time.Sleep(offset)
		tick := time.NewTicker(framePeriod)
		defer tick.Stop()
		for i := 0; i < n+10; i++ {
			<-tick.C
			start := time.Now()
			if err := c.Write(ctx, websocket.MessageBinary, msg); err != nil {
				r.b.Error(err)
				return
			}
			_, got, err := c.Read(ctx)
			if err != nil || len(got) != frame {
				r.b.Errorf("echo: %d bytes, %v", len(got), err)
				return
			}
			if i >= 10 { // the first ones: not measured
				*out = append(*out, time.Since(start))
			}
		}
	}
	wg.Add(2)
	go echo(a, 0, &viaA)
	go echo(b, framePeriod/2, &viaB)
	wg.Wait()
	if r.b.Failed() {
		r.b.FailNow()
	}
	return viaA, viaB
}

// relay measures a phone call's relay: the websocket echo of 20 ms frames
// through /ws/generic (the platform reads each message and writes it on)
// and to the same agent's /ws directly, side by side (2 s per round).
func (r *rig) relay(rounds int) (relayed, direct []time.Duration) {
	r.waitPool(warmAgent, warmMin)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience)
	defer cancel()
	call, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(r.srv.URL, "http")+"/ws/generic/"+warmAgent+"."+org,
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + r.key}}})
	if err != nil {
		r.b.Fatalf("dialing /ws/generic: %v", err)
	}
	defer call.CloseNow()
	list, err := r.c.Sessions(ctx, org, warmAgent)
	if err != nil || len(list) == 0 || list[0].State != resources.SessionActive {
		r.b.Fatalf("the call's session: %v %v", list, err)
	}
	recs := r.received(warmAgent, list[0].ID)
	toWS, _, err := websocket.Dial(ctx, "ws://"+recs[list[0].ID].s.Endpoint+"/ws", nil)
	if err != nil {
		r.b.Fatalf("dialing the agent's /ws: %v", err)
	}
	defer toWS.CloseNow()
	relayed, direct = r.echoes(ctx, call, toWS, rounds)
	toWS.Close(websocket.StatusNormalClosure, "")
	call.Close(websocket.StatusNormalClosure, "") // the call ends, and its session
	return relayed, direct
}

// probes are the engine's answers the platform waits for on a start and
// on each proxied request, timed from this process with the platform's
// own engine client (pkg/platform/runtime/docker): where the time goes.
type probes struct {
	list, listAtOnce, inspect, update []time.Duration
	containers                        int
}

// probe times, 10 per round: the list of the warm agent's containers (the
// look a claim and the proxy's endpoint take: one list, then one inspect
// per container), `concurrent` such lists at once (20 starters' claims),
// one container's inspection, and a restart policy's update (what a claim
// does to the agent it claimed; on a floor's container).
func (r *rig) probe(rounds int) probes {
	ctx := context.Background()
	sel := runtime.Selector{runtime.LabelOrganization: org, runtime.LabelAgent: warmAgent}
	var out probes
	p := r.peer()
	defer r.removePeer(p)
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			r.b.Fatal(err)
		}
		return time.Since(start)
	}
	for i := 0; i < 10*rounds; i++ {
		out.list = append(out.list, timed(func() error {
			cs, err := r.rt.List(ctx, sel)
			out.containers = len(cs)
			return err
		}))
		out.inspect = append(out.inspect, timed(func() error {
			return r.eng.Client.Do(ctx, http.MethodGet, "/containers/"+p.id+"/json", nil, nil, nil)
		}))
		out.update = append(out.update, timed(func() error {
			return r.rt.SetRestartPolicy(ctx, p.id, runtime.RestartPolicy{Name: runtime.RestartNever})
		}))
	}
	for i := 0; i < rounds; i++ {
		out.listAtOnce = append(out.listAtOnce, timed(func() error {
			errs := make(chan error, concurrent)
			for j := 0; j < concurrent; j++ {
				go func() {
					_, err := r.rt.List(ctx, sel)
					errs <- err
				}()
			}
			var err error
			for j := 0; j < concurrent; j++ {
				err = cmp.Or(err, <-errs)
			}
			return err
		}))
	}
	return out
}

func (p probes) print() {
	reportMicro(fmt.Sprintf("engine: the list of the warm agent's %d containers (a claim's and the proxy's look)", p.containers), p.list)
	reportMicro(fmt.Sprintf("engine: %d such lists at once, until the last answered", concurrent), p.listAtOnce)
	reportMicro("engine: one container's inspection", p.inspect)
	reportMicro("engine: a restart policy's update (a claim's)", p.update)
}

type burstResult struct {
	codes                 map[int]int
	others                map[string]int // the answers neither 200 nor 429: how many of each
	slowest               map[string]time.Duration
	failed                []string
	took                  time.Duration
	live, left, idle      int
	rssBefore, rssAfter   int
	peakBefore, peakAfter int
	settled               time.Duration
}

// burst sends `burstStarts` starts at once to the burst agent (maxAgents
// `burstMax`, its pool full), counts the answers, ends every session and
// looks at what is left, and at the platform's memory.
func (r *rig) burst() burstResult {
	r.waitPool(burstAgent, burstMin)
	res := burstResult{codes: map[int]int{}, others: map[string]int{}, slowest: map[string]time.Duration{}}
	res.rssBefore, res.peakBefore = r.memory()
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := 0; i < burstStarts; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			a := r.start(burstAgent, resources.SessionStartRequest{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case a.err != nil:
				res.failed = append(res.failed, a.err.Error())
			case a.code == http.StatusOK:
				ids = append(ids, a.out.SessionID)
			case a.code != http.StatusTooManyRequests:
				k := fmt.Sprintf("%d: %s", a.code, a.why)
				res.others[k], res.slowest[k] = res.others[k]+1, max(res.slowest[k], a.took)
			}
			res.codes[a.code]++
		}()
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	res.took = time.Since(start)
	if len(res.failed) > 0 {
		r.b.Fatalf("burst: %d starts failed: %s", len(res.failed), res.failed[0])
	}
	r.end(r.received(burstAgent, ids...))

	// Settled: no session live and minAgents idle agents, within a
	// minute (what is left then is printed).
	ctx := context.Background()
	start = time.Now()
	for {
		list, err := r.c.Sessions(ctx, org, burstAgent)
		if err != nil {
			r.b.Fatal(err)
		}
		res.live = 0
		for _, s := range list {
			if s.State == resources.SessionStarting || s.State == resources.SessionActive {
				res.live++
			}
		}
		res.left = len(r.agents(burstAgent))
		st, err := r.c.AgentStatus(ctx, org, burstAgent)
		if err != nil {
			r.b.Fatal(err)
		}
		res.idle = 0
		if st.Agent.Status.Pool != nil {
			res.idle = st.Agent.Status.Pool.Idle
		}
		if res.live == 0 && res.left == burstMin && res.idle == burstMin || time.Since(start) > time.Minute {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	res.settled = time.Since(start)
	res.rssAfter, res.peakAfter = r.memory()
	return res
}

func (res burstResult) print() {
	var other []string
	for code, n := range res.codes {
		if code != http.StatusOK && code != http.StatusTooManyRequests {
			other = append(other, fmt.Sprintf("%d answered %d", n, code))
		}
	}
	slices.Sort(other)
	fmt.Printf("burst: %d starts at once, maxAgents %d, minAgents %d: %d answered 200, %d answered 429 (want %d and %d)%s; all answered in %s\n",
		burstStarts, burstMax, burstMin, res.codes[http.StatusOK], res.codes[http.StatusTooManyRequests], burstMax, burstStarts-burstMax,
		strings.Join(append([]string{""}, other...), ", "), res.took.Round(time.Millisecond))
	var whys []string
	for why, n := range res.others {
		whys = append(whys, fmt.Sprintf("%d x %s (the slowest after %s)", n, why, res.slowest[why].Round(time.Millisecond)))
	}
	slices.Sort(whys)
	for _, why := range whys {
		fmt.Printf("burst: answered %s\n", why)
	}
	fmt.Printf("burst: every session ended; %s later: %d sessions live, %d agents left (%d idle; minAgents %d)\n",
		res.settled.Round(time.Millisecond), res.live, res.left, res.idle, burstMin)
	fmt.Printf("burst: the platform's VmRSS %.1f MiB before, %.1f MiB after; VmHWM (peak) %.1f MiB before, %.1f MiB after\n",
		mib(res.rssBefore), mib(res.rssAfter), mib(res.peakBefore), mib(res.peakAfter))
}

// memory reads the platform process's VmRSS and VmHWM, in kB.
func (r *rig) memory() (rss, hwm int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", r.srv.PID()))
	if err != nil {
		r.b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB")) // error ignored: the lines not in kB are not read
		switch k {
		case "VmRSS":
			rss = n
		case "VmHWM":
			hwm = n
		}
	}
	if err := sc.Err(); err != nil {
		r.b.Fatal(err)
	}
	return rss, hwm
}

func mib(kb int) float64 { return float64(kb) / 1024 }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ratio(a, b []time.Duration) float64 { return float64(median(a)) / float64(median(b)) }

func report(what string, ds []time.Duration) { reportIn(what, ds, time.Millisecond) }

func reportMicro(what string, ds []time.Duration) { reportIn(what, ds, time.Microsecond) }

// reportIn prints the count, min, median, p99 and max of ds, rounded to
// unit.
func reportIn(what string, ds []time.Duration, unit time.Duration) {
	if len(ds) == 0 {
		fmt.Printf("%s: n 0\n", what)
		return
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	fmt.Printf("%s: n %d, min %s, median %s, p99 %s, max %s\n", what, len(s), s[0].Round(unit),
		median(ds).Round(unit), pct(ds, 99).Round(unit), s[len(s)-1].Round(unit))
}
