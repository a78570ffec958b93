package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// ExplainOrderListForTest returns the engine's plans for the first page
// and the count of c's orders that q selects, as ListOrders reads them.
func (db *DB) ExplainOrderListForTest(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery) (page, count string, err error) {
	ks, err := NewOrderService(db).orderListQuery(ctx, db.primary(), c, q)
	if err != nil {
		return "", "", err
	}
	countStmt, countArgs := `SELECT COUNT(*) FROM `+ks.table+` WHERE `+ks.where.sql(), ks.where.args
	if ks.prepare != nil {
		// As provenOrderTotal counts (the window's condition holds for
		// every order here), and the page from the floor it finds.
		where, args := ks.where.walk()
		if len(ks.dated.conds) > 0 {
			where, args = where+" AND "+ks.dated.sql(), append(args, ks.dated.args...)
		}
		countStmt, countArgs = `SELECT COUNT(*), MIN(o.updated_at) FROM `+ks.table+` WHERE `+where, args
		if err := ks.prepare(ctx, db.primary()); err != nil {
			return "", "", err
		}
	}
	if page, err = db.explainForTest(ctx, nil, false, `SELECT `+orderColumns+` FROM `+ks.table+` WHERE `+ks.where.sql()+` ORDER BY `+ks.keyCols()+` LIMIT 200`, ks.where.args...); err != nil {
		return "", "", err
	}
	count, err = db.explainForTest(ctx, nil, false, countStmt, countArgs...)
	return page, count, err
}

// ExplainRowProductsForTest returns the engine's plan for finding the
// products order rows name by EAN (rowProductsQuery).
func (db *DB) ExplainRowProductsForTest(ctx context.Context, retailerOrg int64, l parcelgate.RowProductLookup) (string, error) {
	q, args := rowProductsQuery(retailerOrg, l)
	return db.explainForTest(ctx, nil, false, q, args...)
}

// DateSeededOrdersForTest gives the orders SeedOrdersForTest made an
// orderDate one second apart from base's (and a status, one in ten
// Delivered), and refreshes the planner's statistics.
func (db *DB) DateSeededOrdersForTest(ctx context.Context, orgID int64) error {
	if _, err := db.exec(ctx, `UPDATE orders SET order_date = inserted_at + (inserted_at % 100000) * 1000000,
		status = CASE WHEN inserted_at % 10 = 0 THEN 'Delivered' ELSE 'Created' END WHERE org_id = ?`, orgID); err != nil {
		return err
	}
	stmt := `ANALYZE`
	if db.dialect.name == "postgres" {
		stmt = `VACUUM ANALYZE orders`
	}
	_, err := db.exec(ctx, stmt)
	return err
}

// SeedProductsForTest inserts n products of the supplier orgID, P1 to Pn
// with EANs 64000001 up, in one statement, and refreshes the planner's
// statistics.
func (db *DB) SeedProductsForTest(ctx context.Context, env parcelgate.Environment, orgID int64, n int) error {
	if _, err := db.exec(ctx, `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ?)
		INSERT INTO products (environment, supplier_org_id, external_id, ean_code, document, created_at, modified_at)
		SELECT ?, ?, 'P' || n, CAST(64000000 + n AS TEXT), '{}', 1, 1 FROM s`, n, string(env), orgID); err != nil {
		return err
	}
	_, err := db.exec(ctx, `ANALYZE`)
	return err
}

// RerunOrderDateBackfillForTest puts the organization's orders back as
// they were stored before migration 0027 (order_date 0) and runs that
// migration's backfill again.
func (db *DB) RerunOrderDateBackfillForTest(ctx context.Context, orgID int64) error {
	b, err := migrationFS.ReadFile("migrations/0027_order_filters.sql")
	if err != nil {
		return err
	}
	if _, err := db.exec(ctx, `UPDATE orders SET order_date = 0 WHERE org_id = ?`, orgID); err != nil {
		return err
	}
	for _, st := range splitStatements(db.dialect.schema(string(b))) {
		if st = strings.TrimSpace(stripComments(st)); strings.HasPrefix(st, "UPDATE orders SET order_date") {
			_, err := db.exec(ctx, st)
			return err
		}
	}
	return fmt.Errorf("migration 0027 has no backfill")
}

// OrderDateColumnForTest reads the order_date column of c's order id.
func (db *DB) OrderDateColumnForTest(ctx context.Context, orgID int64, id string) (int64, error) {
	var us int64
	err := db.queryRow(ctx, `SELECT order_date FROM orders WHERE org_id = ? AND order_id = ?`, orgID, id).Scan(&us)
	return us, err
}
