package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/parcelgate/parcelgate"
)

// allocation is the outcome of allocating an order's rows.
type allocation struct {
	status    parcelgate.OrderStatus // Created, Error or Cancelled
	reason    string
	allocated bool // the rows' quantities are now held
	// balanceIDs are the balances the rows allocate from, by row; 0 for a
	// row whose product was not found.
	balanceIDs []int64
}

// orderBalance is what allocation reads of a row's balance.
type orderBalance struct {
	id       int64
	price    string // decimal text, "" when unpriced
	eos      bool
	fragile  bool
	oversize bool
}

// rowBalance finds the balance of a row: the product of the merchant
// published to the merchant's warehouse catalog the row names. In the
// warehouse service the merchant is both supplier and retailer (DESIGN §6).
// A product removed from the warehouse is not published there: no balance,
// so the order is stored Error as for a product never stocked there.
func (tx *Tx) rowBalance(ctx context.Context, orgID int64, row parcelgate.OrderRow) (*orderBalance, error) {
	var b orderBalance
	var price sql.NullString
	var eosAt int64
	var doc string
	err := tx.QueryRow(ctx, `SELECT b.id, b.wholesale_price, b.eos_at, p.document FROM balances b
		JOIN catalogs c ON c.id = b.catalog_id
		JOIN products p ON p.id = b.product_id
		WHERE b.product_external_id = ? AND c.retailer_org_id = ? AND c.external_id = ? AND c.catalog_type = ? AND b.supplier_org_id = ? AND b.removed_at = 0`,
		row.ExternalProductID, orgID, row.ExternalWarehouseID, string(parcelgate.CatalogWarehouse), orgID).Scan(&b.id, &price, &eosAt, &doc)
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
	b.price, b.eos, b.fragile, b.oversize = price.String, eosAt != 0, flags.IsFragile, flags.IsOversized
	return &b, nil
}

// unknownRowReason says why a row has no balance: the warehouse is not the
// merchant's, or the product is not stocked there.
func (tx *Tx) unknownRowReason(ctx context.Context, orgID int64, row parcelgate.OrderRow) (string, error) {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM catalogs WHERE retailer_org_id = ? AND external_id = ? AND catalog_type = ?`, orgID, row.ExternalWarehouseID, string(parcelgate.CatalogWarehouse)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Sprintf("Warehouse %s is not one of your warehouses.", row.ExternalWarehouseID), nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Product %s is not stocked in warehouse %s: create it and publish it there before ordering it.", row.ExternalProductID, row.ExternalWarehouseID), nil
}

// allocateOrder reserves the stock of every row of rec's order, all or
// nothing (DESIGN §7): on each row's balance quantity -= q and allocated +=
// q. A product unknown in its warehouse gives Error, too little stock
// Cancelled; either way nothing stays allocated. It also prices the rows
// and collects the value-added services of the products.
//
// Each row is one conditional UPDATE that refuses to take quantity below
// zero (moveStock), so no interleaving of writers on either engine can
// oversell; a refused row rolls the order's earlier rows back to a
// savepoint. The caller has taken stamp, and with it the change clock,
// before any balance is touched, the lock order every balance writer keeps.
func (tx *Tx) allocateOrder(ctx context.Context, rec *orderRecord, stamp time.Time) (allocation, error) {
	o := rec.order
	out := allocation{status: parcelgate.OrderCreated, balanceIDs: make([]int64, len(o.Rows))}
	o.AdditionalServices = []string{}
	total := new(big.Rat)
	var missing string
	for i := range o.Rows {
		row := &o.Rows[i]
		row.WholesalePrice = 0
		b, err := tx.rowBalance(ctx, rec.orgID, *row)
		if err != nil {
			return out, err
		}
		switch {
		case b == nil && missing == "":
			if missing, err = tx.unknownRowReason(ctx, rec.orgID, *row); err != nil {
				return out, err
			}
		case b != nil && b.eos && missing == "":
			missing = fmt.Sprintf("Product %s is end of sale (EOS).", row.ExternalProductID)
		}
		if b == nil {
			continue
		}
		out.balanceIDs[i] = b.id
		if price, ok := new(big.Rat).SetString(b.price); ok {
			row.WholesalePrice, _ = price.Float64()
			total.Add(total, price.Mul(price, big.NewRat(int64(row.Quantity), 1)))
		}
		if b.fragile && !slices.Contains(o.AdditionalServices, parcelgate.ServiceFragile) {
			o.AdditionalServices = append(o.AdditionalServices, parcelgate.ServiceFragile)
		}
		if b.oversize && !slices.Contains(o.AdditionalServices, parcelgate.ServiceOversized) {
			o.AdditionalServices = append(o.AdditionalServices, parcelgate.ServiceOversized)
		}
	}
	o.TotalWholeSalePrice, _ = total.Float64()
	if missing != "" {
		out.status, out.reason = parcelgate.OrderError, missing
		return out, nil
	}
	if status, reason, ok := parcelgate.OrderScenario(rec.env, o.ExternalID); ok {
		out.status, out.reason = status, reason
		return out, nil
	}
	if _, err := tx.Exec(ctx, `SAVEPOINT allocate`); err != nil {
		return out, err
	}
	for i, row := range o.Rows {
		ok, err := tx.moveStock(ctx, out.balanceIDs[i], -int64(row.Quantity), int64(row.Quantity), stamp)
		if err != nil {
			return out, err
		}
		if ok && !parcelgate.AlwaysOutOfStock(rec.env, row.ExternalProductID) {
			continue
		}
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT allocate`); err != nil {
			return out, err
		}
		var available int64
		if err := tx.QueryRow(ctx, `SELECT quantity FROM balances WHERE id = ?`, out.balanceIDs[i]).Scan(&available); err != nil {
			return out, err
		}
		if parcelgate.AlwaysOutOfStock(rec.env, row.ExternalProductID) {
			available = 0
		}
		out.status = parcelgate.OrderCancelled
		out.reason = fmt.Sprintf("Not enough stock: product %s has %d available in warehouse %s, the order needs %d.", row.ExternalProductID, available, row.ExternalWarehouseID, row.Quantity)
		return out, nil
	}
	if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT allocate`); err != nil {
		return out, err
	}
	out.allocated = true
	return out, nil
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
	rows, err := tx.Query(ctx, `SELECT balance_id, quantity FROM order_rows WHERE order_pk = ? AND balance_id <> 0 ORDER BY line`, rec.pk)
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

// deliverOrder packs a delivered order (DESIGN §7): each row is one parcel
// with its own tracking code, listed on the row and on the order, and for
// each parcel shipment data is registered (tracking number = parcel ID),
// so sending and errand codes can be requested for it at once. NOUTO
// orders are picked up at the warehouse: their parcels get codes but ship
// nothing, so no shipment data.
func (tx *Tx) deliverOrder(ctx context.Context, rec *orderRecord) error {
	o := rec.order
	o.TrackingCodes = []string{}
	o.DeliveryOperator = parcelgate.DeliveryOperator
	for i := range o.Rows {
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
		o.Rows[i].TrackingCodes = []string{code}
		o.TrackingCodes = append(o.TrackingCodes, code)
	}
	return nil
}
