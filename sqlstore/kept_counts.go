package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// Kept counts (decisions §52, migration 0036): the table kept_counts holds,
// per kind, environment, organization (0: the environment's) and status,
// how many rows there are, split over keptStripes stripes by the row's id.
// Triggers keep it in the writing transaction on every write of the
// counted tables, whatever wrote (a service, an operator's reset or
// restore, the data generator, psql), so a count read in a snapshot is the
// count of the rows that snapshot holds: exact by construction, and a
// read of a few index entries whatever the tenant's size.
//
// SQLite fires a row trigger per row (its one writer makes stripes moot,
// and an upsert of a row costs microseconds). PostgreSQL fires one
// statement trigger per insert or delete, reading its transition table, so
// a bulk write (COPY, a reset's DELETE of 150,000 orders) adds one grouped
// upsert, not one per row, and a row trigger only for a status that
// changed (see pgKeptCounts for its stripes).

// keptStripes is how many rows each count is split into on SQLite (by
// the row's id; its one writer makes them moot), pgStripes on PostgreSQL
// (by the writer's connection).
const (
	keptStripes = 8
	pgStripes   = 16
)

// countedTable is a table whose rows are counted.
type countedTable struct {
	table string
	kind  parcelgate.TallyKind
	// org and status are the row's organization and status expressions
	// (without the NEW./OLD. prefix on SQLite; "0" and "''" when the kind
	// has none).
	org, status string
	// envToo: the environment's count is kept too (org_id 0).
	envToo bool
	// updates: the status can change (an UPDATE trigger is needed).
	updates bool
}

// keptCounts0036 are the tables migration 0036 counts; keptCounts0049
// those migration 0049 added (decisions §63): a supplier's dropshipping
// shipments by status, the total of GET /shipments. countedTables is
// every counted table.
var (
	keptCounts0036 = []countedTable{
		{table: "orders", kind: parcelgate.TallyOrders, org: "org_id", status: "status", envToo: true, updates: true},
		{table: "shipments", kind: parcelgate.TallyShipments, org: "org_id", status: "status", updates: true},
		{table: "products", kind: parcelgate.TallyProducts, org: "supplier_org_id", status: "status", updates: true},
		{table: "organizations", kind: parcelgate.TallyOrganizations, org: "0", status: "''"},
	}
	keptCounts0049 = []countedTable{
		{table: "supplier_shipments", kind: parcelgate.TallySupplierShipments, org: "supplier_org_id", status: "status", updates: true},
	}
	countedTables = append(append([]countedTable(nil), keptCounts0036...), keptCounts0049...)
)

const keptCountsUpsert = ` ON CONFLICT (kind, environment, org_id, status, stripe) DO UPDATE SET n = kept_counts.n + excluded.n`

// col is expression e of a row named row (NEW, OLD), constants as they are.
func col(row, e string) string {
	if e == "0" || e == "''" {
		return e
	}
	return row + "." + e
}

// sqliteKeptCounts is the triggers that keep tables' counts on SQLite: a
// row trigger each, on one line (the migration runner splits statements
// at lines ending in a semicolon).
func sqliteKeptCounts(tables []countedTable) string {
	var b strings.Builder
	values := func(t countedTable, row string, d int) string {
		v := fmt.Sprintf("('%s', %s.environment, %s, %s, %s.id %% %d, %d)", t.kind, row, col(row, t.org), col(row, t.status), row, keptStripes, d)
		if t.envToo {
			v += fmt.Sprintf(", ('%s', %s.environment, 0, %s, %s.id %% %d, %d)", t.kind, row, col(row, t.status), row, keptStripes, d)
		}
		return "INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) VALUES " + v + keptCountsUpsert + ";"
	}
	for _, t := range tables {
		fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_insert AFTER INSERT ON %s BEGIN %s END;\n", t.table, t.table, values(t, "NEW", 1))
		fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_delete AFTER DELETE ON %s BEGIN %s END;\n", t.table, t.table, values(t, "OLD", -1))
		if t.updates {
			fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_update AFTER UPDATE OF %s ON %s WHEN OLD.%s IS NOT NEW.%s BEGIN %s %s END;\n",
				t.table, t.status, t.table, t.status, t.status, values(t, "OLD", -1), values(t, "NEW", 1))
		}
	}
	return b.String()
}

// pgKeptCounts is the triggers that keep tables' counts on PostgreSQL,
// each on one line. Inserts and deletes: a function per table and one statement
// trigger per operation, reading its transition table, so a bulk write
// adds one grouped upsert. Status moves: a row trigger fired only WHEN
// the status changed, so the order writes that change other columns (the
// warehouse engine's, a comment) call no function at all. A writer's
// share goes to the stripe of its connection (pg_backend_pid() modulo
// pgStripes): a count is the sum of its stripes, whichever stripe a share
// went to, and two writers on different connections then never update
// the same row, so one merchant's concurrent orders do not queue on a
// count until they commit.
func pgKeptCounts(tables []countedTable) string {
	var b strings.Builder
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	for _, t := range tables {
		// delta is the rows of a transition table as (e, o, s, d).
		delta := func(rows string, d int) string {
			q := fmt.Sprintf("SELECT environment AS e, %s AS o, %s AS s, %d AS d FROM %s", t.org, t.status, d, rows)
			if t.envToo {
				q += fmt.Sprintf(" UNION ALL SELECT environment, 0, %s, %d FROM %s", t.status, d, rows)
			}
			return q
		}
		upsert := func(from string) string {
			return fmt.Sprintf("INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT '%s', e, o, s, %s, SUM(d) FROM (%s) x GROUP BY e, o, s HAVING SUM(d) <> 0 ORDER BY e, o, s%s; ", t.kind, stripe, from, keptCountsUpsert)
		}
		fmt.Fprintf(&b, "CREATE FUNCTION kept_counts_%s() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN %sELSE %sEND IF; RETURN NULL; END $$;\n",
			t.table, upsert(delta("new_rows", 1)), upsert(delta("old_rows", -1)))
		fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_insert AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_%s();\n", t.table, t.table, t.table)
		fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_delete AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_counts_%s();\n", t.table, t.table, t.table)
		if t.updates {
			// One row's move: its old status less one, its new plus one, in
			// key order (the statuses' order) within the row.
			rows := fmt.Sprintf("('%s', OLD.environment, OLD.%s, OLD.%s, %s, -1), ('%s', NEW.environment, NEW.%s, NEW.%s, %s, 1)", t.kind, t.org, t.status, stripe, t.kind, t.org, t.status, stripe)
			if t.envToo {
				rows = fmt.Sprintf("('%s', OLD.environment, 0, OLD.%s, %s, -1), ('%s', NEW.environment, 0, NEW.%s, %s, 1), ", t.kind, t.status, stripe, t.kind, t.status, stripe) + rows
			}
			fmt.Fprintf(&b, "CREATE FUNCTION kept_counts_%s_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO kept_counts (kind, environment, org_id, status, stripe, n) SELECT * FROM (VALUES %s) v ORDER BY 2, 3, 4%s; RETURN NULL; END $$;\n", t.table, rows, keptCountsUpsert)
			fmt.Fprintf(&b, "CREATE TRIGGER kept_counts_%s_update AFTER UPDATE OF %s ON %s FOR EACH ROW WHEN (OLD.%s IS DISTINCT FROM NEW.%s) EXECUTE FUNCTION kept_counts_%s_move();\n", t.table, t.status, t.table, t.status, t.status, t.table)
		}
	}
	return b.String()
}

// TallyService reads the kept counts (parcelgate.Tallier).
type TallyService struct{ db *DB }

// NewTallyService returns the kept counts' service over db.
func NewTallyService(db *DB) *TallyService { return &TallyService{db: db} }

// Tallies returns the kept counts q asks for, one per environment,
// organization and status with rows (a count of 0 is left out), in that
// order. Who may ask: see parcelgate.Tallier. Organizations outside c's
// scope are left out, as if they had no rows.
func (s *TallyService) Tallies(ctx context.Context, c *parcelgate.Caller, q parcelgate.TallyQuery) ([]parcelgate.Tally, error) {
	action := parcelgate.ActionViewTenant
	switch q.Kind {
	case parcelgate.TallyOrders:
		action = parcelgate.ActionReadOrders
	case parcelgate.TallyShipments, parcelgate.TallyProducts:
	case parcelgate.TallyOrganizations:
		action = parcelgate.ActionOperate
	default:
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "No count of %q is kept.", q.Kind)
	}
	envWide := len(q.OrgIDs) == 0 && c != nil && c.Scope != parcelgate.ScopeOrganization
	if envWide {
		action = parcelgate.ActionOperate
	}
	if err := c.May(action); err != nil {
		return nil, err
	}
	var f filterSQL
	f.add("kind = ?", string(q.Kind))
	switch {
	case envWide:
		if c.Scope == parcelgate.ScopeEnvironment {
			f.add("environment = ?", string(c.Environment))
		}
		f.add("org_id = 0")
	case len(q.OrgIDs) == 0:
		f.tenant(c, "environment", "org_id")
	default:
		f.tenant(c, "environment", "org_id")
		f.in("org_id", anys(q.OrgIDs))
		f.add("org_id <> 0")
	}
	return readOnReplica(ctx, s.db, c, func(r reader) ([]parcelgate.Tally, error) {
		rows, err := r.Query(ctx, `SELECT environment, org_id, status, SUM(n) FROM kept_counts WHERE `+f.sql()+
			` GROUP BY environment, org_id, status HAVING SUM(n) <> 0 ORDER BY environment, org_id, status`, f.args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []parcelgate.Tally
		for rows.Next() {
			var t parcelgate.Tally
			var env string
			if err := rows.Scan(&env, &t.OrgID, &t.Status, &t.N); err != nil {
				return nil, err
			}
			t.Environment = parcelgate.Environment(env)
			out = append(out, t)
		}
		return out, rows.Err()
	})
}

// keptCount is the kept count of kind in environment env, organization
// orgID (0: the environment's), in any of statuses (none: all), read by r
// (in the caller's read transaction, so it agrees with the page read
// there).
func keptCount(ctx context.Context, r reader, kind parcelgate.TallyKind, env parcelgate.Environment, orgID int64, statuses []string) (int64, error) {
	var f filterSQL
	f.add("kind = ?", string(kind))
	f.add("environment = ?", string(env))
	f.add("org_id = ?", orgID)
	if len(statuses) > 0 {
		f.in("status", anys(statuses))
	}
	var n int64
	err := r.QueryRow(ctx, `SELECT COALESCE(SUM(n), 0) FROM kept_counts WHERE `+f.sql(), f.args...).Scan(&n)
	return n, err
}

// Kept counts of orders by warehouse (migration 0050, decisions §63): the
// table kept_warehouse_counts holds, per organization, warehouse (an
// order row's warehouse_external_id) and the order's status, how many
// orders have a row of that warehouse. An order counts once per
// warehouse however many of its rows name it. Triggers keep it as
// kept_counts is kept: on order_rows, an insert counts the pairs (order,
// warehouse) that had no row before, a delete those left with none; on
// orders, a status move moves each of the order's warehouses from the
// old status to the new. Orders are deleted after their rows (their
// foreign key), so a delete of orders has nothing left to count, and an
// order's organization never changes.

const keptWarehouseUpsert = ` ON CONFLICT (environment, org_id, warehouse, status, stripe) DO UPDATE SET n = kept_warehouse_counts.n + excluded.n`

const keptWarehouseInsert = `INSERT INTO kept_warehouse_counts (environment, org_id, warehouse, status, stripe, n) `

// sqliteKeptWarehouseCounts is migration 0050's triggers on SQLite, one a
// line.
var sqliteKeptWarehouseCounts = func() string {
	row := func(r string, d int, rest string) string {
		return keptWarehouseInsert + fmt.Sprintf("SELECT o.environment, o.org_id, %[1]s.warehouse_external_id, o.status, %[1]s.order_pk %% %[2]d, %[3]d FROM orders o WHERE o.id = %[1]s.order_pk AND NOT EXISTS (SELECT 1 FROM order_rows r WHERE r.order_pk = %[1]s.order_pk AND r.warehouse_external_id = %[1]s.warehouse_external_id%[4]s)", r, keptStripes, d, rest) + keptWarehouseUpsert + ";"
	}
	move := func(r string, d int) string {
		return keptWarehouseInsert + fmt.Sprintf("SELECT DISTINCT %[1]s.environment, %[1]s.org_id, r.warehouse_external_id, %[1]s.status, %[1]s.id %% %[2]d, %[3]d FROM order_rows r WHERE r.order_pk = %[1]s.id", r, keptStripes, d) + keptWarehouseUpsert + ";"
	}
	return "CREATE TRIGGER kept_warehouse_counts_rows_insert AFTER INSERT ON order_rows BEGIN " + row("NEW", 1, " AND r.line <> NEW.line") + " END;\n" +
		"CREATE TRIGGER kept_warehouse_counts_rows_delete AFTER DELETE ON order_rows BEGIN " + row("OLD", -1, "") + " END;\n" +
		"CREATE TRIGGER kept_warehouse_counts_orders_update AFTER UPDATE OF status ON orders WHEN OLD.status IS NOT NEW.status BEGIN " + move("OLD", -1) + " " + move("NEW", 1) + " END;\n"
}()

// pgKeptWarehouseCounts is migration 0050's triggers on PostgreSQL, one a
// line: a statement trigger on order_rows for inserts and deletes,
// reading its transition table grouped by order and warehouse, and a row
// trigger on orders fired only when the status changed. Shares go to the
// writer's connection's stripe, as pgKeptCounts' do.
var pgKeptWarehouseCounts = func() string {
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	rows := func(from, cond, sign string) string {
		return keptWarehouseInsert + "SELECT o.environment, o.org_id, g.wh, o.status, " + stripe + ", " + sign + "COUNT(*) FROM (SELECT order_pk, warehouse_external_id AS wh, COUNT(*) AS k FROM " + from +
			" GROUP BY order_pk, warehouse_external_id) g JOIN orders o ON o.id = g.order_pk WHERE " + cond +
			" GROUP BY o.environment, o.org_id, g.wh, o.status ORDER BY 1, 2, 3, 4" + keptWarehouseUpsert + "; "
	}
	inserted := rows("new_rows", "(SELECT COUNT(*) FROM order_rows r WHERE r.order_pk = g.order_pk AND r.warehouse_external_id = g.wh) = g.k", "")
	deleted := rows("old_rows", "NOT EXISTS (SELECT 1 FROM order_rows r WHERE r.order_pk = g.order_pk AND r.warehouse_external_id = g.wh)", "-")
	move := keptWarehouseInsert + "SELECT NEW.environment, NEW.org_id, w.wh, s.status, " + stripe + ", s.d FROM (SELECT DISTINCT warehouse_external_id AS wh FROM order_rows WHERE order_pk = NEW.id) w CROSS JOIN (VALUES (OLD.status, -1), (NEW.status, 1)) s (status, d) ORDER BY 3, 4" + keptWarehouseUpsert + "; "
	return "CREATE FUNCTION kept_warehouse_counts_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN " + inserted + "ELSE " + deleted + "END IF; RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_warehouse_counts_rows_insert AFTER INSERT ON order_rows REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_warehouse_counts_rows();\n" +
		"CREATE TRIGGER kept_warehouse_counts_rows_delete AFTER DELETE ON order_rows REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_warehouse_counts_rows();\n" +
		"CREATE FUNCTION kept_warehouse_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + move + "RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_warehouse_counts_orders_update AFTER UPDATE OF status ON orders FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION kept_warehouse_counts_move();\n"
}()

// keptWarehouseCount is the number of orders of organization orgID in env
// with a row of warehouse wh, in any of statuses (none: all), read by r.
func keptWarehouseCount(ctx context.Context, r reader, env parcelgate.Environment, orgID int64, wh string, statuses []string) (int64, error) {
	var f filterSQL
	f.add("environment = ?", string(env))
	f.add("org_id = ?", orgID)
	f.add("warehouse = ?", wh)
	if len(statuses) > 0 {
		f.in("status", anys(statuses))
	}
	var n int64
	err := r.QueryRow(ctx, `SELECT COALESCE(SUM(n), 0) FROM kept_warehouse_counts WHERE `+f.sql(), f.args...).Scan(&n)
	return n, err
}

// Kept counts of a supplier's products by catalog (migration 0054,
// decisions §69): the table kept_catalog_products holds, per supplier and
// catalog, how many of the supplier's ACTIVE products have a live balance
// (removed_at 0) there, the total of GET /inventory filtered by a catalog
// or a retailer. A product has at most one balance a catalog (the
// balances' unique key), so a balance is one product: it counts while it
// is live and its product ACTIVE. Triggers keep it as kept_counts is
// kept: on balances, an insert or delete of a live balance, and a
// removal or revival (removed_at to or from 0); on products, a move into
// or out of ACTIVE moves each of the product's live balances. A product
// is deleted after its balances (their foreign key), so its delete has
// nothing left to count. Every writer of products and balances takes the
// environment's stamp first and holds it to its commit (inventory.go), so
// a status move and a removal of the same product's balance never run
// at once and count it twice.

const keptCatalogUpsert = ` ON CONFLICT (supplier_org_id, catalog_id, stripe) DO UPDATE SET n = kept_catalog_products.n + excluded.n`

const keptCatalogInsert = `INSERT INTO kept_catalog_products (supplier_org_id, catalog_id, stripe, n) `

// sqliteKeptCatalogProducts is migration 0054's triggers on SQLite, one a
// line.
var sqliteKeptCatalogProducts = func() string {
	balance := func(r, d string) string {
		return keptCatalogInsert + fmt.Sprintf("SELECT %[1]s.supplier_org_id, %[1]s.catalog_id, %[1]s.id %% %[2]d, %[3]s FROM products p WHERE p.id = %[1]s.product_id AND p.status = 'ACTIVE'", r, keptStripes, d) + keptCatalogUpsert + ";"
	}
	status := keptCatalogInsert + fmt.Sprintf("SELECT b.supplier_org_id, b.catalog_id, b.id %% %d, CASE WHEN NEW.status = 'ACTIVE' THEN 1 ELSE -1 END FROM balances b WHERE b.product_id = NEW.id AND b.removed_at = 0", keptStripes) + keptCatalogUpsert + ";"
	return "CREATE TRIGGER kept_catalog_products_insert AFTER INSERT ON balances WHEN NEW.removed_at = 0 BEGIN " + balance("NEW", "1") + " END;\n" +
		"CREATE TRIGGER kept_catalog_products_delete AFTER DELETE ON balances WHEN OLD.removed_at = 0 BEGIN " + balance("OLD", "-1") + " END;\n" +
		"CREATE TRIGGER kept_catalog_products_removal AFTER UPDATE OF removed_at ON balances WHEN (OLD.removed_at = 0) <> (NEW.removed_at = 0) BEGIN " + balance("NEW", "CASE WHEN NEW.removed_at = 0 THEN 1 ELSE -1 END") + " END;\n" +
		"CREATE TRIGGER kept_catalog_products_status AFTER UPDATE OF status ON products WHEN (OLD.status = 'ACTIVE') <> (NEW.status = 'ACTIVE') BEGIN " + status + " END;\n"
}()

// pgKeptCatalogProducts is migration 0054's triggers on PostgreSQL, one a
// line: a statement trigger on balances for inserts and deletes, reading
// its transition table grouped by supplier and catalog, and row triggers
// fired only when a balance's removal or a product's being ACTIVE
// changed. Shares go to the writer's connection's stripe, as
// pgKeptCounts' do.
var pgKeptCatalogProducts = func() string {
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	rows := func(from, sign string) string {
		return keptCatalogInsert + "SELECT b.supplier_org_id, b.catalog_id, " + stripe + ", " + sign + "COUNT(*) FROM " + from +
			" b JOIN products p ON p.id = b.product_id WHERE b.removed_at = 0 AND p.status = 'ACTIVE' GROUP BY b.supplier_org_id, b.catalog_id ORDER BY 1, 2" + keptCatalogUpsert + "; "
	}
	removal := keptCatalogInsert + "SELECT NEW.supplier_org_id, NEW.catalog_id, " + stripe + ", CASE WHEN NEW.removed_at = 0 THEN 1 ELSE -1 END FROM products p WHERE p.id = NEW.product_id AND p.status = 'ACTIVE'" + keptCatalogUpsert + "; "
	status := keptCatalogInsert + "SELECT b.supplier_org_id, b.catalog_id, " + stripe + ", CASE WHEN NEW.status = 'ACTIVE' THEN 1 ELSE -1 END FROM balances b WHERE b.product_id = NEW.id AND b.removed_at = 0 ORDER BY 2" + keptCatalogUpsert + "; "
	return "CREATE FUNCTION kept_catalog_products_rows() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN " + rows("new_rows", "") + "ELSE " + rows("old_rows", "-") + "END IF; RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_catalog_products_insert AFTER INSERT ON balances REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_catalog_products_rows();\n" +
		"CREATE TRIGGER kept_catalog_products_delete AFTER DELETE ON balances REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_catalog_products_rows();\n" +
		"CREATE FUNCTION kept_catalog_products_removal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + removal + "RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_catalog_products_removal AFTER UPDATE OF removed_at ON balances FOR EACH ROW WHEN ((OLD.removed_at = 0) IS DISTINCT FROM (NEW.removed_at = 0)) EXECUTE FUNCTION kept_catalog_products_removal();\n" +
		"CREATE FUNCTION kept_catalog_products_status() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + status + "RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_catalog_products_status AFTER UPDATE OF status ON products FOR EACH ROW WHEN ((OLD.status = 'ACTIVE') IS DISTINCT FROM (NEW.status = 'ACTIVE')) EXECUTE FUNCTION kept_catalog_products_status();\n"
}()

// keptPlaceTotal is the number of the supplier c's ACTIVE products with a
// live balance in a catalog of place f (a catalog's external ID, a
// retailer, or both), from kept_catalog_products, read by r in the page's
// read transaction: the count of the one catalog of the place that holds
// any of them (catalog external IDs are a retailer's own names, so a
// place is one catalog of the supplier's as a rule), 0 when none does.
// ok is false when several do: a product may be in more than one of
// them, and their counts' sum could count it twice.
func keptPlaceTotal(ctx context.Context, r reader, c *parcelgate.Caller, f parcelgate.BalanceFilter) (n int64, ok bool, err error) {
	var place filterSQL
	place.add("environment = ?", string(c.Environment))
	if f.CatalogExternalID != "" {
		place.add("external_id = ?", f.CatalogExternalID)
	}
	if f.RetailerID != "" {
		place.add("retailer_org_id IN (SELECT id FROM organizations WHERE environment = ? AND business_id = ?)", string(c.Environment), f.RetailerID)
	}
	own := tenantOf(c, "", "supplier_org_id")
	rows, err := r.Query(ctx, `SELECT SUM(n) FROM kept_catalog_products WHERE `+own.sql()+` AND catalog_id IN (SELECT id FROM catalogs WHERE `+place.sql()+`)
		GROUP BY catalog_id HAVING SUM(n) <> 0 LIMIT 2`, own.with(place.args...)...)
	counts, err := scanColumn[int64](rows, err)
	switch {
	case err != nil:
		return 0, false, err
	case len(counts) == 0:
		return 0, true, nil
	case len(counts) == 1:
		return counts[0], true, nil
	}
	return 0, false, nil
}
