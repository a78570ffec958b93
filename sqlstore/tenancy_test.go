package sqlstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tenantScopedTables are the tables whose rows belong to one organization (and
// so to one environment: an organization's id is of exactly one
// environment). docs/scaling.md distributes them by organization; a query
// that names no organization key must visit every shard, and on one
// database it is the query most likely to leak one tenant's rows to
// another.
var tenantScopedTables = []string{
	"gateway_clients", "service_accounts", "catalogs", "catalog_suppliers",
	"shipments", "parcels", "codes", "products", "balances",
	"orders", "order_rows", "order_refs", "order_history", "org_clock",
}

// tenantKey is a condition that names the organization (or, for the
// environment-wide code space, the environment) a statement reads or
// changes: a tenant key column compared with a parameter or with another
// table's tenant key. "col + 0 = ?" counts: it compares the column, only
// keeping the planner off the column's index (see DB.inventoryItems).
var tenantKey = regexp.MustCompile(`\b(org_id|supplier_org_id|retailer_org_id|environment)\s*(\+\s*0\s*)?(=|IN\b)`)

// tenantExceptions are the statements on tenant tables that deliberately
// name no organization, each with the reason it is safe and what it
// becomes when tenants are spread over several databases
// (docs/scaling.md). A key is "function table".
var tenantExceptions = map[string]string{
	// Sandbox resets and restores (operator only): the catalogs are the
	// organization's own (a subquery names retailer_org_id, which the
	// statement text joins in at run time), and held stock moves by the
	// balance IDs of the organization's own saved order rows.
	// The console's products (InventoryService.ListProducts,
	// FindProduct): the retailer's set names retailer_org_id in a
	// filterSQL built by publishedTo, which the statement's function
	// does not scope itself.
	"inProductScope balances": "scoped by retailer_org_id in publishedTo, added at run time",
	// The product search (decisions §58): supplier_org_id, or
	// retailer_org_id in publishedTo, in a filter built at run time.
	"searchedProductKeys products": "scoped by supplier_org_id or publishedTo in a filter built at run time",
	"searchedProductKeys balances": "scoped by retailer_org_id in publishedTo, added at run time",
	// The operator API's pages of an environment's credentials
	// (decisions §58): the environment is the organization's, in the
	// condition envKeyed adds at run time; only the operator of that
	// environment reads them.
	"CredentialService.ListGatewayClients gateway_clients":   "an environment's, by the condition envKeyed adds at run time (operator only)",
	"CredentialService.ListServiceAccounts service_accounts": "an environment's, by the condition envKeyed adds at run time (operator only)",
	// Logins: a credential is found by its own name before any
	// organization is known (a Basic login or a client_id names none, and
	// both are unique across the deployment). Distributed: a small global
	// directory of credentials, replicated to every node.
	"CredentialService.AuthenticateGatewayClient gateway_clients":   login,
	"CredentialService.AuthenticateServiceAccount service_accounts": login,
	// The journal of a token request finds the organization of the
	// credential it names, as the login does.
	"CredentialService.CredentialOwner gateway_clients":  login,
	"CredentialService.CredentialOwner service_accounts": login,

	// The warehouse engine serves every tenant: it finds due orders across
	// organizations, then moves each by its key. Distributed: one engine
	// per shard, each sweeping its own shard.
	"OrderService.AdvanceOrder orders": engine,

	// Conditions built at run time (filterSQL or a where argument): the
	// caller's organization or catalog is among them, which the scan
	// cannot see; the HTTP cross-tenant tests prove each list.
	"balances balances": runtimeFilter,
	// A page of the inventory's balances: supplier_org_id + 0 in the
	// filter built by inventoryItems. (The held-back rows of a poll
	// window: keptWindowTotal names its table and organization column
	// at run time, so the scan sees no table.)
	"stockBalances balances": runtimeFilter,
	"balances catalogs":      runtimeFilter,
	"balances products":      runtimeFilter,

	// By the key of a row that the same transaction first read under the
	// caller's organization (and locked where it matters). Distributed:
	// the key is qualified with the organization, which the code has in
	// hand, so the statement is routed to the row's shard.
	"OrderService.SetOrderPreferences orders":     byScopedKey,
	"InventoryService.MigrateProductIDs balances": byScopedKey,
	"InventoryService.MigrateProductIDs products": byScopedKey,
	"saveDocument orders":                         byScopedKey,
	"endSale balances":                            byScopedKey,
	"endSale products":                            byScopedKey,
	"removeBalances balances":                     byScopedKey,
	"removeBalances catalogs":                     byScopedKey,
	"removeBalances products":                     byScopedKey,
	"stockWriter.update balances":                 byScopedKey,
	"stockWriter.upsertProducts balances":         byScopedKey,
	"fillOrder orders":                            byScopedKey,
	"moveOrder orders":                            byScopedKey,
	"moveWarehousePart orders":                    byScopedKey,
	"moveWarehousePart order_rows":                byScopedKey,
	"moveStock balances":                          byScopedKey,
	"placeOrder orders":                           byScopedKey,
	"heldStock balances":                          byScopedKey,
	"applyStockMoves balances":                    byScopedKey,
	"takeStock balances":                          byScopedKey,

	// Child rows reached through their parent's key (an order's rows,
	// references and history; a shipment's parcels). Distributed: the
	// child tables carry the organization too and are co-located with
	// their parent.
	"orderRowSteps order_rows":  child,
	"historyStep order_history": child,
	"releaseOrder order_rows":   child,
	"replaceOrder order_refs":   child,
	"replaceOrder order_rows":   child,
	"readParcels parcels":       child,
	// A supplier shipment's order rows and the balances they hold, by the
	// key of the order the same transaction read and locked under the
	// retailer the shipment names (decisions §34).
	"settleShipment order_rows": child,
	"settleShipment balances":   byScopedKey,
}

const (
	login         = "login lookup by a globally unique name"
	engine        = "the warehouse engine's sweep over every tenant"
	runtimeFilter = "conditions built at run time"
	byScopedKey   = "by the key of a row first read under the caller's organization"
	child         = "child rows by their parent's key"
)

// decisions §4: every store statement on a tenant-scoped
// table filters by organization (or environment), except the listed ones.
// The statements are found by reading the package's source: every string
// expression that starts with SELECT, UPDATE, DELETE, INSERT or WITH,
// with the package's string constants resolved and a filter the same
// function keeps to its caller's scope (filterSQL.tenant) read as its
// scope (see tenantScopes).
func TestEveryTenantQueryNamesItsOrganization(t *testing.T) {
	stmts := sqlStatements(t)
	if len(stmts) < 50 {
		t.Fatalf("found only %d SQL statements in the package: the scan is broken", len(stmts))
	}
	used := map[string]bool{}
	for _, s := range stmts {
		for _, table := range tablesRead(s.sql) {
			if !slices.Contains(tenantScopedTables, table) {
				continue
			}
			key := s.fn + " " + table
			if tenantKey.MatchString(s.sql) || insertsTenantKey(s.sql) {
				continue
			}
			if _, ok := tenantExceptions[key]; ok {
				used[key] = true
				continue
			}
			t.Errorf("%s: a statement on %s names no organization: %q\n(add the filter, or list %q in tenantExceptions with the reason)", s.pos, table, s.sql, key)
		}
	}
	for key := range tenantExceptions {
		if !used[key] {
			t.Errorf("tenantExceptions lists %q, which no longer matches a statement: remove it", key)
		}
	}
}

// The scan itself must see through concatenation and constants, or the
// test above would pass by seeing nothing.
func TestTenantScanReadsConcatenatedSQL(t *testing.T) {
	stmts := sqlStatements(t)
	var found bool
	for _, s := range stmts {
		if strings.Contains(s.sql, "o.content_hash") && strings.Contains(s.sql, "FROM orders o") {
			found = true
		}
	}
	if !found {
		t.Fatal("no statement joins orderColumns with FROM orders: constants are not resolved")
	}
	if got := tablesRead("SELECT a FROM orders o JOIN order_rows r ON r.order_pk = o.id WHERE x IN (SELECT id FROM codes)"); !slices.Equal(got, []string{"orders", "order_rows", "codes"}) {
		t.Fatalf("tablesRead: %v", got)
	}
	if got := tablesRead("UPDATE balances SET q = 1"); !slices.Equal(got, []string{"balances"}) {
		t.Fatalf("tablesRead: %v", got)
	}
	// decisions §3, §50: a filter kept to the caller's scope by
	// filterSQL.tenant in the statement's own function names the tenant key;
	// the same statement from a filter without it, or from one the
	// function did not scope itself, does not.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "scoped.go", `package sqlstore
func scoped(c *Caller) {
	var where filterSQL
	where.tenant(c, "k.environment", "k.retailer_org_id")
	db.query(ctx, "SELECT id FROM catalogs k WHERE "+where.sql(), where.args...)
}
func unscoped(c *Caller) {
	var where filterSQL
	where.add("k.external_id = ?", "x")
	db.query(ctx, "SELECT id FROM catalogs k WHERE "+where.sql(), where.args...)
}
func elsewhere(where *filterSQL) {
	db.query(ctx, "SELECT id FROM catalogs k WHERE "+where.sql(), where.args...)
}`, 0)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, s := range statementsIn(fset, []*ast.File{f}) {
		named[s.fn] = tenantKey.MatchString(s.sql)
	}
	if want := map[string]bool{"scoped": true, "unscoped": false, "elsewhere": false}; !maps.Equal(named, want) {
		t.Fatalf("statements naming their tenant key: %v, want %v", named, want)
	}
	if tenantKey.MatchString("WHERE b.id = ?") || tenantKey.MatchString("WHERE p.supplier_org_id + 1 = ?") ||
		!tenantKey.MatchString("WHERE o.org_id = ?") || !tenantKey.MatchString("WHERE p.supplier_org_id + 0 = ?") {
		t.Fatal("tenantKey matches the wrong conditions")
	}
}

type sqlStatement struct {
	pos, fn, sql string
}

var sqlStart = regexp.MustCompile(`^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b`)

// sqlStatements reads every SQL statement written in the package's
// non-test files.
func sqlStatements(t *testing.T) []sqlStatement {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
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
		parsed = append(parsed, f)
	}
	return statementsIn(fset, parsed)
}

// statementsIn reads the SQL statements written in files.
func statementsIn(fset *token.FileSet, parsed []*ast.File) []sqlStatement {
	consts := map[string]string{}
	for _, f := range parsed {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	var out []sqlStatement
	for _, f := range parsed {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				fn = recvName(fd.Recv.List[0].Type) + "." + fn
			}
			scoped := tenantScopes(fd.Body, consts)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				e, ok := n.(ast.Expr)
				if !ok {
					return true
				}
				s, isString := stringExpr(e, consts, scoped)
				if !isString {
					return true
				}
				if sqlStart.MatchString(s) {
					out = append(out, sqlStatement{pos: fset.Position(e.Pos()).String(), fn: fn, sql: strings.Join(strings.Fields(s), " ")})
				}
				// A whole concatenation has been read; its parts are not
				// statements of their own.
				return false
			})
		}
	}
	return out
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// tenantScopes finds the conditions that body keeps to its caller's
// scope, f.tenant(c, envCol, orgCol) on a filter f and t := tenantOf(c,
// envCol, orgCol) (several at once too), with the columns written as
// strings, and renders each f.sql() or t.sql() as the condition tenantOf
// gives a caller of one organization: orgCol, after envCol when the
// statement names one. That counts as naming the tenant key: a tenant's
// scope is its organization, an operator's the whole of its tenancy
// (decisions §3, §50, §71), narrowed by the helper to exactly the
// caller's Scope, and the same filter's conditions are what the statement
// built from it reads.
func tenantScopes(body ast.Node, consts map[string]string) map[string]string {
	scoped := map[string]string{}
	render := func(call *ast.CallExpr) (string, bool) {
		env, envOK := stringExpr(call.Args[1], consts, nil)
		org, orgOK := stringExpr(call.Args[2], consts, nil)
		if !envOK || !orgOK {
			return "", false
		}
		if env == "" {
			return org + " = ?", true
		}
		return env + " = ? AND " + org + " = ?", true
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, rhs := range n.Rhs {
				call, ok := rhs.(*ast.CallExpr)
				if !ok || len(call.Args) != 3 {
					continue
				}
				fn, ok := call.Fun.(*ast.Ident)
				name, isIdent := n.Lhs[i].(*ast.Ident)
				if !ok || fn.Name != "tenantOf" || !isIdent {
					continue
				}
				if cond, ok := render(call); ok {
					scoped[name.Name] = cond
				}
			}
		case *ast.CallExpr:
			if len(n.Args) != 3 {
				return true
			}
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "tenant" {
				return true
			}
			f, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if cond, ok := render(n); ok {
				scoped[f.Name] = cond
			}
		}
		return true
	})
	return scoped
}

// stringExpr renders a string expression: literals and the package's
// constants as they are, f.sql() of a filter in scoped as its operator's
// scope, anything else computed as "…". It reports false when e is no
// concatenation holding a string literal, constant or scoped filter.
func stringExpr(e ast.Expr, consts, scoped map[string]string) (string, bool) {
	switch x := e.(type) {
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "sql" || len(x.Args) != 0 {
			return "", false
		}
		f, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		s, ok := scoped[f.Name]
		return s, ok
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := consts[x.Name]
		return s, ok
	case *ast.ParenExpr:
		return stringExpr(x.X, consts, scoped)
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		l, lok := stringExpr(x.X, consts, scoped)
		r, rok := stringExpr(x.Y, consts, scoped)
		if !lok && !rok {
			return "", false
		}
		if !lok {
			l = " … "
		}
		if !rok {
			r = " … "
		}
		return l + r, true
	}
	return "", false
}

var insertColumns = regexp.MustCompile(`^\s*INSERT INTO [a-z_]+ \(([^)]*)\) VALUES`)

// insertsTenantKey reports whether sql inserts rows given their
// organization (or environment): INSERT ... VALUES whose columns hold a
// tenant key.
func insertsTenantKey(sql string) bool {
	m := insertColumns.FindStringSubmatch(sql)
	if m == nil {
		return false
	}
	for _, c := range strings.Split(m[1], ",") {
		switch strings.TrimSpace(c) {
		case "org_id", "supplier_org_id", "retailer_org_id", "environment":
			return true
		}
	}
	return false
}

var tableRef = regexp.MustCompile(`\b(?:FROM|JOIN|UPDATE|INTO)\s+([a-z_]+)`)

// tablesRead lists the tables a statement names after FROM, JOIN, UPDATE
// or INTO, in order.
func tablesRead(sql string) []string {
	var out []string
	for _, m := range tableRef.FindAllStringSubmatch(sql, -1) {
		out = append(out, m[1])
	}
	return out
}

// handWrittenTenantKey is a tenant condition written by hand: a tenant
// key column compared with a parameter.
var handWrittenTenantKey = regexp.MustCompile(`\b(org_id|supplier_org_id|retailer_org_id)\s*(\+\s*0\s*)?=\s*\?`)

// operatorJobFiles are the operator's jobs on an organization or
// environment it names (resets, snapshots and restores, their jobs),
// which work on a given organization's id by design and not for a caller
// (decisions §71).
var operatorJobFiles = []string{"control_reset.go", "control_snapshot.go", "control_job.go"}

// handWrittenTenantKeys are the functions (or constants) outside the
// operator's jobs that name an organization by a key they hold rather than
// by a caller's scope, each with the reason; a key is the function's name
// as in tenantExceptions.
var handWrittenTenantKeys = map[string]string{
	// The organization of a row the statement's caller reached first.
	"lockShipment": "the retailer's order a supplier's shipment names, read under the supplier's scope just before",
	"copyBack":     "the retailer's order of the supplier shipment being written, read and locked before",
	// Engines and machinery that serve every tenant, not a caller.
	"dueShipments":                engine,
	"DropshipService.AutoConfirm": "the supplier shipment engine: a shipment found by its sweep, and its retailer's order",
	"JournalService.PruneJournal": "the journal writer's bound, per organization written",
	"keptCount":                   "kept counts: (environment, org_id), org_id 0 being the environment's count; callers pass their caller's organization",
	"keptWarehouseCount":          "kept counts by warehouse, keyed as keptCount",
	// An order's key, and an order being placed or shipped: the
	// organization is part of the row's key and comes from the order's
	// own record (the caller's organization when a caller places it, the
	// order's when the warehouse engine moves it) or from a batch of
	// callers' point reads (answer_batch).
	"orderByKey":           "an order's key (organization, ID), passed by whoever holds the order",
	"placeOrder":           "the organization placing the order, read for its caller",
	"rowProductsQuery":     "the retailer placing the order, as retailer and as its own warehouse catalogs' supplier",
	"orderStockStep":       "the retailer of the order whose stock is found (its record's organization)",
	"assignTrackingNumber": "the organization of the shipment being inserted (its caller's, or its order's for the engine)",
	"takenParcelIDs":       "the organization of the shipment being inserted, as assignTrackingNumber",
	// The operator's stock move names both parties; the caller's reach
	// is checked on them first (MoveStock).
	"lookupBalance": "a balance named by its supplier and retailer, one of which MoveStock checked the caller reaches",
}

// decisions §71: a tenant-facing statement takes its tenant condition from
// the one helper (tenantOf, filterSQL.tenant in org.go), never writes it
// by hand, so that one rule decides what each scope reaches. Every
// string the package's non-test files write is read: a tenant key
// compared with a parameter is reported unless it is the helper's own,
// an operator's job's, or listed in handWrittenTenantKeys.
func TestTenantConditionsComeFromTheHelper(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	var seen int
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "org.go" || slices.Contains(operatorJobFiles, name) {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			var where string
			switch d := d.(type) {
			case *ast.FuncDecl:
				where = d.Name.Name
				if d.Recv != nil && len(d.Recv.List) > 0 {
					where = recvName(d.Recv.List[0].Type) + "." + where
				}
			case *ast.GenDecl:
				if len(d.Specs) > 0 {
					if vs, ok := d.Specs[0].(*ast.ValueSpec); ok && len(vs.Names) > 0 {
						where = vs.Names[0].Name
					}
				}
			}
			ast.Inspect(d, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !handWrittenTenantKey.MatchString(s) {
					return true
				}
				seen++
				if _, ok := handWrittenTenantKeys[where]; ok {
					used[where] = true
					return true
				}
				t.Errorf("%s (%s): a tenant condition written by hand: %q\n(take it from tenantOf or filterSQL.tenant, or list %q in handWrittenTenantKeys with the reason)",
					fset.Position(lit.Pos()), where, handWrittenTenantKey.FindString(s), where)
				return true
			})
		}
	}
	if seen == 0 {
		t.Fatal("no hand-written tenant key found at all: the scan is broken")
	}
	for key := range handWrittenTenantKeys {
		if !used[key] {
			t.Errorf("handWrittenTenantKeys lists %q, which writes no tenant condition by hand: remove it", key)
		}
	}
}
