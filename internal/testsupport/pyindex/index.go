// Package pyindex is the index of a Python package's API that botkit's
// tests hold generated projects to: every module with the names it binds,
// its classes (bases, constructor parameters, annotated fields,
// deprecation), its functions' parameters, the package's pip extras. Build
// makes it from the package's source (pysource reads the Python), the
// lookups answer what a call or an import may use, and testdata holds the
// index of pipecat-ai 1.7.0 with the source it was built from.
package pyindex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Index is the API of one release of a Python package. Its JSON form is
// stable: maps are written with sorted keys, name lists sorted, parameter
// lists in declaration order.
type Index struct {
	Package        string             `json:"package"`
	Version        string             `json:"version"`
	Source         Source             `json:"source"`
	RequiresPython string             `json:"requires_python"`
	Extras         []string           `json:"extras"`
	Modules        map[string]*Module `json:"modules"`
}

// Source says where the index was built from.
type Source struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	Commit     string `json:"commit"`
	// Archive is the file (beside the index) holding the files read, and
	// ArchiveSHA256 its digest.
	Archive       string `json:"archive"`
	ArchiveSHA256 string `json:"archive_sha256"`
}

// Module is one module (a .py file; a package is its __init__.py).
type Module struct {
	// Names are the names the module binds when imported: imports,
	// classes, functions, assignments, also inside top-level if/try/with
	// blocks (not under `if TYPE_CHECKING:`), and the public names of
	// modules it imports with `*`.
	Names []string `json:"names"`
	// All is __all__ when written as a literal list or tuple.
	All []string `json:"all,omitempty"`
	// Lazy: the module defines __getattr__, so the names of All it does
	// not bind are bound on first use.
	Lazy bool `json:"lazy,omitempty"`
	// Imports maps a bound name to what it was imported as: "pkg.mod"
	// for `import pkg.mod as name`, "pkg.mod.Name" for `from pkg.mod
	// import Name` (relative imports resolved).
	Imports   map[string]string     `json:"imports,omitempty"`
	Classes   map[string]*Class     `json:"classes,omitempty"`
	Functions map[string]*Signature `json:"functions,omitempty"`
	// Deprecated is set when the module is deprecated: it warns with a
	// DeprecationWarning when imported, or its docstring carries a
	// top-level `.. deprecated::` directive or starts "Deprecated
	// module". The text is the message or the directive's.
	Deprecated string `json:"deprecated,omitempty"`
}

// Class is a class defined at the top level of a module, or nested in
// one ("Outer.Inner" in Module.Classes).
type Class struct {
	// Bases as written in the class statement (keywords left out).
	Bases     []string `json:"bases,omitempty"`
	Dataclass bool     `json:"dataclass,omitempty"`
	// Fields are the annotated names of the class body (not private, not
	// ClassVar): a dataclass's or pydantic model's constructor keywords.
	Fields []string `json:"fields,omitempty"`
	// Init is the class's own __init__ (the last one defined), nil if it
	// has none.
	Init *Signature `json:"init,omitempty"`
	// Aliases are class attributes bound to a name (`Settings =
	// FooSettings`).
	Aliases map[string]string `json:"aliases,omitempty"`
	// Deprecated is set when the class is decorated @deprecated, or has a top-level `..
	// deprecated::` in its docstring.
	Deprecated string `json:"deprecated,omitempty"`
	// DeprecatedParams are the parameters or fields whose docstring
	// entry (class or __init__) carries `.. deprecated::`.
	DeprecatedParams []string `json:"deprecated_params,omitempty"`
}

// The values of Signature.VarKwargs.
const (
	KwargsPassedToBase = "passed_to_base"
	KwargsUnused       = "unused"
	KwargsUsed         = "used"
)

// Signature is a function's parameters (a method's first one dropped).
type Signature struct {
	// Params can be passed by keyword, in order (keyword-only ones
	// included).
	Params         []string `json:"params"`
	PositionalOnly []string `json:"positional_only,omitempty"`
	KeywordOnly    []string `json:"keyword_only,omitempty"`
	VarArgs        bool     `json:"var_args,omitempty"`
	// VarKwargs says what the function does with its **kwargs: "" (it
	// has none), "passed_to_base" (an __init__ passing them on to a
	// base's __init__ and nothing else), "unused" (never read: any extra
	// keyword is silently dropped) or "used" (read otherwise: any keyword
	// may mean something).
	VarKwargs string `json:"var_kwargs,omitempty"`
	// Deprecated is the message of a function decorated @deprecated.
	Deprecated string `json:"deprecated,omitempty"`
}

// Marshal is the index's JSON form, indented by one space, ending in a
// newline.
func (ix *Index) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(ix); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Unmarshal reads an index's JSON form.
func Unmarshal(data []byte) (*Index, error) {
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, err
	}
	if len(ix.Modules) == 0 {
		return nil, fmt.Errorf("index of %s %s has no modules", ix.Package, ix.Version)
	}
	for name, m := range ix.Modules {
		if m == nil {
			return nil, fmt.Errorf("module %s: null", name)
		}
	}
	return &ix, nil
}

// Load reads an index file.
func Load(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ix, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}
