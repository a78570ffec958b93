package sqlstore

// Balances: the row as the API shows it and the filters every balance list
// shares, used by more than one service. InventoryService writes balances
// (inventory_write.go), reads and removes the supplier's
// (inventory_balance.go) and moves stock (inventory_stock.go);
// CatalogService reads the retailer's (catalog_read.go); ConsoleService
// shows a product's (console.go).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// balanceCols and balanceJoins read a balance b as the API shows it.
const (
	balanceCols  = `b.id, b.product_id, b.product_external_id, p.ean_code, so.business_id, ro.business_id, c.external_id, b.quantity, b.allocated, b.wholesale_price, b.currency, b.removed_at, b.modified_at`
	balanceJoins = `JOIN products p ON p.id = b.product_id
		JOIN catalogs c ON c.id = b.catalog_id
		JOIN organizations so ON so.id = b.supplier_org_id
		JOIN organizations ro ON ro.id = b.retailer_org_id`
)

// balanceRow scans balanceCols.
type balanceRow struct {
	*parcelgate.Balance
	productID         int64
	price, currency   sql.NullString
	removed, modified int64
}

func newBalanceRow() *balanceRow { return &balanceRow{Balance: new(parcelgate.Balance)} }

func (r *balanceRow) dest() []any {
	b := r.Balance
	return []any{&b.ID, &r.productID, &b.ProductExternalID, &b.EANCode, &b.SupplierID, &b.RetailerID, &b.CatalogExternalID, &b.Quantity, &b.Allocated, &r.price, &r.currency, &r.removed, &r.modified}
}

func (r *balanceRow) finish() pageKey {
	r.WholesalePrice = ""
	if r.price.Valid {
		r.WholesalePrice = json.Number(r.price.String)
	}
	r.Currency = r.currency.String
	r.Removed = r.removed != 0
	r.ModifiedAt = fromMicros(r.modified)
	return pageKey{modified: r.modified, id: r.ID}
}

// balances reads the balances matching where (which may end in ORDER BY).
func balances(ctx context.Context, r reader, where string, args []any) ([]*balanceRow, error) {
	rows, err := r.Query(ctx, `SELECT `+balanceCols+` FROM balances b `+balanceJoins+` WHERE `+where, args...)
	return collectRows(rows, err, func(rows *sql.Rows) (*balanceRow, error) {
		r := newBalanceRow()
		err := rows.Scan(r.dest()...)
		r.finish()
		return r, err
	})
}

// balancesByID reads the balances ids of c, the supplier, in no
// particular order. On PostgreSQL each is one seek of its key and of its
// product's, whatever the statistics say (see stockWriter.load): the
// subquery names no column but the key, so no other index can serve it,
// and the supplier is checked on the row it returns.
func balancesByID(ctx context.Context, r reader, c *parcelgate.Caller, ids []int64) ([]*balanceRow, error) {
	own := tenantOf(c, "", "b.supplier_org_id")
	if r.db.dialect.name != "postgres" {
		return balances(ctx, r, own.sql()+` AND b.id IN (`+placeholders(len(ids))+`)`, own.with(anys(ids)...))
	}
	rows, err := r.Query(ctx, `SELECT `+strings.Replace(balanceCols, "p.ean_code", "b.ean_code", 1)+` FROM unnest(?::bigint[]) AS k(id)
		CROSS JOIN LATERAL (SELECT b.*, p.ean_code FROM balances b JOIN products p ON p.id = b.product_id WHERE b.id = k.id OFFSET 0) b
		JOIN catalogs c ON c.id = b.catalog_id
		JOIN organizations so ON so.id = b.supplier_org_id
		JOIN organizations ro ON ro.id = b.retailer_org_id
		WHERE `+own.sql(), append([]any{ids}, own.with()...)...)
	return collectRows(rows, err, func(rows *sql.Rows) (*balanceRow, error) {
		r := newBalanceRow()
		err := rows.Scan(r.dest()...)
		r.finish()
		return r, err
	})
}

// collect reads every row of a query into a T whose fields dest lists, and
// closes the rows.
func collect[T any](rows *sql.Rows, err error, dest func(*T) []any) ([]T, error) {
	return collectRows(rows, err, func(rows *sql.Rows) (T, error) {
		var v T
		return v, rows.Scan(dest(&v)...)
	})
}

// collectRows reads every row of a query with scan, and closes the rows.
func collectRows[T any](rows *sql.Rows, err error, scan func(*sql.Rows) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func scanBalance(rows *sql.Rows) (*parcelgate.Balance, pageKey, error) {
	r := newBalanceRow()
	if err := rows.Scan(r.dest()...); err != nil {
		return nil, pageKey{}, err
	}
	return r.Balance, r.finish(), nil
}

// contentFilter adds the filters every balance list takes (interface §4.4 GET
// rules 2-3): product IDs (in either form, bare or with the caller's
// prefix: parcelgate.ProductIDForms), EAN codes and modifiedFromDate. Removed balances
// (tombstones) are changes a poller must see, so a change poll keeps them;
// every other list leaves them out (decisions §6).
func contentFilter(ctx context.Context, r reader, c *parcelgate.Caller, q *keysetQuery, f parcelgate.BalanceFilter) error {
	if len(f.ProductExternalIDs) > 0 {
		q.where.in("b.product_external_id", anys(parcelgate.ProductIDFormsOf(c.BusinessID, f.ProductExternalIDs)))
	}
	if len(f.EANCodes) > 0 {
		q.where.add("b.product_id IN (SELECT id FROM products WHERE environment = ? AND ean_code IN ("+placeholders(len(f.EANCodes))+"))",
			append([]any{string(c.Environment)}, anys(f.EANCodes)...)...)
	}
	if !f.ModifiedAfter.IsZero() {
		q.byModified = true
		w, err := pollWindow(ctx, r, c.Environment, f.ModifiedAfter)
		if err != nil {
			return err
		}
		addWindow(&q.where, "b", "modified_at", w, true)
		if w.SettledBelow > 0 {
			// A poll's rows change without the scope's newest stamp
			// moving (a writer may commit below it), so its count is
			// never kept (counts.go).
			q.validity = nil
		}
	} else {
		q.where.add("b.removed_at = 0")
	}
	return nil
}

// placeFilter adds the supplier-side retailer and catalog filters. keyed
// says the statement seeks its balances by another key (product IDs): the
// filters are then checked on each balance found, never an index to scan
// ("+ 0" keeps the planner off the retailer's and catalog's indexes, which
// SQLite would otherwise choose, reading every balance of the retailer).
func placeFilter(ctx context.Context, r reader, c *parcelgate.Caller, w *filterSQL, f parcelgate.BalanceFilter, keyed bool) error {
	noIndex := ""
	if keyed {
		noIndex = " + 0"
	}
	if f.RetailerID != "" {
		var org int64
		err := r.QueryRow(ctx, `SELECT id FROM organizations WHERE environment = ? AND business_id = ?`, string(c.Environment), f.RetailerID).Scan(&org)
		if errors.Is(err, sql.ErrNoRows) {
			w.add("1 = 0")
			return nil
		}
		if err != nil {
			return err
		}
		w.add("b.retailer_org_id"+noIndex+" = ?", org)
	}
	if f.CatalogExternalID != "" {
		w.add("b.catalog_id"+noIndex+" IN (SELECT id FROM catalogs WHERE environment = ? AND external_id = ?)", string(c.Environment), f.CatalogExternalID)
	}
	return nil
}

// opt is a nullable argument: nil for an absent field.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
