package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/botkit-dev/botkit/internal/atomicfile"
)

// RecordFile is the serving record in the data directory: present while
// `botkit-platform serve --local` serves it.
const RecordFile = "serve.json"

// serveLock is the file lock the local server holds for its life: one
// server per data directory.
const serveLock = "serve.lock"

// Record says that a local server serves the data directory.
type Record struct {
	// URL is where it listens: http:// on a loopback address.
	URL string `json:"url"`
	// PID is its process.
	PID int `json:"pid"`
	// Started is when it started listening.
	Started time.Time `json:"started"`
	// Version is botkit-platform's version.
	Version string `json:"version"`
}

// ServingError is a second local server on a data directory: the first
// serves it (Record, when its record is written yet).
type ServingError struct {
	DataDir string
	Record  *Record
}

func (e *ServingError) Error() string {
	if e.Record == nil {
		return fmt.Sprintf("another botkit-platform serve --local is starting on %s", e.DataDir)
	}
	return fmt.Sprintf("botkit-platform serve --local already serves %s at %s (pid %d, since %s): stop it first, or use it",
		e.DataDir, e.Record.URL, e.Record.PID, e.Record.Started.Local().Format(time.DateTime))
}

// Server is the local server's hold on its data directory: taken by Claim,
// announced by Announce, ended by Release.
type Server struct {
	dataDir string
	release func()
	written bool
}

// Claim makes this process the local server of dataDir (created 0700 if
// missing): a file lock held until Release or the process's end. Another
// server holding it is a *ServingError.
func Claim(dataDir string) (*Server, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	release, ok, err := atomicfile.TryLock(filepath.Join(dataDir, serveLock))
	if err != nil {
		return nil, err
	}
	if !ok {
		r, _ := readRecord(dataDir) // error ignored: a record not written yet, or half gone, says "starting"
		return nil, &ServingError{DataDir: dataDir, Record: r}
	}
	return &Server{dataDir: dataDir, release: release}, nil
}

// Announce writes the serving record (0600, whole or not at all) once the
// server listens at addr: the CLI then finds it.
func (s *Server) Announce(addr net.Addr, version string) error {
	b, err := json.MarshalIndent(Record{URL: "http://" + addr.String(), PID: os.Getpid(), Started: time.Now().UTC(), Version: version}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(s.dataDir, RecordFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the serving record: %w", err)
	}
	s.written = true
	return nil
}

// Release removes the serving record and lets go of the data directory.
func (s *Server) Release() error {
	var err error
	if s.written {
		if err = os.Remove(filepath.Join(s.dataDir, RecordFile)); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		s.written = false
	}
	if s.release != nil {
		s.release()
		s.release = nil
	}
	return err
}

func readRecord(dataDir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, RecordFile))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// HealthTimeout bounds the look at a recorded server's /healthz: a loopback
// server that answers nothing in that time is not serving.
const HealthTimeout = 3 * time.Second

// Serving returns the record of the local server of dataDir, or nil when
// none serves it: no record, or a stale one (its process is gone, its
// address is not a loopback http:// one, or nothing there answers
// /healthz — a server killed before it could remove its record).
func Serving(ctx context.Context, dataDir string) (*Record, error) {
	r, err := readRecord(dataDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syn) || errors.As(err, &typ) {
			return nil, nil // not a record this version wrote: stale
		}
		return nil, err
	}
	if !loopbackHTTP(r.URL) || r.PID <= 0 || !processAlive(r.PID) || !healthy(ctx, r.URL) {
		return nil, nil
	}
	return r, nil
}

// loopbackHTTP reports whether u is http://LOOPBACK-IP:PORT.
func loopbackHTTP(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" || p.Port() == "" {
		return false
	}
	ip := net.ParseIP(p.Hostname())
	return ip != nil && ip.IsLoopback()
}

// healthy reports whether base/healthz answers 200.
func healthy(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, HealthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	if err != nil {
		return false
	}
	c := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
