package seal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/internal/atomicfile"

	"go.yaml.in/yaml/v3"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// occurrence is one sealed value in a manifest file.
type occurrence struct {
	line, column int // 1-based; column counts runes, as yaml.v3 does
	value        string
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
// sealed line whose value changed.
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
	// Rewrite the files: every file is checked first, then each replaced
	// through a temporary file, so a file is never half written.
	i := 0
	for _, mf := range files {
		data, n, err := rewrite(mf, out[i:i+len(mf.occs)])
		i += len(mf.occs)
		if err != nil {
			return err
		}
		if n == 0 {
			fmt.Fprintf(opts.IO.Out, "%s unchanged (%d sealed values, all to key %s)\n", mf.path, len(mf.occs), keyID)
			continue
		}
		if err := atomicfile.Write(mf.path, data, mf.mode); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "%s resealed: %d of %d sealed values now to key %s\n", mf.path, n, len(mf.occs), keyID)
	}
	return nil
}

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

// readManifest finds the sealed values of one file: every mapping entry
// "sealed: VALUE" with a string value, in every YAML (or JSON) document.
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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, cmdutil.FlagErrorf("%s: %v", path, err)
		}
		walk(&doc, func(k, v *yaml.Node) {
			if k.Value == "sealed" && v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
				mf.occs = append(mf.occs, occurrence{line: v.Line, column: v.Column, value: v.Value})
			}
		})
	}
	return mf, nil
}

func walk(n *yaml.Node, fn func(k, v *yaml.Node)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			fn(n.Content[i], n.Content[i+1])
		}
	}
	for _, c := range n.Content {
		walk(c, fn)
	}
}

// rewrite replaces, in mf's bytes, each occurrence's old value by its new
// one where they differ, at the occurrence's line and column. It returns
// the new bytes and how many values changed.
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
		line := lines[o.line-1]
		start := runeOffset(line, o.column-1)
		j := bytes.Index(line[start:], []byte(o.value))
		if j < 0 {
			return nil, 0, fmt.Errorf("%s:%d: cannot find the sealed value on its line (a multi-line value?); reseal it with botkit seal", mf.path, o.line)
		}
		j += start
		var b []byte
		b = append(b, line[:j]...)
		b = append(b, values[i]...)
		b = append(b, line[j+len(o.value):]...)
		lines[o.line-1] = b
		n++
	}
	return bytes.Join(lines, nil), n, nil
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
