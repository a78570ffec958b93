package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The balance writer: it loads what parcelgate.PlanBalances needs, and
// writes the plan. It runs in a transaction that holds the environment's
// stamp (see the note in inventory.go).

// productRef is a product of the caller as loaded for a write.
type productRef struct {
	id     int64
	stored string // external_id as stored: bare or prefixed
	active bool
}

// stockWriter loads and writes the caller's products and balances in tx.
type stockWriter struct {
	tx *Tx
	c  *parcelgate.Caller
	us int64
	// refs are the caller's products by parcelgate.ProductKey, any
	// status; those the request creates join them once written.
	refs map[string]productRef
	st   parcelgate.StockState
}

func newStockWriter(tx *Tx, c *parcelgate.Caller, us int64) *stockWriter {
	return &stockWriter{tx: tx, c: c, us: us, refs: map[string]productRef{}}
}

// PutBalances acts only for a caller that may ActionPublishBalances (interface
// §5.2), as PUT /inventory/balances asks, and then only on entries that
// pass parcelgate.CheckBalances: who may act is decided before what was
// sent, and what any front end sends is checked here (decisions §57).
func (s *InventoryService) PutBalances(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.BalanceInput) ([]*parcelgate.Balance, error) {
	if err := c.May(parcelgate.ActionPublishBalances); err != nil {
		return nil, err
	}
	if err := parcelgate.CheckBalances(c.BusinessID, entries); err != nil {
		return nil, err
	}
	var touched []int64
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		w := newStockWriter(tx, c, micros(stamp))
		keys := make([]string, len(entries))
		groups := make([][]parcelgate.BalanceInput, len(entries))
		for i, e := range entries {
			keys[i] = parcelgate.ProductKey(c.BusinessID, e.ProductExternalID)
			groups[i] = []parcelgate.BalanceInput{e}
		}
		if err := w.load(ctx, keys); err != nil {
			return err
		}
		plan := parcelgate.PlanBalances(w.st, groups)
		if len(plan.Failed) > 0 {
			var p parcelgate.Problems
			for _, i := range slices.Sorted(maps.Keys(plan.Failed)) {
				for _, f := range plan.Failed[i].Fields {
					p.AddAt(i, f.Field, "%s", f.Message)
				}
			}
			err := p.Err().(*parcelgate.Error)
			err.Message = fmt.Sprintf("%d balance entries cannot be applied; nothing was changed. First: %s", len(plan.Failed), strings.TrimPrefix(err.Message, "Validation failed: "))
			return err
		}
		touched, err = w.write(ctx, plan)
		return err
	})
	if err != nil {
		return nil, err
	}
	rows, err := balancesByID(ctx, s.db.primary(), c, touched)
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

// load reads what planning needs: the products of keys (in either stored
// form; where a supplier has both forms of one ID, from before bare IDs
// were accepted, the bare one is the product), the catalogs open to the
// supplier, and where the products are published.
//
// On PostgreSQL the lookups by a list of keys are written as one seek per
// key (unnest and a LATERAL subquery that OFFSET 0 or LIMIT keeps from
// being flattened into a join, or from taking the outer conditions), not
// as "supplier AND key IN (list)". The list
// form leaves PostgreSQL a choice between the key's index and an index on
// the supplier alone filtered by the list, and it chooses by statistics:
// while a supplier's first catalog is loading, statistics taken when the
// supplier had few products (or none, before the first ANALYZE) make the
// supplier's index look as cheap, and every request then compared each of
// the supplier's stored products with each ID of the list: the time of a
// 2000-product PUT grew with the catalog (0.18 s at none, 3.5 s at 34,000)
// until requests ran out of time. Each seek costs the same however many
// products are stored, whatever the planner believes. Inside each seek only
// the key is named where an index on the supplier could compete (the
// balance's product; the supplier and tombstone are checked on the rows
// the seek returns); a product's key begins with its supplier, so there
// the seek is ordered by the key (unique, so LIMIT 1 loses nothing), which
// only the key's index gives without a sort.
func (w *stockWriter) load(ctx context.Context, keys []string) error {
	w.st = parcelgate.StockState{SupplierID: w.c.BusinessID, Products: map[string]bool{}, Published: map[string][]parcelgate.PublishedBalance{}}
	var forms []string
	for _, k := range keys {
		forms = append(forms, parcelgate.ProductIDForms(w.c.BusinessID, k)...)
	}
	slices.Sort(forms)
	own := tenantOf(w.c, "", "supplier_org_id")
	for chunk := range slices.Chunk(slices.Compact(forms), 500) {
		var rows *sql.Rows
		var err error
		if w.tx.d.name == "postgres" {
			// One seek of the (supplier_org_id, external_id) key per ID,
			// whatever the statistics say (see load).
			rows, err = w.tx.Query(ctx, `SELECT p.id, p.external_id, p.status = 'ACTIVE' FROM unnest(?::text[]) AS k(ext)
				CROSS JOIN LATERAL (SELECT id, external_id, status FROM products WHERE `+own.sql()+` AND external_id = k.ext ORDER BY supplier_org_id, external_id LIMIT 1) p`, append([]any{chunk}, own.with()...)...)
		} else {
			rows, err = w.tx.Query(ctx, `SELECT id, external_id, status = 'ACTIVE' FROM products WHERE `+own.sql()+` AND external_id IN (`+placeholders(len(chunk))+`)`, own.with(anys(chunk)...)...)
		}
		refs, err := collect(rows, err, func(r *productRef) []any { return []any{&r.id, &r.stored, &r.active} })
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if key := parcelgate.ProductKey(w.c.BusinessID, ref.stored); w.refs[key].stored != key {
				w.refs[key] = ref // the bare form wins over the prefixed one
			}
		}
	}
	keyOf := map[int64]string{}
	var ids []int64
	for k, ref := range w.refs {
		w.st.Products[k] = ref.active
		keyOf[ref.id] = k
		ids = append(ids, ref.id)
	}
	supplier := tenantOf(w.c, "", "cs.supplier_org_id")
	rows, err := w.tx.Query(ctx, `SELECT c.id, c.retailer_org_id, ro.business_id, c.external_id FROM catalog_suppliers cs
		JOIN catalogs c ON c.id = cs.catalog_id JOIN organizations ro ON ro.id = c.retailer_org_id WHERE `+supplier.sql(), supplier.with()...)
	if w.st.Open, err = collect(rows, err, catalogRefDest); err != nil {
		return err
	}
	slices.Sort(ids)
	balance := tenantOf(w.c, "", "b.supplier_org_id")
	for chunk := range slices.Chunk(ids, 500) {
		type pub struct {
			pid int64
			parcelgate.PublishedBalance
		}
		var rows *sql.Rows
		var err error
		if w.tx.d.name == "postgres" {
			// One seek of the (product_id, catalog_id) key per product
			// (see load).
			rows, err = w.tx.Query(ctx, `SELECT b.product_id, b.id, c.id, c.retailer_org_id, ro.business_id, c.external_id FROM unnest(?::bigint[]) AS k(pid)
				CROSS JOIN LATERAL (SELECT id, product_id, catalog_id, supplier_org_id, removed_at FROM balances WHERE product_id = k.pid OFFSET 0) b
				JOIN catalogs c ON c.id = b.catalog_id JOIN organizations ro ON ro.id = c.retailer_org_id
				WHERE `+balance.sql()+` AND b.removed_at = 0 ORDER BY b.id`, append([]any{chunk}, balance.with()...)...)
		} else {
			rows, err = w.tx.Query(ctx, `SELECT b.product_id, b.id, c.id, c.retailer_org_id, ro.business_id, c.external_id FROM balances b
				JOIN catalogs c ON c.id = b.catalog_id JOIN organizations ro ON ro.id = c.retailer_org_id
				WHERE `+balance.sql()+` AND b.removed_at = 0 AND b.product_id IN (`+placeholders(len(chunk))+`) ORDER BY b.id`, balance.with(anys(chunk)...)...)
		}
		pubs, err := collect(rows, err, func(p *pub) []any { return append([]any{&p.pid, &p.BalanceID}, catalogRefDest(&p.Catalog)...) })
		if err != nil {
			return err
		}
		for _, p := range pubs {
			w.st.Published[keyOf[p.pid]] = append(w.st.Published[keyOf[p.pid]], p.PublishedBalance)
		}
	}
	return nil
}

func catalogRefDest(c *parcelgate.CatalogRef) []any {
	return []any{&c.ID, &c.RetailerOrg, &c.RetailerID, &c.ExternalID}
}

// write writes a plan and returns the IDs of the balances it touched, in
// the plan's order. Every product it names is in refs by then.
func (w *stockWriter) write(ctx context.Context, plan parcelgate.BalancePlan) ([]int64, error) {
	var pubs, ups []*parcelgate.BalanceWrite
	for _, bw := range plan.Writes {
		if bw.Publishes() {
			pubs = append(pubs, bw)
		} else {
			ups = append(ups, bw)
		}
	}
	published, err := w.publish(ctx, pubs)
	if err != nil {
		return nil, err
	}
	if err := w.update(ctx, ups); err != nil {
		return nil, err
	}
	touched := make([]int64, len(plan.Writes))
	for i, bw := range plan.Writes {
		touched[i] = bw.BalanceID
		if bw.Publishes() {
			touched[i] = published[bw]
		}
	}
	return touched, nil
}

// publish writes the balances the plan publishes (interface §4.4 PUT balances
// rule 1), many to a statement, and returns the IDs they got. A tombstone
// left in the catalog by an earlier removal is revived: it takes the
// values as a new balance would, and the new stamp. A live balance is never
// overwritten here (the planner updates those), so one would come back
// missing from RETURNING and fail the request.
func (w *stockWriter) publish(ctx context.Context, pubs []*parcelgate.BalanceWrite) (map[*parcelgate.BalanceWrite]int64, error) {
	out := make(map[*parcelgate.BalanceWrite]int64, len(pubs))
	const cols = 9
	for chunk := range slices.Chunk(pubs, maxParams/cols) {
		args := make([]any, 0, len(chunk)*cols)
		byKey := make(map[[2]int64]*parcelgate.BalanceWrite, len(chunk))
		for _, bw := range chunk {
			var qty int64
			if bw.Quantity != nil {
				qty = *bw.Quantity
			}
			ref := w.refs[bw.ProductKey]
			args = append(args, ref.id, bw.Catalog.ID, w.c.OrgID, bw.Catalog.RetailerOrg, ref.stored, qty, opt(bw.WholesalePrice), opt(bw.Currency), w.us)
			byKey[[2]int64{ref.id, bw.Catalog.ID}] = bw
		}
		type written struct{ id, product, catalog int64 }
		rows, err := w.tx.Query(ctx, `INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, quantity, wholesale_price, currency, modified_at, allocated, eos_at, removed_at)
			VALUES `+valueRows(len(chunk), "?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0")+`
			ON CONFLICT (product_id, catalog_id) DO UPDATE SET quantity = excluded.quantity, allocated = 0, wholesale_price = excluded.wholesale_price,
				currency = excluded.currency, eos_at = 0, removed_at = 0, modified_at = excluded.modified_at, product_external_id = excluded.product_external_id
			WHERE balances.removed_at <> 0
			RETURNING id, product_id, catalog_id`, args...)
		ws, err := collect(rows, err, func(x *written) []any { return []any{&x.id, &x.product, &x.catalog} })
		if err != nil {
			return nil, err
		}
		for _, x := range ws {
			out[byKey[[2]int64{x.product, x.catalog}]] = x.id
		}
		if len(ws) != len(chunk) {
			return nil, fmt.Errorf("publish balances: %d of %d written: a balance to publish is live already", len(ws), len(chunk))
		}
	}
	return out, nil
}

// update writes the planned changes of live balances (interface §4.4 PUT
// balances rules 2-5), many to a statement.
func (w *stockWriter) update(ctx context.Context, ups []*parcelgate.BalanceWrite) error {
	const cols = 5
	for chunk := range slices.Chunk(ups, (maxParams-1)/cols) {
		args := make([]any, 0, len(chunk)*cols+1)
		for _, bw := range chunk {
			args = append(args, bw.BalanceID, opt(bw.Quantity), opt(bw.Allocated), opt(bw.WholesalePrice), opt(bw.Currency))
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
