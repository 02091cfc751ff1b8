//go:build unix

package browsertest

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// StartNext runs `next start` for the built Next.js client on 127.0.0.1
// (with env added to its environment) until the test ends, and returns its
// URL and a function returning its output so far.
func StartNext(t *testing.T, client string, env []string) (string, func() string) {
	t.Helper()
	port := testenv.FreePort(t)
	var out bytes.Buffer
	var mu sync.Mutex
	cmd := exec.Command(filepath.Join(client, "node_modules", ".bin", "next"), "start", "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Dir = client
	cmd.Env = append(os.Environ(), env...)
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // error ignored: the group may have exited already
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // error ignored: as above
			<-exited
		}
	})
	output := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }

	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	deadline := time.Now().Add(testenv.Patience)
	for {
		select {
		case err := <-exited:
			t.Fatalf("next start exited: %v\n%s", err, output())
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, output
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("next start: %s not ready after %s\n%s", url, testenv.Patience, output())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
