package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = "../../.."

const module = "github.com/parcelgate/parcelgate"

// rowPattern matches the "Decided by" cell of a row of the index:
// [`file.go`](../file.go) `Func` or `Type.Method`.
var rowPattern = regexp.MustCompile("^\\| (.+) \\| \\[`([^`]+)`\\]\\(\\.\\./([^)]+)\\) `([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)` \\|$")

// citation is what every rule cell must carry: the rule's name in the
// interface or in the decisions.
var citation = regexp.MustCompile(`(interface|decisions) §[0-9]`)

// TestIndexNamesDecidingFunctions: every row of docs/architecture.md's index
// names a Go file that exists and a function or method that file declares,
// so the map from a rule to its deciding function cannot go stale.
func TestIndexNamesDecidingFunctions(t *testing.T) {
	rows := indexRows(t)
	if len(rows) < 30 {
		t.Fatalf("the index has %d rows; expected the whole table (at least 30)", len(rows))
	}
	for _, r := range rows {
		if r.link != r.file {
			t.Errorf("row %q: the link (%s) and the file named (%s) differ", r.rule, r.link, r.file)
		}
		if !citation.MatchString(r.rule) {
			t.Errorf("row %q cites no rule (interface §N or decisions §N)", r.rule)
		}
		if !declares(t, filepath.Join(root, filepath.FromSlash(r.file)), r.fn) {
			t.Errorf("row %q: %s does not declare %s", r.rule, r.file, r.fn)
		}
	}
}

type indexRow struct{ rule, file, link, fn string }

// indexRows reads the rows of the index table, which starts at the heading
// "## Index" and ends at the first line that is not a table line. A table
// line that is not a well-formed row fails the test.
func indexRows(t *testing.T) []indexRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []indexRow
	in, header := false, 0
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "## "):
			if in {
				return rows
			}
			in = strings.HasPrefix(line, "## Index")
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			if len(rows) > 0 {
				return rows
			}
			continue
		case header < 2: // the header and its separator
			header++
			continue
		}
		m := rowPattern.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("index line is not `| rule | [`file`](../file) `Function` |`: %s", line)
			continue
		}
		rows = append(rows, indexRow{rule: m[1], file: m[2], link: m[3], fn: m[4]})
	}
	if !in {
		t.Fatal("docs/architecture.md has no \"## Index\" section")
	}
	return rows
}

// declares reports whether the Go file at path declares fn: a function
// "Name", or a method "Type.Name" on Type or *Type.
func declares(t *testing.T, path, fn string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Errorf("%v", err)
		return false
	}
	recv, name, isMethod := strings.Cut(fn, ".")
	if !isMethod {
		name, recv = recv, ""
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != name {
			continue
		}
		if recv == "" && fd.Recv == nil {
			return true
		}
		if recv != "" && fd.Recv != nil && receiverType(fd.Recv.List[0].Type) == recv {
			return true
		}
	}
	return false
}

func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr: // a generic receiver, T[P]
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// imports returns the import paths of the non-test Go files of the package
// in dir, relative to the repository root.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Imports {
			p := strings.Trim(s.Path.Value, `"`)
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return out
}

// rootForbidden are standard packages that do I/O or read bodies, which
// the root must not import: it decides, the other packages load, write and
// speak HTTP. net/mail is allowed: the root parses e-mail addresses with
// it, which is text, not I/O.
var rootForbidden = []string{
	"database/sql", "database/sql/driver",
	"io", "io/fs", "io/ioutil", "bufio",
	"log", "log/slog",
	"net", "net/http", "net/http/httptest", "net/url", "net/netip", "net/rpc", "net/smtp",
	"os", "os/exec", "os/signal", "os/user",
	"path/filepath", "plugin", "syscall", "unsafe",
}

// TestRootIsPureDomain: the root package imports only the standard library
// (no dependency, none of this module's packages: every arrow points to the
// root) and no I/O package (decisions §11).
func TestRootIsPureDomain(t *testing.T) {
	for _, p := range imports(t, ".") {
		first, _, _ := strings.Cut(p, "/")
		switch {
		case strings.Contains(first, "."):
			t.Errorf("the root package imports %s, which is not the standard library", p)
		case slices.Contains(rootForbidden, p), strings.HasPrefix(p, "net/http/"):
			t.Errorf("the root package imports %s: decisions do no I/O; loading and writing are sqlstore's, HTTP and bodies httpapi's", p)
		}
	}
}

// TestNoHTTPBelowTheHTTPLayer: the packages the HTTP layer stands on speak
// no HTTP, and none of them reaches up to httpapi or the wiring.
func TestNoHTTPBelowTheHTTPLayer(t *testing.T) {
	above := []string{module + "/httpapi", module + "/cmd/parcelgate", module + "/console", module + "/internal/jsonin"}
	for _, dir := range []string{".", "sqlstore", "auth", "fulfillment", "demo"} {
		for _, p := range imports(t, dir) {
			if p == "net/http" || strings.HasPrefix(p, "net/http/") {
				t.Errorf("package %s imports %s; only httpapi speaks HTTP", dir, p)
			}
			if slices.Contains(above, p) {
				t.Errorf("package %s imports %s, a layer above it", dir, p)
			}
		}
	}
}

// frontEnds are the packages that serve people and programs: the API,
// the web console, the warehouse engine. None of them may reach sqlstore.
var frontEnds = []string{"httpapi", "console", "fulfillment"}

// TestHTTPReachesTheStoreThroughTheRoot: the front ends (the API, the
// console, the warehouse engine) and the packages below them use the
// store through the root's service interfaces (or their own small ones),
// never sqlstore itself, so a decision cannot hide between them and the
// console cannot keep a back door the API does not have. Only the wiring
// (cmd/parcelgate) and test helpers hold the concrete store.
func TestHTTPReachesTheStoreThroughTheRoot(t *testing.T) {
	for _, dir := range append(append([]string{}, frontEnds...), ".", "auth", "demo", "internal/jsonin") {
		if slices.Contains(imports(t, dir), module+"/sqlstore") {
			t.Errorf("package %s imports sqlstore; it should use the root's service interfaces", dir)
		}
	}
}

// TestFrontEndsDoNotImportEachOther: the console does not borrow the API's
// handlers or rules, nor the API the console's; what both need is the
// root's (ErrorStatus, ParseOrderMove, ConsoleProductScope) or auth's
// (CreateGatewayClient, CreateServiceAccount).
func TestFrontEndsDoNotImportEachOther(t *testing.T) {
	for _, dir := range frontEnds {
		for _, other := range frontEnds {
			if other != dir && slices.Contains(imports(t, dir), module+"/"+other) {
				t.Errorf("package %s imports %s; what both need belongs in the root", dir, other)
			}
		}
	}
}

// internal/ holds the packages the server and the SDK's test server are
// built from; internal/tools/ holds the test and development tools (test
// harnesses, the golden answers, the data generators, the real-client
// scripts). What ships never imports a tool: only the tools, the load
// test (a tool itself) and tests do.
func TestProductionImportsNoTool(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasPrefix(d.Name(), ".") && rel != ".", d.Name() == "testdata", rel == "client", strings.HasPrefix(rel, "client/"),
			rel == "internal/tools", strings.HasPrefix(rel, "internal/tools/"), rel == "cmd/loadtest":
			return filepath.SkipDir
		}
		if files, _ := filepath.Glob(filepath.Join(path, "*.go")); len(files) == 0 {
			return nil
		}
		for _, p := range imports(t, rel) {
			if strings.HasPrefix(p, module+"/internal/tools/") {
				t.Errorf("%s imports the tool %s: production code does not depend on internal/tools", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
