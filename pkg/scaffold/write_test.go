package scaffold

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// projectOf returns a small project whose every file says who wrote it.
func projectOf(who int) []File {
	var files []File
	for _, p := range []string{"README.md", ".gitignore", "server/bot.py", "server/pyproject.toml", "server/evals/a.yaml", "client/src/main.ts"} {
		files = append(files, File{Path: p, Data: []byte(fmt.Sprintf("writer %d\n", who))})
	}
	return files
}

// checkWinner asserts dir holds one writer's complete project and no
// staging directory, and returns that writer.
func checkWinner(t *testing.T, dir string, files []File) int {
	t.Helper()
	winner := -1
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("the reported project lacks %s: %v", f.Path, err)
			continue
		}
		var w int
		if _, err := fmt.Sscanf(string(b), "writer %d", &w); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if winner == -1 {
			winner = w
		} else if w != winner {
			t.Errorf("%s is from writer %d, the rest from writer %d", f.Path, w, winner)
		}
	}
	return winner
}

func noStaging(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		entries := readDir(t, d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), stagePrefix) {
				t.Errorf("staging directory left in %s: %s", d, e.Name())
			}
		}
	}
}

// Several writers race for one target, many times: exactly one wins and its
// project is complete; every loser gets a TargetError or ConflictError
// naming the target and removes nothing of the winner's.
func TestWriteConcurrentSameTarget(t *testing.T) {
	const writers, rounds = 4, 40
	for _, existing := range []bool{false, true} {
		t.Run(fmt.Sprintf("existing=%v", existing), func(t *testing.T) {
			for round := range rounds {
				root := t.TempDir()
				target := filepath.Join(root, "fresh", "sub")
				if existing {
					if err := os.MkdirAll(target, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				var wg sync.WaitGroup
				errs := make([]error, writers)
				start := make(chan struct{})
				for w := range writers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[w] = Write(target, projectOf(w))
					}()
				}
				close(start)
				wg.Wait()
				won := -1
				for w, err := range errs {
					if err == nil {
						if won >= 0 {
							t.Fatalf("round %d: writers %d and %d both succeeded", round, won, w)
						}
						won = w
						continue
					}
					var te *TargetError
					var ce *ConflictError
					switch {
					case errors.As(err, &te):
						if te.Dir != target {
							t.Errorf("round %d: loser names %q, not the target", round, te.Dir)
						}
					case errors.As(err, &ce):
						if ce.Dir != target {
							t.Errorf("round %d: loser names %q, not the target", round, ce.Dir)
						}
					default:
						t.Errorf("round %d: loser %d: %v (%T)", round, w, err, err)
					}
					if strings.Contains(err.Error(), stagePrefix) {
						t.Errorf("round %d: the error names a staging path: %v", round, err)
					}
				}
				if won < 0 {
					t.Fatalf("round %d: nobody won: %v", round, errs)
				}
				if got := checkWinner(t, target, projectOf(0)); got != won {
					t.Errorf("round %d: the project is writer %d's, but writer %d was told it won", round, got, won)
				}
				noStaging(t, target, filepath.Dir(target))
				if t.Failed() {
					return
				}
			}
		})
	}
}

// A writer that fails removes only the directories it created itself.
func TestWriteFailureKeepsDirectoriesOthersFilled(t *testing.T) {
	root := t.TempDir()
	created, err := mkdirs(filepath.Join(root, "a", "b"))
	if err != nil || len(created) != 2 {
		t.Fatalf("mkdirs: %v %v", created, err)
	}
	// Someone else's project lands in a/ meanwhile.
	if err := os.WriteFile(filepath.Join(root, "a", "theirs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "a", "b", "project")
	bad := []File{{Path: "README.md", Data: []byte("x")}, {Path: "README.md/oops", Data: []byte("y")}}
	if err := os.Remove(filepath.Join(root, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, bad); err == nil {
		t.Fatal("write succeeded")
	}
	if _, err := os.Stat(filepath.Join(root, "a", "theirs")); err != nil {
		t.Errorf("a failed write removed another's file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory the write created is left: %v", err)
	}
}

func TestWriteTargetIsAFile(t *testing.T) {
	target := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(target, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(target, projectOf(0))
	var te *TargetError
	if !errors.As(err, &te) || te.Dir != target || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("got %v", err)
	}
	if b := readFile(t, target); string(b) != "mine" {
		t.Error("the file was changed")
	}
	noStaging(t, filepath.Dir(target))
}

// Staging directories of a killed writer are removed by the next write once
// clearly stale; a locked (live) or recent one is left alone.
func TestWriteRemovesStaleStaging(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(parent, stagePrefix+name)
		if err := os.MkdirAll(filepath.Join(p, "server"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "server", "bot.py"), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A process killed while writing: its lock died with it, the directory
	// stays unlocked.
	killed := mk("killed", old)
	recent := mk("recent", time.Now())
	live := mk("live", old)
	release, err := lockDir(live)
	if err != nil {
		t.Fatal(err)
	}
	defer release()

	if err := Write(filepath.Join(parent, "project"), projectOf(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale staging directory not removed: %v", err)
	}
	for _, p := range []string{recent, live} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed although not clearly stale: %v", filepath.Base(p), err)
		}
	}
}

// Files and directories get 0644 and 0755 minus the umask, the project
// directory included.
func TestWriteHonoursUmask(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no umask")
	}
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for _, existing := range []bool{false, true} {
		target := filepath.Join(t.TempDir(), "p")
		if existing {
			if err := os.Mkdir(target, 0o750); err != nil {
				t.Fatal(err)
			}
		}
		files := append(projectOf(0), File{Path: "server/run.sh", Mode: 0o755, Data: []byte("#!/bin/sh\n")})
		if err := Write(target, files); err != nil {
			t.Fatal(err)
		}
		want := map[string]fs.FileMode{
			".": 0o750, "server": 0o750, "server/evals": 0o750,
			"README.md": 0o640, "server/bot.py": 0o640, "server/run.sh": 0o750,
		}
		for p, m := range want {
			fi, err := os.Stat(filepath.Join(target, p))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != m {
				t.Errorf("existing=%v %s: mode %v, want %v", existing, p, fi.Mode().Perm(), m)
			}
		}
	}
}

// A create process killed with SIGKILL in the middle of writing leaves its
// staging directory behind, unlocked (its lock died with it); once that is
// clearly stale, the next write removes it. The writer here is a real
// process (this test binary again) holding a real staging directory.
func TestWriteRemovesTheStagingOfAKilledProcess(t *testing.T) {
	if parent := os.Getenv("BOTKIT_TEST_STAGE_IN"); parent != "" {
		dir, _, err := makeStage(parent)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, "bot.py"), []byte("half written"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(dir)
		time.Sleep(time.Minute) // killed long before
		os.Exit(1)
	}
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteRemovesTheStagingOfAKilledProcess$")
	cmd.Env = append(os.Environ(), "BOTKIT_TEST_STAGE_IN="+parent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill() // error ignored: the test fails either way
		t.Fatalf("the writer did not report its staging directory: %v", err)
	}
	stage := strings.TrimSpace(line)

	// While the writer lives, its directory is left alone, however old.
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(stage, old, old); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(parent, "first"), projectOf(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stage); err != nil {
		t.Fatalf("a live writer's staging directory was removed: %v", err)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // error ignored: killed, it exits with an error by design
	if err := os.Chtimes(stage, old, old); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(parent, "second"), projectOf(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stage); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the killed writer's staging directory is still there: %v", err)
	}
}
