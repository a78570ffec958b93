package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/parcelgate/parcelgate"
)

// InventoryService keeps a supplier's products and their balances in the
// retailers' catalogs (interface §3, interface §4.4): PUT /inventory, balances, end of
// sale and the ID migration.
type InventoryService struct{ db *DB }

// NewInventoryService returns the InventoryService over db.
func NewInventoryService(db *DB) *InventoryService { return &InventoryService{db: db} }

var _ parcelgate.InventoryService = (*InventoryService)(nil)

// The write transactions of products and balances take their stamp first,
// not last as nextStamp suggests: the stamp's lock serializes every stamped
// write of the environment, and doing the reads that decide what to write
// (is the product published there? does the balance exist?) under it keeps
// them true until the commit on PostgreSQL's READ COMMITTED, without
// SELECT ... FOR UPDATE. Writers of balances elsewhere (order allocation)
// must do the same: see moveStock.

// PutInventory acts only for a caller that may ActionManageProducts (interface
// §5.2), as PUT /inventory asks.
func (s *InventoryService) PutInventory(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.InventoryInput) (parcelgate.InventoryFailures, error) {
	if err := c.May(parcelgate.ActionManageProducts); err != nil {
		return nil, err
	}
	// What any front end sends is checked here (decisions §57): the
	// envelopes with problems are left out and returned with the others
	// that fail.
	bad, err := parcelgate.CheckInventory(c.BusinessID, entries)
	if err != nil {
		return nil, err
	}
	entries, pos := bad.Without(entries)
	if len(entries) == 0 {
		return bad, nil
	}
	var failed parcelgate.InventoryFailures
	err = s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		w := newStockWriter(tx, c, micros(stamp))
		keys := make([]string, len(entries))
		for i, e := range entries {
			keys[i] = parcelgate.ProductKey(c.BusinessID, e.Product.ExternalID)
		}
		if err := w.load(ctx, keys); err != nil {
			return err
		}
		plan := parcelgate.PlanInventory(w.st, entries)
		failed = bad.With(plan.Failed, pos)
		if err := w.upsertProducts(ctx, plan.Upserts); err != nil {
			return err
		}
		if _, err := w.write(ctx, plan.Balances); err != nil {
			return err
		}
		ends := make([]int64, len(plan.EndSale))
		for i, k := range plan.EndSale {
			ends[i] = w.refs[k].id
		}
		slices.Sort(ends)
		return endSale(ctx, tx, ends, w.us)
	})
	if err != nil {
		return nil, err
	}
	return failed, nil
}

// upsertProducts creates or replaces products, each named once (interface §4.4
// PUT /inventory rule 1), many to a statement, and records each in refs. A
// product the supplier has keeps the form of its ID (bare or prefixed)
// whichever form the request used; a new one is stored as sent.
func (w *stockWriter) upsertProducts(ctx context.Context, products []*parcelgate.Product) error {
	const cols = 7
	for chunk := range slices.Chunk(products, maxParams/cols) {
		args := make([]any, 0, len(chunk)*cols)
		byStored := make(map[string]string, len(chunk))
		for _, p := range chunk {
			k := parcelgate.ProductKey(w.c.BusinessID, p.ExternalID)
			stored, doc := p.ExternalID, p.Document
			if ref, ok := w.refs[k]; ok && ref.stored != stored {
				stored, doc = ref.stored, parcelgate.WithExternalID(doc, ref.stored)
			}
			byStored[stored] = k
			args = append(args, string(w.c.Environment), w.c.OrgID, stored, p.EANCode, string(doc), w.us, w.us)
		}
		rows, err := w.tx.Query(ctx, `INSERT INTO products (environment, supplier_org_id, external_id, ean_code, document, created_at, modified_at, status, deleted_at)
			VALUES `+valueRows(len(chunk), "?, ?, ?, ?, ?, ?, ?, 'ACTIVE', 0")+`
			ON CONFLICT (supplier_org_id, external_id) DO UPDATE SET ean_code = excluded.ean_code, status = 'ACTIVE', document = excluded.document, deleted_at = 0, modified_at = excluded.modified_at
			RETURNING id, external_id, status = 'ACTIVE'`, args...)
		refs, err := collect(rows, err, func(r *productRef) []any { return []any{&r.id, &r.stored, &r.active} })
		if err != nil {
			return err
		}
		var ids []int64
		for _, ref := range refs {
			w.refs[byStored[ref.stored]] = ref
			ids = append(ids, ref.id)
		}
		// The product shows in its balances (eanCode, descriptions, a
		// revived EOS), so a retailer polling them must see it change.
		// Tombstones stay as they are: the product is not in those
		// catalogs, and they never carry eos_at (endSale skips them).
		if _, err := w.tx.Exec(ctx, `UPDATE balances SET eos_at = 0, modified_at = ? WHERE `+w.tx.d.idIn("product_id", len(ids))+` AND removed_at = 0`,
			append([]any{w.us}, w.tx.d.idArgs(ids)...)...); err != nil {
			return err
		}
	}
	return nil
}

// endSale marks the products ids EOS (interface §3) unless they are already:
// quantity 0 in every catalog where they are published, allocations kept.
func endSale(ctx context.Context, tx *Tx, ids []int64, us int64) error {
	for chunk := range slices.Chunk(ids, 500) {
		args := append([]any{us, us}, tx.d.idArgs(chunk)...)
		res, err := tx.Query(ctx, `UPDATE products SET status = 'EOS', deleted_at = ?, modified_at = ? WHERE status = 'ACTIVE' AND `+tx.d.idIn("id", len(chunk))+` RETURNING id`, args...)
		if err != nil {
			return err
		}
		ended, err := scanColumn[int64](res, nil)
		if err != nil {
			return err
		}
		if len(ended) == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = 0, eos_at = ?, modified_at = ? WHERE removed_at = 0 AND `+tx.d.idIn("product_id", len(ended)),
			append([]any{us, us}, tx.d.idArgs(ended)...)...); err != nil {
			return err
		}
	}
	return nil
}

// ListInventory pages a supplier's products, each with its balances; only
// for a caller that may ActionReadProducts (interface §5.2). The page of
// products and then their balances are read in one read transaction, so
// the items agree with the page's totals.
func (s *InventoryService) ListInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, pr parcelgate.PageRequest) (parcelgate.Page[*parcelgate.InventoryItem], error) {
	var res parcelgate.Page[*parcelgate.InventoryItem]
	err := s.WriteInventory(ctx, c, f, pr, &inventoryCollector{page: &res})
	return res, err
}

// inventoryCollector is the InventoryWriter of ListInventory: the whole
// page in memory.
type inventoryCollector struct {
	page *parcelgate.Page[*parcelgate.InventoryItem]
}

func (w *inventoryCollector) Head(total int64, next string) error {
	*w.page = parcelgate.Page[*parcelgate.InventoryItem]{Items: []*parcelgate.InventoryItem{}, Total: total, Next: next}
	return nil
}

func (w *inventoryCollector) Items(items []*parcelgate.InventoryItem) error {
	w.page.Items = append(w.page.Items, items...)
	return nil
}

// WriteInventory is ListInventory handing the page to w a chunk of
// products at a time, each chunk's balances read when it is written
// (decisions §61): the page's product keys and totals first, then per
// chunk its products and balances, all in the one read transaction. A
// read moved to the primary after the replica failed starts again with
// w.Head.
func (s *InventoryService) WriteInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, pr parcelgate.PageRequest, w parcelgate.InventoryWriter) error {
	if err := c.May(parcelgate.ActionReadProducts); err != nil {
		return err
	}
	_, err := readOnReplica(ctx, s.db, c, func(r reader) (struct{}, error) {
		return struct{}{}, r.readTx(ctx, func(r reader) error {
			q := &keysetQuery{table: "products p", alias: "p"}
			q.where.tenant(c, "", "p.supplier_org_id")
			q.where.add("p.status = 'ACTIVE'")
			if len(f.ProductExternalIDs) > 0 {
				q.where.in("p.external_id", anys(parcelgate.ProductIDFormsOf(c.BusinessID, f.ProductExternalIDs)))
			}
			if len(f.EANCodes) > 0 {
				q.where.in("p.ean_code", anys(f.EANCodes))
			}
			bf := parcelgate.BalanceFilter{RetailerID: f.RetailerID, CatalogExternalID: f.CatalogExternalID}
			if f.RetailerID != "" || f.CatalogExternalID != "" {
				var sub filterSQL
				sub.add("b.product_id = p.id")
				sub.add("b.removed_at = 0")
				// Keyed: a product's few balances are found by the
				// product (its unique key), the place checked on each.
				// A catalog's external ID names every merchant's
				// warehouse (2,000 catalogs "WH1" at issue 39's size),
				// which SQLite otherwise probed one by one for each
				// product (decisions §61).
				if err := placeFilter(ctx, r, c, &sub, bf, true); err != nil {
					return err
				}
				q.where.add("EXISTS (SELECT 1 FROM balances b WHERE "+sub.sql()+")", sub.args...)
			}
			if len(f.ProductExternalIDs) == 0 && len(f.EANCodes) == 0 && f.RetailerID == "" && f.CatalogExternalID == "" {
				// The supplier's ACTIVE products: a kept count (decisions §52).
				q.keptTotal = func(ctx context.Context, r reader) (int64, error) {
					return keptCount(ctx, r, parcelgate.TallyProducts, c.Environment, c.OrgID, []string{"ACTIVE"})
				}
			} else if len(f.ProductExternalIDs) == 0 && len(f.EANCodes) == 0 {
				// Those in a catalog or a retailer's: the kept count of
				// the one catalog of that place holding any (decisions
				// §69), counted when several do.
				q.keptTotal = func(ctx context.Context, r reader) (int64, error) {
					n, ok, err := keptPlaceTotal(ctx, r, c, bf)
					if err != nil || ok {
						return n, err
					}
					return total(ctx, r, q)
				}
			}
			page, err := keysetPage(ctx, r, q, pr, "p.id", "", func(rows *sql.Rows) (int64, pageKey, error) {
				var id int64
				err := rows.Scan(&id)
				return id, pageKey{id: id}, err
			})
			if err != nil {
				return err
			}
			if err := w.Head(page.Total, page.Next); err != nil {
				return err
			}
			for chunk := range slices.Chunk(page.Items, parcelgate.InventoryChunk) {
				items, err := inventoryItems(ctx, r, c, chunk, bf)
				if err != nil {
					return err
				}
				if err := w.Items(items); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return err
}

// FindInventoryItem returns one of the caller's products with its
// balances; only for a caller that may ActionReadProducts (interface
// §5.2).
func (s *InventoryService) FindInventoryItem(ctx context.Context, c *parcelgate.Caller, externalID string) (*parcelgate.InventoryItem, error) {
	if err := c.May(parcelgate.ActionReadProducts); err != nil {
		return nil, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (*parcelgate.InventoryItem, error) {
		id, found, err := findProduct(ctx, r, c, externalID, true)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", externalID)
		}
		items, err := inventoryItems(ctx, r, c, []int64{id}, parcelgate.BalanceFilter{})
		if err != nil {
			return nil, err
		}
		return items[0], nil
	})
}

// findProduct finds the caller's product externalID in either form, bare
// or prefixed (parcelgate.ProductKey); where the supplier has both, from
// before bare IDs were accepted, the bare one. With active, only an ACTIVE
// product.
func findProduct(ctx context.Context, q querier, c *parcelgate.Caller, externalID string, active bool) (int64, bool, error) {
	forms := parcelgate.ProductIDForms(c.BusinessID, externalID)
	cond := ""
	if active {
		cond = " AND status = 'ACTIVE'"
	}
	var id int64
	own := tenantOf(c, "", "supplier_org_id")
	err := q.QueryRow(ctx, `SELECT id FROM products WHERE `+own.sql()+` AND external_id IN (`+placeholders(len(forms))+`)`+cond+` ORDER BY LENGTH(external_id) LIMIT 1`,
		own.with(anys(forms)...)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// EndOfSale acts only for a caller that may ActionManageProducts (interface
// §5.2), as DELETE /inventory asks.
func (s *InventoryService) EndOfSale(ctx context.Context, c *parcelgate.Caller, externalIDs []string) ([]*parcelgate.InventoryItem, error) {
	if err := c.May(parcelgate.ActionManageProducts); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(externalIDs))
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		ids = ids[:0]
		var p parcelgate.Problems
		for i, ext := range externalIDs {
			id, found, err := findProduct(ctx, tx, c, ext, false)
			if err != nil {
				return err
			}
			if !found {
				p.AddAt(i, "product.externalId", "no product %q", ext)
				continue
			}
			ids = append(ids, id)
		}
		if p.Len() > 0 {
			return &parcelgate.Error{Code: parcelgate.ENOTFOUND, Message: fmt.Sprintf("%d of the products to delete were not found; nothing was deleted.", p.Len()), Fields: p.List()}
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		return endSale(ctx, tx, ids, micros(stamp))
	})
	if err != nil {
		return nil, err
	}
	return inventoryItems(ctx, s.db.primary(), c, ids, parcelgate.BalanceFilter{})
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
//
// A page of the big merchant's inventory holds 2,000 products and about
// 19,000 balances, so the balances are read as their own columns only:
// what every balance of a product shares with it (the product's external
// ID, its EAN code, the supplier's business ID) is taken from the product
// already read, and the retailer's business ID and the catalog's external
// ID from one lookup of the page's few catalogs and retailers (both are
// immutable), instead of four joins and five strings read and allocated
// for each balance.
func inventoryItems(ctx context.Context, r reader, c *parcelgate.Caller, ids []int64, f parcelgate.BalanceFilter) ([]*parcelgate.InventoryItem, error) {
	items := make([]*parcelgate.InventoryItem, 0, len(ids))
	byID := make(map[int64]*parcelgate.InventoryItem, len(ids))
	var bals []stockBalance
	// The page's products and their balances are sought by key: the
	// supplier is checked on each row found ("+ 0" keeps the planner from
	// reading every product or balance of the supplier through the
	// supplier's index instead, which SQLite did, whatever the page).
	own := tenantOf(c, "", "p.supplier_org_id + 0")
	for chunk := range slices.Chunk(ids, parcelgate.InventoryChunk) {
		rows, err := r.Query(ctx, `SELECT `+productCols+` FROM products p JOIN organizations so ON so.id = p.supplier_org_id
			WHERE `+own.sql()+` AND `+r.db.dialect.idList("p.id"), own.with(r.db.dialect.idListArg(chunk))...)
		prods, err := collect(rows, err, (*productRow).dest)
		if err != nil {
			return nil, err
		}
		for _, row := range prods {
			p := row.product()
			byID[p.ID] = &parcelgate.InventoryItem{Product: p, Balances: []*parcelgate.Balance{}}
		}
		var bf filterSQL
		bf.tenant(c, "", "b.supplier_org_id + 0")
		bf.add("b.removed_at = 0")
		bf.add(r.db.dialect.idList("b.product_id"), r.db.dialect.idListArg(chunk))
		if err := placeFilter(ctx, r, c, &bf, f, true); err != nil {
			return nil, err
		}
		if bals, err = stockBalances(ctx, r, byID, bf, bals); err != nil {
			return nil, err
		}
	}
	if err := nameBalances(ctx, r, c.Environment, bals); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if it := byID[id]; it != nil {
			items = append(items, it)
		}
	}
	return items, nil
}

// stockBalance is a balance read by stockBalances, with the keys of the
// names nameBalances fills in.
type stockBalance struct {
	*parcelgate.Balance
	catalog, retailer int64
}

// stockBalances reads the live balances matching bf (removed_at = 0) in
// key order, appends each to its product's item in byID, and returns
// them appended to out with their catalog and retailer for nameBalances.
// The balances of one page are allocated together.
func stockBalances(ctx context.Context, r reader, byID map[int64]*parcelgate.InventoryItem, bf filterSQL, out []stockBalance) ([]stockBalance, error) {
	rows, err := r.Query(ctx, `SELECT b.id, b.product_id, b.product_external_id, b.catalog_id, b.retailer_org_id, b.quantity, b.allocated, b.wholesale_price, b.currency, b.modified_at
		FROM balances b WHERE `+bf.sql()+` ORDER BY b.id`, bf.args...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	var (
		block           []parcelgate.Balance
		productID       int64
		externalID      sql.RawBytes
		price, currency sql.NullString
		modified        int64
		sb              stockBalance
	)
	for rows.Next() {
		if len(block) == 0 {
			block = make([]parcelgate.Balance, 256)
		}
		b := &block[0]
		block = block[1:]
		if err := rows.Scan(&b.ID, &productID, &externalID, &sb.catalog, &sb.retailer, &b.Quantity, &b.Allocated, &price, &currency, &modified); err != nil {
			return out, err
		}
		it := byID[productID]
		if it == nil {
			continue
		}
		p := it.Product
		// The balance's copy of the product's ID is the product's (it is
		// written from it), so its text is shared, not copied.
		if b.ProductExternalID = p.ExternalID; string(externalID) != p.ExternalID {
			b.ProductExternalID = string(externalID)
		}
		b.EANCode, b.SupplierID = p.EANCode, p.SupplierID
		if price.Valid {
			b.WholesalePrice = json.Number(price.String)
		}
		b.Currency = currency.String
		b.ModifiedAt = fromMicros(modified)
		it.Balances = append(it.Balances, b)
		sb.Balance = b
		out = append(out, sb)
	}
	return out, rows.Err()
}

// nameBalances fills in each balance's retailer business ID and catalog
// external ID, one lookup of each for the distinct catalogs and retailers
// of bals (a page of the big merchant's inventory names about 40 of each).
// Both names are immutable. The catalogs and organizations are those of
// the caller's own balances, and of its environment.
func nameBalances(ctx context.Context, r reader, env parcelgate.Environment, bals []stockBalance) error {
	if len(bals) == 0 {
		return nil
	}
	catalogs, retailers := map[int64]string{}, map[int64]string{}
	for _, b := range bals {
		catalogs[b.catalog], retailers[b.retailer] = "", ""
	}
	lookup := func(stmt string, names map[int64]string) error {
		ids := slices.Sorted(maps.Keys(names))
		rows, err := r.Query(ctx, stmt+` AND `+r.db.dialect.idList("id"), string(env), r.db.dialect.idListArg(ids))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var name string
			if err := rows.Scan(&id, &name); err != nil {
				return err
			}
			names[id] = name
		}
		return rows.Err()
	}
	if err := lookup(`SELECT id, external_id FROM catalogs WHERE environment = ?`, catalogs); err != nil {
		return err
	}
	if err := lookup(`SELECT id, business_id FROM organizations WHERE environment = ?`, retailers); err != nil {
		return err
	}
	for _, b := range bals {
		b.CatalogExternalID, b.RetailerID = catalogs[b.catalog], retailers[b.retailer]
	}
	return nil
}

func anys[T any](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

// eosCutoff is the oldest EOS deletion retailers still see now in env: EOS
// products deleted after it (parcelgate.EOSVisibleSince; interface §3 rule 2).
func eosCutoff(db *DB, env parcelgate.Environment) int64 {
	return micros(parcelgate.EOSVisibleSince(db.clock.Now(env)))
}
