package scaffold

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/testenv"
)

// pyIndex is the JSON index of pipecat-ai's public API in ../shared/pipecat
// (built by build_index.py from the real 1.7.0 sources). The lookups below
// are a port of Index.binds, Index.find_class and Index.accepted_params of
// ../shared/tools/check_pipecat_project.py, so the catalogue is held to the
// same rules as the projects generated from it.
type pyIndex struct {
	Version string              `json:"version"`
	Extras  []string            `json:"extras"`
	Modules map[string]pyModule `json:"modules"`

	byClass map[string][]string // class name -> modules defining it
}

type pyModule struct {
	Names   []string           `json:"names"`
	Classes map[string]pyClass `json:"classes"`
}

type pyClass struct {
	Bases []string `json:"bases"`
	// InitParams is nil when the class defines no __init__ of its own.
	InitParams        *[]string `json:"init_params"`
	InitAcceptsKwargs bool      `json:"init_accepts_kwargs"`
	Fields            []string  `json:"fields"`
	Dataclass         bool      `json:"dataclass"`
}

const pipecatIndexName = "pipecat-1.7.0-api.json"

// pipecatIndexPath finds ../shared/pipecat/<index> beside the repository
// root. Without it the test fails in CI and is skipped otherwise.
func pipecatIndexPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(testenv.SharedDir(t), "pipecat", pipecatIndexName)
}

func loadPyIndex(t testing.TB) *pyIndex {
	t.Helper()
	path := pipecatIndexPath(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ix pyIndex
	if err := json.Unmarshal(data, &ix); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(ix.Modules) == 0 || len(ix.Extras) == 0 {
		t.Fatalf("%s: no modules or extras", path)
	}
	ix.byClass = map[string][]string{}
	for mod, info := range ix.Modules {
		for cls := range info.Classes {
			ix.byClass[cls] = append(ix.byClass[cls], mod)
		}
	}
	return &ix
}

func (ix *pyIndex) hasExtra(name string) bool { return slices.Contains(ix.Extras, name) }

// binds: the module binds name, or module.name is a submodule.
func (ix *pyIndex) binds(module, name string) bool {
	info, ok := ix.Modules[module]
	if !ok {
		return false
	}
	if slices.Contains(info.Names, name) {
		return true
	}
	_, sub := ix.Modules[module+"."+name]
	return sub
}

// findClass returns the module defining class name as seen from module,
// following re-exports: the class itself if module defines it, else the
// only module defining a class of that name (preferring those under
// module's parent package).
func (ix *pyIndex) findClass(module, name string) (string, pyClass, bool) {
	if info, ok := ix.Modules[module]; ok {
		if c, ok := info.Classes[name]; ok {
			return module, c, true
		}
	}
	mods := ix.byClass[name]
	pkg := module
	if i := strings.LastIndex(module, "."); i >= 0 {
		pkg = module[:i]
	}
	var near []string
	for _, m := range mods {
		if strings.HasPrefix(m, pkg) {
			near = append(near, m)
		}
	}
	if len(near) == 0 {
		near = mods
	}
	if len(near) == 1 {
		return near[0], ix.Modules[near[0]].Classes[name], true
	}
	return "", pyClass{}, false
}

// paramsMode selects how acceptedParams treats what the checker cannot
// decide.
type paramsMode int

const (
	// exactChecker answers exactly what check_pipecat_project.py answers.
	exactChecker paramsMode = iota
	// bestEffort also decides two cases the checker gives up on, noting
	// each assumption: a root class whose __init__ takes **kwargs but has
	// no base left to pass them to is taken to accept only its named
	// parameters (the rest would reach object.__init__ and raise), and a
	// base written "Outer.Settings" is resolved to the one *Settings
	// dataclass in Outer's module.
	bestEffort
)

// acceptedParams is the set of keyword names the class's constructor
// accepts; ok is false when it cannot be decided. notes collects the
// assumptions bestEffort made.
func (ix *pyIndex) acceptedParams(module, name string, mode paramsMode, notes *[]string) (map[string]bool, bool) {
	return ix.accepted(module, name, mode, notes, 0)
}

func (ix *pyIndex) accepted(module, name string, mode paramsMode, notes *[]string, depth int) (map[string]bool, bool) {
	if depth > 12 {
		return nil, false
	}
	mod, info, found := ix.findClass(module, name)
	if !found {
		return nil, false
	}
	params := map[string]bool{}
	if info.InitParams != nil {
		for _, p := range *info.InitParams {
			params[p] = true
		}
		if !info.InitAcceptsKwargs {
			return params, true
		}
	} else {
		for _, f := range info.Fields {
			params[f] = true
		}
	}
	type base struct{ raw, short string }
	var bases []base
	for _, b := range info.Bases {
		short := strings.Split(b, "[")[0]
		short = short[strings.LastIndex(short, ".")+1:]
		bases = append(bases, base{raw: strings.Split(b, "[")[0], short: short})
	}
	isBaseModel := func(b base) bool { return b.short == "BaseModel" }
	if slices.ContainsFunc(bases, isBaseModel) || info.Dataclass {
		bases = slices.DeleteFunc(bases, isBaseModel)
	} else if len(bases) == 0 && info.InitParams == nil {
		return params, true
	}
	bases = slices.DeleteFunc(bases, func(b base) bool {
		return b.short == "object" || b.short == "ABC" || b.short == "Generic"
	})
	if len(bases) == 0 {
		if info.InitAcceptsKwargs {
			if mode == exactChecker {
				return nil, false
			}
			*notes = append(*notes, "assumed "+name+"(**kwargs) passes nothing further")
		}
		return params, true
	}
	for _, b := range bases {
		sub, ok := ix.accepted(mod, b.short, mode, notes, depth+1)
		if !ok && mode == bestEffort {
			sub, ok = ix.acceptedNestedSettings(mod, b.raw, notes, depth)
		}
		if !ok {
			return nil, false
		}
		for p := range sub {
			params[p] = true
		}
	}
	return params, true
}

// acceptedNestedSettings resolves a base written "Outer.Settings" (a class
// attribute alias the index does not record) to the single *Settings
// dataclass defined in Outer's module.
func (ix *pyIndex) acceptedNestedSettings(module, raw string, notes *[]string, depth int) (map[string]bool, bool) {
	outer, attr, ok := strings.Cut(raw, ".")
	if !ok || attr != "Settings" {
		return nil, false
	}
	mod, _, found := ix.findClass(module, outer)
	if !found {
		return nil, false
	}
	var candidates []string
	for cls, info := range ix.Modules[mod].Classes {
		if strings.HasSuffix(cls, "Settings") && info.Dataclass {
			candidates = append(candidates, cls)
		}
	}
	if len(candidates) != 1 {
		return nil, false
	}
	*notes = append(*notes, "took "+raw+" to be "+mod+"."+candidates[0])
	return ix.accepted(mod, candidates[0], bestEffort, notes, depth+1)
}
