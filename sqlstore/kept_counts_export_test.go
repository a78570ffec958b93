package sqlstore

import (
	"context"
	"fmt"
	"strings"
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
