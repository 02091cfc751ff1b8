package testlint

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// Finding is one error a test throws away.
type Finding struct {
	Pos  token.Position
	Call string // the expression whose error is discarded
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: the error of %s is discarded", f.Pos, f.Call)
}

// Marker, in a comment on the line, says the discard is meant.
const Marker = "error ignored:"

// Check loads the packages matching patterns from dir, their tests
// included, and returns every place a _test.go file assigns an error to the
// blank identifier or calls, as a statement of its own, a function that
// returns one (defer and go statements aside).
func Check(dir string, patterns ...string) ([]Finding, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   dir,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var problems []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			problems = append(problems, e.Error())
		}
	})
	if len(problems) > 0 {
		return nil, fmt.Errorf("loading packages: %s", strings.Join(problems, "; "))
	}
	seen := map[token.Position]bool{}
	var out []Finding
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Pos()).Filename
			if !strings.HasSuffix(name, "_test.go") {
				continue
			}
			meant := markedLines(p.Fset, f)
			for _, fd := range checkFile(p.Fset, p.TypesInfo, f) {
				if !meant[fd.Pos.Line] && !seen[fd.Pos] {
					seen[fd.Pos] = true
					out = append(out, fd)
				}
			}
		}
	}
	return out, nil
}

// markedLines returns the lines that carry the Marker comment.
func markedLines(fset *token.FileSet, f *ast.File) map[int]bool {
	lines := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.Contains(c.Text, Marker) {
				lines[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	return lines
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return t != nil && types.Identical(t, errorType) }

// harmless reports whether call's error is one a statement may drop, as
// errcheck's defaults have it: printing with fmt (to a buffer, or to a
// stream whose failure the test would not see anyway), Close, and writes
// to a bytes.Buffer or strings.Builder.
func harmless(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return false
	}
	if fn.Name() == "Close" {
		return true
	}
	// Writes to memory never fail (errcheck's defaults leave them out too).
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		switch types.TypeString(sig.Recv().Type(), nil) {
		case "*bytes.Buffer", "*strings.Builder":
			return true
		}
	}
	if fn.Pkg() != nil && fn.Pkg().Path() == "fmt" {
		return strings.HasPrefix(fn.Name(), "Print") || strings.HasPrefix(fn.Name(), "Fprint")
	}
	return false
}

// returnsError reports whether a call's type (one result, or a tuple)
// holds an error.
func returnsError(t types.Type) bool {
	if tuple, ok := t.(*types.Tuple); ok {
		for i := 0; i < tuple.Len(); i++ {
			if isError(tuple.At(i).Type()) {
				return true
			}
		}
		return false
	}
	return isError(t)
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func checkFile(fset *token.FileSet, info *types.Info, f *ast.File) []Finding {
	var out []Finding
	report := func(at ast.Node, call ast.Expr) {
		out = append(out, Finding{Pos: fset.Position(at.Pos()), Call: types.ExprString(call)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		// f(), a statement of its own, whose results include an error.
		if es, ok := n.(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok && returnsError(info.TypeOf(call)) && !harmless(info, call) {
				report(call, call)
			}
			return true
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			return true
		}
		// v1, _ := f(): one call, several results.
		if len(as.Rhs) == 1 && len(as.Lhs) > 1 {
			if tuple, ok := info.TypeOf(as.Rhs[0]).(*types.Tuple); ok && tuple.Len() == len(as.Lhs) {
				for i, lhs := range as.Lhs {
					if isBlank(lhs) && isError(tuple.At(i).Type()) {
						report(lhs, as.Rhs[0])
					}
				}
			}
			return true
		}
		// _ = f(), a, _ = x, err: one value each.
		if len(as.Lhs) == len(as.Rhs) {
			for i, lhs := range as.Lhs {
				if isBlank(lhs) && isError(info.TypeOf(as.Rhs[i])) {
					report(lhs, as.Rhs[i])
				}
			}
		}
		return true
	})
	return out
}
