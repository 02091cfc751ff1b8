package platformtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// Build builds the botkit-platform binary into dir and returns its path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "botkit-platform")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/botkit-dev/botkit/cmd/botkit-platform").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building botkit-platform: %v\n%s", err, out)
	}
	return bin, nil
}

// CreateOrgToken runs the binary's admin commands on dataDir: `orgs create
// ORG [orgArgs...]`, then `tokens create --org ORG`, and returns the token.
func CreateOrgToken(bin, dataDir, org string, orgArgs ...string) (string, error) {
	if _, err := admin(bin, dataDir, append([]string{"orgs", "create", org}, orgArgs...)...); err != nil {
		return "", err
	}
	out, err := admin(bin, dataDir, "tokens", "create", "--org", org)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	tok := lines[len(lines)-1]
	if !strings.HasPrefix(tok, "bkp_") {
		return "", errors.New("botkit-platform tokens create: its last line is not a token")
	}
	return tok, nil
}

func admin(bin, dataDir string, args ...string) (string, error) {
	cmd := exec.Command(bin, append(args, "--data-dir", dataDir)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("botkit-platform %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return string(out), nil
}

// Server is a running `botkit-platform serve` process.
type Server struct {
	// URL is the base URL it listens on (http://127.0.0.1:PORT, https://
	// with --tls-cert-file).
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
}

var listenRe = regexp.MustCompile(`listening on (https?://\S+)`)

// Serve runs `botkit-platform serve` on a free port of 127.0.0.1 over
// dataDir (extra: more flags) and waits until it listens. Its stdout and
// stderr lines go to log (nil discards them). The caller stops it.
func Serve(bin, dataDir string, log *os.File, extra ...string) (*Server, error) {
	return ServeOn(bin, "127.0.0.1:0", dataDir, log, extra...)
}

// ServeOn is Serve on the address listen ("[::1]:0": a free port of the
// IPv6 loopback).
func ServeOn(bin, listen, dataDir string, log *os.File, extra ...string) (*Server, error) {
	return start(exec.Command(bin, append([]string{"serve", "--listen", listen, "--data-dir", dataDir}, extra...)...), log)
}

// ServeLocal runs `botkit-platform serve --local` on a free port of
// 127.0.0.1 (extra: more flags) in the process's environment plus env
// (HOME, XDG_DATA_HOME, DOCKER_HOST: the CLI's data directory and engine it
// serves), and waits until it listens, as Serve.
func ServeLocal(bin string, env []string, log *os.File, extra ...string) (*Server, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--local", "--listen", "127.0.0.1:0"}, extra...)...)
	cmd.Env = append(os.Environ(), env...)
	return start(cmd, log)
}

// start starts cmd (a serve) and waits until it says it listens.
func start(cmd *exec.Cmd, log *os.File) (*Server, error) {
	var lines io.Writer = io.Discard
	if log != nil {
		cmd.Stdout, lines = log, log // the child writes to the file itself
	}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	var copied sync.WaitGroup
	copied.Add(1)
	go func() {
		defer copied.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(lines, line)
			if m := listenRe.FindStringSubmatch(line); m != nil && !sent {
				urlc <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		_ = cmd.Wait()
		pw.Close()
		copied.Wait()
		close(s.done)
	}()
	select {
	case s.URL = <-urlc:
		return s, nil
	case <-s.done:
		return nil, errors.New("botkit-platform serve exited before listening")
	case <-time.After(testenv.Patience):
		// A bound that only ends a start that hangs: a loaded machine
		// may take long to start it (20 s ran out in a suite run beside
		// four busy loops, the server listening just after).
		s.Kill()
		return nil, fmt.Errorf("botkit-platform serve did not listen within %s", testenv.Patience)
	}
}

// Stop shuts the server down gracefully (SIGINT), killing it after
// testenv.Patience (a bound on a drain that hangs, not on a slow one).
func (s *Server) Stop() { s.StopWith(os.Interrupt) }

// PID is the server's process.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// StopWith is Stop with another signal (syscall.SIGTERM: what a service
// manager sends).
func (s *Server) StopWith(sig os.Signal) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(testenv.Patience):
		s.Kill()
	}
}

// Kill kills the server (SIGKILL) and waits until it is gone.
func (s *Server) Kill() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// ExitCode is the exit code of a server that stopped (-1 while it runs, or
// when a signal ended it).
func (s *Server) ExitCode() int {
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode()
	default:
		return -1
	}
}
