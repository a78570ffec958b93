package sqlstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stampExceptions are the statements that change an order row without
// setting updated_at, by the function that holds them, each with the
// reason it cannot let an answer go stale.
var stampExceptions = map[string]string{
	// The conditional claim of a move (exactly one mover wins); the same
	// transaction then writes the row again with a new stamp, before any
	// reader can see the claim.
	"moveOrder": "UPDATE orders SET status = ? WHERE id = ? AND status = ?",
	// The same claim for the warehouse part of a mixed order (decisions
	// §38); copyBack then writes the row with a new stamp.
	"moveWarehousePart": "UPDATE orders SET warehouse_status = ? WHERE id = ? AND warehouse_status = ?",
}

var updateOrders = regexp.MustCompile(`(?is)\bUPDATE\s+orders\s+SET\b`)

// TestEveryOrderWriteMovesItsStamp: the order answer cache reuses an
// encoded answer for the row key and change stamp it was encoded from
// (answerVersion), so every statement that changes an order row must give
// it a new stamp, as change polls need too (decisions §6). A new UPDATE of
// orders that does not set updated_at fails here instead of serving a
// stale answer.
func TestEveryOrderWriteMovesItsStamp(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			fn := fd.Name.Name
			if fd.Recv != nil {
				rt := fd.Recv.List[0].Type
				if st, ok := rt.(*ast.StarExpr); ok {
					rt = st.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					fn = id.Name + "." + fn
				}
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING || !updateOrders.MatchString(lit.Value) {
					return true
				}
				seen++
				q := strings.Trim(lit.Value, "`\"")
				if strings.Contains(q, "updated_at = ?") {
					return true
				}
				if stampExceptions[fn] == q {
					return true
				}
				t.Errorf("%s: %s changes orders without a new updated_at: %q", fset.Position(lit.Pos()), fn, q)
				return true
			})
		}
	}
	if seen < 4 {
		t.Fatalf("found %d UPDATE orders statements; the scan has lost them", seen)
	}
}
