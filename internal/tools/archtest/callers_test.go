package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// calledByTheStandardLibrary are the methods a row may name that nothing
// in the module calls by name: encoding/json and fmt call them through
// their interfaces.
var calledByTheStandardLibrary = map[string]bool{
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true,
	"String": true, "Error": true,
}

// TestIndexedFunctionsAreCalled: every function the index names is used
// by the code that runs, outside its own declaration and outside tests. A
// decision only a test calls is not the decision: the rule is made
// somewhere else (the row is dead and points at the wrong place).
//
// Uses are found by name over the parsed packages (go/ast, no type
// checking): a plain function counts when its own package names it or
// another package names it through the import (parcelgate.Allocate); a
// method Type.Name counts when its package, or a package that imports it,
// selects .Name of anything (a call x.Name(...) or a method value
// s.Name). That can take another type's method of the same name for a
// use, never the other way round, so a row this test fails is dead. A
// method of a type its package asserts to implement a root interface
// (var _ parcelgate.PickupPointFinder = Network{}) is called through that
// interface: it counts when a package that imports the root selects
// .Name and the interface declares Name.
func TestIndexedFunctionsAreCalled(t *testing.T) {
	uses := moduleUses(t)
	ifaces := rootInterfaceMethods(t)
	for _, r := range indexRows(t) {
		dir := path.Dir(r.file)
		recv, name, isMethod := strings.Cut(r.fn, ".")
		if !isMethod {
			name, recv = recv, ""
		}
		if isMethod && calledByTheStandardLibrary[name] {
			continue
		}
		if !used(uses, dir, recv, name, r.fn) && !(isMethod && usedThroughRootInterface(t, uses, ifaces, dir, recv, name)) {
			t.Errorf("row %q: %s (%s) has no caller outside tests and its own declaration: the rule is decided elsewhere, or the function is dead", r.rule, r.fn, r.file)
		}
	}
}

// use is one mention of a name in non-test code.
type use struct {
	dir       string // the package's directory, relative to the root ("." for the root)
	imports   map[string]bool
	qualifier string // the import path X names in X.Name, "" for a bare Name or a selector on a value
	selector  bool   // X.Name rather than Name
	name      string
	in        string // the enclosing declaration, Func or Type.Method; "" at package level
}

func used(uses []use, dir, recv, name, fn string) bool {
	pkg := importPath(dir)
	for _, u := range uses {
		if u.name != name || u.in == fn {
			continue
		}
		switch {
		case recv == "" && !u.selector && u.dir == dir:
			return true
		case recv == "" && u.selector && u.qualifier == pkg:
			return true
		case recv != "" && u.selector && u.qualifier == "" && (u.dir == dir || u.imports[pkg]):
			return true
		}
	}
	return false
}

func importPath(dir string) string {
	if dir == "." {
		return module
	}
	return module + "/" + dir
}

// moduleUses parses every non-test Go file of the module and lists the
// names each mentions.
func moduleUses(t *testing.T) []use {
	t.Helper()
	var out []use
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, fileUses(filepath.ToSlash(rel), f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fileUses(dir string, f *ast.File) []use {
	imports := map[string]bool{}
	names := map[string]string{} // the name a file uses for an import → its path
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		imports[p] = true
		n := path.Base(p)
		if s.Name != nil {
			n = s.Name.Name
		}
		names[n] = p
	}
	var out []use
	for _, d := range f.Decls {
		in := ""
		if fd, ok := d.(*ast.FuncDecl); ok {
			in = fd.Name.Name
			if fd.Recv != nil {
				in = receiverType(fd.Recv.List[0].Type) + "." + in
			}
		}
		skip := map[*ast.Ident]bool{} // selectors' names, and the declared name
		if fd, ok := d.(*ast.FuncDecl); ok {
			skip[fd.Name] = true
		}
		ast.Inspect(d, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				skip[x.Sel] = true
				q := ""
				if id, ok := x.X.(*ast.Ident); ok {
					q = names[id.Name]
				}
				out = append(out, use{dir: dir, imports: imports, qualifier: q, selector: true, name: x.Sel.Name, in: in})
			case *ast.Ident:
				if !skip[x] {
					out = append(out, use{dir: dir, imports: imports, name: x.Name, in: in})
				}
			}
			return true
		})
	}
	return out
}

// The use finder itself: a function named only in its own declaration, or
// only in another package that does not import it, is dead; a call through
// the import, a bare call in its package and a method value are uses.
func TestUsesTellDeadFromCalled(t *testing.T) {
	parse := func(src string) *ast.File {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	uses := fileUses(".", parse(`package parcelgate
func Dead() { Dead() }
func Live() {}
func Local() {}
type T struct{}
func (T) Method() {}
func (T) Unused() { var t T; t.Unused() }
func init() { Local() }`))
	uses = append(uses, fileUses("httpapi", parse(`package httpapi
import "github.com/parcelgate/parcelgate"
func f() { parcelgate.Live(); var t parcelgate.T; g(t.Method) }`))...)
	uses = append(uses, fileUses("other", parse(`package other
func h() { Dead(); x.Unused() }`))...)
	for fn, want := range map[string]bool{"Dead": false, "Live": true, "Local": true, "T.Method": true, "T.Unused": false} {
		recv, name, isMethod := strings.Cut(fn, ".")
		if !isMethod {
			name, recv = recv, ""
		}
		if got := used(uses, ".", recv, name, fn); got != want {
			t.Errorf("%s: used %v, want %v", fn, got, want)
		}
	}
}

// rootInterfaceMethods are the methods each interface of the root
// declares, its embedded root interfaces' included.
func rootInterfaceMethods(t *testing.T) map[string]map[string]bool {
	t.Helper()
	own := map[string]map[string]bool{}
	embeds := map[string][]string{}
	for _, f := range parseDir(t, ".") {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok {
					continue
				}
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					continue
				}
				own[ts.Name.Name] = map[string]bool{}
				for _, m := range it.Methods.List {
					for _, n := range m.Names {
						own[ts.Name.Name][n.Name] = true
					}
					if id, ok := m.Type.(*ast.Ident); ok && len(m.Names) == 0 {
						embeds[ts.Name.Name] = append(embeds[ts.Name.Name], id.Name)
					}
				}
			}
		}
	}
	for name, es := range embeds {
		for _, e := range es {
			for m := range own[e] {
				own[name][m] = true
			}
		}
	}
	return own
}

// usedThroughRootInterface reports whether recv (of the package in dir)
// is asserted there to implement a root interface that declares name, and
// a package that imports the root selects .name outside tests.
func usedThroughRootInterface(t *testing.T, uses []use, ifaces map[string]map[string]bool, dir, recv, name string) bool {
	t.Helper()
	declared := false
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs, ok := sp.(*ast.ValueSpec)
				if !ok || len(vs.Values) != 1 || len(vs.Names) != 1 || vs.Names[0].Name != "_" {
					continue
				}
				sel, ok := vs.Type.(*ast.SelectorExpr)
				if !ok || !ifaces[sel.Sel.Name][name] || !mentions(vs.Values[0], recv) {
					continue
				}
				declared = true
			}
		}
	}
	if !declared {
		return false
	}
	for _, u := range uses {
		if u.name == name && u.selector && u.qualifier == "" && (u.dir == "." || u.imports[module]) && u.dir != dir {
			return true
		}
	}
	return false
}

// mentions reports whether expression e names the identifier name.
func mentions(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// parseDir parses the non-test Go files of a package directory (relative
// to the module's root).
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	for _, p := range matches {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}
