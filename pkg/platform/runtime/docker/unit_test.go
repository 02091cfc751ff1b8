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
	"time"

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
	const t1, t2, t3 = "2026-01-02T03:04:05.000000001Z", "2026-01-02T03:04:05.000000002Z", "2026-01-02T03:04:06.5Z"
	demuxed := func(max int, frames ...[]byte) []runtime.LogLine {
		t.Helper()
		var out []runtime.LogLine
		if err := demux(bytes.NewReader(bytes.Join(frames, nil)), max, func(l runtime.LogLine) error {
			out = append(out, l)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var got []string
	for _, l := range demuxed(1<<20,
		frame(1, t1+" one\n"), frame(2, t2+" err line\n"),
		// A line the engine split: each message with its timestamp.
		frame(1, t1+" tw"), frame(1, t2+" o\n"), frame(1, t3+" \n"), frame(1, t3+" three")) {
		got = append(got, string(l.Stream)+":"+l.Text+"@"+l.Time.Format(time.RFC3339Nano))
	}
	if want := []string{"stdout:one@" + t1, "stderr:err line@" + t2, "stdout:two@" + t1, "stdout:@" + t3, "stdout:three@" + t3}; !slices.Equal(got, want) {
		t.Errorf("demux: %q, want %q", got, want)
	}
	// A line past the bound is cut (on a character's boundary), its size
	// kept, and the next line comes whole.
	cut := demuxed(10, frame(1, t1+" 123456789"), frame(1, t2+" é and more\n"), frame(1, t3+" after\n"))
	if len(cut) != 2 || cut[0].Text != "123456789" || cut[0].Size != 20 || cut[0].CutMarker() != " … [line cut: 20 bytes]" || cut[1].Text != "after" || cut[1].Size != 0 {
		t.Errorf("cut: %+v", cut)
	}
	if err := demux(bytes.NewReader(frame(7, "x\n")), 10, func(runtime.LogLine) error { return nil }); err == nil {
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
	for _, host := range []string{"npipe:////./pipe/docker_engine", "ssh://me@host", "fd://", "relative.sock", "tcp://h/x"} {
		if _, err := New(host); runtime.ReasonOf(err) != runtime.ReasonInvalid {
			t.Errorf("New(%s): %v, want %s", host, err, runtime.ReasonInvalid)
		}
	}
}

// The engine's uname names become image platform names.
func TestPlatformOf(t *testing.T) {
	for _, c := range []struct{ os, arch, want string }{
		{"linux", "x86_64", "linux/amd64"}, {"linux", "aarch64", "linux/arm64"}, {"linux", "armv7l", "linux/arm/v7"},
		{"linux", "i686", "linux/386"}, {"linux", "s390x", "linux/s390x"}, {"Linux", "AMD64", "linux/amd64"},
	} {
		if got := PlatformOf(c.os, c.arch); got != c.want {
			t.Errorf("PlatformOf(%s, %s) = %s, want %s", c.os, c.arch, got, c.want)
		}
	}
}
