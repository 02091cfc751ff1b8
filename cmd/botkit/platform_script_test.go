package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
	"github.com/botkit-dev/botkit/internal/testsupport/tlstest"
	"github.com/botkit-dev/botkit/pkg/credentials"
)

// TestPlatformScripts runs the scenarios in testdata/platform: botkit
// against the real botkit-platform binary serving on 127.0.0.1 over a real
// SQLite file, with the real OS keyring (scripts/test.sh runs the tests
// inside dbus-run-session with an unlocked gnome-keyring).
//
// Extra script commands:
//
//	platform start [NAME] [FLAGS...]  serve a fresh platform (FLAGS: more serve flags); sets PLATFORM_URL, PLATFORM_HOST and PLATFORM_PORT
//	platform start-ipv6 NAME  the same on [::1]; sets PLATFORM_URL_NAME
//	platform token ORG      create ORG and a token: $WORK/ORG.token, env TOKEN_ORG
//	noleak [DIR...]         no token (of $WORK/*.token) in the last stdout/stderr, nor in any file under DIR
//	tlscerts                a private CA and a certificate for 127.0.0.1 (serial 1): $WORK/tls/ca.pem, tls.crt, tls.key; another CA: other-ca.pem
//	tlsrotate SERIAL        a new certificate of the same CA with SERIAL (and a new key) over tls.crt and tls.key
//	tlsserial SERIAL        a new connection to PLATFORM_HOST (trusting ca.pem) is shown the certificate SERIAL (polled, bounded)
//
// Conditions: [keyring] is true when a Secret Service answers; under CI a
// scenario asking for it fails instead of being skipped.
func TestPlatformScripts(t *testing.T) {
	bin := platformBinary(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/platform",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":     cmdExits,
			"platform":  func(ts *testscript.TestScript, neg bool, args []string) { cmdPlatform(ts, neg, args, bin) },
			"noleak":    cmdNoLeak,
			"nodaemon":  cmdNoDaemon,
			"tlscerts":  cmdTLSCerts,
			"tlsrotate": cmdTLSRotate,
			"tlsserial": cmdTLSSerial,
		},
		Condition: keyringCondition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("CI", "")
			env.Setenv("ACCESSIBLE", "")
			// The keyring of scripts/test.sh's private session.
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
			env.Values[tlsCAKey{}] = &tlsCA{}
			return os.MkdirAll(home, 0o700)
		},
	})
}

// platformBuild builds botkit-platform once for all scenarios.
var platformBuild = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "botkit-platform-bin-")
	if err != nil {
		return "", err
	}
	return platformtest.Build(dir)
})

// platformBinary returns the botkit-platform binary, built on first use.
func platformBinary(t *testing.T) string {
	t.Helper()
	bin, err := platformBuild()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func cmdPlatform(ts *testscript.TestScript, neg bool, args []string, bin string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: platform start [NAME] | platform token ORG [NAME]")
	}
	// A second platform has a NAME: its data directory and URL variable
	// are suffixed with it.
	suffix := func(i int) string {
		if len(args) > i && !strings.HasPrefix(args[i], "--") {
			return "_" + args[i]
		}
		return ""
	}
	switch args[0] {
	case "start", "start-ipv6":
		listen := "127.0.0.1:0"
		if args[0] == "start-ipv6" {
			listen = "[::1]:0"
		}
		var flags []string
		for i, a := range args[1:] {
			if strings.HasPrefix(a, "--") {
				flags = args[1+i:]
				break
			}
		}
		s, err := platformtest.ServeOn(bin, listen, ts.MkAbs("platform-data"+suffix(1)), nil, flags...)
		ts.Check(err)
		ts.Defer(s.Stop)
		ts.Setenv("PLATFORM_URL"+suffix(1), s.URL)
		_, host, _ := strings.Cut(s.URL, "://")
		ts.Setenv("PLATFORM_HOST"+suffix(1), host)
		ts.Setenv("PLATFORM_PORT"+suffix(1), s.URL[strings.LastIndex(s.URL, ":")+1:])
	case "token":
		if len(args) != 2 && len(args) != 3 {
			ts.Fatalf("usage: platform token ORG [NAME]")
		}
		dataDir := ts.MkAbs("platform-data" + suffix(2))
		org := args[1]
		tok, err := platformtest.CreateOrgToken(bin, dataDir, org)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(org+suffix(2)+".token"), []byte(tok+"\n"), 0o600))
		ts.Setenv("TOKEN_"+org+suffix(2), tok)
	default:
		ts.Fatalf("platform: unknown subcommand %q", args[0])
	}
}

// tlsCAKey holds a scenario's *tlsCA among its testscript values.
type tlsCAKey struct{}

// tlsCA is the private CA of tlscerts, for tlsrotate.
type tlsCA struct{ ca *tlstest.CA }

func cmdTLSCerts(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: tlscerts")
	}
	ca, err := tlstest.NewCA("botkit test CA")
	ts.Check(err)
	other, err := tlstest.NewCA("another CA")
	ts.Check(err)
	ts.Check(os.MkdirAll(ts.MkAbs("tls"), 0o700))
	ts.Check(ca.WriteCert(ts.MkAbs("tls/ca.pem")))
	ts.Check(other.WriteCert(ts.MkAbs("tls/other-ca.pem")))
	ts.Value(tlsCAKey{}).(*tlsCA).ca = ca
	leaf, err := ca.Issue(1, "127.0.0.1")
	ts.Check(err)
	ts.Check(leaf.Write(ts.MkAbs("tls/tls.crt"), ts.MkAbs("tls/tls.key")))
}

func cmdTLSRotate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tlsrotate SERIAL")
	}
	serial, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	ca := ts.Value(tlsCAKey{}).(*tlsCA).ca
	if ca == nil {
		ts.Fatalf("tlsrotate before tlscerts")
	}
	leaf, err := ca.Issue(serial, "127.0.0.1")
	ts.Check(err)
	ts.Check(leaf.Write(ts.MkAbs("tls/tls.crt"), ts.MkAbs("tls/tls.key")))
}

// cmdTLSSerial opens new connections to the platform until one is shown
// the certificate of the serial asked for: a bounded number of attempts,
// whatever time they take.
func cmdTLSSerial(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tlsserial SERIAL")
	}
	b, err := os.ReadFile(ts.MkAbs("tls/ca.pem"))
	ts.Check(err)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		ts.Fatalf("tls/ca.pem holds no certificate")
	}
	var seen string
	for range 100 {
		c, err := tls.Dial("tcp", ts.Getenv("PLATFORM_HOST"), &tls.Config{RootCAs: pool})
		ts.Check(err)
		seen = c.ConnectionState().PeerCertificates[0].SerialNumber.String()
		ts.Check(c.Close())
		if seen == args[0] {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("after 100 new connections the platform still shows serial %s, not %s", seen, args[0])
}

// cmdNoLeak fails when a token of the scenario appears in the last command's
// stdout or stderr, or in a file under any DIR given.
// cmdNoDaemon fails when a dbus-daemon or gnome-keyring-daemon runs with
// this script's HOME: one that a command started (D-Bus autolaunch) and
// left behind.
func cmdNoDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: nodaemon")
	}
	home := ts.Getenv("HOME")
	procs, err := filepath.Glob("/proc/[0-9]*/environ")
	ts.Check(err)
	for _, envFile := range procs {
		dir := filepath.Dir(envFile)
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue // gone meanwhile
		}
		name := strings.TrimSpace(string(comm))
		if name != "dbus-daemon" && !strings.HasPrefix(name, "gnome-keyring") {
			continue
		}
		env, err := os.ReadFile(envFile)
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "HOME="+home {
				ts.Fatalf("%s (pid %s) runs with this script's HOME: left behind by a command", name, filepath.Base(dir))
			}
		}
	}
}

func cmdNoLeak(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("noleak does not take !")
	}
	matches, err := filepath.Glob(ts.MkAbs("*.token"))
	ts.Check(err)
	var tokens []string
	for _, m := range matches {
		b, err := os.ReadFile(m)
		ts.Check(err)
		if t := strings.TrimSpace(string(b)); t != "" {
			tokens = append(tokens, t)
		}
	}
	check := func(what, content string) {
		for _, t := range tokens {
			if strings.Contains(content, t) {
				ts.Fatalf("a token appears in %s", what)
			}
		}
	}
	check("stdout", ts.ReadFile("stdout"))
	check("stderr", ts.ReadFile("stderr"))
	for _, dir := range args {
		err := filepath.WalkDir(ts.MkAbs(dir), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			check(p, string(b))
			return nil
		})
		ts.Check(err)
	}
}

// keyringCondition is the [keyring] condition: a Secret Service answers.
// Under CI, where scripts/test.sh provides one, its absence is an error.
func keyringCondition(cond string) (bool, error) {
	if cond != "keyring" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if testenv.Short() {
		return false, nil
	}
	_, err := credentials.Keyring{}.Get("probe.botkit.invalid")
	var ue *credentials.UnavailableError
	if errors.As(err, &ue) {
		if testenv.InCI() {
			return false, fmt.Errorf("CI: no OS keyring reachable (scripts/test.sh runs the tests under dbus-run-session with gnome-keyring): %v", err)
		}
		return false, nil
	}
	return true, nil
}
