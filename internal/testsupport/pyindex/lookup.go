package pyindex

import (
	"maps"
	"slices"
	"strings"
)

// TopLevel is the package's top-level import name ("pipecat").
func (ix *Index) TopLevel() string {
	top := ""
	for m := range ix.Modules {
		if !strings.Contains(m, ".") && (top == "" || m < top) {
			top = m
		}
	}
	return top
}

// HasModule reports whether module exists (a file, or a package: a
// directory with modules under it).
func (ix *Index) HasModule(module string) bool {
	if _, ok := ix.Modules[module]; ok {
		return true
	}
	prefix := module + "."
	for m := range ix.Modules {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}

// Binds reports whether `from module import name` works: the module binds
// name (lazily through __getattr__ and __all__ included), or module.name is
// a submodule.
func (ix *Index) Binds(module, name string) bool {
	if m, ok := ix.Modules[module]; ok {
		if _, ok := slices.BinarySearch(m.Names, name); ok {
			return true
		}
		if m.Lazy && slices.Contains(m.All, name) {
			return true
		}
	}
	return ix.HasModule(module + "." + name)
}

// HasExtra reports whether the package has the pip extra.
func (ix *Index) HasExtra(name string) bool {
	_, ok := slices.BinarySearch(ix.Extras, name)
	return ok
}

// Ref is what a name designates: a class or function of the package
// (Module and Name set, Name dotted for a nested class), a module of the
// package (Module only), or something outside it (External, qualified:
// "pydantic.BaseModel", "builtins.object").
type Ref struct {
	Module, Name string
	External     string
}

// Class is the class the reference designates, or nil.
func (ix *Index) Class(r Ref) *Class {
	if m, ok := ix.Modules[r.Module]; ok && r.Name != "" {
		return m.Classes[r.Name]
	}
	return nil
}

// Function is the function the reference designates, or nil.
func (ix *Index) Function(r Ref) *Signature {
	if m, ok := ix.Modules[r.Module]; ok && r.Name != "" {
		return m.Functions[r.Name]
	}
	return nil
}

// Resolve follows the dotted name (as written in module: "Foo",
// "Outer.Inner", "mod.Foo", "Base.Settings") through imports, nested
// classes and class aliases to what it designates. ok is false when it
// designates nothing known.
func (ix *Index) Resolve(module, dotted string) (Ref, bool) {
	return ix.resolve(module, dotted, 0)
}

func (ix *Index) resolve(module, dotted string, depth int) (Ref, bool) {
	if depth > 20 {
		return Ref{}, false
	}
	m, ok := ix.Modules[module]
	if !ok {
		if dotted == "" && ix.HasModule(module) {
			return Ref{Module: module}, true
		}
		return Ref{}, false
	}
	if dotted == "" {
		return Ref{Module: module}, true
	}
	if _, ok := m.Classes[dotted]; ok {
		return Ref{Module: module, Name: dotted}, true
	}
	if _, ok := m.Functions[dotted]; ok {
		return Ref{Module: module, Name: dotted}, true
	}
	first, rest, _ := strings.Cut(dotted, ".")
	if c, ok := m.Classes[first]; ok && rest != "" {
		return ix.attribute(Ref{Module: module, Name: first}, c, rest, depth)
	}
	if q, ok := m.Imports[first]; ok {
		return ix.qualified(q, rest, depth)
	}
	if ix.HasModule(module + "." + first) {
		return ix.resolve(module+"."+first, rest, depth+1)
	}
	if _, bound := slices.BinarySearch(m.Names, first); !bound {
		switch first {
		case "object", "Exception", "BaseException", "ValueError", "RuntimeError", "dict", "list", "str", "int", "float", "tuple":
			return Ref{External: "builtins." + first}, true
		}
	}
	return Ref{}, false
}

// qualified resolves an imported name ("pkg.mod.Name" or "pkg.mod") and
// the attribute path after it.
func (ix *Index) qualified(q, rest string, depth int) (Ref, bool) {
	full := q
	if rest != "" {
		full += "." + rest
	}
	// The longest prefix that is a module of the package.
	parts := strings.Split(full, ".")
	for i := len(parts); i > 0; i-- {
		mod := strings.Join(parts[:i], ".")
		if _, ok := ix.Modules[mod]; ok {
			return ix.resolve(mod, strings.Join(parts[i:], "."), depth+1)
		}
	}
	if root, _, _ := strings.Cut(full, "."); ix.HasModule(root) {
		return Ref{}, false
	}
	return Ref{External: full}, true
}

// attribute resolves rest as an attribute of class c (nested class or
// alias, inherited ones included).
func (ix *Index) attribute(owner Ref, c *Class, rest string, depth int) (Ref, bool) {
	attr, more, _ := strings.Cut(rest, ".")
	if _, ok := ix.Modules[owner.Module].Classes[owner.Name+"."+attr]; ok {
		r := Ref{Module: owner.Module, Name: owner.Name + "." + attr}
		if more == "" {
			return r, true
		}
		return ix.attribute(r, ix.Class(r), more, depth+1)
	}
	if a, ok := c.Aliases[attr]; ok {
		target := a
		if more != "" {
			target += "." + more
		}
		return ix.resolve(owner.Module, target, depth+1)
	}
	for _, b := range c.Bases {
		base, ok := ix.resolve(owner.Module, baseName(b), depth+1)
		if bc := ix.Class(base); ok && bc != nil {
			if r, ok := ix.attribute(base, bc, rest, depth+1); ok {
				return r, true
			}
		}
	}
	return Ref{}, false
}

// baseName drops a base's subscript: "Generic[T]" -> "Generic".
func baseName(b string) string {
	name, _, _ := strings.Cut(b, "[")
	return strings.TrimSpace(name)
}

// Verdict says how far Keywords could decide a constructor's keywords.
type Verdict int

const (
	// Exact: the constructor accepts exactly the keywords returned.
	Exact Verdict = iota
	// Open: it accepts any keyword (a **kwargs the class reads itself),
	// and names the keywords returned.
	Open
	// Unknown: a base outside the package, or a name the index cannot
	// follow, leaves it undecided.
	Unknown
)

// fieldBases are the bases outside the package whose subclasses take
// their annotated fields as keywords.
var fieldBases = map[string]bool{
	"pydantic.BaseModel": true, "pydantic.main.BaseModel": true,
	"typing.NamedTuple": true, "typing.TypedDict": true, "typing_extensions.TypedDict": true,
}

// emptyBases are the bases outside the package whose constructors take no
// keyword.
var emptyBases = map[string]bool{
	"builtins.object": true, "abc.ABC": true, "typing.Generic": true, "typing.Protocol": true,
	"builtins.Exception": true, "builtins.BaseException": true, "builtins.ValueError": true,
	"builtins.RuntimeError": true,
}

// Keywords returns the keyword arguments a call of the class or function
// (as named in module) accepts: its __init__'s parameters; for a
// dataclass, pydantic model, NamedTuple or TypedDict its fields and those
// of its bases; a **kwargs passed on to the base's __init__ adds the
// base's keywords. A **kwargs the function never reads accepts any
// keyword only to drop it: such keywords are not in the set (passing one
// is a mistake Python does not report). The Verdict says whether the set
// is exact.
func (ix *Index) Keywords(module, name string) (map[string]bool, Verdict) {
	r, ok := ix.Resolve(module, name)
	if !ok {
		return nil, Unknown
	}
	if f := ix.Function(r); f != nil {
		if f.VarKwargs == KwargsUsed || f.VarKwargs == KwargsPassedToBase {
			return set(f.Params), Open
		}
		return set(f.Params), Exact
	}
	if ix.Class(r) == nil {
		return nil, Unknown
	}
	kw, v, _ := ix.classKeywords(r, 0)
	return kw, v
}

// classKeywords also reports whether the class takes its fields as
// keywords (a dataclass, or a model by its bases).
func (ix *Index) classKeywords(r Ref, depth int) (map[string]bool, Verdict, bool) {
	if depth > 20 {
		return nil, Unknown, false
	}
	if r.External != "" {
		switch {
		case fieldBases[r.External]:
			return map[string]bool{}, Exact, true
		case emptyBases[r.External]:
			return map[string]bool{}, Exact, false
		}
		return nil, Unknown, false
	}
	c := ix.Class(r)
	if c == nil {
		return nil, Unknown, false
	}
	// The bases' keywords, and whether the class is a model.
	inherited := map[string]bool{}
	verdict, model := Exact, c.Dataclass
	for _, b := range c.Bases {
		br, ok := ix.Resolve(r.Module, baseName(b))
		if !ok {
			verdict = max(verdict, Unknown)
			continue
		}
		kw, v, m := ix.classKeywords(br, depth+1)
		verdict = max(verdict, v)
		model = model || m
		for k := range kw {
			inherited[k] = true
		}
	}
	if c.Init != nil {
		own := set(c.Init.Params)
		switch c.Init.VarKwargs {
		case "", KwargsUnused:
			return own, Exact, model
		case KwargsUsed:
			verdict = max(verdict, Open)
		}
		if model {
			for _, f := range c.Fields {
				own[f] = true
			}
		}
		maps.Copy(own, inherited)
		return own, verdict, model
	}
	if model {
		for _, f := range c.Fields {
			inherited[f] = true
		}
	}
	return inherited, verdict, model
}

func set(names []string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// Deprecation says why `from module import name` uses a name that is not
// current: the module is deprecated, or the name resolves to a deprecated
// class or function. "" when it is current.
func (ix *Index) Deprecation(module, name string) string {
	if m, ok := ix.Modules[module]; ok && m.Deprecated != "" {
		return "module " + module + " is deprecated: " + m.Deprecated
	}
	if ix.HasModule(module+"."+name) && name != "" {
		if m := ix.Modules[module+"."+name]; m != nil && m.Deprecated != "" {
			return "module " + module + "." + name + " is deprecated: " + m.Deprecated
		}
		return ""
	}
	r, ok := ix.Resolve(module, name)
	if !ok {
		return ""
	}
	if c := ix.Class(r); c != nil && c.Deprecated != "" {
		return name + " is deprecated: " + c.Deprecated
	}
	if f := ix.Function(r); f != nil && f.Deprecated != "" {
		return name + " is deprecated: " + f.Deprecated
	}
	if m := ix.Modules[r.Module]; r.Module != module && m != nil && m.Deprecated != "" {
		return name + " comes from deprecated module " + r.Module + ": " + m.Deprecated
	}
	return ""
}

// DeprecatedParams are the deprecated keywords of the class (its own and
// its bases').
func (ix *Index) DeprecatedParams(module, name string) map[string]bool {
	out := map[string]bool{}
	var walk func(r Ref, depth int)
	walk = func(r Ref, depth int) {
		c := ix.Class(r)
		if c == nil || depth > 20 {
			return
		}
		for _, p := range c.DeprecatedParams {
			out[p] = true
		}
		for _, b := range c.Bases {
			if br, ok := ix.Resolve(r.Module, baseName(b)); ok {
				walk(br, depth+1)
			}
		}
	}
	if r, ok := ix.Resolve(module, name); ok {
		walk(r, 0)
	}
	return out
}
