package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// KeptCountsDriftForTest compares every kept count with a fresh count of
// the rows, and describes each that differs ("" when all agree).
func (db *DB) KeptCountsDriftForTest(ctx context.Context) (string, error) {
	fresh := map[string]int64{}
	kept := map[string]int64{}
	read := func(into map[string]int64, q string) error {
		rows, err := db.query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var kind, env, status string
			var org, n int64
			if err := rows.Scan(&kind, &env, &org, &status, &n); err != nil {
				return err
			}
			if n != 0 {
				into[fmt.Sprintf("%s/%s/%d/%s", kind, env, org, status)] = n
			}
		}
		return rows.Err()
	}
	for _, t := range countedTables {
		q := fmt.Sprintf(`SELECT '%s', environment, %s, %s, COUNT(*) FROM %s GROUP BY environment, %s, %s`, t.kind, t.org, t.status, t.table, t.org, t.status)
		if t.org == "0" {
			q = fmt.Sprintf(`SELECT '%s', environment, 0, '', COUNT(*) FROM %s GROUP BY environment`, t.kind, t.table)
		}
		if err := read(fresh, q); err != nil {
			return "", err
		}
		if t.envToo {
			if err := read(fresh, fmt.Sprintf(`SELECT '%s', environment, 0, %s, COUNT(*) FROM %s GROUP BY environment, %s`, t.kind, t.status, t.table, t.status)); err != nil {
				return "", err
			}
		}
	}
	if err := read(kept, `SELECT kind, environment, org_id, status, SUM(n) FROM kept_counts GROUP BY kind, environment, org_id, status`); err != nil {
		return "", err
	}
	// Orders by warehouse (migration 0050): the kind is the warehouse.
	if err := read(fresh, `SELECT 'wh:' || w.wh, o.environment, o.org_id, o.status, COUNT(*) FROM (SELECT DISTINCT order_pk, warehouse_external_id AS wh FROM order_rows) w JOIN orders o ON o.id = w.order_pk GROUP BY w.wh, o.environment, o.org_id, o.status`); err != nil {
		return "", err
	}
	if err := read(kept, `SELECT 'wh:' || warehouse, environment, org_id, status, SUM(n) FROM kept_warehouse_counts GROUP BY warehouse, environment, org_id, status`); err != nil {
		return "", err
	}
	// Orders by time bucket (migration 0052): the kind is the bucket.
	bucket := bucketOf("")
	if err := read(fresh, `SELECT 'bucket:' || `+bucket+`, 'any', org_id, status, COUNT(*) FROM orders GROUP BY `+bucket+`, org_id, status`); err != nil {
		return "", err
	}
	if err := read(kept, `SELECT 'bucket:' || bucket, 'any', org_id, status, SUM(n) FROM kept_order_buckets GROUP BY bucket, org_id, status`); err != nil {
		return "", err
	}
	// Orders by finer span (migration 0058) and by era (0059, decisions
	// §77): the kind is the level and the span. Emptied rows are folded
	// (decisions §74): on SQLite, whose one writer uses stripe 0, no row
	// of either table may hold 0.
	for _, shift := range keptSpanShifts {
		span := spanOf("", shift)
		if err := read(fresh, fmt.Sprintf(`SELECT 'span:%d:' || %s, 'any', org_id, status, COUNT(*) FROM orders GROUP BY %s, org_id, status`, shift, span, span)); err != nil {
			return "", err
		}
		if err := read(kept, fmt.Sprintf(`SELECT 'span:%d:' || span, 'any', org_id, status, SUM(n) FROM kept_order_spans WHERE shift = %d GROUP BY span, org_id, status`, shift, shift)); err != nil {
			return "", err
		}
	}
	if db.dialect.name == "sqlite" {
		var zero int64
		if err := db.write.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM kept_order_buckets WHERE n = 0) + (SELECT COUNT(*) FROM kept_order_spans WHERE n = 0)`).Scan(&zero); err != nil {
			return "", err
		}
		if zero > 0 {
			fresh["emptied rows left"] = zero
		}
	}
	// A supplier's products by catalog (migration 0054): the kind is the
	// catalog.
	if err := read(fresh, `SELECT 'catalog:' || b.catalog_id, '', b.supplier_org_id, '', COUNT(*) FROM balances b JOIN products p ON p.id = b.product_id WHERE b.removed_at = 0 AND p.status = 'ACTIVE' GROUP BY b.catalog_id, b.supplier_org_id`); err != nil {
		return "", err
	}
	if err := read(kept, `SELECT 'catalog:' || catalog_id, '', supplier_org_id, '', SUM(n) FROM kept_catalog_products GROUP BY catalog_id, supplier_org_id`); err != nil {
		return "", err
	}
	var diffs []string
	for k, n := range fresh {
		if kept[k] != n {
			diffs = append(diffs, fmt.Sprintf("%s: kept %d, counted %d", k, kept[k], n))
		}
	}
	for k, n := range kept {
		if _, ok := fresh[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: kept %d, counted 0", k, n))
		}
	}
	return strings.Join(diffs, "; "), nil
}

// OrderSeekDriftForTest resolves every position of organization org's
// orders in statuses (none: all), and the one past the end, as a page by
// number does (pageStart), once through the bucket sums (orderSeek) and
// once by the walk from the list's start, each with nothing recorded, in
// one read transaction; it describes each position where the two differ
// ("" when none does) and returns how many positions it compared.
func (db *DB) OrderSeekDriftForTest(ctx context.Context, org *parcelgate.Organization, statuses []string) (string, int, error) {
	var diffs []string
	compared := 0
	err := db.primary().readTx(ctx, func(r reader) error {
		walked := &keysetQuery{table: "orders o", alias: "o", byModified: true, stampCol: "updated_at"}
		walked.where.add("o.org_id = ?", org.ID)
		if len(statuses) > 0 {
			walked.where.in("o.status", anys(statuses))
		}
		var n int64
		if err := r.QueryRow(ctx, `SELECT COUNT(*) FROM orders o WHERE `+walked.where.sql(), walked.where.args...).Scan(&n); err != nil {
			return err
		}
		// The seek as the lists use it, and reading every level of spans
		// down to the finest (decisions §74) whatever the rows.
		for _, walkMax := range []int64{orderWalkMax, 0} {
			sought := *walked
			sought.seek = orderSeek(parcelgate.OperatorCaller(org), statuses, walkMax)
			for pos := int64(1); pos <= n+1; pos++ {
				pr := parcelgate.PageFrom(pos, 1)
				a, aok, aerr := pageStart(ctx, r, walked, pr, fmt.Sprintf("drift walk %d", pos), fastpath.Blind)
				b, bok, berr := pageStart(ctx, r, &sought, pr, fmt.Sprintf("drift seek %d %d", walkMax, pos), fastpath.Blind)
				if (aerr == nil) != (berr == nil) || aerr != nil && !errors.Is(aerr, sql.ErrNoRows) || a != b || aok != bok {
					diffs = append(diffs, fmt.Sprintf("position %d of %d (walking at most %d): walked %+v %v %v, sought %+v %v %v", pos, n, walkMax, a, aok, aerr, b, bok, berr))
				}
				compared++
			}
		}
		return nil
	})
	return strings.Join(diffs, "; "), compared, err
}

// OrderPageByNumberForTest reads page number (of size) of the external
// IDs of organization orgID's orders in their list's order, through the
// store's one pager with the boundaries of this instance; move, when set,
// moves the boundaries' epoch as the page's first row is read, as a
// reset or restore committed on another instance and seen by the fence
// refresh would (decisions §73).
func (db *DB) OrderPageByNumberForTest(ctx context.Context, orgID int64, number, size int, move bool) ([]string, error) {
	q := &keysetQuery{table: "orders o", alias: "o", byModified: true, stampCol: "updated_at"}
	q.where.add("o.org_id = ?", orgID)
	page, err := keysetPage(ctx, db.primary(), q, parcelgate.PageAt(number, size), "o.updated_at, o.id, o.external_id", "", func(rows *sql.Rows) (string, pageKey, error) {
		var k pageKey
		var id string
		err := rows.Scan(&k.modified, &k.id, &id)
		if move {
			move = false
			db.pages.Moved(fastpath.NoPosition)
		}
		return id, k, err
	})
	return page.Items, err
}

// UndoOrderErasForTest puts the database back as migration 0058 left it
// (decisions §77): the spans' triggers (SQLite) or trigger functions
// (PostgreSQL) of 0058's levels, no era rows, 0059 not applied; the next
// Migrate applies 0059 to whatever the orders are then.
func (db *DB) UndoOrderErasForTest(ctx context.Context) error {
	stmts := []string{`DELETE FROM kept_order_spans WHERE shift = ` + fmt.Sprint(orderEraShift), `DELETE FROM schema_migrations WHERE version = 59`}
	if db.dialect.name == "sqlite" {
		stmts = append(stmts, `DROP TRIGGER kept_order_spans_insert`, `DROP TRIGGER kept_order_spans_delete`, `DROP TRIGGER kept_order_spans_update`)
		stmts = append(stmts, splitStatements(sqliteSpanTriggers(orderSpanShifts0058))...)
	} else {
		spans, move := pgSpanFunctions(orderSpanShifts0058, "CREATE OR REPLACE FUNCTION")
		stmts = append(stmts, spans, move)
	}
	return db.inTx(ctx, func(tx *Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
}
