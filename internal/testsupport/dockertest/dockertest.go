// Package dockertest runs a private Docker Engine for tests: dockerd as
// root with its own data and exec roots and socket in a temporary
// directory, no default bridge and no iptables (a container gets a network
// only if one is made for it: the host reaches it there, nothing leaves the
// machine), and the test agent image or the stand-in of Pipecat Cloud's
// base image (pccagent), built from a Go program and pushed to a real
// docker-registry.
package dockertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

// Available returns nil when Start can run an engine here: dockerd,
// containerd and runc installed, and the test running as root.
func Available() error {
	for _, p := range []string{"dockerd", "containerd", "runc"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is required (apt-get install -y docker.io)", p)
		}
	}
	if os.Geteuid() != 0 {
		return errors.New("starting a Docker Engine needs root")
	}
	return nil
}

// Need skips the test when no engine can be started (fails it in CI).
func Need(t testing.TB) {
	t.Helper()
	testenv.NeedInstalled(t, "a Docker Engine (docker.io)")
	if err := Available(); err != nil {
		testenv.Missing(t, "%v", err)
	}
}

// Engine is a running private dockerd.
type Engine struct {
	// Dir holds everything of the engine: data, exec root, socket, log.
	Dir string
	// Host is its address, unix://DIR/docker.sock.
	Host string
	// Client talks to it.
	Client *docker.Client
	// With Options.TLS: TCP is its TCP address (tcp://127.0.0.1:PORT),
	// which asks every client for a certificate of CA; ClientTLS is a
	// directory holding ca.pem, cert.pem and key.pem of such a client, as
	// DOCKER_CERT_PATH names one.
	TCP       string
	ClientTLS string
	CA        *tlstest.CA
	cmd       *exec.Cmd
	done      chan struct{}
}

// Options shape a private engine.
type Options struct {
	// TLS adds a TCP listener on 127.0.0.1 with --tlsverify: its server
	// certificate and the clients' signed by a CA the helper makes.
	TLS bool
}

// Start runs a private engine and waits until it answers; the test's
// cleanup removes its containers, stops it and removes its directory,
// leaving no process behind. A missing dockerd skips the test (fails it in
// CI); an engine that does not start fails it.
func Start(t testing.TB) *Engine {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, o Options) *Engine {
	t.Helper()
	Need(t)
	// A short path: unix socket paths are limited to 108 bytes, and the
	// engine's containerd puts its own sockets below the exec root.
	dir, err := os.MkdirTemp("/tmp", "dk")
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{Dir: dir, Host: "unix://" + filepath.Join(dir, "docker.sock"), done: make(chan struct{})}
	t.Cleanup(func() { e.stop(t) })
	if err := os.WriteFile(filepath.Join(dir, "daemon.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	args := []string{
		"--config-file", filepath.Join(dir, "daemon.json"),
		"--data-root", filepath.Join(dir, "data"),
		"--exec-root", filepath.Join(dir, "exec"),
		"-H", e.Host,
		"--pidfile", filepath.Join(dir, "pid"),
		"--bridge=none", "--iptables=false", "--ip6tables=false",
		"--log-level=warn"}
	if o.TLS {
		args = append(args, e.listenTLS(t)...)
	}
	e.cmd = exec.Command("dockerd", args...)
	e.cmd.Stdout, e.cmd.Stderr = logf, logf
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := e.cmd.Start(); err != nil {
		close(e.done)
		t.Fatalf("starting dockerd: %v", err)
	}
	go func() { _ = e.cmd.Wait(); close(e.done) }() // its exit is seen through done
	if e.Client, err = docker.New(e.Host); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Patience) // a bound on an engine that hangs, not on a slow start
	defer cancel()
	for {
		err := e.Client.Ping(ctx)
		if err == nil {
			return e
		}
		select {
		case <-e.done:
			t.Fatalf("dockerd exited before answering:\n%s", e.log())
		case <-ctx.Done():
			t.Fatalf("dockerd did not answer on %s: %v\n%s", e.Host, err, e.log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// listenTLS makes the engine's CA, its server certificate for 127.0.0.1
// and a client's, and returns dockerd's arguments of a TCP listener that
// verifies its clients.
func (e *Engine) listenTLS(t testing.TB) []string {
	t.Helper()
	ca, err := tlstest.NewCA("dockertest CA")
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(e.Dir, "tls")
	if err := ca.MustIssue(t, 2, "127.0.0.1", "localhost").WriteDir(ca, server); err != nil {
		t.Fatal(err)
	}
	e.ClientTLS = filepath.Join(e.Dir, "client")
	if err := ca.MustIssueClient(t, 3, "botkit").WriteDir(ca, e.ClientTLS); err != nil {
		t.Fatal(err)
	}
	e.CA = ca
	e.TCP = fmt.Sprintf("tcp://127.0.0.1:%d", testenv.FreePort(t))
	return []string{"-H", e.TCP, "--tlsverify",
		"--tlscacert", filepath.Join(server, "ca.pem"),
		"--tlscert", filepath.Join(server, "cert.pem"),
		"--tlskey", filepath.Join(server, "key.pem")}
}

// Freeze stops dockerd (SIGSTOP): the engine takes connections and
// answers nothing until Thaw, as an engine that hangs. The test's cleanup
// thaws it before it stops it.
func (e *Engine) Freeze(t testing.TB) {
	t.Helper()
	if err := e.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("freezing dockerd: %v", err)
	}
	t.Cleanup(e.Thaw)
}

// Thaw lets a frozen dockerd run again (SIGCONT).
func (e *Engine) Thaw() {
	_ = e.cmd.Process.Signal(syscall.SIGCONT) // error ignored: it may have exited; stop reports that
}

func (e *Engine) log() string {
	b, err := os.ReadFile(filepath.Join(e.Dir, "dockerd.log"))
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// stop removes the engine's containers, stops it (SIGTERM, then SIGKILL),
// kills what it leaves running (containerd, shims), unmounts what it left
// mounted and removes its directory.
func (e *Engine) stop(t testing.TB) {
	if e.cmd != nil && e.cmd.Process != nil && e.Client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var list []struct {
			ID string `json:"Id"`
		}
		if err := e.Client.Do(ctx, http.MethodGet, "/containers/json", url.Values{"all": {"1"}}, nil, &list); err == nil {
			for _, c := range list {
				if err := e.Client.Do(ctx, http.MethodDelete, "/containers/"+c.ID, url.Values{"force": {"1"}, "v": {"1"}}, nil, nil); err != nil {
					t.Logf("dockertest: removing container %s: %v", c.ID, err)
				}
			}
		}
		e.removeNetworks(ctx, t)
		cancel()
		e.Client.Close()
	}
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Signal(syscall.SIGTERM) // it may have exited already
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			t.Logf("dockertest: dockerd did not stop on SIGTERM; killing it")
			_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL) // the group: dockerd and its containerd
			<-e.done
		}
	}
	killUnder(t, e.Dir)
	unmountUnder(t, e.Dir)
	if err := os.RemoveAll(e.Dir); err != nil {
		t.Errorf("dockertest: removing %s: %v", e.Dir, err)
	}
}

// removeNetworks removes the networks made on the engine, whose bridges
// would otherwise stay on the host after it stops.
func (e *Engine) removeNetworks(ctx context.Context, t testing.TB) {
	var nets []struct {
		ID   string `json:"Id"`
		Name string `json:"Name"`
	}
	if err := e.Client.Do(ctx, http.MethodGet, "/networks", nil, nil, &nets); err != nil {
		t.Logf("dockertest: listing networks: %v", err)
		return
	}
	for _, n := range nets {
		switch n.Name {
		case "none", "host", "bridge":
			continue // the engine's own
		}
		if err := e.Client.Do(ctx, http.MethodDelete, "/networks/"+n.ID, nil, nil, nil); err != nil {
			t.Errorf("dockertest: removing network %s: %v", n.Name, err)
		}
	}
}

// killUnder kills the processes whose command line names dir (the
// engine's containerd and shims) and waits until they are gone.
func killUnder(t testing.TB, dir string) {
	for round := 0; round < 100; round++ {
		pids := processesNaming(dir)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL) // it may be gone already
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("dockertest: processes of %s still running: %v", dir, processesNaming(dir))
}

func processesNaming(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, en := range entries {
		pid, err := strconv.Atoi(en.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if bytes.Contains(cmdline, []byte(dir+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// unmountUnder detaches the mounts left below dir, deepest first.
func unmountUnder(t testing.TB, dir string) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var mounts []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			mounts = append(mounts, f[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(mounts)))
	for _, m := range mounts {
		if err := unix.Unmount(m, unix.MNT_DETACH); err != nil {
			t.Logf("dockertest: unmounting %s: %v", m, err)
		}
	}
}
