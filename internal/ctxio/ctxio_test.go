package ctxio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// ReadAll returns what was read (at most limit+1 bytes), or the context's
// error while the reader still blocks.
func TestReadAll(t *testing.T) {
	b, err := ReadAll(context.Background(), strings.NewReader("abcdef"), 3)
	if err != nil || string(b) != "abcd" {
		t.Fatalf("read %q %v, want the limit plus one byte", b, err)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := ReadAll(ctx, pr, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled read: %v", err)
	}
}

// A FIFO nobody opens for writing blocks open(2) itself: ReadFile still
// returns as soon as the context ends.
func TestReadFileFIFOWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	errc := make(chan error, 1)
	go func() {
		_, err := ReadFile(ctx, fifo, 10)
		errc <- err
	}()
	// Nobody ever opens the FIFO for writing: only the context ends it.
	if err := testenv.Within(t, "ReadFile to return after its context ended", errc); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	// Unblock the abandoned open so its goroutine ends with the test.
	if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
		w.Close()
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(context.Background(), f, 100); err != nil || string(b) != "hello" {
		t.Fatalf("read %q %v", b, err)
	}
	var pe *fs.PathError
	if _, err := ReadFile(context.Background(), filepath.Join(dir, "missing"), 100); !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := ReadFile(context.Background(), dir, 100); !errors.As(err, &pe) || !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("directory: %v", err)
	}
}
