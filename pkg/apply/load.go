package apply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/botkit-dev/botkit/internal/ctxio"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// StdinName is how manifests read from stdin ("-f -") are named in
// problems.
const StdinName = "<stdin>"

// MaxManifestBytes bounds one manifest file (or stdin).
const MaxManifestBytes = 32 << 20

// Options say what to load and how.
type Options struct {
	// Paths are files, directories and "-" (stdin, at most once).
	Paths []string
	// Recursive walks directories into their subdirectories (-R); without
	// it only the files directly in a named directory are read.
	Recursive bool
	// EmptyDirs accepts a directory without manifests (apply --prune: the
	// last manifest of an apply set was removed); otherwise it is a
	// problem.
	EmptyDirs bool
	// Stdin is read for "-".
	Stdin io.Reader
	// Organization is the organization of objects whose manifest names
	// none (the current organization).
	Organization string
	// SkipValues loads the objects without resolving their value sources
	// (for delete, which needs only names). Literal values are then not
	// refused either, nor a document without spec.
	SkipValues bool
	// Resolve says where value sources are read from.
	Resolve ResolveOptions
}

// Group is the objects of one organization: one atomic request each.
type Group struct {
	Organization string
	Documents    []*Document
}

// Objects returns the group's objects in manifest order.
func (g Group) Objects() []resources.Object {
	out := make([]resources.Object, len(g.Documents))
	for i, d := range g.Documents {
		out[i] = d.Object
	}
	return out
}

// Find returns the document of the object named name, or nil.
func (g Group) Find(name string) *Document {
	for _, d := range g.Documents {
		if d.Name() == name && d.Object.Agent == nil {
			return d
		}
	}
	return nil
}

// FindKind returns the document of the object of kind named name, or nil.
func (g Group) FindKind(kind, name string) *Document {
	for _, d := range g.Documents {
		if d.Name() == name && d.Kind() == kind {
			return d
		}
	}
	return nil
}

// Result is what Load found.
type Result struct {
	// Groups by organization, in name order.
	Groups []Group
	// Notes to show the user (e.g. skipped ProjectConfig documents).
	Notes []string
}

// Load reads every manifest named by opts, decodes and validates every
// document and resolves every value source before anything is sent. It
// returns *ManifestError listing every problem found (in every file), or the objects
// grouped by organization. Objects without metadata.region keep it empty:
// the platform puts a new object in the organization's default region and
// leaves an existing one where it is.
func Load(ctx context.Context, opts Options) (Result, error) {
	var res Result
	var problems []Problem
	files, ps := expand(opts.Paths, opts.Recursive, opts.EmptyDirs)
	problems = append(problems, ps...)
	type decoded struct {
		file     manifestFile
		docs     []*Document
		broken   []*Document
		problems []Problem
		notes    []string
	}
	var all []decoded
	for _, f := range files {
		data, err := readManifest(ctx, f.path, opts.Stdin)
		if err != nil && ctx.Err() != nil {
			return Result{}, ctx.Err() // interrupted
		}
		if err != nil {
			all = append(all, decoded{file: f, problems: []Problem{{File: displayName(f.path), Message: err.Error()}}})
			continue
		}
		d := decode(displayName(f.path), data, opts.SkipValues)
		all = append(all, decoded{f, d.docs, d.broken, d.problems, d.notes})
	}
	// A file found in a directory that a manifest reads with fromFile (say
	// gcp.json beside the manifest) is a value, not a manifest.
	values := map[string]bool{}
	for _, d := range all {
		for _, doc := range d.docs {
			for _, p := range doc.fromFiles(opts.Resolve.WorkDir) {
				values[absPath(p)] = true
			}
		}
	}
	var docs []*Document
	for _, d := range all {
		if d.file.walked && values[absPath(d.file.path)] {
			continue
		}
		problems = append(problems, d.problems...)
		if !opts.SkipValues && !opts.Resolve.AllowPlaintext {
			// A document with other problems is not resolved, but its
			// literal values are a problem too: every problem in one run.
			for _, doc := range d.broken {
				problems = append(problems, literalProblems(doc)...)
			}
		}
		res.Notes = append(res.Notes, d.notes...)
		docs = append(docs, d.docs...)
	}
	for i, d := range docs {
		d.seq = i
	}
	if !opts.SkipValues {
		for _, d := range docs {
			problems = append(problems, resolve(ctx, d, opts.Resolve)...)
			if err := ctx.Err(); err != nil {
				return Result{}, err // interrupted while reading a fromFile
			}
		}
	}
	groups, ps := group(docs, opts.Organization)
	problems = append(problems, ps...)
	if len(problems) > 0 {
		return Result{Notes: res.Notes}, &ManifestError{Problems: problems}
	}
	res.Groups = groups
	return res, nil
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// manifestFile is a file to read; walked when a directory walk found it
// (rather than the command line naming it).
type manifestFile struct {
	path   string
	walked bool
}

func displayName(path string) string {
	if path == "-" {
		return StdinName
	}
	return path
}

// readManifest reads a manifest file or stdin, giving up when ctx ends (a
// FIFO nobody writes to blocks in open).
func readManifest(ctx context.Context, path string, stdin io.Reader) ([]byte, error) {
	var data []byte
	var err error
	if path == "-" {
		if stdin == nil {
			return nil, errors.New("no standard input to read")
		}
		data, err = ctxio.ReadAll(ctx, stdin, MaxManifestBytes)
	} else {
		data, err = ctxio.ReadFile(ctx, path, MaxManifestBytes)
	}
	if err != nil {
		return nil, pathError(err)
	}
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("larger than %d MiB", MaxManifestBytes>>20)
	}
	return data, nil
}

// pathError drops the path from an os error (the problem names the file).
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// manifestExt reports whether a file found in a directory is a manifest.
func manifestExt(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// expand turns the paths into files: a named file is read whatever its
// extension; a directory contributes its .yaml, .yml and .json files (in
// name order; with recursive, those of its subdirectories too).
func expand(paths []string, recursive, emptyDirs bool) ([]manifestFile, []Problem) {
	var files []manifestFile
	var problems []Problem
	stdin := false
	if len(paths) == 0 {
		problems = append(problems, Problem{File: "-f", Message: "no manifests given (name files, directories or - for stdin)"})
	}
	for _, p := range paths {
		if p == "-" {
			if stdin {
				problems = append(problems, Problem{File: StdinName, Message: "- (stdin) is given more than once"})
				continue
			}
			stdin = true
			files = append(files, manifestFile{path: p})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			problems = append(problems, Problem{File: p, Message: pathError(err).Error()})
			continue
		}
		if !st.IsDir() {
			files = append(files, manifestFile{path: p})
			continue
		}
		before := len(files)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				problems = append(problems, Problem{File: path, Message: pathError(err).Error()})
				return nil
			}
			if d.IsDir() {
				if path != p && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			if manifestExt(d.Name()) {
				files = append(files, manifestFile{path: path, walked: true})
			}
			return nil
		})
		if err != nil {
			problems = append(problems, Problem{File: p, Message: err.Error()})
		}
		if len(files) == before && !emptyDirs {
			hint := ""
			if !recursive {
				hint = " (use -R for subdirectories)"
			}
			problems = append(problems, Problem{File: p, Message: "no .yaml, .yml or .json files in the directory" + hint})
		}
	}
	// The same file named twice (or through a directory) is read once.
	seen := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		key := f.path
		if key != "-" {
			key = absPath(key)
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, f)
		}
	}
	return out, problems
}

// Regroup puts the objects of the group of organization "" (the documents
// that name no organization, loaded with an empty Options.Organization)
// into org, once the command knows which organization is the current one:
// the manifests can then be checked before anything asks the platform.
// Documents keep their manifest order. Two documents naming the same object
// of org are a *ManifestError.
func Regroup(groups []Group, org string) ([]Group, error) {
	var docs []*Document
	for _, g := range groups {
		docs = append(docs, g.Documents...)
	}
	slices.SortStableFunc(docs, func(a, b *Document) int { return a.seq - b.seq })
	out, problems := group(docs, org)
	if len(problems) > 0 {
		return nil, &ManifestError{Problems: problems}
	}
	return out, nil
}

// group sorts the documents by organization (defaultOrg for those naming
// none) and refuses two documents naming the same object. SecretSets and
// ImagePullSecrets share one namespace; Agents have their own (an agent
// and its secret set may share a name).
func group(docs []*Document, defaultOrg string) ([]Group, []Problem) {
	var problems []Problem
	byOrg := map[string]*Group{}
	first := map[[3]string]*Document{}
	for _, d := range docs {
		org := d.Object.Meta().Organization
		if org == "" {
			org = defaultOrg
		}
		ns, why := "", "a name is unique in an organization, across secret sets and image pull secrets"
		if d.Object.Agent != nil {
			ns, why = resources.KindAgent, "an agent's name is unique in its organization"
		}
		k := [3]string{org, ns, d.Name()}
		if prev, dup := first[k]; dup {
			problems = append(problems, Problem{File: d.File, Line: d.LineOf("metadata.name"),
				Message: fmt.Sprintf("%s is also defined at %s:%d (%s)", d.Ref(), prev.File, prev.LineOf("metadata.name"), why)})
			continue
		}
		first[k] = d
		g := byOrg[org]
		if g == nil {
			g = &Group{Organization: org}
			byOrg[org] = g
		}
		g.Documents = append(g.Documents, d)
	}
	var out []Group
	for _, g := range byOrg {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b Group) int { return strings.Compare(a.Organization, b.Organization) })
	return out, problems
}
