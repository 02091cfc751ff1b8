package credentials

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// TestMain lets the test binary run one keyring call as a separate process,
// for the no-keyring case: the D-Bus session of a process is fixed once it
// connected, so a keyring that is unreachable has to be tried from a fresh
// process with its own environment.
func TestMain(m *testing.M) {
	if host := os.Getenv("CREDENTIALS_CHILD_GET"); host != "" {
		_, err := Keyring{}.Get(host)
		var ue *UnavailableError
		if errors.As(err, &ue) {
			fmt.Println("unavailable:", err)
			os.Exit(4)
		}
		fmt.Println("result:", err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// requireKeyring skips (fails under CI) when no Secret Service answers:
// scripts/test.sh runs the tests inside dbus-run-session with an unlocked
// gnome-keyring.
func requireKeyring(t *testing.T) {
	t.Helper()
	testenv.NeedInstalled(t, "an OS keyring (gnome-keyring, dbus)")
	_, err := Keyring{}.Get("probe.botkit.invalid")
	var ue *UnavailableError
	if errors.As(err, &ue) {
		testenv.Missing(t, "no OS keyring reachable (run under dbus-run-session with gnome-keyring-daemon --unlock, as scripts/test.sh does): %v", err)
	}
}

// The real OS keyring: set, get, delete, and entries per host.
func TestKeyringRoundTrip(t *testing.T) {
	requireKeyring(t)
	k := Keyring{}
	host := fmt.Sprintf("test-%d.botkit.invalid:8787", time.Now().UnixNano())
	other := "other-" + host
	t.Cleanup(func() {
		// errors ignored: the entries may be gone already (the test deleted them)
		_ = k.Delete(host)  // error ignored: may be gone already
		_ = k.Delete(other) // error ignored: may be gone already
	})
	if _, err := k.Get(host); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get before set: %v", err)
	}
	if err := k.Set(host, "bkp_first"); err != nil {
		t.Fatal(err)
	}
	if err := k.Set(host, "bkp_second"); err != nil {
		t.Fatal(err)
	}
	if err := k.Set(other, "bkp_other"); err != nil {
		t.Fatal(err)
	}
	if tok, err := k.Get(host); err != nil || tok != "bkp_second" {
		t.Fatalf("get: %q %v", tok, err)
	}
	if err := k.Delete(host); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Get(host); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if err := k.Delete(host); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if tok, err := k.Get(other); err != nil || tok != "bkp_other" {
		t.Fatalf("other host: %q %v", tok, err)
	}
}

// No Secret Service reachable: one typed error (exit 4) naming the keyring,
// BOTKIT_TOKEN and --insecure-storage, within the timeout.
func TestNoKeyring(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, env := range map[string][]string{
		"bus address pointing nowhere": {"DBUS_SESSION_BUS_ADDRESS=unix:path=" + t.TempDir() + "/no-bus"},
		"no bus, no dbus-launch":       {"DBUS_SESSION_BUS_ADDRESS=", "PATH=" + t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(append(os.Environ(), "CREDENTIALS_CHILD_GET=host.botkit.invalid", "DISPLAY="), env...)
			// The keyring's own timeout is TestKeyringCallTimeout's; here
			// the child must only not hang.
			type result struct {
				out []byte
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, err := cmd.CombinedOutput()
				done <- result{out, err}
			}()
			r := testenv.Within(t, "the child without a keyring to exit", done)
			out, err := r.out, r.err
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 4 {
				t.Fatalf("child: %v: %s", err, out)
			}
			msg := string(out)
			for _, want := range []string{"keyring", "BOTKIT_TOKEN", "--insecure-storage"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q: %s", want, msg)
				}
			}
			if strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Errorf("more than one line: %q", msg)
			}
		})
	}
}

// A keyring that does not answer is unavailable after the timeout, not a
// hang.
func TestKeyringCallTimeout(t *testing.T) {
	// A bus is named (the call never reaches it: f stands for the keyring).
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "bus"))
	block := make(chan struct{})
	defer close(block)
	err := Keyring{Timeout: 50 * time.Millisecond}.call(func() error { <-block; return nil })
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no answer within 50ms") || ue.ErrorCode() != resources.CodeUnauthenticated {
		t.Fatalf("%v", err)
	}
}

// memStore is an in-memory Store for the resolution order (the keyring
// itself is tested above).
type memStore struct {
	m   map[string]string
	err error
}

func (s memStore) Get(host string) (string, error) {
	if s.err != nil {
		return "", s.err
	}
	if t, ok := s.m[host]; ok {
		return t, nil
	}
	return "", ErrNotFound
}
func (s memStore) Set(host, tok string) error { s.m[host] = tok; return nil }
func (s memStore) Delete(host string) error   { delete(s.m, host); return nil }

func TestResolveOrder(t *testing.T) {
	unavailable := &UnavailableError{Err: errors.New("no bus")}
	cases := []struct {
		name            string
		store           memStore
		env, file, want string
		src             Source
		err             bool
	}{
		{"env wins", memStore{m: map[string]string{"h": "kr"}}, "env", "file", "env", SourceEnvironment, false},
		{"file next", memStore{m: map[string]string{"h": "kr"}}, "", "file", "file", SourceFile, false},
		{"keyring last", memStore{m: map[string]string{"h": "kr"}}, "", "", "kr", SourceKeyring, false},
		{"file, keyring empty", memStore{m: map[string]string{}}, "", "file", "file", SourceFile, false},
		{"none", memStore{m: map[string]string{}}, "", "", "", SourceNone, false},
		{"keyring down, file", memStore{err: unavailable}, "", "file", "file", SourceFile, false},
		{"keyring down, env", memStore{err: unavailable}, "env", "", "env", SourceEnvironment, false},
		{"keyring down, nothing", memStore{err: unavailable}, "", "", "", SourceNone, true},
	}
	for _, c := range cases {
		tok, src, err := Resolve(c.store, "h", c.env, c.file)
		if tok != c.want || src != c.src || (err != nil) != c.err {
			t.Errorf("%s: %q %q %v", c.name, tok, src, err)
		}
	}
}

// hungStore is a keyring that never answers within its bound.
type hungStore struct{ calls *int }

func (s hungStore) Get(string) (string, error) {
	*s.calls++
	time.Sleep(50 * time.Millisecond)
	return "", &UnavailableError{Err: errors.New("no answer within 3s")}
}
func (s hungStore) Set(string, string) error { return nil }
func (s hungStore) Delete(string) error      { return nil }

// A token in the config file (--insecure-storage) is found without asking
// the keyring: a hung keyring does not cost every command its 3 s.
func TestResolveFileTokenSkipsTheKeyring(t *testing.T) {
	calls := 0
	tok, src, err := Resolve(hungStore{calls: &calls}, "h", "", "file-token")
	if tok != "file-token" || src != SourceFile || err != nil || calls != 0 {
		t.Errorf("got %q %q %v after %d keyring calls, want the file's token without asking the keyring", tok, src, err, calls)
	}
}
