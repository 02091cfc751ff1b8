package pyindex

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/botkit-dev/botkit/internal/testsupport/pysource"
)

// Build indexes the package whose files are given (path -> content, as in
// the repository: "pyproject.toml", "src/<top>/.../x.py"). Every .py file
// under src/ becomes a module; pyproject.toml gives the package name,
// version constraint of Python and the extras. A file that cannot be read
// as Python is an error naming it.
func Build(files map[string][]byte, version string, src Source) (*Index, error) {
	pyproject, ok := files["pyproject.toml"]
	if !ok {
		return nil, fmt.Errorf("no pyproject.toml among the files")
	}
	var meta struct {
		Project struct {
			Name                 string              `toml:"name"`
			RequiresPython       string              `toml:"requires-python"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		} `toml:"project"`
	}
	if err := toml.Unmarshal(pyproject, &meta); err != nil {
		return nil, fmt.Errorf("pyproject.toml: %w", err)
	}
	ix := &Index{
		Package:        meta.Project.Name,
		Version:        version,
		Source:         src,
		RequiresPython: meta.Project.RequiresPython,
		Extras:         slices.Sorted(maps.Keys(meta.Project.OptionalDependencies)),
		Modules:        map[string]*Module{},
	}
	if ix.Extras == nil {
		ix.Extras = []string{}
	}
	stars := map[string][]string{} // module -> modules it imports with *
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasPrefix(p, "src/") || !strings.HasSuffix(p, ".py") {
			continue
		}
		name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(p, "src/"), ".py"), "/", ".")
		isPkg := path.Base(p) == "__init__.py"
		name = strings.TrimSuffix(name, ".__init__")
		stmts, err := pysource.Parse(files[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		b := &moduleBuilder{name: name, isPkg: isPkg, m: &Module{}, names: map[string]bool{}}
		b.block(stmts, true)
		b.finish()
		ix.Modules[name] = b.m
		if len(b.stars) > 0 {
			stars[name] = b.stars
		}
	}
	expandStars(ix, stars)
	return ix, nil
}

// expandStars binds, in each module importing another with *, that
// module's public names (its __all__, else its names not starting with
// "_"), to a fixed point (a star import of a star import).
func expandStars(ix *Index, stars map[string][]string) {
	for changed := true; changed; {
		changed = false
		for _, mod := range slices.Sorted(maps.Keys(stars)) {
			m := ix.Modules[mod]
			for _, from := range stars[mod] {
				src, ok := ix.Modules[from]
				if !ok {
					continue
				}
				public := src.All
				if public == nil {
					for _, n := range src.Names {
						if !strings.HasPrefix(n, "_") {
							public = append(public, n)
						}
					}
				}
				for _, n := range public {
					if _, bound := slices.BinarySearch(m.Names, n); bound {
						continue
					}
					m.Names = append(m.Names, n)
					slices.Sort(m.Names)
					if m.Imports == nil {
						m.Imports = map[string]string{}
					}
					m.Imports[n] = from + "." + n
					changed = true
				}
			}
		}
	}
}

type moduleBuilder struct {
	name  string
	isPkg bool
	m     *Module
	names map[string]bool
	stars []string
	decos [][]pysource.Token
}

func (b *moduleBuilder) bind(name string) { b.names[name] = true }

// finish sorts the names and keeps, of the imports, those of the
// package's own modules and those a class's bases or aliases name (to
// tell pydantic.BaseModel or typing.NamedTuple from the package's own).
func (b *moduleBuilder) finish() {
	b.m.Names = slices.Sorted(maps.Keys(b.names))
	if b.m.Names == nil {
		b.m.Names = []string{}
	}
	root, _, _ := strings.Cut(b.name, ".")
	used := map[string]bool{}
	for _, c := range b.m.Classes {
		for _, e := range append(slices.Clone(c.Bases), slices.Collect(maps.Values(c.Aliases))...) {
			first, _, _ := strings.Cut(strings.Split(e, "[")[0], ".")
			used[first] = true
		}
	}
	for local, q := range b.m.Imports {
		if q != root && !strings.HasPrefix(q, root+".") && !used[local] {
			delete(b.m.Imports, local)
		}
	}
	if len(b.m.Imports) == 0 {
		b.m.Imports = nil
	}
}

// block reads statements at module level (top is true for the module's
// own body, where a leading string is its docstring).
func (b *moduleBuilder) block(stmts []*pysource.Stmt, top bool) {
	for i, s := range stmts {
		t := s.Tokens
		if top && i == 0 && len(t) == 1 && t[0].Kind == pysource.String {
			if doc, ok := pysource.StringValue(t[0]); ok {
				if msg := docDeprecated(doc); msg != "" {
					b.m.Deprecated = msg
				} else if strings.HasPrefix(strings.TrimSpace(doc), "Deprecated module") {
					b.m.Deprecated = firstSentence(doc)
				}
			}
			continue
		}
		if t[0].Is("@") {
			b.decos = append(b.decos, t[1:])
			continue
		}
		decos := b.decos
		b.decos = nil
		switch s.Keyword() {
		case "import":
			b.importStmt(t[1:])
		case "from":
			b.fromStmt(t[1:])
		case "class":
			b.classStmt(s, decos, "")
		case "def":
			b.defStmt(s, t[1:], decos)
		case "async":
			if len(t) > 1 && t[1].Is("def") {
				b.defStmt(s, t[2:], decos)
			} else {
				b.block(s.Body, false)
			}
		case "if":
			name, n := pysource.Dotted(t[1:])
			if n > 0 && (name == "TYPE_CHECKING" || strings.HasSuffix(name, ".TYPE_CHECKING")) && t[1+n].Is(":") {
				continue
			}
			b.block(s.Body, false)
		case "elif", "else", "try", "except", "finally", "with", "for", "while":
			b.block(s.Body, false)
		default:
			if dep, ok := deprecationWarn(t); ok {
				b.m.Deprecated = dep
				continue
			}
			b.assignment(t)
		}
	}
}

// deprecationWarn recognises `warnings.warn("message", DeprecationWarning, ...)`.
func deprecationWarn(t []pysource.Token) (string, bool) {
	name, n := pysource.Dotted(t)
	if (name != "warnings.warn" && name != "warn") || n >= len(t) || !t[n].Is("(") {
		return "", false
	}
	end := pysource.Close(t, n)
	args := pysource.Split(t[n+1:end], ",")
	found := false
	for _, a := range args {
		if len(a) == 1 && a[0].Is("DeprecationWarning") ||
			len(a) == 3 && a[0].Is("category") && a[2].Is("DeprecationWarning") {
			found = true
		}
	}
	if !found {
		return "", false
	}
	msg := "deprecated"
	if len(args) > 0 {
		if v, k := pysource.Strings(args[0]); k > 0 && k == len(args[0]) {
			msg = v
		}
	}
	return msg, true
}

func (b *moduleBuilder) importStmt(t []pysource.Token) {
	for _, part := range pysource.Split(t, ",") {
		name, n := pysource.Dotted(part)
		if n == 0 {
			continue
		}
		if n+1 < len(part) && part[n].Is("as") {
			b.addImport(part[n+1].Text, name)
			continue
		}
		first, _, _ := strings.Cut(name, ".")
		b.addImport(first, first)
	}
}

func (b *moduleBuilder) addImport(local, qualified string) {
	b.bind(local)
	if b.m.Imports == nil {
		b.m.Imports = map[string]string{}
	}
	b.m.Imports[local] = qualified
}

func (b *moduleBuilder) fromStmt(t []pysource.Token) {
	dots := 0
	for len(t) > 0 && (t[0].Is(".") || t[0].Is("...")) {
		dots += len(t[0].Text)
		t = t[1:]
	}
	mod := ""
	if len(t) > 0 && !t[0].Is("import") {
		var n int
		mod, n = pysource.Dotted(t)
		t = t[n:]
	}
	if len(t) == 0 || !t[0].Is("import") {
		return
	}
	t = t[1:]
	if dots > 0 {
		base := b.name
		if !b.isPkg {
			base = parent(base)
		}
		for i := 1; i < dots; i++ {
			base = parent(base)
		}
		if mod == "" {
			mod = base
		} else {
			mod = base + "." + mod
		}
	}
	if len(t) == 1 && t[0].Is("*") {
		b.stars = append(b.stars, mod)
		return
	}
	if len(t) > 0 && t[0].Is("(") {
		t = t[1:pysource.Close(t, 0)]
	}
	for _, part := range pysource.Split(t, ",") {
		if len(part) == 0 || part[0].Kind != pysource.Name {
			continue
		}
		local := part[0].Text
		if len(part) == 3 && part[1].Is("as") {
			local = part[2].Text
		}
		b.addImport(local, mod+"."+part[0].Text)
	}
}

func parent(mod string) string {
	if i := strings.LastIndex(mod, "."); i >= 0 {
		return mod[:i]
	}
	return ""
}

// assignment binds the targets of `a = b = ...`, `a, b = ...`, `a: T =
// ...` and reads __all__ (assigned, +=, .extend, .append).
func (b *moduleBuilder) assignment(t []pysource.Token) {
	if len(t) >= 2 && t[0].Kind == pysource.Name && t[1].Is(":") {
		b.bind(t[0].Text)
		if eq := pysource.Index(t, "="); eq > 0 && t[0].Text == "__all__" {
			b.m.All = stringList(t[eq+1:])
		}
		return
	}
	if len(t) >= 2 && t[0].Is("__all__") {
		switch {
		case t[1].Is("+="):
			b.m.All = append(b.m.All, stringList(t[2:])...)
			return
		case len(t) > 4 && t[1].Is(".") && (t[2].Is("extend") || t[2].Is("append")) && t[3].Is("("):
			b.m.All = append(b.m.All, stringList(t[4:pysource.Close(t, 3)])...)
			return
		}
	}
	parts := pysource.Split(t, "=")
	if len(parts) < 2 {
		return
	}
	for _, target := range parts[:len(parts)-1] {
		b.bindTargets(target)
	}
	if last := parts[len(parts)-2]; len(last) == 1 && last[0].Is("__all__") || len(parts[0]) == 1 && parts[0][0].Is("__all__") {
		b.m.All = stringList(parts[len(parts)-1])
	}
}

// bindTargets binds the names of an assignment target: a name, *name, or
// a tuple or list of targets.
func (b *moduleBuilder) bindTargets(t []pysource.Token) {
	if len(t) > 0 && (t[0].Is("(") || t[0].Is("[")) && pysource.Close(t, 0) == len(t)-1 {
		t = t[1 : len(t)-1]
	}
	parts := pysource.Split(t, ",")
	if len(parts) > 1 {
		for _, p := range parts {
			b.bindTargets(p)
		}
		return
	}
	switch {
	case len(t) == 1 && t[0].Kind == pysource.Name:
		b.bind(t[0].Text)
	case len(t) == 2 && t[0].Is("*") && t[1].Kind == pysource.Name:
		b.bind(t[1].Text)
	}
}

// stringList reads a literal list or tuple of strings (["a", "b"]); nil
// for anything else.
func stringList(t []pysource.Token) []string {
	if len(t) > 0 && (t[0].Is("[") || t[0].Is("(")) && pysource.Close(t, 0) == len(t)-1 {
		t = t[1 : len(t)-1]
	}
	out := []string{}
	for _, part := range pysource.Split(t, ",") {
		v, n := pysource.Strings(part)
		if n == 0 || n != len(part) {
			return nil
		}
		out = append(out, v)
	}
	return out
}

func (b *moduleBuilder) defStmt(s *pysource.Stmt, t []pysource.Token, decos [][]pysource.Token) {
	if len(t) == 0 || t[0].Kind != pysource.Name {
		return
	}
	name := t[0].Text
	b.bind(name)
	if name == "__getattr__" {
		b.m.Lazy = true
	}
	sig := signature(t, false)
	if sig == nil {
		return
	}
	if sig.VarKwargs != "" {
		sig.VarKwargs = kwargsUse(s.Body, kwargsName(t))
	}
	for _, d := range decos {
		if msg, ok := deprecatedDecorator(d); ok {
			sig.Deprecated = msg
		}
	}
	if b.m.Functions == nil {
		b.m.Functions = map[string]*Signature{}
	}
	b.m.Functions[name] = sig
}

// deprecatedDecorator recognises @deprecated("message") (any module's).
func deprecatedDecorator(d []pysource.Token) (string, bool) {
	name, n := pysource.Dotted(d)
	if name != "deprecated" && !strings.HasSuffix(name, ".deprecated") {
		return "", false
	}
	msg := "deprecated"
	if n < len(d) && d[n].Is("(") {
		args := pysource.Split(d[n+1:pysource.Close(d, n)], ",")
		if len(args) > 0 {
			if v, k := pysource.Strings(args[0]); k > 0 {
				msg = v
			}
		}
	}
	return msg, true
}

// signature reads `name(params) [-> T]:` (t starts at the name); method
// drops the first parameter (self, cls).
func signature(t []pysource.Token, method bool) *Signature {
	if len(t) < 3 || !t[1].Is("(") {
		return nil
	}
	end := pysource.Close(t, 1)
	sig := &Signature{Params: []string{}}
	kwOnly := false
	for i, part := range pysource.Split(t[2:end], ",") {
		if method && i == 0 {
			continue
		}
		switch {
		case len(part) == 1 && part[0].Is("*"):
			kwOnly = true
		case len(part) >= 2 && part[0].Is("*"):
			kwOnly, sig.VarArgs = true, true
		case len(part) >= 2 && part[0].Is("**"):
			sig.VarKwargs = KwargsUsed
		case len(part) == 1 && part[0].Is("/"):
			sig.PositionalOnly, sig.Params = sig.Params, []string{}
		case len(part) > 0 && part[0].Kind == pysource.Name:
			sig.Params = append(sig.Params, part[0].Text)
			if kwOnly {
				sig.KeywordOnly = append(sig.KeywordOnly, part[0].Text)
			}
		}
	}
	return sig
}

// kwargsName is the name of the **kwargs parameter of def tokens t.
func kwargsName(t []pysource.Token) string {
	if len(t) < 3 || !t[1].Is("(") {
		return ""
	}
	for _, part := range pysource.Split(t[2:pysource.Close(t, 1)], ",") {
		if len(part) >= 2 && part[0].Is("**") {
			return part[1].Text
		}
	}
	return ""
}

// kwargsUse says what a function body does with its **name (see
// Signature.VarKwargs). Passed on to a base's __init__, it is
// "passed_to_base" even when also spread into other calls (helpers given
// the same keywords); read any other way (kwargs.get, stored, iterated) or
// spread only into other calls, it is "used"; never mentioned, "unused".
func kwargsUse(body []*pysource.Stmt, name string) string {
	passed, spread, other := false, false, false
	var walk func([]*pysource.Stmt)
	walk = func(stmts []*pysource.Stmt) {
		for _, s := range stmts {
			t := s.Tokens
			for i, tok := range t {
				if tok.Kind != pysource.Name || tok.Text != name || i > 0 && t[i-1].Is(".") {
					continue
				}
				switch {
				case i > 0 && t[i-1].Is("**") && insideInitCall(t, i):
					passed = true
				case i > 0 && t[i-1].Is("**"):
					spread = true
				default:
					other = true
				}
			}
			walk(s.Body)
		}
	}
	walk(body)
	switch {
	case other:
		return KwargsUsed
	case passed:
		return KwargsPassedToBase
	case spread:
		return KwargsUsed
	}
	return KwargsUnused
}

// insideInitCall: token i is an argument of a `.__init__(...)` call.
func insideInitCall(t []pysource.Token, i int) bool {
	for j := 0; j+2 < i; j++ {
		if t[j].Is(".") && t[j+1].Is("__init__") && t[j+2].Is("(") && pysource.Close(t, j+2) > i {
			return true
		}
	}
	return false
}

// classStmt reads a class and its nested classes (named outer.Name).
func (b *moduleBuilder) classStmt(s *pysource.Stmt, decos [][]pysource.Token, outer string) {
	t := s.Tokens
	if len(t) < 2 || t[1].Kind != pysource.Name {
		return
	}
	name := t[1].Text
	qual := name
	if outer == "" {
		b.bind(name)
	} else {
		qual = outer + "." + name
	}
	c := &Class{}
	if len(t) > 2 && t[2].Is("(") {
		for _, part := range pysource.Split(t[3:pysource.Close(t, 2)], ",") {
			if len(part) == 0 || part[0].Is("*") || part[0].Is("**") || pysource.Index(part, "=") >= 0 {
				continue
			}
			c.Bases = append(c.Bases, pysource.Text(part))
		}
	}
	for _, d := range decos {
		dn, _ := pysource.Dotted(d)
		if dn == "dataclass" || strings.HasSuffix(dn, ".dataclass") {
			c.Dataclass = true
		}
		if msg, ok := deprecatedDecorator(d); ok {
			c.Deprecated = msg
		}
	}
	deprecatedParams := map[string]bool{}
	var nested [][2]any
	var decosIn [][]pysource.Token
	for i, st := range s.Body {
		bt := st.Tokens
		if i == 0 && len(bt) == 1 && bt[0].Kind == pysource.String {
			if doc, ok := pysource.StringValue(bt[0]); ok {
				if msg := docDeprecated(doc); msg != "" && c.Deprecated == "" {
					c.Deprecated = msg
				}
				for _, p := range docDeprecatedParams(doc) {
					deprecatedParams[p] = true
				}
			}
			continue
		}
		if bt[0].Is("@") {
			decosIn = append(decosIn, bt[1:])
			continue
		}
		ds := decosIn
		decosIn = nil
		switch {
		case bt[0].Is("class"):
			nested = append(nested, [2]any{st, ds})
		case bt[0].Is("def") && len(bt) > 1 && bt[1].Is("__init__"):
			c.Init = signature(bt[1:], true)
			if c.Init != nil && c.Init.VarKwargs != "" {
				c.Init.VarKwargs = kwargsUse(st.Body, kwargsName(bt[1:]))
			}
			if len(st.Body) > 0 && len(st.Body[0].Tokens) == 1 && st.Body[0].Tokens[0].Kind == pysource.String {
				if doc, ok := pysource.StringValue(st.Body[0].Tokens[0]); ok {
					for _, p := range docDeprecatedParams(doc) {
						deprecatedParams[p] = true
					}
				}
			}
		case len(bt) >= 2 && bt[0].Kind == pysource.Name && bt[1].Is(":"):
			f := bt[0].Text
			ann, _ := pysource.Dotted(bt[2:])
			if !strings.HasPrefix(f, "_") && ann != "ClassVar" && !strings.HasSuffix(ann, ".ClassVar") {
				c.Fields = append(c.Fields, f)
			}
		case len(bt) >= 3 && bt[0].Kind == pysource.Name && bt[1].Is("="):
			if v, n := pysource.Dotted(bt[2:]); n > 0 && n == len(bt)-2 {
				if c.Aliases == nil {
					c.Aliases = map[string]string{}
				}
				c.Aliases[bt[0].Text] = v
			}
		}
	}
	c.DeprecatedParams = slices.Sorted(maps.Keys(deprecatedParams))
	if len(c.DeprecatedParams) == 0 {
		c.DeprecatedParams = nil
	}
	if b.m.Classes == nil {
		b.m.Classes = map[string]*Class{}
	}
	b.m.Classes[qual] = c
	for _, n := range nested {
		b.classStmt(n[0].(*pysource.Stmt), n[1].([][]pysource.Token), qual)
	}
}

// cleandoc dedents a docstring as inspect.cleandoc does: the first line
// as is, the others by their common indentation.
func cleandoc(doc string) []string {
	lines := strings.Split(strings.ReplaceAll(doc, "\t", "        "), "\n")
	margin := -1
	for _, l := range lines[1:] {
		if s := strings.TrimLeft(l, " "); s != "" {
			if ind := len(l) - len(s); margin < 0 || ind < margin {
				margin = ind
			}
		}
	}
	lines[0] = strings.TrimLeft(lines[0], " ")
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= margin && margin > 0 {
			lines[i] = lines[i][margin:]
		} else if margin > 0 {
			lines[i] = strings.TrimLeft(lines[i], " ")
		}
	}
	return lines
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

var directive = regexp.MustCompile(`^\.\. deprecated::\s*(.*)$`)

// docDeprecated is the text of a top-level `.. deprecated:: X` directive
// of a docstring (version, then its body), or "".
func docDeprecated(doc string) string {
	lines := cleandoc(doc)
	for i, l := range lines {
		m := directive.FindStringSubmatch(l)
		if m == nil || indentOf(l) != 0 {
			continue
		}
		text := []string{"deprecated since " + strings.TrimSpace(m[1]) + "."}
		for _, body := range lines[i+1:] {
			if strings.TrimSpace(body) != "" && indentOf(body) == 0 {
				break
			}
			if s := strings.TrimSpace(body); s != "" {
				text = append(text, s)
			}
		}
		return strings.Join(text, " ")
	}
	return ""
}

var (
	section = regexp.MustCompile(`^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Attributes):\s*$`)
	entry   = regexp.MustCompile(`^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(\(.*\))?\s*:`)
)

// docDeprecatedParams are the entries of a docstring's Args/Parameters
// sections whose text holds a `.. deprecated::` directive.
func docDeprecatedParams(doc string) []string {
	lines := cleandoc(doc)
	var out []string
	for i := 0; i < len(lines); i++ {
		s := strings.TrimSpace(lines[i])
		if !section.MatchString(s) {
			continue
		}
		head := indentOf(lines[i])
		entryIndent := -1
		current := ""
		for i++; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				continue
			}
			ind := indentOf(l)
			if ind <= head {
				i--
				break
			}
			if entryIndent < 0 {
				entryIndent = ind
			}
			if ind == entryIndent {
				current = ""
				if m := entry.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
					current = m[1]
				}
				continue
			}
			if current != "" && directive.MatchString(strings.TrimSpace(l)) {
				out = append(out, current)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// firstSentence is a docstring's first line.
func firstSentence(doc string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(doc), "\n")
	return strings.TrimSpace(first)
}
