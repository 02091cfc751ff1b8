// Command secrets-seed fills botkit's embedded local platform with N secret
// sets for bench/secrets.sh: it opens the platform in DATA_DIR in-process
// (the very code `botkit cloud secrets` runs) and sends one PATCH per set
// from several goroutines, then waits until the provisioner has made every
// set ready, so the timed `list` runs do no provisioning of their own.
//
// Seeding through `botkit cloud secrets set` would start N processes (minutes
// for 10,000); an in-process client skips only the process start-up.
//
// Usage: go run ./bench/secrets-seed -data-dir DIR [-n 10000] [-keys 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/embedded"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func main() {
	dataDir := flag.String("data-dir", "", "the embedded platform's data directory ($XDG_DATA_HOME/botkit)")
	n := flag.Int("n", 10000, "number of secret sets")
	keys := flag.Int("keys", 5, "keys per set")
	workers := flag.Int("workers", 8, "concurrent writers")
	flag.Parse()
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "secrets-seed: -data-dir is required")
		os.Exit(2)
	}
	if err := seed(*dataDir, *n, *keys, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "secrets-seed:", err)
		os.Exit(1)
	}
}

func seed(dataDir string, n, keys, workers int) error {
	ctx := context.Background()
	c, err := embedded.Open(ctx, dataDir, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	jobs := make(chan int)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				set := make(map[string]string, keys)
				for k := 0; k < keys; k++ {
					set[fmt.Sprintf("KEY_%d", k)] = fmt.Sprintf("value-%d-%d", i, k)
				}
				if _, _, err := c.Merge(ctx, client.EmbeddedOrg, fmt.Sprintf("set-%05d", i), resources.Patch{Set: set}, ""); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		select {
		case jobs <- i:
		case err := <-errc:
			close(jobs)
			wg.Wait()
			return err
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
	}
	fmt.Fprintf(os.Stderr, "secrets-seed: %d sets written in %s; waiting until all are ready\n", n, time.Since(start).Round(time.Millisecond))
	for {
		objs, err := c.List(ctx, client.EmbeddedOrg, client.ListOptions{})
		if err != nil {
			return err
		}
		pending := 0
		for _, o := range objs {
			if st := o.Status(); st == nil || st.State != resources.StateReady {
				pending++
			}
		}
		if len(objs) < n {
			return fmt.Errorf("only %d sets listed, want %d", len(objs), n)
		}
		if pending == 0 {
			fmt.Fprintf(os.Stderr, "secrets-seed: %d sets ready after %s\n", len(objs), time.Since(start).Round(time.Millisecond))
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}
