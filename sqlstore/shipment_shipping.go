package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/parcelgate/parcelgate"
)

// The shipping API's shipments (decisions §29) are shipment data like any
// other, in the same tables, so that sending codes, errand codes and
// tracking see them as any other shipment data. Every call is scoped to
// the caller's organization and environment.

// shippingAttempts bounds the draws of a shipping API shipment's numbers:
// a number taken between the check and the insert (by a concurrent
// request; a chance of one in 10^17 for drawn numbers) fails the
// transaction, and the shipment is numbered again in a new one.
const shippingAttempts = 3

// CreateShippingOrder validates sh as a shipping API shipment and decides
// its pick-up point (parcelgate.Shipment.ValidateShippingOrder), then
// registers it with OriginShipping, its parcels numbered by insertShipment
// and its tracking number its first parcel's. Only a caller that may
// ActionCreateShipments (interface §5.1).
func (s *ShipmentService) CreateShippingOrder(ctx context.Context, c *parcelgate.Caller, sh *parcelgate.Shipment) error {
	if err := c.May(parcelgate.ActionCreateShipments); err != nil {
		return err
	}
	sh.Origin = parcelgate.OriginShipping
	if err := sh.ValidateShippingOrder(s.points); err != nil {
		return err
	}
	var err error
	for range shippingAttempts {
		sh.TrackingNumber = ""
		for i := range sh.Parcels {
			sh.Parcels[i].ParcelID = ""
		}
		err = s.db.inTx(ctx, func(tx *Tx) error {
			return insertShipment(ctx, tx, c.OrgID, c.Environment, sh)
		})
		if parcelgate.ErrorCode(err) != parcelgate.ECONFLICT {
			break
		}
	}
	return err
}

// FindShippingOrder finds c's shipment by its tracking number or by the
// number of one of its parcels. Only a caller that may
// ActionReadShipments (interface §5.1).
func (s *ShipmentService) FindShippingOrder(ctx context.Context, c *parcelgate.Caller, number string) (*parcelgate.Shipment, error) {
	if err := c.May(parcelgate.ActionReadShipments); err != nil {
		return nil, err
	}
	n := parcelgate.NormalizeID(number)
	var tn string
	own := tenantOf(c, "", "p.org_id")
	err := s.db.queryRow(ctx, `SELECT s.tracking_number FROM parcels p JOIN shipments s ON s.id = p.shipment_id WHERE `+own.sql()+` AND p.parcel_id = ? AND s.environment = ?`,
		own.with(n, string(c.Environment))...).Scan(&tn)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tn = n
	case err != nil:
		return nil, err
	}
	sh, err := findShipment(ctx, s.db.primary(), c, tn)
	if err != nil {
		return nil, err
	}
	if sh.Environment != c.Environment {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Shipment not found")
	}
	return sh, nil
}

// ShipmentCodes reads the active codes held for c's shipment in one query:
// the sending code (held by the tracking number, no parcel) and the errand
// codes (held by its parcels). Only a caller that may ActionReadCodes
// (interface §5.1).
func (s *ShipmentService) ShipmentCodes(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (parcelgate.ShipmentCodes, error) {
	if err := c.May(parcelgate.ActionReadCodes); err != nil {
		return parcelgate.ShipmentCodes{}, err
	}
	out := parcelgate.ShipmentCodes{ErrandCodes: map[string]string{}}
	own := tenantOf(c, "", "org_id")
	rows, err := s.db.query(ctx, `SELECT parcel_id, code FROM codes WHERE `+own.sql()+` AND environment = ? AND tracking_number = ? AND released_at = 0 AND expires_at > ?`,
		own.with(string(c.Environment), parcelgate.NormalizeID(trackingNumber), micros(s.db.clock.Now(c.Environment)))...)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var parcel, code string
		if err := rows.Scan(&parcel, &code); err != nil {
			return out, err
		}
		if parcel == "" {
			out.SendingCode = code
		} else {
			out.ErrandCodes[parcel] = code
		}
	}
	return out, rows.Err()
}
