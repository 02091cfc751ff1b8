// The test agent: a tiny program the engine tests run as an agent image.
// It prints the names of its environment variables (never their values),
// then does what its BOTKIT_TEST_* variables say, then runs until stopped.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "health" {
		if _, err := os.Stat("/healthy"); err != nil {
			os.Exit(1)
		}
		return
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	fmt.Println("agent started")
	var names []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Println("env: " + strings.Join(names, ","))
	if k := os.Getenv("BOTKIT_TEST_PRINT"); k != "" {
		fmt.Printf("value of %s: %s\n", k, os.Getenv(k))
	}
	if k := os.Getenv("BOTKIT_TEST_LONG"); k != "" {
		// Long lines with the value of the variable named: one of 50 KiB
		// with the value across each 16 KiB boundary (where the engine
		// splits a line), one of 3 MiB with it across 1 MiB (where the
		// platform cuts one), then "after".
		v := os.Getenv(k)
		os.Stdout.Write(long("long:", 50<<10, v, 16<<10, 32<<10, 48<<10))
		os.Stdout.Write(long("huge:", 3<<20, v, 1<<20))
		fmt.Println("after")
	}
	n, _ := strconv.Atoi(os.Getenv("BOTKIT_TEST_LINES"))
	for i := 1; i <= n; i++ {
		fmt.Printf("line %d\n", i)
	}
	if v := os.Getenv("BOTKIT_TEST_STDERR"); v != "" {
		fmt.Fprintln(os.Stderr, v)
	}
	if v := os.Getenv("BOTKIT_TEST_EXIT"); v != "" {
		code, _ := strconv.Atoi(v)
		fmt.Printf("exiting with %d\n", code)
		os.Exit(code)
	}
	if mb, _ := strconv.Atoi(os.Getenv("BOTKIT_TEST_ALLOC_MB")); mb > 0 {
		fmt.Printf("allocating %d MiB\n", mb)
		var keep [][]byte
		for i := 0; i < mb; i++ {
			b := make([]byte, 1<<20)
			for j := range b {
				b[j] = byte(j)
			}
			keep = append(keep, b)
		}
		fmt.Printf("allocated %d MiB\n", len(keep))
	}
	if os.Getenv("BOTKIT_TEST_UNHEALTHY") == "" {
		if err := os.WriteFile("/healthy", []byte("ok\n"), 0o644); err != nil {
			fmt.Println("cannot write /healthy:", err)
		}
	}
	fmt.Println("ready")
	var tick <-chan time.Time
	if os.Getenv("BOTKIT_TEST_TICK") != "" {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	for i := 1; ; i++ {
		select {
		case <-stop:
			fmt.Println("stopping")
			return
		case <-tick:
			fmt.Printf("tick %d\n", i)
		}
	}
}

// long returns a line of size bytes (and its end) that starts with
// prefix, ends with ":end", and holds v across each offset given.
func long(prefix string, size int, v string, at ...int) []byte {
	b := []byte(strings.Repeat("x", size+1))
	copy(b, prefix)
	for _, o := range at {
		copy(b[o-len(v)/2:], v)
	}
	copy(b[size-4:], ":end\n")
	return b
}
