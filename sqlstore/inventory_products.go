package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The console's products (decisions §47, §53): the products of a caller's
// ConsoleProductScope, read through the inventory service the API reads
// its products with. The scope is two sets — the products the caller
// supplies and those published to its catalogs — which one statement
// could only join with an OR that no index serves (both engines then read
// every product of the environment, or of the supplier, and sorted them).
// Each set is read from its own index in the list's order
// (products_supplier_id, balances_retailer_product; migration 0040), at
// most a page past the cursor each, and the two are merged by id: a page
// reads about two pages of keys whatever the tenant holds.

// ListProducts pages the products of c's ConsoleProductScope, newest
// first by id, from the console's cursor (p.After) either way, each with
// the total of its live balances; with a search, by externalId
// (searchProducts). Only a caller parcelgate.MayReadConsoleProducts
// allows (interface §5.2, decisions §18).
func (s *InventoryService) ListProducts(ctx context.Context, c *parcelgate.Caller, q parcelgate.ProductQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.ScopedProduct], error) {
	var page parcelgate.Page[*parcelgate.ScopedProduct]
	if err := parcelgate.MayReadConsoleProducts(c); err != nil {
		return page, err
	}
	scope := parcelgate.ConsoleProductScope(c, s.db.clock.Now(c.Environment))
	pq := &keysetQuery{uncounted: true, desc: true, both: true, defaultSize: 50, maxSize: 500, legacy: legacyConsole, badCursor: consoleBadCursor,
		keys: func(ctx context.Context, r reader, cur pageCursor, n int) ([]pageKey, error) {
			ids, err := scopedProductIDs(ctx, r, c, scope, cur, n)
			keys := make([]pageKey, len(ids))
			for i, id := range ids {
				keys[i] = pageKey{id: id}
			}
			return keys, err
		}}
	if term := strings.TrimSpace(q.Search); term != "" {
		pq = searchQuery(c, scope, term)
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.ScopedProduct], error) {
		var page parcelgate.Page[*parcelgate.ScopedProduct]
		err := r.readTx(ctx, func(r reader) error {
			keys, err := keysetPage[pageKey](ctx, r, pq, p, "", "", nil)
			if err != nil || len(keys.Items) == 0 {
				return err
			}
			ids := make([]int64, len(keys.Items))
			for i, k := range keys.Items {
				ids[i] = k.id
			}
			if page.Items, err = scopedProducts(ctx, r, c, scope, ids); err != nil {
				return err
			}
			page.Next, page.Prev = keys.Next, keys.Prev
			return nil
		})
		return page, err
	})
}

// FindProduct returns the product id of c's ConsoleProductScope with
// the total of its live balances c sees (ProductStock pages them, removed
// ones included); ENOTFOUND for any other (another tenant's answers the same). Only a caller
// parcelgate.MayReadConsoleProducts allows.
func (s *InventoryService) FindProduct(ctx context.Context, c *parcelgate.Caller, id int64) (*parcelgate.ScopedProduct, error) {
	if err := parcelgate.MayReadConsoleProducts(c); err != nil {
		return nil, err
	}
	scope := parcelgate.ConsoleProductScope(c, s.db.clock.Now(c.Environment))
	return readOnReplica(ctx, s.db, c, func(r reader) (*parcelgate.ScopedProduct, error) {
		var out *parcelgate.ScopedProduct
		err := r.readTx(ctx, func(r reader) error {
			in, err := inProductScope(ctx, r, c, scope, id)
			if err != nil || !in {
				return err
			}
			items, err := scopedProducts(ctx, r, c, scope, []int64{id})
			if len(items) == 1 {
				out = items[0]
			}
			return err
		})
		if err == nil && out == nil {
			err = parcelgate.Errorf(parcelgate.ENOTFOUND, "Product not found.")
		}
		return out, err
	})
}

// scopedProductIDs returns up to n ids of scope's products past cur in
// its direction (older: descending; newer: ascending), closest to the
// cursor first: up to n of each set, merged.
func scopedProductIDs(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, cur pageCursor, n int) ([]int64, error) {
	dir, past := "DESC", " < ?"
	if cur.back {
		dir, past = "ASC", " > ?"
	}
	var sets [][]int64
	if scope.Own {
		var f filterSQL
		f.tenant(c, "", "p.supplier_org_id")
		f.add("p.environment = ?", string(c.Environment))
		if cur.set {
			f.add("p.id"+past, cur.key.id)
		}
		rows, err := r.Query(ctx, `SELECT p.id FROM products p WHERE `+f.sql()+` ORDER BY p.id `+dir+` LIMIT ?`, append(f.args, n)...)
		ids, err := scanColumn[int64](rows, err)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ids)
	}
	if scope.Published {
		var f filterSQL
		publishedTo(&f, c, scope)
		if cur.set {
			f.add("b.product_id"+past, cur.key.id)
		}
		// A product in several of the retailer's catalogs is one row:
		// grouped in the index's order, so the group stops at n.
		rows, err := r.Query(ctx, `SELECT b.product_id FROM balances b WHERE `+f.sql()+` GROUP BY b.product_id ORDER BY b.product_id `+dir+` LIMIT ?`, append(f.args, n)...)
		ids, err := scanColumn[int64](rows, err)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ids)
	}
	var all []int64
	for _, ids := range sets {
		all = append(all, ids...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if !cur.back {
		slices.Reverse(all)
	}
	return all[:min(len(all), n)], nil
}

// publishedTo adds the balances of scope's published set to f: live (not
// removed) balances in c's catalogs, of an ACTIVE product or of an EOS one
// retailers still see, in the catalog types c may read.
func publishedTo(f *filterSQL, c *parcelgate.Caller, scope parcelgate.ProductScope) {
	f.tenant(c, "", "b.retailer_org_id")
	f.add("b.removed_at = 0")
	f.add("(b.eos_at = 0 OR b.eos_at > ?)", micros(scope.EOSSince))
	if scope.CatalogTypes != nil {
		own := tenantOf(c, "", "retailer_org_id")
		f.add("b.catalog_id IN (SELECT id FROM catalogs WHERE "+own.sql()+" AND catalog_type IN ("+placeholders(len(scope.CatalogTypes))+"))",
			own.with(anys(scope.CatalogTypes)...)...)
	}
}

// inProductScope reports whether product id is in c's scope: its own, or
// published to one of its catalogs (one key lookup each).
func inProductScope(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, id int64) (bool, error) {
	if scope.Own {
		var n int
		own := tenantOf(c, "", "supplier_org_id")
		err := r.QueryRow(ctx, `SELECT 1 FROM products WHERE id = ? AND `+own.sql()+` AND environment = ?`, append([]any{id}, own.with(string(c.Environment))...)...).Scan(&n)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
	}
	if scope.Published {
		var f filterSQL
		f.add("b.product_id = ?", id)
		publishedTo(&f, c, scope)
		var n int
		err := r.QueryRow(ctx, `SELECT 1 FROM balances b WHERE `+f.sql()+` LIMIT 1`, f.args...).Scan(&n)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, err
		}
	}
	return false, nil
}

const scopedProductCols = `p.id, p.external_id, so.business_id, p.ean_code, p.status, p.document, p.deleted_at, p.modified_at, p.supplier_org_id`

// scopedProducts loads the products ids (in scope already), in that
// order, with the total of the stock c sees of each (scopedTotals).
func scopedProducts(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, ids []int64) ([]*parcelgate.ScopedProduct, error) {
	byID := make(map[int64]*parcelgate.ScopedProduct, len(ids))
	rows, err := r.Query(ctx, `SELECT `+scopedProductCols+` FROM products p JOIN organizations so ON so.id = p.supplier_org_id
		WHERE p.environment = ? AND `+r.db.dialect.idList("p.id"), string(c.Environment), r.db.dialect.idListArg(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p parcelgate.Product
		var doc string
		var deleted, modified, supplier int64
		if err := rows.Scan(&p.ID, &p.ExternalID, &p.SupplierID, &p.EANCode, &p.Status, &doc, &deleted, &modified, &supplier); err != nil {
			return nil, err
		}
		p.Document, p.DeletedAt, p.ModifiedAt = json.RawMessage(doc), fromMicros(deleted), fromMicros(modified)
		byID[p.ID] = &parcelgate.ScopedProduct{Product: &p, Own: supplier == c.OrgID}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := scopedTotals(ctx, r, c, scope, ids, byID); err != nil {
		return nil, err
	}
	out := make([]*parcelgate.ScopedProduct, 0, len(ids))
	for _, id := range ids {
		if p := byID[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// stockScope is the condition on balances b (joined with their catalogs
// k) of the stock c sees of a product (ScopedProduct): every catalog's of
// a product c supplies, else c's own catalogs of the types it may read;
// "" when c sees none. The balances are found by product ("+ 0" keeps
// the planner on the product's key, not on the supplier's or retailer's
// every balance).
func stockScope(c *parcelgate.Caller, scope parcelgate.ProductScope) (string, []any) {
	var either []string
	var args []any
	if scope.Own {
		own := tenantOf(c, "", "b.supplier_org_id + 0")
		either, args = append(either, own.sql()), append(args, own.with()...)
	}
	if scope.Published {
		retailer := tenantOf(c, "", "b.retailer_org_id + 0")
		cond := retailer.sql()
		args = append(args, retailer.with()...)
		if scope.CatalogTypes != nil {
			cond += " AND k.catalog_type IN (" + placeholders(len(scope.CatalogTypes)) + ")"
			args = append(args, anys(scope.CatalogTypes)...)
		}
		either = append(either, "("+cond+")")
	}
	if len(either) == 0 {
		return "", nil
	}
	return "(" + strings.Join(either, " OR ") + ")", args
}

// The columns and joins of a CatalogStock, after a balance's product id.
const (
	catalogStockCols = `b.catalog_id, p.external_id, so.business_id, k.external_id, k.name, k.catalog_type, ro.business_id, b.quantity, b.allocated, COALESCE(b.wholesale_price, ''), COALESCE(b.currency, ''), b.modified_at, b.removed_at`
	catalogStockFrom = `
		FROM balances b JOIN products p ON p.id = b.product_id JOIN organizations so ON so.id = b.supplier_org_id
		JOIN catalogs k ON k.id = b.catalog_id JOIN organizations ro ON ro.id = b.retailer_org_id`
)

// scanCatalogStock reads a row of a balance's product id and
// catalogStockCols.
func scanCatalogStock(rows *sql.Rows, pid, catalog *int64) (*parcelgate.CatalogStock, error) {
	var b parcelgate.Balance
	st := parcelgate.CatalogStock{Balance: &b}
	var modified, removedAt int64
	var price string
	if err := rows.Scan(pid, catalog, &b.ProductExternalID, &b.SupplierID, &b.CatalogExternalID, &st.CatalogName, &st.CatalogType, &b.RetailerID, &b.Quantity, &b.Allocated, &price, &b.Currency, &modified, &removedAt); err != nil {
		return nil, err
	}
	b.WholesalePrice, b.ModifiedAt, b.Removed = json.Number(price), fromMicros(modified), removedAt != 0
	return &st, nil
}

// scopedTotals sets each product of byID's Total: its live balances c
// sees (stockScope), summed by the database, read by product (the unique
// (product_id, catalog_id)) with no joins but the catalog's type when c
// reads only some types. A list's page reads its products' balances and
// answers one row a product (decisions §58): the big merchant's products
// are each in about 40 catalogs, which the list showed one by one.
func scopedTotals(ctx context.Context, r reader, c *parcelgate.Caller, scope parcelgate.ProductScope, ids []int64, byID map[int64]*parcelgate.ScopedProduct) error {
	cond, args := stockScope(c, scope)
	if cond == "" {
		return nil
	}
	from := "balances b"
	if scope.Published && scope.CatalogTypes != nil {
		from += " JOIN catalogs k ON k.id = b.catalog_id"
	}
	rows, err := r.Query(ctx, `SELECT b.product_id, SUM(b.quantity), SUM(b.allocated), COUNT(*) FROM `+from+`
		WHERE `+r.db.dialect.idList("b.product_id")+` AND b.removed_at = 0 AND `+cond+` GROUP BY b.product_id`,
		append([]any{r.db.dialect.idListArg(ids)}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int64
		var t parcelgate.StockTotal
		if err := rows.Scan(&pid, &t.Quantity, &t.Allocated, &t.Catalogs); err != nil {
			return err
		}
		if p := byID[pid]; p != nil {
			p.Total = t
		}
	}
	return rows.Err()
}

// ProductStock pages the balances c sees of product id (see
// parcelgate.InventoryService), by catalog id from the cursor p.After
// (the last catalog id of the page before), p.Size at a time (50 when 0
// or above 500): the unique (product_id, catalog_id) gives the order, so
// a page reads the product's balances from the cursor on, not all of
// them (decisions §58).
func (s *InventoryService) ProductStock(ctx context.Context, c *parcelgate.Caller, id int64, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.CatalogStock], error) {
	page := parcelgate.Page[*parcelgate.CatalogStock]{Items: []*parcelgate.CatalogStock{}}
	if err := parcelgate.MayReadConsoleProducts(c); err != nil {
		return page, err
	}
	q := &keysetQuery{table: strings.TrimPrefix(strings.TrimSpace(catalogStockFrom), "FROM "), alias: "b", idCol: "catalog_id",
		uncounted: true, defaultSize: 50, maxSize: 500, legacy: legacyBase36, badCursor: consoleBadCursor}
	if _, err := q.decodeCursor(p.After); err != nil {
		return page, err
	}
	scope := parcelgate.ConsoleProductScope(c, s.db.clock.Now(c.Environment))
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.CatalogStock], error) {
		page := parcelgate.Page[*parcelgate.CatalogStock]{Items: []*parcelgate.CatalogStock{}}
		err := r.readTx(ctx, func(r reader) error {
			in, err := inProductScope(ctx, r, c, scope, id)
			if err != nil {
				return err
			}
			cond, args := stockScope(c, scope)
			if !in || cond == "" {
				return parcelgate.Errorf(parcelgate.ENOTFOUND, "Product not found.")
			}
			// The product's key first and alone: the planner walks
			// (product_id, catalog_id) from the cursor.
			q := *q
			q.where = filterSQL{}
			q.where.add("b.product_id = ?", id)
			q.where.add(cond, args...)
			page, err = keysetPage(ctx, r, &q, p, `b.product_id, `+catalogStockCols, "", func(rows *sql.Rows) (*parcelgate.CatalogStock, pageKey, error) {
				var pid, catalog int64
				st, err := scanCatalogStock(rows, &pid, &catalog)
				return st, pageKey{id: catalog}, err
			})
			return err
		})
		return page, err
	})
}
