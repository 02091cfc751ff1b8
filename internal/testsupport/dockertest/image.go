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

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

//go:embed testdata/agent/main.go
var agentSource []byte

var agentBinary struct {
	once sync.Once
	bin  []byte
	err  error
}

// AgentBinary returns the test agent (testdata/agent) built for Linux on
// this machine's architecture, static (CGO_ENABLED=0), built once per test
// process.
func AgentBinary(t testing.TB) []byte {
	t.Helper()
	agentBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "agent")
		if err != nil {
			agentBinary.err = err
			return
		}
		defer os.RemoveAll(dir)
		for name, body := range map[string][]byte{"go.mod": []byte("module testagent\n\ngo 1.26\n"), "main.go": agentSource} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				agentBinary.err = err
				return
			}
		}
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", "agent", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goruntime.GOARCH, "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentBinary.err = fmt.Errorf("building the test agent: %v\n%s", err, out)
			return
		}
		agentBinary.bin, agentBinary.err = os.ReadFile(filepath.Join(dir, "agent"))
	})
	if agentBinary.err != nil {
		t.Fatal(agentBinary.err)
	}
	return agentBinary.bin
}

// ImageOptions shape the test agent image.
type ImageOptions struct {
	// Healthcheck adds a HEALTHCHECK (healthy once the agent has started,
	// unless BOTKIT_TEST_UNHEALTHY is set), checked every second.
	Healthcheck bool
}

// Dockerfile returns the test agent image's Dockerfile.
func (o ImageOptions) Dockerfile() string {
	var b strings.Builder
	b.WriteString("FROM scratch\nCOPY agent /agent\n")
	if o.Healthcheck {
		b.WriteString(`HEALTHCHECK --interval=1s --timeout=5s --retries=3 CMD ["/agent", "health"]` + "\n")
	}
	b.WriteString(`ENTRYPOINT ["/agent"]` + "\n")
	return b.String()
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
	}{{"Dockerfile", 0o644, []byte(o.Dockerfile())}, {"agent", 0o755, AgentBinary(t)}} {
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
