package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// rowStock loads the balance of a row for allocation: the product, named
// bare or with the business ID (either spelling finds it, the one the row
// uses first), published by the merchant to the merchant's warehouse
// catalog the row names. In the warehouse service the merchant is both
// supplier and retailer (decisions §6). A product removed from the warehouse
// is not published there: nil, as for a product never stocked there. The
// balance is locked for the rest of tx.
func (tx *Tx) rowStock(ctx context.Context, orgID int64, businessID string, row parcelgate.OrderRow) (*parcelgate.RowStock, error) {
	forms := parcelgate.IDForms(businessID, row.ExternalProductID)
	in := strings.Repeat("?, ", len(forms))
	args := []any{forms[0]}
	for _, f := range forms {
		args = append(args, f)
	}
	args = append(args, orgID, row.ExternalWarehouseID, string(parcelgate.CatalogWarehouse), orgID)
	var b parcelgate.RowStock
	var price sql.NullString
	var eosAt int64
	var doc string
	err := tx.QueryRow(ctx, `SELECT b.id, b.quantity, b.wholesale_price, b.eos_at, p.document FROM balances b
		JOIN catalogs c ON c.id = b.catalog_id
		JOIN products p ON p.id = b.product_id
		WHERE b.product_external_id IN (`+in[:len(in)-2]+`) AND c.retailer_org_id = ? AND c.external_id = ? AND c.catalog_type = ? AND b.supplier_org_id = ? AND b.removed_at = 0
		ORDER BY CASE WHEN b.product_external_id = ? THEN 0 ELSE 1 END LIMIT 1`+tx.forUpdateOf("b"),
		append(args[1:], args[0])...).Scan(&b.BalanceID, &b.Available, &price, &eosAt, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var flags struct {
		IsFragile   bool `json:"isFragile"`
		IsOversized bool `json:"isOversized"`
	}
	json.Unmarshal([]byte(doc), &flags) // a flag of another type is no flag
	b.Price, b.EOS, b.Fragile, b.Oversized = price.String, eosAt != 0, flags.IsFragile, flags.IsOversized
	return &b, nil
}

// allocateOrder loads the stock of every row of rec's order, lets the
// domain decide the outcome (parcelgate.AllocateOrder, which applies the
// test scenarios), and when it allocates,
// takes each row's quantity: quantity -= q, allocated += q.
//
// The caller has taken stamp, and with it the change clock, before any
// balance is touched, the lock order every balance writer keeps; the
// balances read are locked too. Each take is still one conditional UPDATE
// that refuses to go below zero (moveStock), so no writer on either engine
// can oversell; should one be refused, the order's earlier takes roll back
// to a savepoint and the outcome is decided again on what is there now.
func (tx *Tx) allocateOrder(ctx context.Context, businessID string, whs []string, rec *orderRecord, stamp time.Time) (parcelgate.Allocation, error) {
	rows := rec.order.Rows
	for attempt := 0; ; attempt++ {
		stock := make([]*parcelgate.RowStock, len(rows))
		for i, row := range rows {
			var err error
			if stock[i], err = tx.rowStock(ctx, rec.orgID, businessID, row); err != nil {
				return parcelgate.Allocation{}, err
			}
		}
		a := parcelgate.AllocateOrder(rec.env, rec.order.ExternalID, rows, stock, whs)
		if !a.Allocates() {
			return a, nil
		}
		taken, err := tx.takeStock(ctx, rows, a.BalanceIDs, stamp)
		if err != nil || taken {
			return a, err
		}
		if attempt == 2 {
			return a, fmt.Errorf("order %s: allocation: the balances changed under their locks", rec.order.ExternalID)
		}
	}
}

// takeStock allocates each row's quantity from its balance, all or
// nothing; false when a balance no longer covers its row.
func (tx *Tx) takeStock(ctx context.Context, rows []parcelgate.OrderRow, balances []int64, stamp time.Time) (bool, error) {
	if _, err := tx.Exec(ctx, `SAVEPOINT allocate`); err != nil {
		return false, err
	}
	for i, row := range rows {
		ok, err := tx.moveStock(ctx, balances[i], -int64(row.Quantity), int64(row.Quantity), stamp)
		if err != nil {
			return false, err
		}
		if !ok {
			_, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT allocate`)
			return false, err
		}
	}
	_, err := tx.Exec(ctx, `RELEASE SAVEPOINT allocate`)
	return err == nil, err
}

// releaseOrder takes an allocated order's quantities out of allocated: back
// into quantity when restock (Cancelled, Error, replaced content), or gone
// with the parcels (Delivered). A supplier may have released allocations
// itself meanwhile (PUT balances with allocated 0, spec 4.4 rule 5); only
// what is still allocated is released, in the same statement, so nothing
// is returned twice and allocated never goes below zero. A balance removed
// meanwhile (possible only after such a release) holds nothing to return
// and keeps quantity 0 and its removal stamp.
func (tx *Tx) releaseOrder(ctx context.Context, rec *orderRecord, restock bool, stamp time.Time) error {
	return tx.releaseHeld(ctx, `SELECT balance_id, quantity FROM order_rows WHERE order_pk = ? AND balance_id <> 0 ORDER BY line`, []any{rec.pk}, restock, stamp)
}

// releaseHeld takes what query's (balance ID, quantity) rows hold out of
// allocated: back into quantity when restock, else gone with the parcels.
// Only what is still allocated is released, in the same statement, so
// nothing is returned twice and allocated never goes below zero; a removed
// balance holds nothing and keeps its removal stamp. The rows are read
// whole before the updates, as one connection cannot interleave them.
func (tx *Tx) releaseHeld(ctx context.Context, query string, args []any, restock bool, stamp time.Time) error {
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	type held struct{ balance, q int64 }
	var hs []held
	for rows.Next() {
		var h held
		if err := rows.Scan(&h.balance, &h.q); err != nil {
			rows.Close()
			return err
		}
		hs = append(hs, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	back := 0
	if restock {
		back = 1
	}
	for _, h := range hs {
		if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = quantity + ? * (CASE WHEN allocated < ? THEN allocated ELSE ? END),
			allocated = allocated - (CASE WHEN allocated < ? THEN allocated ELSE ? END), modified_at = ? WHERE id = ? AND removed_at = 0`,
			back, h.q, h.q, h.q, h.q, micros(stamp), h.balance); err != nil {
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
func (tx *Tx) deliverOrder(ctx context.Context, rec *orderRecord) error {
	o := rec.order
	o.TrackingCodes = []string{}
	o.DeliveryOperator = parcelgate.DeliveryOperator
	quantities := make([]parcelgate.Quantity, len(o.Rows))
	for i, row := range o.Rows {
		quantities[i] = row.Quantity
	}
	parcels := parcelgate.DeliveryParcels(rec.env, o.ExternalID, quantities)
	for i := range o.Rows {
		o.Rows[i].TrackingCodes = make([]string, 0, parcels[i])
		for range parcels[i] {
			code := parcelgate.NewTrackingNumber()
			if o.ServiceCode != parcelgate.ServiceNouto {
				s := &parcelgate.Shipment{TrackingNumber: code, ServiceCode: o.ServiceCode, Receiver: o.DeliveryAddress,
					Parcels: []parcelgate.Parcel{{ParcelID: code}}}
				if o.Sender != nil {
					s.Sender = *o.Sender
				}
				// The shipment rules hold for what the warehouse registers as for
				// what a client sends; the order's addresses passed the same
				// checks when it was created.
				if err := s.Validate(); err != nil {
					return fmt.Errorf("order %s row %d: shipment data: %w", o.ExternalID, i, err)
				}
				if err := tx.insertShipment(ctx, rec.orgID, rec.env, s); err != nil {
					return err
				}
			}
			o.Rows[i].TrackingCodes = append(o.Rows[i].TrackingCodes, code)
			o.TrackingCodes = append(o.TrackingCodes, code)
		}
	}
	return nil
}
