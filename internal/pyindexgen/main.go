// Command pyindexgen builds the API index of a Python package from a git
// repository at a tag, and writes, into a directory: the source it read as
// a .tar.gz (the .py files under src/<package>/ and pyproject.toml), the
// list of their git blob ids (compare with `git ls-tree -r TAG`), and the
// index (pyindex.Index as JSON). internal/testsupport/pyindex's test rebuilds the index
// from the archive and compares it byte for byte.
//
//	go run ./internal/pyindexgen -git-dir /path/to/pipecat.git -ref v1.7.0 \
//	    -version 1.7.0 -out internal/testsupport/pyindex/testdata
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/botkit-dev/botkit/internal/testsupport/pyindex"
)

func main() {
	var (
		gitDir  = flag.String("git-dir", "", "the package's git repository (a bare one will do)")
		ref     = flag.String("ref", "", "the release tag, e.g. v1.7.0")
		version = flag.String("version", "", "the release's version, e.g. 1.7.0")
		repo    = flag.String("repository", "github.com/pipecat-ai/pipecat", "where the repository is published")
		pkg     = flag.String("package", "pipecat", "the import package under src/")
		dist    = flag.String("dist", "pipecat-ai", "the distribution's name: the files are <dist>-<version>.{tar.gz,files,json}")
		out     = flag.String("out", "internal/testsupport/pyindex/testdata", "the directory to write to")
	)
	flag.Parse()
	if *gitDir == "" || *ref == "" || *version == "" {
		fmt.Fprintln(os.Stderr, "error: -git-dir, -ref and -version are required")
		os.Exit(2)
	}
	if err := run(*gitDir, *ref, *version, *repo, *pkg, *dist, *out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(gitDir, ref, version, repo, pkg, dist, out string) error {
	commit, err := git(gitDir, "rev-parse", ref+"^{commit}")
	if err != nil {
		return err
	}
	commit = strings.TrimSpace(commit)
	files, err := readTree(gitDir, commit, "src/"+pkg+"/")
	if err != nil {
		return err
	}
	base := filepath.Join(out, dist+"-"+version)
	var archive bytes.Buffer
	if err := pyindex.WriteArchive(&archive, files); err != nil {
		return err
	}
	if err := os.WriteFile(base+".tar.gz", archive.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".files", []byte(pyindex.Manifest(files)), 0o644); err != nil {
		return err
	}
	sum, err := pyindex.SHA256(base + ".tar.gz")
	if err != nil {
		return err
	}
	ix, err := pyindex.Build(files, version, pyindex.Source{
		Repository: repo, Tag: ref, Commit: commit,
		Archive: filepath.Base(base + ".tar.gz"), ArchiveSHA256: sum,
	})
	if err != nil {
		return err
	}
	data, err := ix.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", data, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d files, %d bytes; %s: %d modules, %d extras\n",
		base+".tar.gz", len(files), archive.Len(), base+".json", len(ix.Modules), len(ix.Extras))
	return nil
}

func git(gitDir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(outb), nil
}

// readTree reads pyproject.toml and the .py files under dir at commit.
func readTree(gitDir, commit, dir string) (map[string][]byte, error) {
	list, err := git(gitDir, "ls-tree", "-r", "-z", commit, "--", strings.TrimSuffix(dir, "/"), "pyproject.toml")
	if err != nil {
		return nil, err
	}
	var paths, blobs []string
	for _, rec := range strings.Split(strings.TrimSuffix(list, "\x00"), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" {
			continue
		}
		if p == "pyproject.toml" || strings.HasPrefix(p, dir) && strings.HasSuffix(p, ".py") {
			paths, blobs = append(paths, p), append(blobs, fields[2])
		}
	}
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(outp)
	files := map[string][]byte{}
	for i, p := range paths {
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %w", p, err)
		}
		f := strings.Fields(head)
		if len(f) != 3 || f[0] != blobs[i] {
			return nil, fmt.Errorf("git cat-file: %s: %q", p, head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, err
		}
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %w", p, err)
		}
		files[p] = data[:n]
	}
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	if _, ok := files["pyproject.toml"]; !ok {
		return nil, fmt.Errorf("no pyproject.toml at %s", commit)
	}
	return files, nil
}
