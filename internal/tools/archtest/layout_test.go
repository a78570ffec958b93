package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layout of docs/architecture.md's picture: the root decides; each
// sqlstore service stores one entity; the fast path
// (sqlstore/internal/fastpath) makes the store fast and decides nothing;
// the front ends hold the root's service interfaces, one field per
// service; internal/wiring alone hands them the concrete services.

const fastpath = "sqlstore/internal/fastpath"

// TestFastPathHoldsNoRule: the fast path imports only the standard
// library: no rule of the root, no store, no front end. What it keeps is
// keyed by what the services hand it, so it cannot decide who sees what.
func TestFastPathHoldsNoRule(t *testing.T) {
	for _, p := range imports(t, fastpath) {
		first, _, _ := strings.Cut(p, "/")
		if strings.Contains(first, ".") {
			t.Errorf("the fast path imports %s; it holds no rule and depends on nothing but the standard library", p)
		}
	}
}

// consoleView is the package of the console's data shapes: the one
// package of the console the store may import, to implement the console's
// readers in them.
const consoleView = "console/view"

// TestServicesImportNoFrontEnd: the store and its fast path never reach
// up to a front end or the wiring, nor into a package under one — except
// console/view, the console's data shapes, which the store fills.
func TestServicesImportNoFrontEnd(t *testing.T) {
	above := []string{"httpapi", "console", "fulfillment", "demo", "internal/wiring", "internal/inproc", "cmd/parcelgate"}
	for _, dir := range []string{"sqlstore", fastpath} {
		for _, p := range imports(t, dir) {
			if p == module+"/"+consoleView {
				continue
			}
			for _, a := range above {
				if p == module+"/"+a || strings.HasPrefix(p, module+"/"+a+"/") {
					t.Errorf("package %s imports %s, which stands above it", dir, p)
				}
			}
		}
	}
}

// TestConsoleViewIsDataOnly: console/view imports only the root and the
// standard library, so the store may use it without reaching the console,
// and no rule can hide in it (the rules it names are the root's).
func TestConsoleViewIsDataOnly(t *testing.T) {
	for _, p := range imports(t, consoleView) {
		first, _, _ := strings.Cut(p, "/")
		if p != module && strings.Contains(first, ".") {
			t.Errorf("%s imports %s; it imports only the root and the standard library", consoleView, p)
		}
	}
}

// TestFrontEndsHoldNoConcreteStore: no front end imports sqlstore or a
// package under it, and every field of a front end's Services struct is
// an interface: a root service interface (parcelgate.XService) or a small
// interface the front end declares itself. So a handler's field says what
// it uses, and any service can be replaced by a fake.
func TestFrontEndsHoldNoConcreteStore(t *testing.T) {
	rootIfaces := interfaceNames(t, ".")
	for _, dir := range []string{"httpapi", "console", "demo"} {
		for _, p := range imports(t, dir) {
			if p == module+"/sqlstore" || strings.HasPrefix(p, module+"/sqlstore/") {
				t.Errorf("package %s imports %s; a front end holds the root's service interfaces", dir, p)
			}
		}
		local := interfaceNames(t, dir)
		fields := servicesFields(t, dir)
		if len(fields) < 3 {
			t.Fatalf("package %s: found %d fields of Services; the struct has moved or lost its fields", dir, len(fields))
		}
		for name, typ := range fields {
			switch x := typ.(type) {
			case *ast.SelectorExpr:
				if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "parcelgate" && slices.Contains(rootIfaces, x.Sel.Name) {
					continue
				}
			case *ast.Ident:
				if slices.Contains(local, x.Name) {
					continue
				}
			}
			t.Errorf("%s.Services.%s is not an interface of the root or of %s", dir, name, dir)
		}
	}
}

// interfaceNames lists the interface types the non-test files of the
// package in dir declare.
func interfaceNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	eachDecl(t, dir, func(d ast.Decl) {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			return
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if _, ok := ts.Type.(*ast.InterfaceType); ok {
				out = append(out, ts.Name.Name)
			}
		}
	})
	return out
}

// servicesFields returns the fields of the Services struct the package in
// dir declares, by name.
func servicesFields(t *testing.T, dir string) map[string]ast.Expr {
	t.Helper()
	out := map[string]ast.Expr{}
	eachDecl(t, dir, func(d ast.Decl) {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			return
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || ts.Name.Name != "Services" {
				continue
			}
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					out[n.Name] = f.Type
				}
			}
		}
	})
	return out
}

func eachDecl(t *testing.T, dir string, fn func(ast.Decl)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn(d)
		}
	}
}

// pickupNetwork is the pick-up point network and estimate model: the data
// set, its search engine and the promise table (decisions §32, §19).
const pickupNetwork = "pickup"

// TestPickupNetworkIsReachedThroughTheRoot: package pickup imports only
// the root and the standard library (it holds data and the engine over
// it, not the rules of what a point or a search is), and nothing but the
// wiring imports it: the front ends, the store, the label and the demo
// seed read points and estimates through PickupPointFinder and
// DeliveryEstimator, handed to them by internal/wiring.
func TestPickupNetworkIsReachedThroughTheRoot(t *testing.T) {
	for _, p := range imports(t, pickupNetwork) {
		first, _, _ := strings.Cut(p, "/")
		if p != module && strings.Contains(first, ".") {
			t.Errorf("%s imports %s; it imports only the root and the standard library", pickupNetwork, p)
		}
	}
	for _, dir := range append(append([]string{}, frontEnds...), ".", "sqlstore", "demo", "label", "auth", "console/view") {
		if slices.Contains(imports(t, dir), module+"/"+pickupNetwork) {
			t.Errorf("package %s imports %s; it reads the network through the root's PickupPointFinder and DeliveryEstimator", dir, pickupNetwork)
		}
	}
}
