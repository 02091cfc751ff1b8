package seal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/internal/atomicfile"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// occurrence is one sealed value in a manifest file.
type occurrence struct {
	line, column int // 1-based; column counts runes, as yaml.v3 does
	value        string
	block        bool // a block scalar: the value is on a line after line
}

type manifestFile struct {
	path string
	data []byte
	mode fs.FileMode
	occs []occurrence
}

// maxManifestBytes bounds a manifest file read by --reseal.
const maxManifestBytes = 16 << 20

// reseal has the platform encrypt every sealed value of the manifests again
// to the current key and rewrites, in each file, only the value of each
// sealed line whose value changed. Every file is resealed or none is
// written: all the values of all the files are resealed first, then every
// file's new text is made and checked, and only then are the files written.
func reseal(ctx context.Context, opts *Options) error {
	paths, err := expand(opts.Files, opts.Recursive)
	if err != nil {
		return err
	}
	var files []*manifestFile
	var values []string
	for _, p := range paths {
		mf, err := readManifest(ctx, p)
		if err != nil {
			return err
		}
		if len(mf.occs) == 0 {
			continue
		}
		files = append(files, mf)
		for _, o := range mf.occs {
			values = append(values, o.value)
		}
	}
	if len(values) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no sealed values in the manifests given")
		return nil
	}
	c, org, err := connect(ctx, opts)
	if err != nil {
		return err
	}
	out := make([]string, 0, len(values))
	keyID := ""
	for start := 0; start < len(values); start += resources.MaxResealValues {
		chunk := values[start:min(start+resources.MaxResealValues, len(values))]
		res, err := c.Reseal(ctx, org, chunk)
		if err != nil {
			return where(err, files, start)
		}
		if len(res.Values) != len(chunk) {
			return fmt.Errorf("the platform resealed %d values of %d", len(res.Values), len(chunk))
		}
		out = append(out, res.Values...)
		keyID = res.KeyID
	}
	// Every file's new text, checked, before any file is written.
	changes := make([]change, len(files))
	i := 0
	for j, mf := range files {
		data, n, err := rewrite(mf, out[i:i+len(mf.occs)])
		i += len(mf.occs)
		if err != nil {
			return &rewriteError{err}
		}
		changes[j] = change{data, n}
	}
	if err := writeAll(files, changes); err != nil {
		return err
	}
	for j, mf := range files {
		if changes[j].n == 0 {
			fmt.Fprintf(opts.IO.Out, "%s unchanged (%d sealed values, all to key %s)\n", mf.path, len(mf.occs), keyID)
			continue
		}
		fmt.Fprintf(opts.IO.Out, "%s resealed: %d of %d sealed values now to key %s\n", mf.path, changes[j].n, len(mf.occs), keyID)
	}
	return nil
}

// change is a file's new text and how many of its values changed.
type change struct {
	data []byte
	n    int
}

// writeFile writes a manifest atomically (a seam: tests make a write fail).
var writeFile = atomicfile.Write

// writeAll writes each changed file; when a write fails, the files already
// written get their old text back: none is rewritten.
func writeAll(files []*manifestFile, changes []change) error {
	for j, mf := range files {
		if changes[j].n == 0 {
			continue
		}
		if err := writeFile(mf.path, changes[j].data, mf.mode); err != nil {
			for k, done := range files[:j] {
				if changes[k].n > 0 {
					// A file that cannot be put back is named with the error.
					if perr := writeFile(done.path, done.data, done.mode); perr != nil {
						err = fmt.Errorf("%w; %s could not be put back: %v", err, done.path, perr)
					}
				}
			}
			return &rewriteError{err}
		}
	}
	return nil
}

// rewriteError is a file that could not be rewritten: no file was.
type rewriteError struct{ err error }

func (e *rewriteError) Error() string   { return e.err.Error() + "\nnothing was rewritten" }
func (e *rewriteError) Unwrap() error   { return e.err }
func (e *rewriteError) Lines() []string { return []string{e.err.Error(), "nothing was rewritten"} }

// where turns a reseal error's details (indexes into the values) into
// file:line lines.
func where(err error, files []*manifestFile, offset int) error {
	var re *resources.Error
	if !errors.As(err, &re) || len(re.Details) == 0 {
		return err
	}
	var lines []string
	for _, d := range re.Details {
		idx := offset + d.Index
		for _, mf := range files {
			if idx < len(mf.occs) {
				lines = append(lines, fmt.Sprintf("%s:%d: sealed value %s", mf.path, mf.occs[idx].line, d.Message))
				break
			}
			idx -= len(mf.occs)
		}
	}
	return &resealError{err: re, lines: lines}
}

type resealError struct {
	err   *resources.Error
	lines []string
}

func (e *resealError) Error() string   { return strings.Join(e.lines, "\n") + "\nnothing was rewritten" }
func (e *resealError) Unwrap() error   { return e.err }
func (e *resealError) Lines() []string { return append(slices.Clone(e.lines), "nothing was rewritten") }

// expand lists the manifest files of the -f paths: files as given,
// directories' .yaml, .yml and .json files (recursively with -R).
func expand(paths []string, recursive bool) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, cmdutil.FlagErrorf("-f %s: %v", p, errors.Unwrap(err))
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != p && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, cmdutil.FlagErrorf("-f %s: %v", p, err)
		}
	}
	return out, nil
}

// readManifest finds the sealed values of one file: the {sealed: VALUE}
// value sources of its SecretSets' spec.data (apply.SealedSources).
func readManifest(ctx context.Context, path string) (*manifestFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, cmdutil.FlagErrorf("-f %s: %v", path, errors.Unwrap(err))
	}
	data, err := ctxio.ReadFile(ctx, path, maxManifestBytes)
	if err != nil {
		return nil, cmdutil.FlagErrorf("-f %s: %v", path, err)
	}
	mf := &manifestFile{path: path, data: data, mode: st.Mode().Perm()}
	srcs, problems := apply.SealedSources(path, data)
	if len(problems) > 0 {
		return nil, &apply.ManifestError{Problems: problems}
	}
	for _, src := range srcs {
		mf.occs = append(mf.occs, occurrence{line: src.Line, column: src.Column, value: src.Value, block: src.Block})
	}
	return mf, nil
}

// rewrite replaces, in mf's bytes, each occurrence's old value by its new
// one where they differ, and keeps every other byte. A value written on its
// key's line (plain, quoted, JSON) is replaced where it stands; a block
// scalar (sealed: >- or |-) keeps its indicator line and its one line of
// text, in which the value is replaced (a sealed value is one word). The
// new text is read again: it must give the new values where the old ones
// were, nothing else. It returns the new bytes and how many values changed.
func rewrite(mf *manifestFile, values []string) ([]byte, int, error) {
	lines := bytes.SplitAfter(mf.data, []byte("\n"))
	n := 0
	for i, o := range mf.occs {
		if values[i] == o.value {
			continue
		}
		if o.line < 1 || o.line > len(lines) {
			return nil, 0, fmt.Errorf("%s:%d: the sealed value moved while resealing; run again", mf.path, o.line)
		}
		line, start, old := o.line, runeOffset(lines[o.line-1], o.column-1), o.value
		if o.block {
			// The text is the first line after the indicator that is not
			// blank, and holds all of the value.
			line++
			for line <= len(lines) && len(bytes.TrimSpace(lines[line-1])) == 0 {
				line++
			}
			old = strings.TrimRight(o.value, "\n")
			if line > len(lines) || string(bytes.TrimSpace(lines[line-1])) != old || strings.ContainsAny(old, " \n") {
				return nil, 0, fmt.Errorf("%s:%d: the sealed value is a block scalar over several lines; write it on one line (sealed: VALUE) and reseal", mf.path, o.line)
			}
			start = 0
		}
		text := lines[line-1]
		j := bytes.Index(text[start:], []byte(old))
		if j < 0 || old == "" {
			return nil, 0, fmt.Errorf("%s:%d: cannot find the sealed value on its line (a multi-line value?); reseal it with botkit seal", mf.path, o.line)
		}
		j += start
		var b []byte
		b = append(b, text[:j]...)
		b = append(b, values[i]...)
		b = append(b, text[j+len(old):]...)
		lines[line-1] = b
		n++
	}
	out := bytes.Join(lines, nil)
	if n > 0 {
		srcs, problems := apply.SealedSources(mf.path, out)
		ok := len(problems) == 0 && len(srcs) == len(mf.occs)
		for i := 0; ok && i < len(srcs); i++ {
			want := values[i]
			if o := mf.occs[i]; o.block && want != o.value {
				want += o.value[len(strings.TrimRight(o.value, "\n")):] // the chomping's line ending
			}
			ok = srcs[i].Value == want
		}
		if !ok {
			return nil, 0, fmt.Errorf("%s: the rewritten file would not read back as the resealed values (reseal its values with botkit seal)", mf.path)
		}
	}
	return out, n, nil
}

// runeOffset is the byte offset of rune number r of line.
func runeOffset(line []byte, r int) int {
	off := 0
	for ; r > 0 && off < len(line); r-- {
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}
