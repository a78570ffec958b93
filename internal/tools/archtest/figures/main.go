// Command figures measures the layout of a parcelgate checkout: the
// figures issue 38 asks for before and after its restructuring (paging
// forms, pagers, tenant forms, scope checks, permission checks outside the
// services, types per concept, the root's size, the widest interface a
// front end holds, what a shipping order and a dropship order cross).
//
//	go run ./internal/tools/archtest/figures [-v] [checkout]   # default: .
//
// It is a tool beside the tests that keep the layout (internal/tools/archtest),
// not production code. It reads the Go source of the checkout (test files
// left out) with go/parser and type-checks the module's own packages with
// go/types; packages outside the module are stood in for by empty ones,
// so only what the module declares resolves — which is all it measures.
// Every figure is defined next to the function that computes it.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

const module = "github.com/parcelgate/parcelgate"

var verbose = flag.Bool("v", false, "list what each figure counts")

func main() {
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	l, err := load(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
	for _, f := range []func(*loader) figure{
		pagingForms, pagers, tenantForms, scopeChecks, mayOutsideServices, conceptTypes, rootSize, widestInterface,
		crossing("a shipping order (httpapi Server.createShippingOrder)", "httpapi", "Server", "createShippingOrder"),
		crossing("a retailer's dropship order (httpapi Server.createOrder)", "httpapi", "Server", "createOrder"),
	} {
		fig := f(l)
		fmt.Printf("%-62s %s\n", fig.name, fig.value)
		if *verbose {
			for _, d := range fig.detail {
				fmt.Printf("    %s\n", d)
			}
		}
	}
}

type figure struct {
	name, value string
	detail      []string
}

// pkg is one package of the module, its non-test files parsed and checked.
type pkg struct {
	path, dir string
	files     []*ast.File
	names     []string // file names, relative to the checkout
	types     *types.Package
	info      *types.Info
}

type loader struct {
	root string
	fset *token.FileSet
	pkgs map[string]*pkg // by import path
	fake map[string]*types.Package
}

// load parses every package of the module under root (the client module
// and testdata left out) and type-checks them.
func load(root string) (*loader, error) {
	l := &loader{root: root, fset: token.NewFileSet(), pkgs: map[string]*pkg{}, fake: map[string]*types.Package{}}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		base := d.Name()
		if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "node_modules" || rel == "client") {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		p := &pkg{dir: path, path: module}
		if rel != "." {
			p.path = module + "/" + filepath.ToSlash(rel)
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(l.fset, filepath.Join(path, n), nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			if f.Name.Name == "documentation" || hasIgnoreTag(f) {
				continue
			}
			p.files = append(p.files, f)
			p.names = append(p.names, filepath.ToSlash(filepath.Join(rel, n)))
		}
		if len(p.files) > 0 {
			l.pkgs[p.path] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for path := range l.pkgs {
		l.check(path)
	}
	return l, nil
}

func hasIgnoreTag(f *ast.File) bool {
	for _, c := range f.Comments {
		for _, l := range c.List {
			if strings.HasPrefix(l.Text, "//go:build ignore") {
				return true
			}
		}
	}
	return false
}

// Import makes loader a types.Importer: the module's packages checked
// from source, any other an empty stand-in.
func (l *loader) Import(path string) (*types.Package, error) {
	if p, ok := l.pkgs[path]; ok {
		return l.check(p.path), nil
	}
	if t, ok := l.fake[path]; ok {
		return t, nil
	}
	t := types.NewPackage(path, filepath.Base(path))
	t.MarkComplete()
	l.fake[path] = t
	return t, nil
}

func (l *loader) check(path string) *types.Package {
	p := l.pkgs[path]
	if p.types != nil {
		return p.types
	}
	p.info = &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: l, Error: func(error) {}, FakeImportC: true}
	p.types, _ = conf.Check(path, l.fset, p.files, p.info)
	return p.types
}

// production reports whether a package is one the server runs: not a
// command, a test or development tool under internal/ (but inproc, wiring,
// jsonin, adminguard are the server's), nor the SDK's tests.
func production(path string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	if strings.HasPrefix(rel, "cmd/") || rel == "parcelgatetest" {
		return false
	}
	if strings.HasPrefix(rel, "internal/") {
		for _, keep := range []string{"internal/wiring", "internal/jsonin", "internal/adminguard"} {
			if rel == keep || strings.HasPrefix(rel, keep+"/") {
				return true
			}
		}
		return false
	}
	return true
}

func (l *loader) sorted() []*pkg {
	var ps []*pkg
	for _, p := range l.pkgs {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].path < ps[j].path })
	return ps
}

func rel(path string) string {
	if r := strings.TrimPrefix(strings.TrimPrefix(path, module), "/"); r != "" {
		return r
	}
	return "(root)"
}

func inStore(path string) bool {
	r := rel(path)
	return r == "sqlstore" || strings.HasPrefix(r, "sqlstore/")
}

// --- paging forms -----------------------------------------------------

var (
	positionName = regexp.MustCompile(`(?i)^(after|before|cursor|start|offset|page|pagenumber|pagetoken|continuationtoken)$`)
	sizeName     = regexp.MustCompile(`(?i)^(limit|size|pagesize|max|n)$`)
)

// pagingForms counts the forms in which production code asks for a page:
// a struct type with a page-position field (After, Before, Cursor, Start,
// Offset, Page, PageToken) and a size field (Limit, Size...), and a
// function or method whose parameters carry a position and a size
// directly. Forms are told apart by the position's name: (after, limit) and
// (cursor, limit) are two forms, PageRequest{Page, Size, After} is one.
func pagingForms(l *loader) figure {
	forms := map[string][]string{}
	for _, p := range l.sorted() {
		if !production(p.path) {
			continue
		}
		for i, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.TypeSpec:
					st, ok := x.Type.(*ast.StructType)
					if !ok {
						return true
					}
					var pos []string
					size := false
					for _, fl := range st.Fields.List {
						for _, nm := range fl.Names {
							if positionName.MatchString(nm.Name) && nm.Name != "N" {
								pos = append(pos, nm.Name)
							}
							if sizeName.MatchString(nm.Name) && nm.Name != "N" {
								size = true
							}
						}
					}
					if len(pos) > 0 && size {
						k := "struct " + x.Name.Name + "{" + strings.Join(pos, ",") + "}"
						forms[k] = append(forms[k], p.names[i])
					}
				case *ast.FuncType:
					if x.Params == nil {
						return true
					}
					var pos []string
					size := false
					for _, fl := range x.Params.List {
						for _, nm := range fl.Names {
							if positionName.MatchString(nm.Name) && isScalar(fl.Type) {
								pos = append(pos, strings.ToLower(nm.Name))
							}
							if sizeName.MatchString(nm.Name) && isScalar(fl.Type) {
								size = true
							}
						}
					}
					if len(pos) > 0 && size {
						k := "params (" + strings.Join(pos, ",") + ", limit)"
						forms[k] = append(forms[k], p.names[i])
					}
				}
				return true
			})
		}
	}
	return counted("paging request forms", forms)
}

func isScalar(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "string" || id.Name == "int" || id.Name == "int64" || id.Name == "int32")
}

func counted(name string, forms map[string][]string) figure {
	var keys []string
	for k := range forms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var d []string
	for _, k := range keys {
		d = append(d, fmt.Sprintf("%s: %d uses (%s)", k, len(forms[k]), strings.Join(uniq(forms[k]), ", ")))
	}
	return figure{name: name, value: fmt.Sprint(len(keys)), detail: d}
}

func uniq(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// --- pagers -----------------------------------------------------------

var (
	pagerName  = regexp.MustCompile(`(?i)(page|pager|keyset)`)
	cursorName = regexp.MustCompile(`(?i)(encode|decode|format|parse)\w*cursor|cursor\w*(encode|decode)`)
	limitIdent = regexp.MustCompile(`(?i)^(limit|size|pagesize|n|max)$`)
)

// pagers counts, in the store (sqlstore and the packages under it): the
// generic pagers (generic functions or types named for pages or keysets),
// the hand-written "limit+1" reads (functions that compute limit+1 or
// size+1 to learn whether a next page exists) and the cursor encodings
// (functions that encode or decode a cursor).
func pagers(l *loader) figure {
	var generic, plus1, cursors []string
	for _, p := range l.sorted() {
		if !inStore(p.path) {
			continue
		}
		for i, f := range p.files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					name := funcName(d)
					if d.Type.TypeParams != nil && pagerName.MatchString(d.Name.Name) {
						generic = append(generic, p.names[i]+" "+name)
					}
					if cursorName.MatchString(d.Name.Name) {
						cursors = append(cursors, p.names[i]+" "+name)
					}
					if d.Body != nil && hasPlusOne(d.Body) {
						plus1 = append(plus1, p.names[i]+" "+name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok && ts.TypeParams != nil && pagerName.MatchString(ts.Name.Name) {
							generic = append(generic, p.names[i]+" type "+ts.Name.Name)
						}
					}
				}
			}
		}
	}
	var d []string
	for _, g := range generic {
		d = append(d, "generic: "+g)
	}
	for _, g := range plus1 {
		d = append(d, "limit+1: "+g)
	}
	for _, g := range cursors {
		d = append(d, "cursor: "+g)
	}
	return figure{name: "pagers in the store (generic / limit+1 / cursor codecs)", value: fmt.Sprintf("%d / %d / %d", len(generic), len(plus1), len(cursors)), detail: d}
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

func hasPlusOne(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD {
			return !found
		}
		lit, ok := b.Y.(*ast.BasicLit)
		if !ok || lit.Value != "1" {
			return true
		}
		switch x := b.X.(type) {
		case *ast.Ident:
			found = found || limitIdent.MatchString(x.Name)
		case *ast.SelectorExpr:
			found = found || limitIdent.MatchString(x.Sel.Name)
		}
		return !found
	})
	return found
}

// --- tenant forms ---------------------------------------------------------

var (
	orgIDName      = regexp.MustCompile(`(?i)^org(id)?s?$|orgID`)
	businessIDName = regexp.MustCompile(`(?i)^(businessid|bid|business)s?$|businessID`)
	envName        = regexp.MustCompile(`(?i)^env(ironment)?$`)
)

// tenantForms counts the forms in which a tenant is handed to the store's
// functions and methods (sqlstore and below): a parameter of type
// *Caller, *Organization, Environment, a scope type (any type named
// *Scope*), an int64 named for an organization (orgID), a string named for
// a business ID. Each form is listed with how many functions take it.
func tenantForms(l *loader) figure {
	forms := map[string][]string{}
	for _, p := range l.sorted() {
		if !inStore(p.path) {
			continue
		}
		for i, f := range p.files {
			for _, decl := range f.Decls {
				d, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				seen := map[string]bool{}
				for _, fl := range d.Type.Params.List {
					t := p.info.Types[fl.Type].Type
					ts := ""
					if t != nil {
						ts = types.TypeString(t, func(*types.Package) string { return "" })
					}
					names := fl.Names
					if len(names) == 0 {
						names = []*ast.Ident{{Name: "_"}}
					}
					for _, nm := range names {
						form := ""
						switch {
						case ts == "*Caller":
							form = "*Caller"
						case ts == "*Organization":
							form = "*Organization"
						case strings.Contains(ts, "Scope"):
							form = ts
						case ts == "Environment" || (ts == "string" && envName.MatchString(nm.Name)):
							form = "env Environment"
						case (ts == "int64" || ts == "[]int64") && orgIDName.MatchString(nm.Name):
							form = "orgID int64"
						case (ts == "string" || ts == "[]string") && businessIDName.MatchString(nm.Name):
							form = "businessID string"
						}
						if form != "" && !seen[form] {
							seen[form] = true
							forms[form] = append(forms[form], p.names[i]+" "+funcName(d))
						}
					}
				}
			}
		}
	}
	fig := counted("tenant forms passed to store functions", forms)
	var parts []string
	keys := make([]string, 0, len(forms))
	for k := range forms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, len(forms[k])))
	}
	fig.value += " (" + strings.Join(parts, ", ") + " functions)"
	if !*verbose {
		return fig
	}
	fig.detail = nil
	for _, k := range keys {
		fig.detail = append(fig.detail, fmt.Sprintf("%s: %s", k, strings.Join(uniq(forms[k]), "; ")))
	}
	return fig
}

// --- scope checks -----------------------------------------------------------

// scopeChecks counts the scope worked out by hand in production code:
// comparisons of an Environment field with "" and of an OrgID field with 0
// (== or !=), and the sentinel EnvironmentOperator("") ("every
// environment").
func scopeChecks(l *loader) figure {
	var hand, sentinel []string
	for _, p := range l.sorted() {
		if !production(p.path) {
			continue
		}
		for i, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.BinaryExpr:
					if x.Op != token.EQL && x.Op != token.NEQ {
						return true
					}
					for _, pair := range [][2]ast.Expr{{x.X, x.Y}, {x.Y, x.X}} {
						sel, ok := pair[0].(*ast.SelectorExpr)
						lit, ok2 := pair[1].(*ast.BasicLit)
						if !ok || !ok2 {
							continue
						}
						if (sel.Sel.Name == "Environment" && lit.Value == `""`) || (sel.Sel.Name == "OrgID" && lit.Value == "0") {
							hand = append(hand, fmt.Sprintf("%s:%d", p.names[i], l.fset.Position(x.Pos()).Line))
						}
					}
				case *ast.CallExpr:
					if name := calleeName(x.Fun); name == "EnvironmentOperator" && len(x.Args) == 1 {
						if lit, ok := x.Args[0].(*ast.BasicLit); ok && lit.Value == `""` {
							sentinel = append(sentinel, fmt.Sprintf("%s:%d", p.names[i], l.fset.Position(x.Pos()).Line))
						}
					}
				}
				return true
			})
		}
	}
	var d []string
	for _, h := range hand {
		d = append(d, "by hand: "+h)
	}
	for _, h := range sentinel {
		d = append(d, `EnvironmentOperator(""): `+h)
	}
	return figure{name: `hand-written scope checks (==""/==0 / EnvironmentOperator(""))`, value: fmt.Sprintf("%d / %d", len(hand), len(sentinel)), detail: d}
}

func calleeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

// --- permission checks -------------------------------------------------------

// mayOutsideServices counts calls of a method named May (Caller.May, the
// permission check) in production code outside the store, by package,
// and inside it; and the calls outside the store and the root that hand a
// permission action (parcelgate.ActionX) to a guard of a front end's own
// (a route registered behind s.ecom(action, ...), a console check): the
// second policy the issue counts.
func mayOutsideServices(l *loader) figure {
	by, byGuard := map[string]int{}, map[string]int{}
	inside, outside, guards := 0, 0, 0
	for _, p := range l.sorted() {
		if !production(p.path) {
			continue
		}
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if !inStore(p.path) && p.path != module && namesAction(c) {
						guards++
						byGuard[rel(p.path)]++
					}
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "May" {
						if inStore(p.path) {
							inside++
						} else {
							outside++
							by[rel(p.path)]++
						}
					}
				}
				return true
			})
		}
	}
	var d []string
	for _, k := range sortedKeys(by) {
		d = append(d, fmt.Sprintf("%s: %d", k, by[k]))
	}
	d = append(d, fmt.Sprintf("(in the store: %d)", inside))
	parts := []string{}
	for _, k := range sortedKeys(by) {
		parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
	}
	var gparts []string
	for _, k := range sortedKeys(byGuard) {
		gparts = append(gparts, fmt.Sprintf("%s %d", k, byGuard[k]))
	}
	return figure{name: "permission checks outside the store: .May calls ; action guards", value: fmt.Sprintf("%d (%s; store %d) ; %d (%s)", outside, strings.Join(parts, ", "), inside, guards, strings.Join(gparts, ", ")), detail: d}
}

// namesAction reports whether a call hands a permission action
// (parcelgate.ActionX) to a front end's guard: a route wrapped in a check
// of its own (s.ecom(parcelgate.ActionReadOrders, ...)) or a site that asks.
func namesAction(c *ast.CallExpr) bool {
	for _, a := range c.Args {
		if s, ok := a.(*ast.SelectorExpr); ok && strings.HasPrefix(s.Sel.Name, "Action") {
			if id, ok := s.X.(*ast.Ident); ok && id.Name == "parcelgate" {
				return true
			}
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}

// --- concepts -----------------------------------------------------------------

var conceptName = regexp.MustCompile(`Shipment|Shipping|Supply|Supplier`)

// conceptTypes counts the types of production code whose names say
// Shipment, Shipping, Supply or Supplier (the three concepts: a parcel
// shipment, a dropshipping supplier shipment, a shipping order), in the
// root and in all, and the store's services with a method whose name says
// Shipment or Shipping (the services that touch shipments).
func conceptTypes(l *loader) figure {
	var inRoot, all, services []string
	for _, p := range l.sorted() {
		if !production(p.path) {
			continue
		}
		for i, f := range p.files {
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if conceptName.MatchString(ts.Name.Name) {
						all = append(all, rel(p.path)+"."+ts.Name.Name)
						if p.path == module {
							inRoot = append(inRoot, ts.Name.Name+" ("+p.names[i]+")")
						}
					}
				}
			}
		}
		if rel(p.path) != "sqlstore" {
			continue
		}
		scope := p.types.Scope()
		for _, n := range scope.Names() {
			tn, ok := scope.Lookup(n).(*types.TypeName)
			if !ok || !strings.HasSuffix(n, "Service") {
				continue
			}
			ms := types.NewMethodSet(types.NewPointer(tn.Type()))
			for j := 0; j < ms.Len(); j++ {
				if regexp.MustCompile(`Shipment|Shipping`).MatchString(ms.At(j).Obj().Name()) {
					services = append(services, n)
					break
				}
			}
		}
	}
	d := append([]string{"services touching shipments: " + strings.Join(services, ", ")}, inRoot...)
	return figure{name: "types Shipment*/Shipping*/Supply*/Supplier* (root / all) ; services touching shipments", value: fmt.Sprintf("%d / %d ; %d", len(inRoot), len(all), len(services)), detail: d}
}

// --- the root ------------------------------------------------------------------

// rootSize counts the root package's non-test Go files and their lines.
func rootSize(l *loader) figure {
	p := l.pkgs[module]
	lines := 0
	for _, n := range p.names {
		b, err := os.ReadFile(filepath.Join(l.root, n))
		if err == nil {
			lines += strings.Count(string(b), "\n")
		}
	}
	return figure{name: "root files / lines (non-test)", value: fmt.Sprintf("%d / %d", len(p.names), lines), detail: p.names}
}

// --- front ends ------------------------------------------------------------------

// widestInterface measures what each front end is handed: the methods of
// the interface types of its Services struct's fields (fulfillment: its
// Store interface), summed over the fields, and how many of those methods
// its production code calls. The figure is the widest front end's.
func widestInterface(l *loader) figure {
	type fe struct {
		name         string
		held, called int
	}
	var fes []fe
	for _, name := range []string{"httpapi", "console", "fulfillment", "demo"} {
		p := l.pkgs[module+"/"+name]
		if p == nil || p.types == nil {
			continue
		}
		methods := map[*types.Func]bool{}
		held := 0
		add := func(t types.Type) {
			it, ok := t.Underlying().(*types.Interface)
			if !ok {
				return
			}
			for i := 0; i < it.NumMethods(); i++ {
				methods[it.Method(i)] = true
				held++
			}
		}
		if o, ok := p.types.Scope().Lookup("Services").(*types.TypeName); ok {
			if st, ok := o.Type().Underlying().(*types.Struct); ok {
				for i := 0; i < st.NumFields(); i++ {
					add(st.Field(i).Type())
				}
			}
		} else if o, ok := p.types.Scope().Lookup("Store").(*types.TypeName); ok {
			add(o.Type())
		}
		called := map[*types.Func]bool{}
		for _, obj := range p.info.Uses {
			if fn, ok := obj.(*types.Func); ok && methods[fn] {
				called[fn] = true
			}
		}
		fes = append(fes, fe{name, held, len(called)})
	}
	sort.Slice(fes, func(i, j int) bool { return fes[i].held > fes[j].held })
	var d []string
	for _, f := range fes {
		d = append(d, fmt.Sprintf("%s: holds %d methods, calls %d", f.name, f.held, f.called))
	}
	if len(fes) == 0 {
		return figure{name: "widest front-end interface: held / called", value: "?"}
	}
	return figure{name: "widest front-end interface: held / called", value: fmt.Sprintf("%s %d / %d", fes[0].name, fes[0].held, fes[0].called), detail: d}
}

// --- what a request crosses -----------------------------------------------------------

// crossing follows the static call graph from a handler method down and
// counts the production files and packages of the module its functions
// are declared in. A call resolves through go/types: a function or a
// concrete method to its declaration; a method of an interface the
// module declares to every method of that name of a module type that
// implements the interface (so a front end's call of a root interface
// reaches the store's service); function literals are followed where
// they are written. Calls into other modules and the standard library
// end the walk; test files are not read.
func crossing(title, pkgRel, recv, method string) func(*loader) figure {
	return func(l *loader) figure {
		decls := map[*types.Func]*ast.FuncDecl{}
		declPkg := map[*ast.FuncDecl]*pkg{}
		var named []*types.Named
		for _, p := range l.sorted() {
			if !production(p.path) {
				continue
			}
			for _, f := range p.files {
				for _, decl := range f.Decls {
					if d, ok := decl.(*ast.FuncDecl); ok {
						if fn, ok := p.info.Defs[d.Name].(*types.Func); ok {
							decls[fn] = d
							declPkg[d] = p
						}
					}
				}
			}
			if p.types == nil {
				continue
			}
			for _, n := range p.types.Scope().Names() {
				if tn, ok := p.types.Scope().Lookup(n).(*types.TypeName); ok {
					if nt, ok := tn.Type().(*types.Named); ok {
						if _, isIface := nt.Underlying().(*types.Interface); !isIface {
							named = append(named, nt)
						}
					}
				}
			}
		}
		start := l.pkgs[module+"/"+pkgRel]
		var first *types.Func
		if start != nil {
			if tn, ok := start.types.Scope().Lookup(recv).(*types.TypeName); ok {
				obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, start.types, method)
				first, _ = obj.(*types.Func)
			}
		}
		if first == nil {
			return figure{name: "crosses: " + title, value: "handler not found"}
		}
		implCache := map[*types.Func][]*types.Func{}
		implementations := func(m *types.Func) []*types.Func {
			if r, ok := implCache[m]; ok {
				return r
			}
			sig := m.Type().(*types.Signature)
			iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
			var out []*types.Func
			if ok {
				for _, nt := range named {
					ptr := types.NewPointer(nt)
					if !types.Implements(ptr, iface) && !types.Implements(nt, iface) {
						continue
					}
					obj, _, _ := types.LookupFieldOrMethod(ptr, true, nt.Obj().Pkg(), m.Name())
					if fn, ok := obj.(*types.Func); ok {
						out = append(out, fn)
					}
				}
			}
			implCache[m] = out
			return out
		}
		seen := map[*types.Func]bool{}
		files, pkgs := map[string]bool{}, map[string]bool{}
		queue := []*types.Func{first}
		for len(queue) > 0 {
			fn := queue[0]
			queue = queue[1:]
			if seen[fn] {
				continue
			}
			seen[fn] = true
			if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
				if _, isIface := sig.Recv().Type().Underlying().(*types.Interface); isIface {
					if fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), module) {
						queue = append(queue, implementations(fn)...)
					}
					continue
				}
			}
			d := decls[fn]
			if d == nil || d.Body == nil {
				continue
			}
			p := declPkg[d]
			files[filepath.ToSlash(l.fset.Position(d.Pos()).Filename)] = true
			pkgs[rel(p.path)] = true
			ast.Inspect(d.Body, func(n ast.Node) bool {
				var id *ast.Ident
				switch x := n.(type) {
				case *ast.SelectorExpr:
					id = x.Sel
				case *ast.Ident:
					id = x
				default:
					return true
				}
				// Every function or method named in the body: called, or
				// handed on to be called (a handler wrapped by a middleware).
				if callee, ok := p.info.Uses[id].(*types.Func); ok {
					queue = append(queue, callee)
				}
				return true
			})
		}
		var fl []string
		for f := range files {
			r, err := filepath.Rel(l.root, f)
			if err != nil {
				r = f
			}
			fl = append(fl, filepath.ToSlash(r))
		}
		slices.Sort(fl)
		pl := sortedKeys(pkgs)
		return figure{name: "crosses: " + title, value: fmt.Sprintf("%d files, %d packages (%s)", len(fl), len(pl), strings.Join(pl, ", ")), detail: fl}
	}
}
