package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

//go:embed testdata/agent/main.go
var agentSource []byte

//go:embed testdata/tone/main.go
var toneSource []byte

// StandinPackage is the stand-in of Pipecat Cloud's base image (see its
// package comment), a program of this module.
const StandinPackage = "github.com/botkit-dev/botkit/internal/testsupport/dockertest/pccagent"

type built struct {
	once sync.Once
	bin  []byte
	err  error
}

var agentBinary, standinBinary, toneFrames built

// AgentBinary returns the test agent (testdata/agent) built for Linux on
// this machine's architecture, static (CGO_ENABLED=0), built once per test
// process.
func AgentBinary(t testing.TB) []byte {
	t.Helper()
	return agentBinary.get(t, func(dir string) (*exec.Cmd, error) {
		for name, body := range map[string][]byte{"go.mod": []byte("module testagent\n\ngo 1.26\n"), "main.go": agentSource} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				return nil, err
			}
		}
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "agent"), ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		return cmd, nil
	})
}

// StandinBinary returns the stand-in of the base image (StandinPackage),
// built as AgentBinary is, from this module (with its dependencies).
func StandinBinary(t testing.TB) []byte {
	t.Helper()
	return standinBinary.get(t, func(dir string) (*exec.Cmd, error) {
		// Run from the test's directory, inside the module.
		return exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "agent"), StandinPackage), nil
	})
}

// ToneFrames returns the stand-in's audio (standinapi.TonePath): one second
// of a sine encoded as Opus frames by testdata/tone, made once per test
// process with libopus (cgo: it needs a C compiler and libopus0, the
// library Chromium plays Opus with).
func ToneFrames(t testing.TB) []byte {
	t.Helper()
	return toneFrames.get(t, func(dir string) (*exec.Cmd, error) {
		for name, body := range map[string][]byte{"go.mod": []byte("module tone\n\ngo 1.26\n"), "main.go": toneSource} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				return nil, err
			}
		}
		cmd := exec.Command("go", "run", ".", filepath.Join(dir, "agent"))
		cmd.Dir = dir
		// Run on the host, with cgo (get sets CGO_ENABLED=1 for it).
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		return cmd, nil
	})
}

// get builds once, with the command cmd returns, a static Linux binary
// written to DIR/agent (or, for ToneFrames, the file it writes there).
func (b *built) get(t testing.TB, cmd func(dir string) (*exec.Cmd, error)) []byte {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "agent")
		if err != nil {
			b.err = err
			return
		}
		defer os.RemoveAll(dir)
		c, err := cmd(dir)
		if err != nil {
			b.err = err
			return
		}
		if c.Env == nil {
			c.Env = os.Environ()
		}
		if b == &toneFrames {
			c.Env = append(c.Env, "CGO_ENABLED=1")
		} else {
			c.Env = append(c.Env, "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goruntime.GOARCH)
		}
		if out, err := c.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building %s: %v\n%s", c.Args[len(c.Args)-1], err, out)
			if b == &toneFrames {
				b.err = fmt.Errorf("making the stand-in's tone (it needs a C compiler and libopus0: apt-get install gcc libopus0): %v\n%s", err, out)
			}
			return
		}
		b.bin, b.err = os.ReadFile(filepath.Join(dir, "agent"))
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// ImageOptions shape the test agent image.
type ImageOptions struct {
	// Standin builds the stand-in of Pipecat Cloud's base image
	// (StandinPackage) instead of the test agent: it serves the agent side
	// of the session contract on $PORT.
	Standin bool
	// Healthcheck adds a HEALTHCHECK (healthy once the agent has started,
	// unless BOTKIT_TEST_UNHEALTHY is set), checked every second; the
	// test agent's only.
	Healthcheck bool
	// Exit, when not 0, makes the test agent exit with it once started
	// (ENV BOTKIT_TEST_EXIT): an image that crashes whatever it is run
	// with.
	Exit int
}

// Dockerfile returns the test agent image's Dockerfile.
func (o ImageOptions) Dockerfile() string {
	var b strings.Builder
	b.WriteString("FROM scratch\nCOPY agent /agent\n")
	if o.Standin {
		b.WriteString("COPY tone " + standinapi.TonePath + "\n")
	}
	if o.Exit != 0 {
		fmt.Fprintf(&b, "ENV BOTKIT_TEST_EXIT=%d\n", o.Exit)
	}
	if o.Healthcheck {
		b.WriteString(`HEALTHCHECK --interval=1s --timeout=5s --retries=3 CMD ["/agent", "health"]` + "\n")
	}
	b.WriteString(`ENTRYPOINT ["/agent"]` + "\n")
	return b.String()
}

func (o ImageOptions) binary(t testing.TB) []byte {
	if o.Standin {
		return StandinBinary(t)
	}
	return AgentBinary(t)
}

// tone is the stand-in's audio, none for the test agent.
func (o ImageOptions) tone(t testing.TB) []byte {
	if o.Standin {
		return ToneFrames(t)
	}
	return nil
}

// Build builds the test agent image with the engine's build API (a tar
// context: the Dockerfile and the agent) and tags it ref.
func (e *Engine) Build(t testing.TB, ref string, o ImageOptions) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		body []byte
	}{{"Dockerfile", 0o644, []byte(o.Dockerfile())}, {"agent", 0o755, o.binary(t)}, {"tone", 0o644, o.tone(t)}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), ModTime: time.Unix(0, 0)}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resp, err := e.Client.Call(ctx, http.MethodPost, "/build", url.Values{"t": {ref}, "rm": {"1"}, "forcerm": {"1"}},
		http.Header{"Content-Type": {"application/x-tar"}}, &buf)
	if err != nil {
		t.Fatalf("building %s: %v", ref, err)
	}
	defer resp.Body.Close()
	if err := docker.DecodeStream(resp.Body, nil); err != nil {
		t.Fatalf("building %s: %v", ref, err)
	}
}

// Push pushes a local image REPOSITORY:TAG to its registry with user:pass
// and returns the digest the registry gave it.
func (e *Engine) Push(t testing.TB, ref, user, pass string) string {
	t.Helper()
	i := strings.LastIndexByte(ref, ':')
	name, tag := ref[:i], ref[i+1:]
	auth, err := docker.RegistryAuth(&runtime.Credentials{Registry: strings.SplitN(ref, "/", 2)[0], Username: user, Password: pass})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	resp, err := e.Client.Call(ctx, http.MethodPost, "/images/"+name+"/push", url.Values{"tag": {tag}}, http.Header{"X-Registry-Auth": {auth}}, nil)
	if err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	defer resp.Body.Close()
	digest := ""
	err = docker.DecodeStream(resp.Body, func(m docker.Message) error {
		var aux struct{ Digest string }
		if len(m.Aux) > 0 && json.Unmarshal(m.Aux, &aux) == nil && aux.Digest != "" {
			digest = aux.Digest
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	if digest == "" {
		t.Fatalf("pushing %s: the engine reported no digest", ref)
	}
	return digest
}

// RemoveImage removes a local image (and its tags), so that the next use
// pulls it from its registry.
func (e *Engine) RemoveImage(t testing.TB, ref string) {
	t.Helper()
	if err := e.Client.Do(context.Background(), http.MethodDelete, "/images/"+ref, url.Values{"force": {"1"}}, nil, nil); err != nil {
		t.Fatalf("removing image %s: %v", ref, err)
	}
}

// Image is a test agent image in a registry.
type Image struct {
	// Ref is HOST:PORT/REPOSITORY:TAG.
	Ref    string
	Digest string
}

// Pinned returns the image's reference pinned by digest.
func (i Image) Pinned() string {
	name := i.Ref[:strings.LastIndexByte(i.Ref, ':')]
	return name + "@" + i.Digest
}

// PushAgent builds the test agent image as registryHost/repo:tag, pushes it
// with user:pass and removes it from the engine: whoever runs it pulls it
// from the registry.
func (e *Engine) PushAgent(t testing.TB, registryHost, repo, user, pass string, o ImageOptions) Image {
	t.Helper()
	ref := registryHost + "/" + repo
	e.Build(t, ref, o)
	img := Image{Ref: ref, Digest: e.Push(t, ref, user, pass)}
	e.RemoveImage(t, ref)
	return img
}
