package pyindex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed index is what the generator makes of the committed source
// archive, byte for byte; the archive is the one the index names (its
// SHA-256) and holds exactly the files whose git blob ids are listed (the
// same ids as `git ls-tree -r v1.7.0` in pipecat-ai/pipecat).
func TestPipecatIndexIsRebuiltFromItsSource(t *testing.T) {
	want, err := os.ReadFile(PipecatFile)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Unmarshal(want)
	if err != nil {
		t.Fatal(err)
	}
	src := ix.Source
	if src.Tag != "v"+ix.Version || len(src.Commit) != 40 || src.Archive == "" {
		t.Fatalf("source identity incomplete: %+v", src)
	}
	archive := filepath.Join("testdata", src.Archive)
	sum, err := SHA256(archive)
	if err != nil {
		t.Fatal(err)
	}
	if sum != src.ArchiveSHA256 {
		t.Fatalf("%s: sha256 %s, the index says %s", archive, sum, src.ArchiveSHA256)
	}
	files, err := ReadArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(strings.TrimSuffix(archive, ".tar.gz") + ".files")
	if err != nil {
		t.Fatal(err)
	}
	if got := Manifest(files); got != string(manifest) {
		t.Fatalf("the archive's files differ from the listed blob ids")
	}
	rebuilt, err := Build(files, ix.Version, src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rebuilt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		n := 0
		for n < len(gl) && n < len(wl) && gl[n] == wl[n] {
			n++
		}
		t.Fatalf("rebuilding %s from %s gives other bytes (%d, committed %d); first difference at line %d:\nrebuilt:   %q\ncommitted: %q",
			PipecatFile, archive, len(got), len(want), n+1, line(gl, n), line(wl, n))
	}
	embedded, err := Pipecat()
	if err != nil || embedded.Version != "1.7.0" || len(embedded.Modules) != len(ix.Modules) {
		t.Fatalf("Pipecat() = %v, %v", embedded, err)
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}
