package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// orderStock loads the balance of each row of an order for allocation, in
// one query: the product, named bare or with the business ID (either
// spelling finds it, the one the row uses first), published by the
// merchant to the merchant's warehouse catalog the row names. In the
// warehouse service the merchant is both supplier and retailer (decisions
// §6). A product removed from the warehouse is not published there: nil,
// as for a product never stocked there. The balances read are locked for
// the rest of tx.
func orderStock(ctx context.Context, tx *Tx, orgID int64, businessID string, rows []parcelgate.OrderRow, drop []bool) ([]*parcelgate.RowStock, error) {
	s, stock := orderStockStep(tx, orgID, businessID, rows, drop)
	if _, err := pipeline(ctx, tx, s); err != nil {
		return nil, err
	}
	return stock(), nil
}

// orderStockStep is orderStock as a step of a pipeline, and the function
// that gives its answer (never nil) once the step has run.
//
// drop says, by row, whether the row comes from a dropshipping catalog
// (OrderRequest.DropshipRows): such a row takes only a supplier's balance
// in that catalog, any other only the merchant's own in its warehouse.
func orderStockStep(tx *Tx, orgID int64, businessID string, rows []parcelgate.OrderRow, drop []bool) (step, func() []*parcelgate.RowStock) {
	type key struct{ product, warehouse string }
	forms := make([][]string, len(rows))
	// prefixes[i]: the supplier's business ID a row's product ID carries,
	// which a balance found by the bare ID must belong to.
	prefixes := make([]string, len(rows))
	var products, warehouses []any
	seenP, seenW := map[string]bool{}, map[string]bool{}
	for i, row := range rows {
		forms[i] = parcelgate.IDForms(businessID, row.ExternalProductID)
		if other, ok := parcelgate.OtherBusinessPrefix(businessID, row.ExternalProductID); ok {
			// A supplier's product in a dropshipping catalog (decisions
			// §34), stored bare or with its supplier's business ID.
			prefixes[i] = other
			forms[i] = []string{row.ExternalProductID, row.ExternalProductID[len(other)+1:]}
		}
		for _, f := range forms[i] {
			if !seenP[f] {
				seenP[f] = true
				products = append(products, f)
			}
		}
		if !seenW[row.ExternalWarehouseID] {
			seenW[row.ExternalWarehouseID] = true
			warehouses = append(warehouses, row.ExternalWarehouseID)
		}
	}
	// The merchant's own products in its warehouse catalogs, and any
	// supplier's in the retailer's dropshipping catalogs (decisions §34).
	args := append(append(products, warehouses...), orgID, string(parcelgate.CatalogWarehouse), orgID, string(parcelgate.CatalogDropship))
	found := map[key][]*parcelgate.RowStock{}
	// The statement gives its rows no order on SQLite (lockedInOrder): an
	// ORDER BY b.id made the catalog index (catalog_id, id) the plan that
	// avoids a sort, and SQLite took it over the product index
	// (product_external_id, catalog_id), reading the merchant's whole
	// warehouse catalog for each order, analyzed or not (issue 39: 20,000
	// balances, creating an order 8x slower; decisions §55). With no order
	// to give, the product index's two equality terms are the only
	// sensible plan.
	s := step{q: `SELECT b.id, b.quantity, b.wholesale_price, b.eos_at, p.document, b.product_external_id, c.external_id, c.catalog_type, b.supplier_org_id, so.business_id FROM balances b
		JOIN catalogs c ON c.id = b.catalog_id
		JOIN products p ON p.id = b.product_id
		JOIN organizations so ON so.id = b.supplier_org_id
		WHERE b.product_external_id IN (` + placeholders(len(products)) + `) AND c.external_id IN (` + placeholders(len(warehouses)) + `)
		AND c.retailer_org_id = ? AND (c.catalog_type = ? AND b.supplier_org_id = ? OR c.catalog_type = ?) AND b.removed_at = 0` + lockedInOrder(tx, "b"), args: args,
		scan: func(scan func(...any) error) error {
			var b parcelgate.RowStock
			var k key
			var price sql.NullString
			var eosAt, supplierOrg int64
			var doc, typ, supplierID string
			if err := scan(&b.BalanceID, &b.Available, &price, &eosAt, &doc, &k.product, &k.warehouse, &typ, &supplierOrg, &supplierID); err != nil {
				return err
			}
			d := parcelgate.ReadProductDocument([]byte(doc))
			b.Price, b.EOS, b.Fragile, b.Oversized = price.String, eosAt != 0, d.IsFragile, d.IsOversized
			if typ == string(parcelgate.CatalogDropship) {
				b.SupplierOrg, b.SupplierID = supplierOrg, supplierID
			}
			found[k] = append(found[k], &b)
			return nil
		}}
	return s, func() []*parcelgate.RowStock {
		// The first balance by id wins where a row's product has several
		// (a dropshipping catalog's suppliers): the rows come in no order.
		for _, bs := range found {
			slices.SortFunc(bs, func(x, y *parcelgate.RowStock) int { return cmp.Compare(x.BalanceID, y.BalanceID) })
		}
		stock := make([]*parcelgate.RowStock, len(rows))
		for i, row := range rows {
		forms:
			for fi, f := range forms[i] {
				for _, b := range found[key{f, row.ExternalWarehouseID}] {
					// A bare ID found for a row that names its supplier
					// must be that supplier's.
					if fi > 0 && prefixes[i] != "" && b.SupplierID != prefixes[i] {
						continue
					}
					if (b.SupplierID != "") != (i < len(drop) && drop[i]) {
						continue
					}
					stock[i] = b
					break forms
				}
			}
		}
		return stock
	}
}

// allocateOrder loads the stock of every row of rec's order, lets the
// domain decide the outcome (parcelgate.AllocateOrder, which applies the
// test scenarios), and when it allocates, returns the statement that takes
// each row's quantity (quantity -= q, allocated += q), for the caller's
// pipeline; the caller checks that it moved every balance it must.
//
// The caller has taken stamp, and with it the change clock, before any
// balance is touched, the lock order every balance writer keeps; the
// balances read are locked too, so what was read is what is taken from.
// The take is still one conditional UPDATE that refuses to go below zero,
// so no writer on either engine can oversell: should a balance have
// changed all the same, errStockMoved rolls the whole transaction back and
// the order is placed again on what is there then.
//
// stock, when not nil, is the stock of the order's rows, read by the
// caller under the same locks (orderStockStep).
func allocateOrder(ctx context.Context, tx *Tx, businessID string, whs orderCatalogs, rec *orderRecord, stamp time.Time, stock []*parcelgate.RowStock) (parcelgate.Allocation, step, []*parcelgate.RowStock, error) {
	rows := rec.order.Rows
	if stock == nil {
		var err error
		if stock, err = orderStock(ctx, tx, rec.orgID, businessID, rows, whs.drop); err != nil {
			return parcelgate.Allocation{}, step{}, nil, err
		}
	}
	a := parcelgate.AllocateOrder(rec.env, rec.order.ExternalID, rows, stock, whs.all())
	if !a.Allocates() {
		return a, step{}, stock, nil
	}
	return a, takeStock(a.Takes(rows), stamp), stock, nil
}

// errStockMoved reports a balance that no longer covered what its order
// was allocated from it; the order's transaction is retried.
var errStockMoved = errors.New("allocation: a balance changed under its lock")

// takeStock is the statement that applies the takes of an allocation
// (parcelgate.Allocation.Takes), all or nothing: the UPDATE moves only
// balances that cover what they give, and it must move want of them. When
// it moves fewer, the caller fails tx with errStockMoved, which rolls it
// back.
func takeStock(takes []parcelgate.StockMove, stamp time.Time) step {
	// CASE id WHEN ? THEN ? ... END: what each balance gives.
	var cases strings.Builder
	var caseArgs, idArgs []any
	cases.WriteString("CASE id")
	for _, m := range takes {
		cases.WriteString(" WHEN ? THEN CAST(? AS BIGINT)")
		caseArgs = append(caseArgs, m.BalanceID, m.Allocated)
		idArgs = append(idArgs, m.BalanceID)
	}
	cases.WriteString(" END")
	n := cases.String()
	args := slices.Concat(caseArgs, caseArgs, []any{micros(stamp)}, idArgs, caseArgs)
	return step{q: `UPDATE balances SET quantity = quantity - ` + n + `, allocated = allocated + ` + n + `, modified_at = ?
		WHERE id IN (` + placeholders(len(idArgs)) + `) AND removed_at = 0 AND quantity >= ` + n, args: args, want: int64(len(takes))}
}

// releaseOrder takes an allocated order's quantities out of allocated: back
// into quantity when restock (Cancelled, Error, replaced content), or gone
// with the parcels (Delivered). A supplier may have released allocations
// itself meanwhile (PUT balances with allocated 0, interface §4.4 rule 5);
// parcelgate.ReleaseHolds releases only what is still allocated. A balance
// removed meanwhile (possible only after such a release) holds nothing to
// return and keeps quantity 0 and its removal stamp.
func releaseOrder(ctx context.Context, tx *Tx, rec *orderRecord, restock bool, stamp time.Time) error {
	return releaseHeld(ctx, tx, `SELECT balance_id, quantity AS units, line AS ord FROM order_rows WHERE order_pk = ? AND balance_id <> 0`, []any{rec.pk}, restock, stamp)
}

// releaseHeld takes what holds's rows hold out of allocated: back into
// quantity when restock, else gone with the parcels, as
// parcelgate.ReleaseHolds decides from the balances' levels.
func releaseHeld(ctx context.Context, tx *Tx, holds string, args []any, restock bool, stamp time.Time) error {
	hs, levels, err := heldStock(ctx, tx, holds, args)
	if err != nil {
		return err
	}
	return applyStockMoves(ctx, tx, parcelgate.ReleaseHolds(levels, hs, restock), stamp)
}

// heldStock reads, in one statement, the holds that the query holds
// selects — columns balance_id, units and ord, the order to take them in —
// on live balances, with each balance's level, locked for the rest of tx.
// The rows are read whole before any update, as one connection cannot
// interleave statements.
func heldStock(ctx context.Context, tx *Tx, holds string, args []any) ([]parcelgate.StockHold, map[int64]parcelgate.StockLevel, error) {
	type held struct {
		parcelgate.StockHold
		parcelgate.StockLevel
	}
	rows, err := tx.Query(ctx, `SELECT h.balance_id, h.units, b.quantity, b.allocated FROM (`+holds+`) h JOIN balances b ON b.id = h.balance_id
		WHERE b.removed_at = 0 ORDER BY h.ord`+forUpdateOf(tx, "b"), args...)
	read, err := collect(rows, err, func(h *held) []any { return []any{&h.BalanceID, &h.Units, &h.Quantity, &h.Allocated} })
	if err != nil {
		return nil, nil, err
	}
	hs := make([]parcelgate.StockHold, len(read))
	levels := make(map[int64]parcelgate.StockLevel, len(read))
	for i, h := range read {
		hs[i], levels[h.BalanceID] = h.StockHold, h.StockLevel
	}
	return hs, levels, nil
}

// applyStockMoves adds each move to its live balance and stamps it.
func applyStockMoves(ctx context.Context, tx *Tx, moves []parcelgate.StockMove, stamp time.Time) error {
	for _, m := range moves {
		if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = quantity + ?, allocated = allocated + ?, modified_at = ? WHERE id = ? AND removed_at = 0`,
			m.Quantity, m.Allocated, micros(stamp), m.BalanceID); err != nil {
			return err
		}
	}
	return nil
}

// deliverOrder packs a delivered order (decisions §7): each row is one parcel
// with its own tracking code (several in the test scenario
// parcelgate.DeliveryParcels decides), listed on the row and on the order,
// and for each parcel shipment data is registered (tracking number = parcel
// ID), so sending and errand codes can be requested for it at once. NOUTO
// orders are picked up at the warehouse: their parcels get codes but ship
// nothing, so no shipment data.
func deliverOrder(ctx context.Context, tx *Tx, rec *orderRecord) error {
	o := rec.order
	o.TrackingCodes = []string{}
	o.DeliveryOperator = parcelgate.DeliveryOperator
	quantities := make([]parcelgate.Quantity, len(o.Rows))
	for i, row := range o.Rows {
		quantities[i] = row.Quantity
	}
	parcels := parcelgate.DeliveryParcels(rec.env, o.ExternalID, quantities)
	for i := range o.Rows {
		if o.Rows[i].SupplierID != "" {
			// Its supplier ships it (decisions §38: the warehouse part of a
			// mixed order packs only its own rows).
			continue
		}
		o.Rows[i].TrackingCodes = make([]string, 0, parcels[i])
		for range parcels[i] {
			code := parcelgate.NewTrackingNumber()
			if o.ServiceCode != parcelgate.ServiceNouto {
				s := &parcelgate.Shipment{TrackingNumber: code, ServiceCode: o.ServiceCode, Receiver: o.DeliveryAddress,
					Parcels: []parcelgate.Parcel{{ParcelID: code}}, Origin: parcelgate.OriginOrder,
					PickupPointID: o.PickupPointID, Reference: o.ExternalID}
				if o.Sender != nil {
					s.Sender = *o.Sender
				}
				// The shipment rules hold for what the warehouse registers as for
				// what a client sends; the order's addresses passed the same
				// checks when it was created.
				if err := s.Validate(); err != nil {
					return fmt.Errorf("order %s row %d: shipment data: %w", o.ExternalID, i, err)
				}
				if err := insertShipment(ctx, tx, rec.orgID, rec.env, s); err != nil {
					return err
				}
			}
			o.Rows[i].TrackingCodes = append(o.Rows[i].TrackingCodes, code)
			o.TrackingCodes = append(o.TrackingCodes, code)
		}
	}
	return nil
}
