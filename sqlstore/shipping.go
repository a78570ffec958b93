package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/parcelgate/parcelgate"
)

// ShippingService stores the shipping API's shipments (decisions §29) in
// the shipment data tables, so that sending codes, errand codes and
// tracking see them as any other shipment data. Every call is scoped to
// the caller's organization and environment.
type ShippingService struct{ db *DB }

// NewShippingService returns the shipping API's store over db.
func NewShippingService(db *DB) *ShippingService { return &ShippingService{db: db} }

var _ parcelgate.ShippingService = (*ShippingService)(nil)

// CreateShippingOrder registers s with OriginShipping. The parcel numbers
// are the caller's (parcelgate.NewParcelNumber); the shipment's tracking
// number is its first parcel's. A number the organization holds already
// (a chance of one in 10^17 for generated numbers) is ECONFLICT, and the
// caller draws again. Only a caller that may ActionCreateShipments
// (interface §5.1).
func (s *ShippingService) CreateShippingOrder(ctx context.Context, c *parcelgate.Caller, sh *parcelgate.Shipment) error {
	if err := c.May(parcelgate.ActionCreateShipments); err != nil {
		return err
	}
	sh.Origin = parcelgate.OriginShipping
	if len(sh.Parcels) > 0 {
		sh.TrackingNumber = sh.Parcels[0].ParcelID
	}
	if err := sh.Validate(); err != nil {
		return err
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		return insertShipment(ctx, tx, c.OrgID, c.Environment, sh)
	})
}

// FindShippingOrder finds c's shipment by its tracking number or by the
// number of one of its parcels. Only a caller that may
// ActionReadShipments (interface §5.1).
func (s *ShippingService) FindShippingOrder(ctx context.Context, c *parcelgate.Caller, number string) (*parcelgate.Shipment, error) {
	if err := c.May(parcelgate.ActionReadShipments); err != nil {
		return nil, err
	}
	n := parcelgate.NormalizeID(number)
	var tn string
	err := s.db.queryRow(ctx, `SELECT s.tracking_number FROM parcels p JOIN shipments s ON s.id = p.shipment_id WHERE p.org_id = ? AND p.parcel_id = ? AND s.environment = ?`,
		c.OrgID, n, string(c.Environment)).Scan(&tn)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tn = n
	case err != nil:
		return nil, err
	}
	sh, err := findShipment(ctx, s.db.primary(), c.OrgID, tn)
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
func (s *ShippingService) ShipmentCodes(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (parcelgate.ShipmentCodes, error) {
	if err := c.May(parcelgate.ActionReadCodes); err != nil {
		return parcelgate.ShipmentCodes{}, err
	}
	out := parcelgate.ShipmentCodes{ErrandCodes: map[string]string{}}
	rows, err := s.db.query(ctx, `SELECT parcel_id, code FROM codes WHERE org_id = ? AND environment = ? AND tracking_number = ? AND released_at = 0 AND expires_at > ?`,
		c.OrgID, string(c.Environment), parcelgate.NormalizeID(trackingNumber), micros(s.db.clock.Now(c.Environment)))
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
