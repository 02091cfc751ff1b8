package docker

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func frame(stream byte, s string) []byte {
	h := make([]byte, 8, 8+len(s))
	h[0] = stream
	binary.BigEndian.PutUint32(h[4:], uint32(len(s)))
	return append(h, s...)
}

func TestDemux(t *testing.T) {
	var in bytes.Buffer
	in.Write(frame(1, "one\ntw"))
	in.Write(frame(2, "err line\n"))
	in.Write(frame(1, "o\nthree"))
	var got []string
	err := demux(&in, func(s runtime.Stream, line []byte) error {
		got = append(got, string(s)+":"+string(line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"stdout:one", "stderr:err line", "stdout:two", "stdout:three"}; !slices.Equal(got, want) {
		t.Errorf("demux: %q, want %q", got, want)
	}
	if err := demux(bytes.NewReader(frame(7, "x\n")), func(runtime.Stream, []byte) error { return nil }); err == nil {
		t.Error("demux of an unknown stream: no error")
	}
}

func TestPullErrorByStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want runtime.Reason
	}{
		{&APIError{Status: http.StatusUnauthorized, Message: "x"}, runtime.ReasonUnauthorized},
		{&APIError{Status: http.StatusForbidden, Message: "x"}, runtime.ReasonUnauthorized},
		{&APIError{Status: http.StatusNotFound, Message: "x"}, runtime.ReasonImageNotFound},
		{&APIError{Status: http.StatusInternalServerError, Message: "registry down"}, runtime.ReasonPullFailed},
		{&StreamError{Message: "denied: requested access to the resource is denied"}, runtime.ReasonUnauthorized},
		{&runtime.Error{Reason: runtime.ReasonUnreachable}, runtime.ReasonUnreachable},
	} {
		if got := runtime.ReasonOf(pullError("img", c.err)); got != c.want {
			t.Errorf("pullError(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}

func TestSameRepository(t *testing.T) {
	parse := func(s string) resources.ImageRef {
		r, err := resources.ParseImageRef(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"python:3", "docker.io/library/python@sha256:" + strings.Repeat("a", 64), true},
		{"index.docker.io/library/python", "python", true},
		{"127.0.0.1:5000/acme/bot:1", "127.0.0.1:5000/acme/bot@sha256:" + strings.Repeat("b", 64), true},
		{"127.0.0.1:5000/acme/bot", "127.0.0.1:5001/acme/bot", false},
		{"acme/bot", "acme/bots", false},
	} {
		if got := sameRepository(parse(c.a), parse(c.b)); got != c.want {
			t.Errorf("sameRepository(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"1.41", "1.47", true}, {"1.47", "1.41", false}, {"1.9", "1.41", true}, {"1.41", "1.41", false}, {"2.0", "1.47", false}} {
		if got := versionLess(c.a, c.b); got != c.want {
			t.Errorf("versionLess(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// Start refuses what an agent must never run with before it reaches the
// engine; an engine that does not answer is ReasonUnreachable.
func TestStartRefusesAndUnreachable(t *testing.T) {
	rt, err := NewRuntime("unix://" + filepath.Join(t.TempDir(), "none.sock"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := runtime.LookupProfile(runtime.ProfileAgent1x)
	ok := runtime.StartSpec{Image: "r.example/a@sha256:" + string(bytes.Repeat([]byte("a"), 64)), Profile: p, Count: 1}
	for name, mod := range map[string]func(*runtime.StartSpec){
		"tag only":        func(s *runtime.StartSpec) { s.Image = "r.example/a:1" },
		"host network":    func(s *runtime.StartSpec) { s.Network = "host" },
		"container netns": func(s *runtime.StartSpec) { s.Network = "container:abc" },
		"no profile":      func(s *runtime.StartSpec) { s.Profile = runtime.Profile{} },
		"no agents":       func(s *runtime.StartSpec) { s.Count = 0 },
		"unknown restart": func(s *runtime.StartSpec) { s.Restart.Name = "sometimes" },
	} {
		s := ok
		mod(&s)
		if _, err := rt.Start(context.Background(), s); runtime.ReasonOf(err) != runtime.ReasonInvalid {
			t.Errorf("%s: %v, want %s", name, err, runtime.ReasonInvalid)
		}
	}
	if _, err := rt.Start(context.Background(), ok); runtime.ReasonOf(err) != runtime.ReasonUnreachable {
		t.Errorf("Start on no engine: %v, want %s", err, runtime.ReasonUnreachable)
	}
	if _, err := rt.List(context.Background(), nil); runtime.ReasonOf(err) != runtime.ReasonUnreachable {
		t.Errorf("List on no engine: %v, want %s", err, runtime.ReasonUnreachable)
	}
	if _, err := New("tcp://127.0.0.1:2375"); runtime.ReasonOf(err) != runtime.ReasonInvalid {
		t.Errorf("New(tcp://…): %v, want %s", err, runtime.ReasonInvalid)
	}
}
