package sessions

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// relayEnv, set to an agent's address, makes this test binary a peer of
// the platform's session proxy instead of running benchmarks, a process
// of its own between a caller and that agent: with relayModeEnv "tcp" a
// bare TCP relay (the smallest hop a process can add: no HTTP, no key, no
// store), with "http" the standard library's reverse proxy alone (Go's
// HTTP server and client, nothing of the platform's).
const (
	relayEnv     = "BOTKIT_BENCH_RELAY_TO"
	relayModeEnv = "BOTKIT_BENCH_RELAY_MODE"
)

func TestMain(m *testing.M) {
	if to := os.Getenv(relayEnv); to != "" {
		if os.Getenv(relayModeEnv) == "http" {
			httpRelay(to)
		} else {
			relay(to)
		}
		return
	}
	os.Exit(m.Run())
}

// listenPrinted listens on a port of 127.0.0.1 and prints its address
// (startRelay reads it); it exits when it cannot.
func listenPrinted() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	return ln
}

// httpRelay serves on 127.0.0.1 (its address printed) every request by
// the standard library's reverse proxy to to.
func httpRelay(to string) {
	ln := listenPrinted()
	u := &url.URL{Scheme: "http", Host: to}
	p := httputil.NewSingleHostReverseProxy(u)
	p.Transport = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}
	_ = http.Serve(ln, p) // error ignored: it ends when the process is killed
}

// relay accepts on 127.0.0.1, prints its address, and copies each
// connection both ways to a connection of its own to to.
func relay(to string) {
	ln := listenPrinted()
	for {
		in, err := ln.Accept()
		if err != nil {
			os.Exit(1)
		}
		go func() {
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				return
			}
			go func() {
				_, _ = io.Copy(out, in) // error ignored: either side went away; both close
				out.Close()
			}()
			_, _ = io.Copy(in, out) // error ignored: as above
			in.Close()
		}()
	}
}

// startRelay runs this binary as a relay to the agent at to and returns
// its address; it is killed when b ends.
func startRelay(b *testing.B, mode, to string) string {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), relayEnv+"="+to, relayModeEnv+"="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill() // error ignored: it may have ended; Wait says
		_ = cmd.Wait()         // error ignored: killed
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the relay printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}
