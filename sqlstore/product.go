package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/parcelgate/parcelgate"
)

var _ parcelgate.InventoryService = (*DB)(nil)

// callerOf returns the caller every inventory and catalog call acts for.
func callerOf(ctx context.Context) (*parcelgate.Caller, error) {
	c := parcelgate.CallerFrom(ctx)
	if c == nil || c.OrgID == 0 {
		return nil, parcelgate.Errorf(parcelgate.EUNAUTHORIZED, "no caller")
	}
	return c, nil
}

// The write transactions of products and balances take their stamp first,
// not last as nextStamp suggests: the stamp's lock serializes every stamped
// write of the environment, and doing the reads that decide what to write
// (is the product published there? does the balance exist?) under it keeps
// them true until the commit on PostgreSQL's READ COMMITTED, without
// SELECT ... FOR UPDATE. Writers of balances elsewhere (order allocation)
// must do the same: see moveStock.

func (db *DB) PutInventory(ctx context.Context, entries []parcelgate.InventoryInput) ([]*parcelgate.InventoryItem, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	var ids []int64
	err = db.inTx(ctx, func(tx *Tx) error {
		stamp, err := tx.nextStamp(ctx, c.Environment)
		if err != nil {
			return err
		}
		w := newBalanceWriter(tx, c, micros(stamp))
		if ids, err = upsertProducts(ctx, tx, c, micros(stamp), entries, w.products); err != nil {
			return err
		}
		var bals []parcelgate.BalanceInput
		for _, e := range entries {
			bals = append(bals, e.Balances...)
		}
		_, err = w.apply(ctx, bals)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return db.inventoryItems(ctx, c, ids, parcelgate.BalanceFilter{})
}

// upsertProducts creates or replaces the products of entries (spec 4.4 PUT
// /inventory rule 1), many to a statement, records each in refs and returns
// their IDs. A product named twice takes its last content, as writing the
// entries one by one would leave it.
func upsertProducts(ctx context.Context, tx *Tx, c *parcelgate.Caller, us int64, entries []parcelgate.InventoryInput, refs map[string]productRef) ([]int64, error) {
	last := make(map[string]*parcelgate.Product, len(entries))
	var order []*parcelgate.Product // first appearance, so new products get IDs in request order
	for _, e := range entries {
		if _, ok := last[e.Product.ExternalID]; !ok {
			order = append(order, e.Product)
		}
		last[e.Product.ExternalID] = e.Product
	}
	ids := make([]int64, 0, len(order))
	const cols = 7
	for chunk := range slices.Chunk(order, maxParams/cols) {
		args := make([]any, 0, len(chunk)*cols)
		for _, first := range chunk {
			p := last[first.ExternalID]
			args = append(args, string(c.Environment), c.OrgID, p.ExternalID, p.EANCode, string(p.Document), us, us)
		}
		rows, err := tx.Query(ctx, `INSERT INTO products (environment, supplier_org_id, external_id, ean_code, document, created_at, modified_at, status, deleted_at)
			VALUES `+valueRows(len(chunk), "?, ?, ?, ?, ?, ?, ?, 'ACTIVE', 0")+`
			ON CONFLICT (supplier_org_id, external_id) DO UPDATE SET ean_code = excluded.ean_code, status = 'ACTIVE', document = excluded.document, deleted_at = 0, modified_at = excluded.modified_at
			RETURNING id, external_id`, args...)
		if err != nil {
			return nil, err
		}
		var chunkIDs []any
		for rows.Next() {
			var id int64
			var ext string
			if err := rows.Scan(&id, &ext); err != nil {
				rows.Close()
				return nil, err
			}
			refs[ext] = productRef{id: id, ean: last[ext].EANCode}
			ids = append(ids, id)
			chunkIDs = append(chunkIDs, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		// The product shows in its balances (eanCode, descriptions, a
		// revived EOS), so a retailer polling them must see it change.
		// Tombstones stay as they are: the product is not in those
		// catalogs, and they never carry eos_at (EndOfSale skips them).
		if _, err := tx.Exec(ctx, `UPDATE balances SET eos_at = 0, modified_at = ? WHERE product_id IN (`+placeholders(len(chunkIDs))+`) AND removed_at = 0`,
			append([]any{us}, chunkIDs...)...); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (db *DB) ListInventory(ctx context.Context, f parcelgate.InventoryFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	var res parcelgate.PageOf[*parcelgate.InventoryItem]
	c, err := callerOf(ctx)
	if err != nil {
		return res, err
	}
	q := &keysetQuery{table: "products p", alias: "p"}
	q.where.add("p.supplier_org_id = ?", c.OrgID)
	q.where.add("p.status = 'ACTIVE'")
	if len(f.ProductExternalIDs) > 0 {
		q.where.in("p.external_id", anys(f.ProductExternalIDs))
	}
	if len(f.EANCodes) > 0 {
		q.where.in("p.ean_code", anys(f.EANCodes))
	}
	bf := parcelgate.BalanceFilter{RetailerID: f.RetailerID, CatalogExternalID: f.CatalogExternalID}
	if f.RetailerID != "" || f.CatalogExternalID != "" {
		var sub filterSQL
		sub.add("b.product_id = p.id")
		sub.add("b.removed_at = 0")
		if err := db.placeFilter(ctx, c, &sub, bf); err != nil {
			return res, err
		}
		q.where.add("EXISTS (SELECT 1 FROM balances b WHERE "+sub.sql()+")", sub.args...)
	}
	page, err := keysetPage(ctx, db, q, pr, "p.id", "", func(rows *sql.Rows) (int64, pageKey, error) {
		var id int64
		err := rows.Scan(&id)
		return id, pageKey{id: id}, err
	})
	if err != nil {
		return res, err
	}
	res.Total, res.Next = page.Total, page.Next
	res.Items, err = db.inventoryItems(ctx, c, page.Items, bf)
	return res, err
}

func (db *DB) FindInventoryItem(ctx context.Context, externalID string) (*parcelgate.InventoryItem, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	var id int64
	err = db.queryRow(ctx, `SELECT id FROM products WHERE supplier_org_id = ? AND external_id = ? AND status = 'ACTIVE'`, c.OrgID, externalID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", externalID)
	}
	if err != nil {
		return nil, err
	}
	items, err := db.inventoryItems(ctx, c, []int64{id}, parcelgate.BalanceFilter{})
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

func (db *DB) EndOfSale(ctx context.Context, externalIDs []string) ([]*parcelgate.InventoryItem, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(externalIDs))
	err = db.inTx(ctx, func(tx *Tx) error {
		stamp, err := tx.nextStamp(ctx, c.Environment)
		if err != nil {
			return err
		}
		us := micros(stamp)
		ids = ids[:0]
		var p parcelgate.Problems
		for i, ext := range externalIDs {
			var id int64
			var status string
			err := tx.QueryRow(ctx, `SELECT id, status FROM products WHERE supplier_org_id = ? AND external_id = ?`, c.OrgID, ext).Scan(&id, &status)
			if errors.Is(err, sql.ErrNoRows) {
				p.AddAt(i, "product.externalId", "no product %q", ext)
				continue
			}
			if err != nil {
				return err
			}
			ids = append(ids, id)
			if status == string(parcelgate.ProductEOS) {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE products SET status = 'EOS', deleted_at = ?, modified_at = ? WHERE id = ?`, us, us, id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = 0, eos_at = ?, modified_at = ? WHERE product_id = ? AND removed_at = 0`, us, us, id); err != nil {
				return err
			}
		}
		if p.Len() > 0 {
			return &parcelgate.Error{Code: parcelgate.ENOTFOUND, Message: fmt.Sprintf("%d of the products to delete were not found; nothing was deleted.", p.Len()), Fields: p.List()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return db.inventoryItems(ctx, c, slices.Compact(ids), parcelgate.BalanceFilter{})
}

const productCols = `p.id, p.external_id, so.business_id, p.ean_code, p.status, p.document, p.deleted_at, p.modified_at`

// productRow scans productCols.
type productRow struct {
	p                 parcelgate.Product
	doc               string
	deleted, modified int64
}

func (r *productRow) dest() []any {
	return []any{&r.p.ID, &r.p.ExternalID, &r.p.SupplierID, &r.p.EANCode, &r.p.Status, &r.doc, &r.deleted, &r.modified}
}

func (r *productRow) product() *parcelgate.Product {
	p := r.p
	p.Document = []byte(r.doc)
	p.DeletedAt = fromMicros(r.deleted)
	p.ModifiedAt = fromMicros(r.modified)
	return &p
}

// inventoryItems loads the products of ids, in that order, each with its
// live balances (those matching f's retailer and catalog; no tombstones).
func (db *DB) inventoryItems(ctx context.Context, c *parcelgate.Caller, ids []int64, f parcelgate.BalanceFilter) ([]*parcelgate.InventoryItem, error) {
	items := make([]*parcelgate.InventoryItem, 0, len(ids))
	byID := make(map[int64]*parcelgate.InventoryItem, len(ids))
	for chunk := range slices.Chunk(ids, 500) {
		args := []any{c.OrgID}
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := db.query(ctx, `SELECT `+productCols+` FROM products p JOIN organizations so ON so.id = p.supplier_org_id
			WHERE p.supplier_org_id = ? AND p.id IN (`+placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r productRow
			if err := rows.Scan(r.dest()...); err != nil {
				rows.Close()
				return nil, err
			}
			p := r.product()
			byID[p.ID] = &parcelgate.InventoryItem{Product: p, Balances: []*parcelgate.Balance{}}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		var bf filterSQL
		bf.add("b.supplier_org_id = ?", c.OrgID)
		bf.add("b.removed_at = 0")
		bf.in("b.product_id", anys(chunk))
		if err := db.placeFilter(ctx, c, &bf, f); err != nil {
			return nil, err
		}
		bals, err := db.balances(ctx, bf.sql()+` ORDER BY b.id`, bf.args)
		if err != nil {
			return nil, err
		}
		for _, b := range bals {
			if it := byID[b.productID]; it != nil {
				it.Balances = append(it.Balances, b.Balance)
			}
		}
	}
	for _, id := range ids {
		if it := byID[id]; it != nil {
			items = append(items, it)
		}
	}
	return items, nil
}

func anys[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// eosCutoff is the oldest EOS deletion retailers still see (spec 3 rule 2).
func (db *DB) eosCutoff(env parcelgate.Environment) int64 {
	return micros(db.clock.Now(env).Add(-parcelgate.EOSVisibility))
}
