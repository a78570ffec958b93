package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// NextStampForTest takes one stamp in a transaction of its own.
func (db *DB) NextStampForTest(ctx context.Context, env parcelgate.Environment) (time.Time, error) {
	var t time.Time
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		t, err = nextStamp(ctx, tx, env)
		return err
	})
	return t, err
}

// SeedOrdersForTest inserts n Created orders of the organization with one
// statement (set-based), stamped 1 µs apart from base, for benchmarks over
// large listings.
func (db *DB) SeedOrdersForTest(ctx context.Context, env parcelgate.Environment, orgID int64, businessID string, n int, base time.Time, doc string) error {
	_, err := db.exec(ctx, `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)
		INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
		SELECT 'SEED' || n, ?, ?, ? || '-S' || n, 'S' || n, 'Created', CAST(? AS BIGINT) + n, 0, 'seed', ?, CAST(? AS BIGINT) + n, CAST(? AS BIGINT) + n, CAST(? AS BIGINT) + n FROM s`,
		n, string(env), orgID, businessID, micros(base), doc, micros(base), micros(base), micros(base))
	if err != nil {
		return err
	}
	// As autovacuum would after a load this size: plans need statistics,
	// and PostgreSQL's index-only scans a visibility map.
	stmt := `ANALYZE`
	if db.dialect.name == "postgres" {
		stmt = `VACUUM ANALYZE orders`
	}
	_, err = db.exec(ctx, stmt)
	return err
}

// TryCodeForTest gives the holder code, as an allocation that drew it would.
func (db *DB) TryCodeForTest(ctx context.Context, env parcelgate.Environment, orgID int64, trackingNumber, parcelID, code string, expires time.Time) (bool, error) {
	var ok bool
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		ok, err = tryCode(ctx, tx, holder{c: &parcelgate.Caller{OrgID: orgID, Environment: env}, trackingNumber: trackingNumber, parcelID: parcelID}, code, db.clock.Now(env), expires)
		return err
	})
	return ok, err
}

// DrawCodesFromForTest makes the store draw codes from the first n of the
// space ("000000" up), so that a test or benchmark can fill that part of
// the space cheaply and see how allocation behaves as it fills.
func (db *DB) DrawCodesFromForTest(n int, draws *atomic.Int64) {
	db.codes.draw = func() string {
		if draws != nil {
			draws.Add(1)
		}
		return fmt.Sprintf("%06X", rand.IntN(n))
	}
}

// FillCodesForTest makes codes 000000 up to n-1 (hex) active in env for the
// organization, with one INSERT ... SELECT over a generated series.
func (db *DB) FillCodesForTest(ctx context.Context, env parcelgate.Environment, orgID int64, n int) error {
	now, day := micros(db.clock.Now(env)), int64(24*time.Hour/time.Microsecond)
	q := `WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n + 1 < ?)
		INSERT INTO codes (environment, code, org_id, tracking_number, created_at, expires_at) SELECT ?, printf('%06X', n), ?, 'FILL' || n, ?, ? FROM s`
	if db.dialect.name == "postgres" {
		q = `INSERT INTO codes (environment, code, org_id, tracking_number, created_at, expires_at)
			SELECT ?, lpad(upper(to_hex(n)), 6, '0'), ?, 'FILL' || n, ?, ? FROM generate_series(0, ? - 1) AS n`
		if _, err := db.exec(ctx, q, string(env), orgID, now, now+day, n); err != nil {
			return err
		}
		// As autovacuum would after a bulk load: plans need row counts.
		_, err := db.exec(ctx, `ANALYZE codes`)
		return err
	}
	_, err := db.exec(ctx, q, n, string(env), orgID, now, now+day)
	return err
}

var errRollback = errors.New("rolled back")

// AllocateRolledBackForTest allocates one new code and rolls it back, so
// that a benchmark measures allocation at a fixed fill of the space.
func (db *DB) AllocateRolledBackForTest(ctx context.Context, env parcelgate.Environment, orgID int64, trackingNumber string) error {
	err := db.inTx(ctx, func(tx *Tx) error {
		now := db.clock.Now(env)
		if _, err := allocateCode(ctx, tx, holder{c: &parcelgate.Caller{OrgID: orgID, Environment: env}, trackingNumber: trackingNumber}, now, now.Add(time.Hour)); err != nil {
			return err
		}
		return errRollback
	})
	if err == errRollback {
		return nil
	}
	return err
}

// AnalyzeForTest refreshes the planner's statistics, as autovacuum (or
// SQLite's PRAGMA optimize) would after a bulk load.
func (db *DB) AnalyzeForTest(ctx context.Context) error {
	_, err := db.exec(ctx, `ANALYZE`)
	return err
}

// OptimizeForTest runs what the store's hourly statistics tick runs
// (decisions §55, §78).
func (db *DB) OptimizeForTest(ctx context.Context) error {
	return db.optimize(ctx, false)
}

// ReaderConnForTest holds one connection of the reader pool, so that a
// test can see what a connection opened before a change plans after it.
func (db *DB) ReaderConnForTest(ctx context.Context) (*sql.Conn, error) {
	return db.read.Conn(ctx)
}

// RerunOwnIDBackfillForTest puts the orders back as they were stored before
// migration 0006 (no own_id, no index on it) and runs that migration's
// backfill and index again.
func (db *DB) RerunOwnIDBackfillForTest(ctx context.Context) error {
	b, err := migrationFS.ReadFile("migrations/0006_order_own_ids.sql")
	if err != nil {
		return err
	}
	return db.inTx(ctx, func(tx *Tx) error {
		stmts := []string{`DROP INDEX orders_own_id`, `UPDATE orders SET own_id = ''`}
		for _, s := range splitStatements(string(b)) {
			if !strings.HasPrefix(strings.TrimSpace(stripComments(s)), "ALTER") {
				stmts = append(stmts, s)
			}
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
}

func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// ExplainOrderLookupForTest returns the engine's plan for finding one order
// of the organization by either of its IDs, as FindOrder does.
func (db *DB) ExplainOrderLookupForTest(ctx context.Context, orgID int64, businessID, id string) (string, error) {
	return db.explainForTest(ctx, nil, false, `SELECT `+orderColumns+orderByKey, orderByKeyArgs(orgID, businessID, id)...)
}

// ExplainDueOrdersForTest returns the engine's plan for the warehouse
// engine's sweep of env's orders in from, as DueOrders runs it; generic
// asks PostgreSQL for the plan of a prepared statement that no longer
// looks at its values (what a statement run often is given).
func (db *DB) ExplainDueOrdersForTest(ctx context.Context, env parcelgate.Environment, from parcelgate.OrderStatus, readyBefore time.Time, limit int, generic bool) (string, error) {
	qs, ok := dueOrders(parcelgate.DueForWarehouse(from, readyBefore))
	if !ok {
		return "", fmt.Errorf("no sweep out of %s", from)
	}
	// Both statements: whole orders', then mixed orders' warehouse parts'.
	var plans []string
	for _, q := range qs {
		plan, err := db.explainForTest(ctx, nil, generic, q, string(env), micros(readyBefore), limit)
		if err != nil {
			return "", err
		}
		plans = append(plans, plan)
	}
	return strings.Join(plans, "\n"), nil
}

// ExplainTenantTablesForTest returns the engine's plans of what a reset,
// a snapshot and a restore run on each table of an organization's data:
// reading its rows (snapshot) and deleting or retiring them (reset, and a
// restore's reset). On PostgreSQL sequential scans are priced out, so a table
// without an index that serves the statement shows one anyway: the plan
// says whether such an index exists, whatever the table's size.
func (db *DB) ExplainTenantTablesForTest(ctx context.Context, orgID int64) (map[string]string, error) {
	plans := map[string]string{}
	stmts := map[string][]any{}
	for step, q := range resetRangeSQL {
		var lo, hi any = int64(0), int64(1000)
		if step == 4 {
			lo, hi = "", "z"
		}
		stmts[resetPickSQL(step)] = []any{orgID, lo, 1000}
		col := q.key[strings.LastIndex(q.key, " ")+1:]
		stmts[`DELETE FROM `+q.table+` WHERE `+q.key+` > ? AND `+col+` <= ?`] = []any{orgID, lo, hi}
	}
	for _, t := range tenantTables {
		stmts[`SELECT * FROM `+t.name+` WHERE `+t.scope] = []any{orgID}
	}
	for step, q := range resetBatchSQL {
		if step == 6 || step == 7 {
			stmts[q.sql] = []any{int64(1), int64(1), orgID, 1000}
		} else {
			stmts[q.sql] = []any{orgID, 1000}
		}
	}
	for _, t := range []string{"order_history", "order_refs", "order_rows"} {
		stmts[`DELETE FROM `+t+` WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id > ? AND id <= ?)`] = []any{orgID, int64(0), int64(1000)}
	}
	for q, args := range stmts {
		plan, err := db.explainForTest(ctx, []string{`SET enable_seqscan = off`}, false, q, args...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
		plans[q] = plan
	}
	return plans, nil
}

// explainForTest returns the engine's plan of q with args, one line per
// row: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (of the plan for
// these values, or with generic its generic plan, under the session
// settings pg, which are reset afterwards).
func (db *DB) explainForTest(ctx context.Context, pg []string, generic bool, q string, args ...any) (string, error) {
	conn, err := db.read.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	stmt := `EXPLAIN QUERY PLAN ` + q
	if db.dialect.name == "postgres" {
		stmt = `EXPLAIN ` + q
		for _, set := range pg {
			if _, err := conn.ExecContext(ctx, set); err != nil {
				return "", err
			}
		}
		if len(pg) > 0 {
			defer conn.ExecContext(context.Background(), `RESET ALL`)
		}
		if generic {
			// A named prepared statement, planned without its values.
			if _, err := conn.ExecContext(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
				return "", err
			}
			defer conn.ExecContext(context.Background(), `RESET plan_cache_mode`)
			if _, err := conn.ExecContext(ctx, `PREPARE explained AS `+db.dialect.rebind(q)); err != nil {
				return "", err
			}
			defer conn.ExecContext(context.Background(), `DEALLOCATE explained`)
			// EXECUTE takes its values in its text.
			vals := make([]string, len(args))
			for i, a := range args {
				if s, ok := a.(string); ok {
					vals[i] = "'" + strings.ReplaceAll(s, "'", "''") + "'"
				} else {
					vals[i] = fmt.Sprint(a)
				}
			}
			stmt, args = `EXPLAIN EXECUTE explained(`+strings.Join(vals, ", ")+`)`, nil
		}
	}
	if db.dialect.name == "sqlite" {
		// EXPLAIN starts no transaction, so it is not where a connection
		// notices a changed schema and reloads its statistics (dropped
		// samples, decisions §78): a read is, as a reader's next statement.
		if _, err := conn.ExecContext(ctx, `SELECT COUNT(*) FROM sqlite_schema`); err != nil {
			return "", err
		}
	}
	rows, err := conn.QueryContext(ctx, db.dialect.rebind(stmt), args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	// SQLite's plan rows are (id, parent, notused, detail); PostgreSQL's
	// are one line of text.
	var plan strings.Builder
	for rows.Next() {
		var id, parent, notused int64
		var line string
		dest := []any{&line}
		if db.dialect.name != "postgres" {
			dest = []any{&id, &parent, &notused, &line}
		}
		if err := rows.Scan(dest...); err != nil {
			return "", err
		}
		fmt.Fprintln(&plan, line)
	}
	return plan.String(), rows.Err()
}

// PoolStatsForTest returns the writer pool's statistics (on PostgreSQL,
// the one pool).
func (db *DB) PoolStatsForTest() sql.DBStats { return db.write.Stats() }

// AnswerKnownUnchangedForTest reports whether FindOrderAnswer would answer
// c's order id encoded by enc without reading it: an answer is held that was confirmed
// under the WAL index's current header.
func (db *DB) AnswerKnownUnchangedForTest(enc parcelgate.OrderEncoding, c *parcelgate.Caller, id string) bool {
	w := db.wal.Load()
	if w == nil {
		return false
	}
	stamp, ok := w.Stamp()
	if !ok {
		return false
	}
	_, ok = db.answers.Unchanged(fastpath.AnswerKey{Encoding: enc.Name, Org: c.OrgID, ID: id}, stamp)
	return ok
}

// HasWALIndexForTest reports whether the store maps a WAL index.
func (db *DB) HasWALIndexForTest() bool { return db.wal.Load() != nil }

// CoalescePointReadsForTest turns the coalescing of point reads on
// PostgreSQL on or off (answer_batch.go); call it before any read.
func (db *DB) CoalescePointReadsForTest(on bool) { db.pointsOff = !on }

// PointReadHookForTest has fn told, before each point-read statement on
// PostgreSQL is sent, how many reads it carries; fn may block to hold the
// statement. Call it before any read.
func (db *DB) PointReadHookForTest(fn func(reads int)) { db.points.Hook = fn }

// PointReadsFunctionConfigForTest returns the settings PostgreSQL applies
// while the function the coalesced point reads call (order_answers, in the
// store's schema) runs.
func (db *DB) PointReadsFunctionConfigForTest(ctx context.Context) ([]string, error) {
	var conf string
	err := db.queryRow(ctx, `SELECT array_to_string(p.proconfig, ',') FROM pg_proc p WHERE p.proname = 'order_answers' AND p.pronamespace = current_schema()::regnamespace`).Scan(&conf)
	return strings.Split(conf, ","), err
}

// ExecForTest runs one statement on the primary, as psql would.
func (db *DB) ExecForTest(ctx context.Context, q string, args ...any) error {
	_, err := db.exec(ctx, q, args...)
	return err
}

// QueuedPointReadsForTest is how many point reads wait for the next
// statement.
func (db *DB) QueuedPointReadsForTest() int { return db.points.Queued() }

// PipelineForTest runs qs in one pipeline (Tx.pipeline) in a transaction
// of its own: how many rows each wrote or read, the first column of the
// rows the SELECTs read, and whether an error is a unique violation.
func (db *DB) PipelineForTest(ctx context.Context, qs ...string) (n, read []int64, unique bool, err error) {
	err = db.inTx(ctx, func(tx *Tx) error {
		steps := make([]step, len(qs))
		for i, q := range qs {
			steps[i] = step{q: q}
			if strings.HasPrefix(q, "SELECT") {
				steps[i].scan = func(scan func(...any) error) error {
					var v int64
					err := scan(&v)
					read = append(read, v)
					return err
				}
			}
		}
		var err error
		n, err = pipeline(ctx, tx, steps...)
		return err
	})
	return n, read, isUniqueViolation(err), err
}

// WriteTxForTest runs a write transaction whose work is fn (given the
// transaction's context), for tests of how transactions end.
func (db *DB) WriteTxForTest(ctx context.Context, fn func(ctx context.Context) error) error {
	return db.inTx(ctx, func(tx *Tx) error { return fn(ctx) })
}

// TestMigration is a migration a test applies after the embedded ones.
type TestMigration struct {
	Version  int
	Name     string
	SQL      string
	Backfill Backfill
}

// MigrateForTest applies the embedded migrations and then ms, as Migrate
// would if ms were embedded after them.
func (db *DB) MigrateForTest(ctx context.Context, ms ...TestMigration) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	for _, m := range ms {
		all = append(all, migration{version: m.Version, name: m.Name, sql: m.SQL, backfill: m.Backfill})
	}
	return db.migrate(ctx, all)
}

// QueryRowForTest reads one row on the primary.
func (db *DB) QueryRowForTest(ctx context.Context, q string, args ...any) *sql.Row {
	return db.write.QueryRowContext(ctx, db.dialect.rebind(q), args...)
}

// ExplainOrderStockForTest returns the engine's plan for reading the
// balances of an order's rows for allocation (orderStockStep).
func (db *DB) ExplainOrderStockForTest(ctx context.Context, orgID int64, businessID string, rows []parcelgate.OrderRow) (string, error) {
	s, _ := orderStockStep(&Tx{d: db.dialect, db: db}, orgID, businessID, rows, nil)
	return db.explainForTest(ctx, nil, false, s.q, s.args...)
}

// ExplainNextReadyForTest returns the engine's plan for the warehouse
// engine's question of when env's next order is due out of from
// (NextReady, one step).
func (db *DB) ExplainNextReadyForTest(ctx context.Context, env parcelgate.Environment, from parcelgate.OrderStatus, readyBefore time.Time, generic bool) (string, error) {
	q, args, err := nextReady(env, []parcelgate.WarehouseDue{parcelgate.DueForWarehouse(from, readyBefore)})
	if err != nil {
		return "", err
	}
	return db.explainForTest(ctx, nil, generic, q, args...)
}

// ExplainNextDueShipmentForTest returns the engine's plan for the
// automatic supplier's question of when env's next shipment is due
// (NextDue).
func (db *DB) ExplainNextDueShipmentForTest(ctx context.Context, env parcelgate.Environment, now time.Time, generic bool) (string, error) {
	return db.explainForTest(ctx, nil, generic, nextDueShipment, string(env), micros(now))
}

// ExplainDueShipmentsForTest returns the engine's plan for the automatic
// supplier's read of one supplier's due shipments (DueShipments).
func (db *DB) ExplainDueShipmentsForTest(ctx context.Context, supplierOrg int64, env parcelgate.Environment, readyBefore time.Time, generic bool) (string, error) {
	return db.explainForTest(ctx, nil, generic, dueShipments, supplierOrg, string(env), micros(readyBefore), 100)
}

// SeedWarehouseForTest gives the merchant orgID n products (P1 to Pn) with
// a balance each in its warehouse catalog WH1, in set-based statements,
// and refreshes the planner's statistics.
func (db *DB) SeedWarehouseForTest(ctx context.Context, env parcelgate.Environment, orgID int64, n int) error {
	if err := db.SeedProductsForTest(ctx, env, orgID, n); err != nil {
		return err
	}
	for _, q := range []string{
		`INSERT INTO catalogs (environment, retailer_org_id, external_id, name, catalog_type, created_at) VALUES (?, ?, 'WH1', 'WH1', 'Posti', 1)`,
		`INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, quantity, modified_at)
			SELECT p.id, c.id, p.supplier_org_id, p.supplier_org_id, p.external_id, 10, 1 FROM products p JOIN catalogs c ON c.retailer_org_id = p.supplier_org_id AND c.external_id = 'WH1'
			WHERE p.supplier_org_id = ? AND ? <> ''`,
		`ANALYZE`,
	} {
		var args []any
		switch {
		case strings.HasPrefix(q, "INSERT INTO catalogs"):
			args = []any{string(env), orgID}
		case strings.HasPrefix(q, "INSERT INTO balances"):
			args = []any{orgID, string(env)}
		}
		if _, err := db.exec(ctx, q, args...); err != nil {
			return err
		}
	}
	return nil
}
