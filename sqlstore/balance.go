package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

var _ parcelgate.CatalogReader = (*DB)(nil)

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
func (db *DB) balances(ctx context.Context, where string, args []any) ([]*balanceRow, error) {
	rows, err := db.query(ctx, `SELECT `+balanceCols+` FROM balances b `+balanceJoins+` WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*balanceRow
	for rows.Next() {
		r := newBalanceRow()
		if err := rows.Scan(r.dest()...); err != nil {
			return nil, err
		}
		r.finish()
		out = append(out, r)
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

// contentFilter adds the filters every balance list takes (spec 4.4 GET
// rules 2-3): product IDs, EAN codes and modifiedFromDate. Removed balances
// (tombstones) are changes a poller must see, so a change poll keeps them;
// every other list leaves them out (DESIGN §6).
func (db *DB) contentFilter(c *parcelgate.Caller, q *keysetQuery, f parcelgate.BalanceFilter) {
	if len(f.ProductExternalIDs) > 0 {
		q.where.in("b.product_external_id", anys(f.ProductExternalIDs))
	}
	if len(f.EANCodes) > 0 {
		q.where.add("b.product_id IN (SELECT id FROM products WHERE environment = ? AND ean_code IN ("+placeholders(len(f.EANCodes))+"))",
			append([]any{string(c.Environment)}, anys(f.EANCodes)...)...)
	}
	if !f.ModifiedAfter.IsZero() {
		q.byModified = true
		q.where.add("b.modified_at > ?", micros(f.ModifiedAfter))
	} else {
		q.where.add("b.removed_at = 0")
	}
}

// placeFilter adds the supplier-side retailer and catalog filters.
func (db *DB) placeFilter(ctx context.Context, c *parcelgate.Caller, w *filterSQL, f parcelgate.BalanceFilter) error {
	if f.RetailerID != "" {
		var org int64
		err := db.queryRow(ctx, `SELECT id FROM organizations WHERE environment = ? AND business_id = ?`, string(c.Environment), f.RetailerID).Scan(&org)
		if errors.Is(err, sql.ErrNoRows) {
			w.add("1 = 0")
			return nil
		}
		if err != nil {
			return err
		}
		w.add("b.retailer_org_id = ?", org)
	}
	if f.CatalogExternalID != "" {
		w.add("b.catalog_id IN (SELECT id FROM catalogs WHERE environment = ? AND external_id = ?)", string(c.Environment), f.CatalogExternalID)
	}
	return nil
}

func (db *DB) PutBalances(ctx context.Context, entries []parcelgate.BalanceInput) ([]*parcelgate.Balance, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	var touched []int64
	err = db.inTx(ctx, func(tx *Tx) error {
		stamp, err := tx.nextStamp(ctx, c.Environment)
		if err != nil {
			return err
		}
		touched, err = newBalanceWriter(tx, c, micros(stamp)).apply(ctx, entries)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows, err := db.balances(ctx, `b.supplier_org_id = ? AND b.id IN (`+placeholders(len(touched))+`)`, append([]any{c.OrgID}, anys(touched)...))
	if err != nil {
		return nil, err
	}
	byID := map[int64]*parcelgate.Balance{}
	for _, r := range rows {
		byID[r.ID] = r.Balance
	}
	out := make([]*parcelgate.Balance, 0, len(touched))
	for _, id := range touched {
		if b := byID[id]; b != nil {
			out = append(out, b)
		}
	}
	return out, nil
}

type productRef struct {
	id  int64
	ean string
}

type catalogRef struct {
	id, retailerOrg        int64
	retailerID, externalID string
}

type published struct {
	balanceID int64
	catalog   catalogRef
}

// balanceWriter applies balance entries in one transaction that holds the
// environment's stamp (see the note in product.go).
//
// It first resolves every entry, in order, against what it loaded and what
// earlier entries staged, and only then writes: each balance the entries
// touch gets one write, with the last value given for each field (which is
// what applying them one by one would leave), so a request of thousands of
// entries is a few multi-row statements instead of a statement per entry
// (docs/performance.md).
type balanceWriter struct {
	tx       *Tx
	c        *parcelgate.Caller
	us       int64
	products map[string]productRef // the caller's ACTIVE products, by external ID
	open     []catalogRef          // catalogs that list the caller as supplier
	pub      map[int64][]published // live balances by product ID, staged ones included
	// writes are the staged writes by balance ID. A balance the request
	// publishes has a negative ID until it is written; published maps
	// those to the IDs the database gave.
	writes    map[int64]*balanceWrite
	staged    []int64 // IDs of writes, in staging order
	published map[int64]int64
}

// balanceWrite is what the entries of a request change in one balance; nil
// fields stay as they are.
type balanceWrite struct {
	// id is negative for a balance the request publishes: a new row, or
	// the revival of a tombstone. Its allocated is not written: it starts
	// at 0.
	id                  int64
	product             productRef
	productExternalID   string
	catalog             catalogRef
	quantity, allocated *int64
	price, currency     *string
}

func (bw *balanceWrite) merge(e parcelgate.BalanceInput) {
	if e.Quantity != nil {
		bw.quantity = e.Quantity
	}
	if e.Allocated != nil {
		bw.allocated = e.Allocated
	}
	if e.WholesalePrice != nil {
		bw.price = e.WholesalePrice
	}
	if e.Currency != nil {
		bw.currency = e.Currency
	}
}

func newBalanceWriter(tx *Tx, c *parcelgate.Caller, us int64) *balanceWriter {
	return &balanceWriter{tx: tx, c: c, us: us, products: map[string]productRef{}, writes: map[int64]*balanceWrite{}, published: map[int64]int64{}}
}

// stage records that entry e changes balance id (negative: published by
// this request).
func (w *balanceWriter) stage(id int64, e parcelgate.BalanceInput) {
	bw := w.writes[id]
	if bw == nil {
		bw = &balanceWrite{id: id}
		w.writes[id] = bw
		w.staged = append(w.staged, id)
	}
	bw.merge(e)
}

// apply applies entries in order and returns the IDs of the balances they
// touched, each once. Entries that cannot be applied are all reported,
// with their index, as one EINVALID error; the caller rolls back.
func (w *balanceWriter) apply(ctx context.Context, entries []parcelgate.BalanceInput) ([]int64, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	if err := w.load(ctx, entries); err != nil {
		return nil, err
	}
	var p parcelgate.Problems
	for _, e := range entries {
		prod, ok := w.products[e.ProductExternalID]
		if !ok {
			p.AddAt(e.Index, e.Prefix+"productExternalId", "no product %q of supplier %s; create it with PUT /inventory first", e.ProductExternalID, w.c.BusinessID)
			continue
		}
		var targets []published
		if e.CatalogExternalID != "" {
			cat, msg := w.catalog(e.RetailerID, e.CatalogExternalID)
			if msg != "" {
				p.AddAt(e.Index, e.Prefix+"catalogExternalId", "%s", msg)
				continue
			}
			i := slices.IndexFunc(w.pub[prod.id], func(x published) bool { return x.catalog.id == cat.id })
			if i < 0 {
				if p.Len() > 0 {
					continue
				}
				// Spec 4.4 PUT balances rule 1: publish. Fields the entry
				// leaves out start as a new balance's (quantity 0, no
				// price); allocated starts at 0 whatever the entry says.
				id := -int64(len(w.staged) + 1)
				w.writes[id] = &balanceWrite{id: id, product: prod, productExternalID: e.ProductExternalID, catalog: cat}
				w.staged = append(w.staged, id)
				w.stage(id, e)
				w.pub[prod.id] = append(w.pub[prod.id], published{id, cat})
				continue
			}
			targets = w.pub[prod.id][i : i+1]
		} else {
			for _, x := range w.pub[prod.id] {
				if e.RetailerID == "" || x.catalog.retailerID == e.RetailerID {
					targets = append(targets, x)
				}
			}
			if len(targets) == 0 {
				where := "any catalog"
				if e.RetailerID != "" {
					where = "any catalog of retailer " + e.RetailerID
				}
				p.AddAt(e.Index, e.Prefix+"catalogExternalId", "is required: product %q is not published to %s yet (spec 4.4 PUT balances rule 4 updates the catalogs where it is published)", e.ProductExternalID, where)
				continue
			}
		}
		if p.Len() > 0 {
			continue
		}
		for _, t := range targets {
			w.stage(t.balanceID, e)
		}
	}
	if p.Len() > 0 {
		err := p.Err().(*parcelgate.Error)
		err.Message = fmt.Sprintf("%d balance entries cannot be applied; nothing was changed. First: %s", p.Len(), strings.TrimPrefix(err.Message, "Validation failed: "))
		return nil, err
	}
	if err := w.publishStaged(ctx); err != nil {
		return nil, err
	}
	if err := w.updateStaged(ctx); err != nil {
		return nil, err
	}
	touched := make([]int64, len(w.staged))
	for i, id := range w.staged {
		if id < 0 {
			id = w.published[id]
		}
		touched[i] = id
	}
	return touched, nil
}

// publishStaged writes the balances the request publishes (spec 4.4 PUT
// balances rule 1), many to a statement. A tombstone left in the catalog
// by an earlier removal is revived: it takes the staged values as a new
// balance would, and the new stamp. A live balance is never overwritten
// here (the writer updates those), so one would come back missing from
// RETURNING and fail the request.
func (w *balanceWriter) publishStaged(ctx context.Context) error {
	var pubs []*balanceWrite
	for _, id := range w.staged {
		if id < 0 {
			pubs = append(pubs, w.writes[id])
		}
	}
	const cols = 9
	for chunk := range slices.Chunk(pubs, maxParams/cols) {
		args := make([]any, 0, len(chunk)*cols)
		byKey := make(map[[2]int64]*balanceWrite, len(chunk))
		for _, bw := range chunk {
			var qty int64
			if bw.quantity != nil {
				qty = *bw.quantity
			}
			args = append(args, bw.product.id, bw.catalog.id, w.c.OrgID, bw.catalog.retailerOrg, bw.productExternalID, qty, opt(bw.price), opt(bw.currency), w.us)
			byKey[[2]int64{bw.product.id, bw.catalog.id}] = bw
		}
		rows, err := w.tx.Query(ctx, `INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, quantity, wholesale_price, currency, modified_at, allocated, eos_at, removed_at)
			VALUES `+valueRows(len(chunk), "?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0")+`
			ON CONFLICT (product_id, catalog_id) DO UPDATE SET quantity = excluded.quantity, allocated = 0, wholesale_price = excluded.wholesale_price,
				currency = excluded.currency, eos_at = 0, removed_at = 0, modified_at = excluded.modified_at
			WHERE balances.removed_at <> 0
			RETURNING id, product_id, catalog_id`, args...)
		if err != nil {
			return err
		}
		n := 0
		for rows.Next() {
			var id int64
			var key [2]int64
			if err := rows.Scan(&id, &key[0], &key[1]); err != nil {
				rows.Close()
				return err
			}
			if bw := byKey[key]; bw != nil {
				w.published[bw.id] = id
				n++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if n != len(chunk) {
			return fmt.Errorf("publish balances: %d of %d written: a balance to publish is live already", n, len(chunk))
		}
	}
	return nil
}

// updateStaged writes the staged changes of live balances (spec 4.4 PUT
// balances rules 2-5), many to a statement.
func (w *balanceWriter) updateStaged(ctx context.Context) error {
	var ups []*balanceWrite
	for _, id := range w.staged {
		if id > 0 {
			ups = append(ups, w.writes[id])
		}
	}
	const cols = 5
	for chunk := range slices.Chunk(ups, (maxParams-1)/cols) {
		args := make([]any, 0, len(chunk)*cols+1)
		for _, bw := range chunk {
			args = append(args, bw.id, opt(bw.quantity), opt(bw.allocated), opt(bw.price), opt(bw.currency))
		}
		args = append(args, w.us)
		// The casts type the VALUES columns, which PostgreSQL would
		// otherwise read as text.
		if _, err := w.tx.Exec(ctx, `WITH v (id, quantity, allocated, wholesale_price, currency) AS (VALUES `+
			valueRows(len(chunk), "CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT)")+`)
			UPDATE balances SET quantity = COALESCE(v.quantity, balances.quantity), allocated = COALESCE(v.allocated, balances.allocated),
				wholesale_price = COALESCE(v.wholesale_price, balances.wholesale_price), currency = COALESCE(v.currency, balances.currency), modified_at = ?
			FROM v WHERE balances.id = v.id`, args...); err != nil {
			return err
		}
	}
	return nil
}

// catalog resolves a catalog open to the supplier. Catalogs that exist but
// do not list the supplier answer like missing ones (DESIGN §3).
func (w *balanceWriter) catalog(retailerID, externalID string) (catalogRef, string) {
	var found []catalogRef
	for _, c := range w.open {
		if c.externalID == externalID && (retailerID == "" || c.retailerID == retailerID) {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], ""
	case len(found) > 1:
		return catalogRef{}, fmt.Sprintf("%q names a catalog of several retailers; give retailerId", externalID)
	case retailerID != "":
		return catalogRef{}, fmt.Sprintf("retailer %s has no catalog %q open to supplier %s", retailerID, externalID, w.c.BusinessID)
	}
	return catalogRef{}, fmt.Sprintf("no catalog %q is open to supplier %s", externalID, w.c.BusinessID)
}

// load reads what the entries need: their products, the catalogs open to
// the supplier, and where the products are published (tombstones are not:
// rule 4 updates only live balances, and publishing revives a tombstone).
func (w *balanceWriter) load(ctx context.Context, entries []parcelgate.BalanceInput) error {
	var missing []any
	for _, e := range entries {
		if _, ok := w.products[e.ProductExternalID]; !ok && !slices.Contains(missing, any(e.ProductExternalID)) {
			missing = append(missing, e.ProductExternalID)
		}
	}
	for chunk := range slices.Chunk(missing, 500) {
		rows, err := w.tx.Query(ctx, `SELECT id, external_id, ean_code FROM products WHERE supplier_org_id = ? AND status = 'ACTIVE' AND external_id IN (`+placeholders(len(chunk))+`)`, append([]any{w.c.OrgID}, chunk...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var ref productRef
			var ext string
			if err := rows.Scan(&ref.id, &ext, &ref.ean); err != nil {
				rows.Close()
				return err
			}
			w.products[ext] = ref
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	rows, err := w.tx.Query(ctx, `SELECT c.id, c.retailer_org_id, ro.business_id, c.external_id FROM catalog_suppliers cs
		JOIN catalogs c ON c.id = cs.catalog_id JOIN organizations ro ON ro.id = c.retailer_org_id WHERE cs.supplier_org_id = ?`, w.c.OrgID)
	if err != nil {
		return err
	}
	byID := map[int64]catalogRef{}
	for rows.Next() {
		var c catalogRef
		if err := rows.Scan(&c.id, &c.retailerOrg, &c.retailerID, &c.externalID); err != nil {
			rows.Close()
			return err
		}
		w.open = append(w.open, c)
		byID[c.id] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	w.pub = map[int64][]published{}
	var ids []any
	for _, p := range w.products {
		ids = append(ids, p.id)
	}
	for chunk := range slices.Chunk(ids, 500) {
		rows, err := w.tx.Query(ctx, `SELECT b.id, b.product_id, c.id, c.retailer_org_id, ro.business_id, c.external_id FROM balances b
			JOIN catalogs c ON c.id = b.catalog_id JOIN organizations ro ON ro.id = c.retailer_org_id
			WHERE b.supplier_org_id = ? AND b.removed_at = 0 AND b.product_id IN (`+placeholders(len(chunk))+`) ORDER BY b.id`, append([]any{w.c.OrgID}, chunk...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var x published
			var pid int64
			if err := rows.Scan(&x.balanceID, &pid, &x.catalog.id, &x.catalog.retailerOrg, &x.catalog.retailerID, &x.catalog.externalID); err != nil {
				rows.Close()
				return err
			}
			w.pub[pid] = append(w.pub[pid], x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
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

func (db *DB) ListSupplierBalances(ctx context.Context, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	c, err := callerOf(ctx)
	if err != nil {
		return parcelgate.PageOf[*parcelgate.Balance]{}, err
	}
	q := &keysetQuery{table: "balances b", alias: "b"}
	q.where.add("b.supplier_org_id = ?", c.OrgID)
	q.where.add("b.eos_at = 0")
	db.contentFilter(c, q, f)
	if err := db.placeFilter(ctx, c, &q.where, f); err != nil {
		return parcelgate.PageOf[*parcelgate.Balance]{}, err
	}
	return keysetPage(ctx, db, q, pr, balanceCols, balanceJoins, scanBalance)
}

func (db *DB) DeleteBalances(ctx context.Context, productExternalID, retailerID, catalogExternalID string) ([]*parcelgate.Balance, error) {
	c, err := callerOf(ctx)
	if err != nil {
		return nil, err
	}
	var removed []*parcelgate.Balance
	err = db.inTx(ctx, func(tx *Tx) error {
		stamp, err := tx.nextStamp(ctx, c.Environment)
		if err != nil {
			return err
		}
		var pid int64
		err = tx.QueryRow(ctx, `SELECT id FROM products WHERE supplier_org_id = ? AND external_id = ? AND status = 'ACTIVE'`, c.OrgID, productExternalID).Scan(&pid)
		if errors.Is(err, sql.ErrNoRows) {
			return parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", productExternalID)
		}
		if err != nil {
			return err
		}
		q := `SELECT ` + balanceCols + ` FROM balances b ` + balanceJoins + ` WHERE b.product_id = ? AND b.removed_at = 0`
		args := []any{pid}
		if retailerID != "" {
			q += ` AND ro.business_id = ?`
			args = append(args, retailerID)
		}
		if catalogExternalID != "" {
			q += ` AND c.external_id = ?`
			args = append(args, catalogExternalID)
		}
		rows, err := tx.Query(ctx, q+` ORDER BY b.id`, args...)
		if err != nil {
			return err
		}
		removed = removed[:0]
		for rows.Next() {
			b, _, err := scanBalance(rows)
			if err != nil {
				rows.Close()
				return err
			}
			removed = append(removed, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, b := range removed {
			if b.Allocated > 0 {
				return parcelgate.Errorf(parcelgate.ECONFLICT, "Product %s has %d allocated to open orders in catalog %s of retailer %s; release them with allocated: 0 (PUT /inventory/balances) before removing it.", productExternalID, b.Allocated, b.CatalogExternalID, b.RetailerID)
			}
			// A tombstone, not a deletion: the removal is a change that
			// retailers polling modifiedFromDate must see (DESIGN §6).
			if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = 0, removed_at = ?, modified_at = ? WHERE id = ?`, micros(stamp), micros(stamp), b.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if removed == nil {
		removed = []*parcelgate.Balance{}
	}
	return removed, nil
}

// readableCatalog resolves one of the caller's catalogs as retailer: any of
// them with role retailer, its Warehouse catalogs with only role merchant.
func (db *DB) readableCatalog(ctx context.Context, c *parcelgate.Caller, externalID string) (int64, error) {
	var id int64
	var typ string
	err := db.queryRow(ctx, `SELECT id, catalog_type FROM catalogs WHERE retailer_org_id = ? AND external_id = ?`, c.OrgID, externalID).Scan(&id, &typ)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !c.HasRole(parcelgate.RoleRetailer) && typ != string(parcelgate.CatalogWarehouse)) {
		return 0, parcelgate.Errorf(parcelgate.ENOTFOUND, "Catalog %s not found.", externalID)
	}
	return id, err
}

// retailerQuery starts a list of the balances of one of the caller's
// catalogs, or of all it may read, with EOS products for EOSVisibility.
func (db *DB) retailerQuery(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter) (*keysetQuery, error) {
	q := &keysetQuery{table: "balances b", alias: "b"}
	if catalogExternalID != "" {
		id, err := db.readableCatalog(ctx, c, catalogExternalID)
		if err != nil {
			return nil, err
		}
		q.where.add("b.catalog_id = ?", id)
	} else {
		q.where.add("b.retailer_org_id = ?", c.OrgID)
		if !c.HasRole(parcelgate.RoleRetailer) {
			q.where.add("b.catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ? AND catalog_type = ?)", c.OrgID, string(parcelgate.CatalogWarehouse))
		}
	}
	q.where.addVolatile("(b.eos_at = 0 OR b.eos_at > ?)", db.eosCutoff(c.Environment))
	db.contentFilter(c, q, f)
	return q, nil
}

func (db *DB) ListCatalogBalances(ctx context.Context, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	c, err := callerOf(ctx)
	if err != nil {
		return parcelgate.PageOf[*parcelgate.Balance]{}, err
	}
	q, err := db.retailerQuery(ctx, c, catalogExternalID, f)
	if err != nil {
		return parcelgate.PageOf[*parcelgate.Balance]{}, err
	}
	return keysetPage(ctx, db, q, pr, balanceCols, balanceJoins, scanBalance)
}

func (db *DB) ListCatalogProducts(ctx context.Context, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	c, err := callerOf(ctx)
	if err != nil {
		return parcelgate.PageOf[*parcelgate.InventoryItem]{}, err
	}
	q, err := db.retailerQuery(ctx, c, catalogExternalID, f)
	if err != nil {
		return parcelgate.PageOf[*parcelgate.InventoryItem]{}, err
	}
	return keysetPage(ctx, db, q, pr, balanceCols+`, `+productCols, balanceJoins, func(rows *sql.Rows) (*parcelgate.InventoryItem, pageKey, error) {
		b := newBalanceRow()
		var p productRow
		if err := rows.Scan(append(b.dest(), p.dest()...)...); err != nil {
			return nil, pageKey{}, err
		}
		k := b.finish()
		return &parcelgate.InventoryItem{Product: p.product(), Balances: []*parcelgate.Balance{b.Balance}}, k, nil
	})
}

func (db *DB) ListOwnCatalogs(ctx context.Context, role parcelgate.CatalogRole, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.CatalogEntry], error) {
	var res parcelgate.PageOf[*parcelgate.CatalogEntry]
	c, err := callerOf(ctx)
	if err != nil {
		return res, err
	}
	q := &keysetQuery{table: "catalogs c", alias: "c"}
	if role == parcelgate.CatalogRoleSupplier {
		q.where.add("c.id IN (SELECT catalog_id FROM catalog_suppliers WHERE supplier_org_id = ?)", c.OrgID)
	} else {
		q.where.add("c.retailer_org_id = ?", c.OrgID)
	}
	ids, err := keysetPage(ctx, db, q, pr, "c.id", "", func(rows *sql.Rows) (int64, pageKey, error) {
		var id int64
		err := rows.Scan(&id)
		return id, pageKey{id: id}, err
	})
	if err != nil || len(ids.Items) == 0 {
		res.Total, res.Next = ids.Total, ids.Next
		return res, err
	}
	rows, err := db.query(ctx, db.catalogSelect()+` WHERE c.id IN (`+placeholders(len(ids.Items))+`)`+catalogGroup+` ORDER BY c.id`, anys(ids.Items)...)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	for rows.Next() {
		cat, err := scanCatalog(rows)
		if err != nil {
			return res, err
		}
		e := &parcelgate.CatalogEntry{ExternalID: cat.ExternalID, Name: cat.Name, Type: cat.Type, RetailerID: cat.RetailerID, SupplierIDs: cat.SupplierIDs}
		if role == parcelgate.CatalogRoleSupplier {
			e.SupplierID = c.BusinessID
		}
		res.Items = append(res.Items, e)
	}
	res.Total, res.Next = ids.Total, ids.Next
	return res, rows.Err()
}

// lookupBalance finds the balance of a product of supplierOrg in the
// catalog catalogExternalID of retailerOrg, the key warehouse order rows
// name: (merchant, externalProductId, merchant, externalWarehouseId). It
// reports false when the product is not published there, also when it was
// removed from there. The balance of an EOS product is found; its quantity
// is 0.
func (tx *Tx) lookupBalance(ctx context.Context, supplierOrg int64, productExternalID string, retailerOrg int64, catalogExternalID string) (int64, bool, error) {
	var id int64
	err := tx.QueryRow(ctx, `SELECT b.id FROM products p
		JOIN balances b ON b.product_id = p.id
		JOIN catalogs c ON c.id = b.catalog_id
		WHERE p.supplier_org_id = ? AND p.external_id = ? AND c.retailer_org_id = ? AND c.external_id = ? AND b.removed_at = 0`,
		supplierOrg, productExternalID, retailerOrg, catalogExternalID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// moveStock adds dQuantity to a balance's quantity and dAllocated to its
// allocated, unless either would go negative, and stamps the change so
// pollers see it (DESIGN §6). It reports whether it moved: false means
// not enough stock (or allocation), and nothing changed. A removed balance
// never moves: its callers look balances up live, and a tombstone keeps
// quantity 0 until it is published again. Allocation is
// moveStock(id, -q, +q), delivery (0, -q), a cancellation (+q, -q).
//
// The caller takes stamp with tx.nextStamp before touching any balance, as
// the product and balance writers do, so every balance write of an
// environment runs under the same lock and none waits on another's row
// lock while holding a row lock itself.
func (tx *Tx) moveStock(ctx context.Context, balanceID, dQuantity, dAllocated int64, stamp time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE balances SET quantity = quantity + ?, allocated = allocated + ?, modified_at = ?
		WHERE id = ? AND removed_at = 0 AND quantity + ? >= 0 AND allocated + ? >= 0`, dQuantity, dAllocated, micros(stamp), balanceID, dQuantity, dAllocated)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MoveStock moves the stock of one balance, named as warehouse order rows
// name it, in a transaction of its own: moveStock by organization business
// IDs. It reports false when the product is not published in that catalog
// or the move would make quantity or allocated negative.
func (db *DB) MoveStock(ctx context.Context, env parcelgate.Environment, supplierID, productExternalID, retailerID, catalogExternalID string, dQuantity, dAllocated int64) (bool, error) {
	var moved bool
	err := db.inTx(ctx, func(tx *Tx) error {
		stamp, err := tx.nextStamp(ctx, env)
		if err != nil {
			return err
		}
		var supplierOrg, retailerOrg int64
		err = tx.QueryRow(ctx, `SELECT s.id, r.id FROM organizations s, organizations r WHERE s.environment = ? AND s.business_id = ? AND r.environment = ? AND r.business_id = ?`,
			string(env), supplierID, string(env), retailerID).Scan(&supplierOrg, &retailerOrg)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		id, found, err := tx.lookupBalance(ctx, supplierOrg, productExternalID, retailerOrg, catalogExternalID)
		if err != nil || !found {
			return err
		}
		moved, err = tx.moveStock(ctx, id, dQuantity, dAllocated, stamp)
		return err
	})
	return moved, err
}
