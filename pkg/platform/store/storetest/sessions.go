package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

// The sessions' contract (store.SessionTx, store.SessionStore): calls, each
// on one container, which serves one session ever.

// newSession returns session id of agent a on container c, starting,
// created at `at`.
func newSession(a store.Agent, id, c string, at time.Time) store.Session {
	return store.Session{ID: id, OrgID: a.OrgID, AgentID: a.ID, Agent: a.Name, Region: a.Region, Deployment: 3,
		Container: c, Transport: "webrtc", State: "starting", CreatedAt: at, MaxSeconds: 7200}
}

func createSession(t *testing.T, s store.Store, ses store.Session) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.CreateSession(ctx, ses) })
}

func optTime(p *time.Time) string {
	if p == nil {
		return "nil"
	}
	return p.UTC().Format(time.RFC3339Nano)
}

func sameSession(t *testing.T, what string, got, want store.Session) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.OrgName != want.OrgName || got.AgentID != want.AgentID ||
		got.Agent != want.Agent || got.Region != want.Region || got.Deployment != want.Deployment ||
		got.Container != want.Container || got.Transport != want.Transport || got.State != want.State ||
		!bytes.Equal(got.WSToken, want.WSToken) || (got.WSToken == nil) != (want.WSToken == nil) ||
		!got.CreatedAt.Equal(want.CreatedAt) || optTime(got.StartedAt) != optTime(want.StartedAt) ||
		optTime(got.EndedAt) != optTime(want.EndedAt) || got.EndReason != want.EndReason || got.MaxSeconds != want.MaxSeconds {
		t.Errorf("%s:\n got  %+v (started %s, ended %s)\n want %+v (started %s, ended %s)", what,
			got, optTime(got.StartedAt), optTime(got.EndedAt), want, optTime(want.StartedAt), optTime(want.EndedAt))
	}
}

func sessionIDs(ss []store.Session) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.OrgName+"/"+s.ID)
	}
	return out
}

// A session is written and read back with every field, by this store and
// another on the database, in and out of a transaction; an update writes
// its container (a waiting session claims one), state, token, times and end
// reason only; an ID and a container are taken once (a container even
// after its session ended), and a refused write leaves the rest of its
// transaction; another organization's session is not found.
func testSessions(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o, p := newOrg(t, s1, "o"), newOrg(t, s1, "p")
	bot := putAgent(t, s1, o.ID, "bot", "us-west")
	if _, err := s2.Session(ctx, o.ID, "ses_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing session: %v, want ErrNotFound", err)
	}
	created := time.Unix(1700000000, 123456789).UTC()
	want := newSession(bot, "ses_1", store.PendingContainer("ses_1"), created)
	want.WSToken = []byte("sha256-of-the-token")
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateSession(ctx, want); err != nil {
			return err
		}
		// The transaction reads its own write.
		got, err := tx.Session(ctx, o.ID, "ses_1")
		if err != nil {
			return err
		}
		want.OrgName = "o"
		sameSession(t, "the session in its transaction", got, want)
		return nil
	})
	for i, s := range []store.Store{s1, s2} {
		got, err := s.Session(ctx, o.ID, "ses_1")
		if err != nil {
			t.Fatal(err)
		}
		sameSession(t, fmt.Sprintf("store %d: the new session", i+1), got, want)
		if !got.Pending() {
			t.Errorf("store %d: a session created on its placeholder is not pending: %+v", i+1, got)
		}
	}
	if _, err := s2.Session(ctx, p.ID, "ses_1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another organization's session: %v, want ErrNotFound", err)
	}

	// A session created on its container, without a token or a bound.
	bare := newSession(bot, "ses_2", "c0ffee02", created.Add(time.Second))
	bare.MaxSeconds, bare.Transport = 0, "daily"
	createSession(t, s2, bare)
	bare.OrgName = "o"
	if got, err := s1.Session(ctx, o.ID, "ses_2"); err != nil || got.WSToken != nil || got.Pending() {
		t.Errorf("a session without a token: %+v %v", got, err)
	} else {
		sameSession(t, "a session without a token", got, bare)
	}

	// An update claims a container and writes the state, token, times and
	// end reason.
	started := created.Add(2*time.Second + 7)
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		ses, err := tx.Session(ctx, o.ID, "ses_1")
		if err != nil {
			return err
		}
		ses.Container, ses.State, ses.WSToken, ses.StartedAt = "c0ffee01", "active", nil, &started
		ses.MaxSeconds, ses.Agent, ses.Region, ses.Transport = 1, "renamed", "us-east", "websocket" // not written
		return tx.UpdateSession(ctx, ses)
	})
	want.Container, want.State, want.WSToken, want.StartedAt = "c0ffee01", "active", nil, &started
	got, err := s1.Session(ctx, o.ID, "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	sameSession(t, "the session on its container (its token used)", got, want)
	if got.Pending() {
		t.Errorf("a session on its container is pending: %+v", got)
	}
	ended := started.Add(time.Minute + 11)
	want.State, want.EndedAt, want.EndReason = "failed", &ended, "the agent died: line 1\nline 2"
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.UpdateSession(ctx, want) })
	got, err = s2.Session(ctx, o.ID, "ses_1")
	if err != nil {
		t.Fatal(err)
	}
	sameSession(t, "the session ended", got, want)
	for name, ses := range map[string]store.Session{
		"an unknown session":             {ID: "ses_nope", OrgID: o.ID, Container: "c-nope", State: "ended"},
		"another organization's session": {ID: "ses_1", OrgID: p.ID, Container: "c0ffee01", State: "ended"},
	} {
		err := s2.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.UpdateSession(ctx, ses) })
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("updating %s: %v, want ErrNotFound", name, err)
		}
	}

	// An ID, and a container, is taken once.
	for name, ses := range map[string]store.Session{
		"the ID of another session":        newSession(bot, "ses_2", "c0ffee03", created),
		"the container of a live session":  newSession(bot, "ses_3", "c0ffee02", created),
		"the container of an ended one":    newSession(bot, "ses_4", "c0ffee01", created),
		"the placeholder of another":       newSession(bot, "ses_5", store.PendingContainer("ses_2x"), created),
		"another organization's container": {ID: "ses_6", OrgID: p.ID, AgentID: bot.ID, Agent: "x", Region: "us-west", Container: "c0ffee02", Transport: "webrtc", State: "starting"},
	} {
		if name == "the placeholder of another" {
			createSession(t, s2, newSession(bot, "ses_2x", store.PendingContainer("ses_2x"), created))
		}
		err := s1.Update(ctx, func(ctx context.Context, tx store.Tx) error { return tx.CreateSession(ctx, ses) })
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("a session on %s: %v, want ErrExists", name, err)
		}
	}
	// An update onto another session's container is refused, and the
	// transaction goes on: the session fails instead.
	for i, s := range []store.Store{s1, s2} {
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			ses, err := tx.Session(ctx, o.ID, "ses_2x")
			if err != nil {
				return err
			}
			for _, c := range []string{"c0ffee01", "c0ffee02"} {
				claim := ses
				claim.Container, claim.State = c, "active"
				if err := tx.UpdateSession(ctx, claim); !errors.Is(err, store.ErrExists) {
					t.Errorf("store %d: claiming the container of another session: %v, want ErrExists", i+1, err)
				}
			}
			ses.State, ses.EndedAt, ses.EndReason = "failed", &ended, fmt.Sprint("no agent ", i)
			return tx.UpdateSession(ctx, ses)
		})
		got, err := s1.Session(ctx, o.ID, "ses_2x")
		if err != nil || got.Container != store.PendingContainer("ses_2x") || got.State != "failed" || got.EndReason != fmt.Sprint("no agent ", i) {
			t.Errorf("store %d: the session refused a container: %+v %v", i+1, got, err)
		}
	}
	if ss, err := s2.Sessions(ctx, bot.ID, 10); err != nil || !slices.Equal(sessionIDs(ss), []string{"o/ses_2", "o/ses_2x", "o/ses_1"}) {
		t.Errorf("sessions after the refused ones: %v %v", sessionIDs(ss), err)
	}
	for id, c := range map[string]string{"ses_1": "c0ffee01", "ses_2": "c0ffee02"} {
		if got, err := s2.Session(ctx, o.ID, id); err != nil || got.Container != c {
			t.Errorf("%s after the refused ones: %+v %v", id, got, err)
		}
	}
}

// Of 50 claims of one container at once, through two stores on the
// database (two replicas), in updates of their own and in updates grouped
// with others (store.WithObjects), by new sessions and by sessions waiting
// on their placeholder, exactly one wins: the others get ErrExists, and a
// waiting session that lost still waits.
func testSessionClaim(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	bot := putAgent(t, s1, o.ID, "bot", "us-west")
	const n = 50
	id := func(i int) string { return fmt.Sprintf("ses_%02d", i) }
	waiting := func(i int) bool { return i%3 != 0 } // else a new session
	created := time.Now().UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		for i := range n {
			if waiting(i) {
				if err := tx.CreateSession(ctx, newSession(bot, id(i), store.PendingContainer(id(i)), created)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			uctx := ctx
			if i%4 >= 2 {
				uctx = store.WithObjects(ctx, store.ObjectKey{OrgID: o.ID, Name: fmt.Sprint("set-", i%3)})
			}
			errs[i] = []store.Store{s1, s2}[i%2].Update(uctx, func(ctx context.Context, tx store.Tx) error {
				if !waiting(i) {
					return tx.CreateSession(ctx, newSession(bot, id(i), "c0ffee", created))
				}
				ses, err := tx.Session(ctx, o.ID, id(i))
				if err != nil {
					return err
				}
				ses.Container, ses.State = "c0ffee", "active"
				return tx.UpdateSession(ctx, ses)
			})
		}()
	}
	close(start)
	wg.Wait()
	var won []int
	for i, err := range errs {
		switch {
		case err == nil:
			won = append(won, i)
		case !errors.Is(err, store.ErrExists):
			t.Errorf("claim %d: %v, want ErrExists or success", i, err)
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d sessions claimed the container (%v), want 1", len(won), won)
	}
	ss, err := s2.Sessions(ctx, bot.ID, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	want := 0 // the waiting sessions, and the winner
	for i := range n {
		if waiting(i) || i == won[0] {
			want++
		}
	}
	if len(ss) != want {
		t.Errorf("the agent's sessions: %v, want %d", sessionIDs(ss), want)
	}
	for _, ses := range ss {
		switch {
		case ses.ID == id(won[0]):
			if ses.Container != "c0ffee" {
				t.Errorf("the winner %s: %+v", ses.ID, ses)
			}
		case !ses.Pending() || ses.State != "starting":
			t.Errorf("%s lost the claim: %+v, want it waiting", ses.ID, ses)
		}
	}
}

// LiveSessions returns the starting and active sessions of one region, of
// every organization, with their organization's name.
func testLiveSessions(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	b, a := newOrg(t, s1, "b"), newOrg(t, s1, "a")
	bbot, abot, east := putAgent(t, s1, b.ID, "bot", "us-west"), putAgent(t, s1, a.ID, "bot", "us-west"), putAgent(t, s1, b.ID, "east", "us-east")
	at := time.Unix(1700000000, 0).UTC()
	now := at.Add(time.Hour)
	for i, c := range []struct {
		agent store.Agent
		state string
	}{{bbot, "starting"}, {abot, "active"}, {bbot, "ended"}, {abot, "failed"}, {east, "active"}, {bbot, "active"}} {
		ses := newSession(c.agent, fmt.Sprint("ses_", i), fmt.Sprint("c", i), at.Add(time.Duration(i)*time.Second))
		ses.State = c.state
		if !ses.Live() {
			ses.StartedAt, ses.EndedAt, ses.EndReason = &at, &now, "the caller ended it"
		}
		createSession(t, s1, ses)
	}
	for region, want := range map[string][]string{"us-west": {"b/ses_0", "a/ses_1", "b/ses_5"}, "us-east": {"b/ses_4"}, "eu-central": {}} {
		got, err := s2.LiveSessions(ctx, region)
		if err != nil || !slices.Equal(sessionIDs(got), want) {
			t.Errorf("LiveSessions(%s): %v (%v), want %v", region, sessionIDs(got), err, want)
		}
		for _, ses := range got {
			if ses.Region != region || !ses.Live() || ses.Container == "" || ses.Agent == "" || ses.AgentID == 0 {
				t.Errorf("LiveSessions(%s): %+v", region, ses)
			}
		}
	}
	liveCount(t, s2, map[int64]int{bbot.ID: 2, abot.ID: 1, east.ID: 1})
	// A session that ends leaves the list, and the count, in the
	// transaction that ends it.
	update(t, s2, func(ctx context.Context, tx store.Tx) error {
		ses, err := tx.Session(ctx, a.ID, "ses_1")
		if err != nil {
			return err
		}
		ses.State, ses.EndedAt, ses.EndReason = "ended", &now, "max duration"
		if err := tx.UpdateSession(ctx, ses); err != nil {
			return err
		}
		if n, err := tx.LiveSessionCount(ctx, abot.ID); err != nil || n != 0 {
			t.Errorf("LiveSessionCount in the transaction that ended its session: %d %v, want 0", n, err)
		}
		return nil
	})
	if got, err := s1.LiveSessions(ctx, "us-west"); err != nil || !slices.Equal(sessionIDs(got), []string{"b/ses_0", "b/ses_5"}) {
		t.Errorf("LiveSessions(us-west) after ses_1 ended: %v (%v)", sessionIDs(got), err)
	}
	liveCount(t, s1, map[int64]int{bbot.ID: 2, abot.ID: 0, east.ID: 1})
}

// liveCount checks each agent's LiveSessionCount (by agent ID) in a
// transaction of s.
func liveCount(t *testing.T, s store.Store, want map[int64]int) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		for id, w := range want {
			if n, err := tx.LiveSessionCount(ctx, id); err != nil || n != w {
				t.Errorf("LiveSessionCount(agent %d): %d %v, want %d", id, n, err, w)
			}
		}
		return nil
	})
}

// Sessions returns an agent's sessions newest first (by creation, then ID),
// up to a limit; DeleteAgent deletes the agent's sessions and no other's.
func testAgentSessions(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o := newOrg(t, s1, "o")
	bot, other := putAgent(t, s1, o.ID, "bot", "us-west"), putAgent(t, s1, o.ID, "other", "us-west")
	at := time.Unix(1700000000, 0).UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		// Created in an order that is not the listing's; ses_b and ses_c at
		// the same time.
		for _, c := range []struct {
			id    string
			agent store.Agent
			sec   int
		}{{"ses_c", bot, 2}, {"ses_a", bot, 1}, {"ses_d", bot, 3}, {"ses_b", bot, 2}, {"ses_x", other, 5}, {"ses_0", bot, 0}} {
			if err := tx.CreateSession(ctx, newSession(c.agent, c.id, "ctr-"+c.id, at.Add(time.Duration(c.sec)*time.Second))); err != nil {
				return err
			}
		}
		return nil
	})
	for limit, want := range map[int][]string{10: {"o/ses_d", "o/ses_c", "o/ses_b", "o/ses_a", "o/ses_0"}, 3: {"o/ses_d", "o/ses_c", "o/ses_b"}, 1: {"o/ses_d"}} {
		if got, err := s2.Sessions(ctx, bot.ID, limit); err != nil || !slices.Equal(sessionIDs(got), want) {
			t.Errorf("Sessions(bot, %d): %v (%v), want %v", limit, sessionIDs(got), err, want)
		}
	}
	update(t, s2, func(ctx context.Context, tx store.Tx) error { return tx.DeleteAgent(ctx, bot.ID) })
	if got, err := s1.Sessions(ctx, bot.ID, 10); err != nil || len(got) != 0 {
		t.Errorf("sessions of the deleted agent: %v (%v)", sessionIDs(got), err)
	}
	if _, err := s1.Session(ctx, o.ID, "ses_d"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a session of the deleted agent: %v, want ErrNotFound", err)
	}
	if got, err := s1.LiveSessions(ctx, "us-west"); err != nil || !slices.Equal(sessionIDs(got), []string{"o/ses_x"}) {
		t.Errorf("live sessions after the delete: %v (%v)", sessionIDs(got), err)
	}
	if got, err := s2.Sessions(ctx, other.ID, 10); err != nil || !slices.Equal(sessionIDs(got), []string{"o/ses_x"}) {
		t.Errorf("the other agent's sessions: %v (%v)", sessionIDs(got), err)
	}
}

// testPublicKeySession: a key and a session of its organization are read
// together, by this store and another on the database; a deleted key is
// read deleted; an unknown key, an unknown session and another
// organization's session are not found.
func testPublicKeySession(t *testing.T, open Opener) {
	ctx := context.Background()
	s1, s2 := open(t), open(t)
	o, p := newOrg(t, s1, "o"), newOrg(t, s1, "p")
	bot := putAgent(t, s1, o.ID, "bot", "us-west")
	theirs := putAgent(t, s1, p.ID, "bot", "us-west")
	at := time.Unix(1700000000, 123456789).UTC()
	update(t, s1, func(ctx context.Context, tx store.Tx) error {
		for _, k := range []store.PublicKey{
			{ID: "key_o", OrgID: o.ID, Name: "web", Hash: []byte("ho"), Prefix: "pk_oo", AllowedOrigins: []string{"https://o.example"}, CreatedAt: at, CreatedBy: "ann"},
			{ID: "key_p", OrgID: p.ID, Hash: []byte("hp"), Prefix: "pk_pp", CreatedAt: at, CreatedBy: "bob"},
		} {
			if err := tx.CreatePublicKey(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
	want := newSession(bot, "ses_o", "c0ffee", at)
	started := at.Add(time.Second)
	want.State, want.StartedAt = "active", &started
	createSession(t, s1, want)
	want.OrgName = "o"
	createSession(t, s1, newSession(theirs, "ses_p", "c0ffee-p", at))
	for i, s := range []store.Store{s1, s2} {
		k, got, err := s.PublicKeySession(ctx, []byte("ho"), "ses_o")
		if err != nil || k.ID != "key_o" || k.OrgID != o.ID || k.OrgName != "o" || !slices.Equal(k.AllowedOrigins, []string{"https://o.example"}) ||
			!k.CreatedAt.Equal(at) || k.DeletedAt != nil {
			t.Errorf("store %d: the key: %+v %v", i+1, k, err)
		}
		sameSession(t, fmt.Sprintf("store %d: the session", i+1), got, want)
	}
	for _, c := range []struct{ hash, id string }{{"ho", "ses_p"}, {"ho", "ses_nope"}, {"nope", "ses_o"}, {"hp", "ses_o"}} {
		if _, _, err := s2.PublicKeySession(ctx, []byte(c.hash), c.id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("key %s, session %s: %v, want ErrNotFound", c.hash, c.id, err)
		}
	}
	deleted := at.Add(time.Hour)
	update(t, s1, func(ctx context.Context, tx store.Tx) error { return tx.DeletePublicKey(ctx, o.ID, "key_o", deleted) })
	if k, _, err := s2.PublicKeySession(ctx, []byte("ho"), "ses_o"); err != nil || k.DeletedAt == nil || !k.DeletedAt.Equal(deleted) {
		t.Errorf("a deleted key: %+v %v", k, err)
	}
}
