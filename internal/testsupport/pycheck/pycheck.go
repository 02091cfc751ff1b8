// Package pycheck checks a generated bot project against the API index of
// the framework it runs on (internal/testsupport/pyindex), statically, without
// installing anything: every pipecat import resolves and is current (not
// deprecated), every keyword argument given to a pipecat class or
// function is one it takes (and not a deprecated one), the pip extras
// asked of pipecat-ai exist, and every environment variable the code
// reads is listed in .env.example. pyflakes and black run beside it (the
// tests run them).
package pycheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/botkit-dev/botkit/internal/testsupport/pyindex"
	"github.com/botkit-dev/botkit/internal/testsupport/pysource"
)

// Kind is what a problem is about.
type Kind int

// The kinds of problem.
const (
	// Syntax: a file cannot be read as Python.
	Syntax Kind = iota + 1
	// Import: no such module, or the module has no such name.
	Import
	// NotCurrent: an imported module or name is deprecated.
	NotCurrent
	// Keyword: a call passes a keyword the callee does not take.
	Keyword
	// DeprecatedKeyword: a call passes a deprecated keyword.
	DeprecatedKeyword
	// Project: pyproject.toml (missing, invalid, no dependency on the
	// framework, an extra it does not have, no requires-python) or a
	// missing server/, .env.example or Python file.
	Project
	// Env: a variable the code reads is not in .env.example.
	Env
)

// Problem is one finding, at a file (relative to the project) and line
// (0 when it is about the whole file). Module is the framework module an
// import or call problem is about.
type Problem struct {
	Kind   Kind
	File   string
	Line   int
	Module string
	Msg    string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return p.File + ": " + p.Msg
}

// Result is what Check found: the problems, and the calls whose keywords
// the index cannot decide (a base outside the framework, a **kwargs the
// class reads), which were not checked.
type Result struct {
	Problems  []Problem
	Undecided []string
}

// Check checks the project in dir (its server/ directory: the Python
// files, pyproject.toml, .env.example) against ix.
func Check(dir string, ix *pyindex.Index) (Result, error) {
	c := &checker{ix: ix, root: dir, env: map[string]Problem{}}
	server := filepath.Join(dir, "server")
	if st, err := os.Stat(server); err != nil || !st.IsDir() {
		c.add(Project, "server", 0, "", "no server/ directory")
		return c.res, nil
	}
	var pyFiles []string
	err := filepath.WalkDir(server, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".venv" || d.Name() == "__pycache__" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".py") {
			pyFiles = append(pyFiles, p)
		}
		return nil
	})
	if err != nil {
		return c.res, err
	}
	if len(pyFiles) == 0 {
		c.add(Project, "server", 0, "", "no Python files")
	}
	for _, p := range pyFiles {
		data, err := os.ReadFile(p)
		if err != nil {
			return c.res, err
		}
		c.file(c.rel(p), data)
	}
	if err := c.pyproject(filepath.Join(server, "pyproject.toml")); err != nil {
		return c.res, err
	}
	if err := c.envExample(filepath.Join(server, ".env.example")); err != nil {
		return c.res, err
	}
	return c.res, nil
}

type checker struct {
	ix   *pyindex.Index
	root string
	res  Result
	env  map[string]Problem // variable read -> where (first read)
}

func (c *checker) rel(p string) string {
	r, err := filepath.Rel(c.root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

func (c *checker) add(kind Kind, file string, line int, module, format string, args ...any) {
	c.res.Problems = append(c.res.Problems, Problem{Kind: kind, File: file, Line: line, Module: module, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) version() string { return c.ix.Package + " " + c.ix.Version }

// imported is what a local name was imported as from the framework.
type imported struct{ module, name string }

func (c *checker) file(rel string, data []byte) {
	stmts, err := pysource.Parse(data)
	if err != nil {
		if pe := (*pysource.Error)(nil); errors.As(err, &pe) {
			c.add(Syntax, rel, pe.Line, "", "cannot be read as Python: %s", pe.Msg)
		} else {
			c.add(Syntax, rel, 0, "", "cannot be read as Python: %v", err)
		}
		return
	}
	names := map[string]imported{}
	all := flatten(stmts)
	root := c.ix.TopLevel()
	for _, s := range all {
		t := s.Tokens
		switch s.Keyword() {
		case "from":
			c.fromImport(rel, t, root, names)
		case "import":
			for _, part := range pysource.Split(t[1:], ",") {
				mod, n := pysource.Dotted(part)
				if n == 0 || mod != root && !strings.HasPrefix(mod, root+".") {
					continue
				}
				if !c.ix.HasModule(mod) {
					c.add(Import, rel, t[0].Line, mod, "no module %s in %s", mod, c.version())
				} else if m := c.ix.Modules[mod]; m != nil && m.Deprecated != "" {
					c.add(NotCurrent, rel, t[0].Line, mod, "module %s is deprecated in %s: %s", mod, c.version(), m.Deprecated)
				}
			}
		}
	}
	for _, s := range all {
		c.calls(rel, s.Tokens, names)
		c.envReads(rel, s.Tokens)
	}
}

func flatten(stmts []*pysource.Stmt) []*pysource.Stmt {
	var out []*pysource.Stmt
	for _, s := range stmts {
		out = append(out, s)
		out = append(out, flatten(s.Body)...)
	}
	return out
}

func (c *checker) fromImport(rel string, t []pysource.Token, root string, names map[string]imported) {
	mod, n := pysource.Dotted(t[1:])
	if n == 0 || mod != root && !strings.HasPrefix(mod, root+".") {
		return
	}
	line := t[0].Line
	rest := t[1+n:]
	if len(rest) == 0 || !rest[0].Is("import") {
		return
	}
	rest = rest[1:]
	if len(rest) > 0 && rest[0].Is("(") {
		rest = rest[1:pysource.Close(rest, 0)]
	}
	if !c.ix.HasModule(mod) {
		c.add(Import, rel, line, mod, "no module %s in %s", mod, c.version())
		return
	}
	for _, part := range pysource.Split(rest, ",") {
		if len(part) == 0 {
			continue
		}
		if part[0].Is("*") {
			c.add(Import, rel, line, mod, "from %s import *: import the names used", mod)
			continue
		}
		name := part[0].Text
		local := name
		if len(part) == 3 && part[1].Is("as") {
			local = part[2].Text
		}
		if !c.ix.Binds(mod, name) {
			c.add(Import, rel, part[0].Line, mod, "%s has no name %s in %s", mod, name, c.version())
			continue
		}
		names[local] = imported{module: mod, name: name}
		if why := c.ix.Deprecation(mod, name); why != "" {
			c.add(NotCurrent, rel, part[0].Line, mod, "%s from %s is not current in %s: %s", name, mod, c.version(), why)
		}
	}
}

// calls checks the keyword arguments of every call of an imported name
// (Name(...), or Name.Attr(...) for a nested class) in the tokens.
func (c *checker) calls(rel string, t []pysource.Token, names map[string]imported) {
	for i := 0; i < len(t); i++ {
		if t[i].Kind != pysource.Name || i > 0 && (t[i-1].Is(".") || t[i-1].Is("def") || t[i-1].Is("class")) {
			continue
		}
		im, ok := names[t[i].Text]
		if !ok {
			continue
		}
		dotted, n := pysource.Dotted(t[i:])
		open := i + n
		if open >= len(t) || !t[open].Is("(") {
			continue
		}
		target := im.name + strings.TrimPrefix(dotted, t[i].Text)
		if target != im.name {
			// An attribute of an imported class (Service.InputParams):
			// the import was checked, the attribute not yet.
			if r, ok := c.ix.Resolve(im.module, target); ok {
				if cl := c.ix.Class(r); cl != nil && cl.Deprecated != "" {
					c.add(NotCurrent, rel, t[i].Line, im.module, "%s is deprecated in %s: %s", dotted, c.version(), cl.Deprecated)
				}
			} else {
				c.add(Import, rel, t[i].Line, im.module, "%s has no attribute %s in %s", im.name, strings.TrimPrefix(target, im.name+"."), c.version())
			}
		}
		end := pysource.Close(t, open)
		var kws []pysource.Token
		for _, arg := range pysource.Split(t[open+1:end], ",") {
			if len(arg) >= 2 && arg[0].Kind == pysource.Name && arg[1].Is("=") {
				kws = append(kws, arg[0])
			}
		}
		if len(kws) == 0 {
			continue
		}
		accepted, verdict := c.ix.Keywords(im.module, target)
		if verdict == pyindex.Unknown {
			c.res.Undecided = append(c.res.Undecided, fmt.Sprintf("%s:%d: %s()", rel, t[i].Line, dotted))
			continue
		}
		deprecated := c.ix.DeprecatedParams(im.module, target)
		for _, k := range kws {
			switch {
			case !accepted[k.Text] && verdict == pyindex.Open:
				c.add(Keyword, rel, k.Line, im.module, "%s() has no parameter %q in %s (its **kwargs would take it unchecked)", dotted, k.Text, c.version())
			case !accepted[k.Text]:
				c.add(Keyword, rel, k.Line, im.module, "%s() takes no keyword argument %q in %s", dotted, k.Text, c.version())
			case deprecated[k.Text]:
				c.add(DeprecatedKeyword, rel, k.Line, im.module, "%s(): keyword argument %q is deprecated in %s", dotted, k.Text, c.version())
			}
		}
	}
}

// envReads notes the variables read with os.getenv("X"), getenv("X"),
// os.environ.get("X"), os.environ["X"] or environ["X"].
func (c *checker) envReads(rel string, t []pysource.Token) {
	for i := 0; i < len(t); i++ {
		if t[i].Kind != pysource.Name || i > 0 && t[i-1].Is(".") {
			continue
		}
		name, n := pysource.Dotted(t[i:])
		j := i + n
		if j+1 >= len(t) {
			continue
		}
		var arg pysource.Token
		switch {
		case (name == "os.getenv" || name == "getenv" || name == "os.environ.get" || name == "environ.get") && t[j].Is("("):
			arg = t[j+1]
		case (name == "os.environ" || name == "environ") && t[j].Is("["):
			arg = t[j+1]
		default:
			continue
		}
		if v, ok := pysource.StringValue(arg); ok {
			if _, seen := c.env[v]; !seen {
				c.env[v] = Problem{File: rel, Line: arg.Line}
			}
		}
	}
}

var pipecatDep = regexp.MustCompile(`^\s*([A-Za-z0-9_.-]+)\s*(?:\[([^\]]*)\])?`)

func (c *checker) pyproject(path string) error {
	rel := c.rel(path)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		c.add(Project, rel, 0, "", "missing")
		return nil
	}
	if err != nil {
		return err
	}
	var p struct {
		Project struct {
			RequiresPython string   `toml:"requires-python"`
			Dependencies   []string `toml:"dependencies"`
		} `toml:"project"`
	}
	if err := toml.Unmarshal(data, &p); err != nil {
		c.add(Project, rel, 0, "", "invalid TOML: %v", err)
		return nil
	}
	found := false
	for _, d := range p.Project.Dependencies {
		m := pipecatDep.FindStringSubmatch(d)
		if m == nil || !strings.EqualFold(strings.ReplaceAll(m[1], "_", "-"), c.ix.Package) {
			continue
		}
		found = true
		for _, e := range strings.Split(m[2], ",") {
			if e = strings.TrimSpace(e); e != "" && !c.ix.HasExtra(e) {
				c.add(Project, rel, 0, "", "%s has no extra %q in %s", c.ix.Package, e, c.ix.Version)
			}
		}
	}
	if !found {
		c.add(Project, rel, 0, "", "no dependency on %s", c.ix.Package)
	}
	if p.Project.RequiresPython == "" {
		c.add(Project, rel, 0, "", "no requires-python")
	}
	return nil
}

var envLine = regexp.MustCompile(`^\s*#?\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=`)

func (c *checker) envExample(path string) error {
	rel := c.rel(path)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		c.add(Project, rel, 0, "", "missing")
		return nil
	}
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if m := envLine.FindStringSubmatch(l); m != nil {
			listed[m[1]] = true
		}
	}
	vars := make([]string, 0, len(c.env))
	for v := range c.env {
		vars = append(vars, v)
	}
	slices.Sort(vars)
	for _, v := range vars {
		if !listed[v] {
			where := c.env[v]
			c.add(Env, where.File, where.Line, "", "reads %s, which %s does not list", v, rel)
		}
	}
	return nil
}
