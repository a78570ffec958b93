package sqlstore

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// ShipmentCodeHistory returns every code c's shipment held, newest first,
// from the index codes_org_tracking (org_id, tracking_number, created_at)
// (migration 0029): the shipment's own rows, however many codes the
// organization holds. Only a caller that may ActionReadCodes: a gateway
// client, the operator, and any service account of the organization
// (decisions §40).
func (s *CodeService) ShipmentCodeHistory(ctx context.Context, c *parcelgate.Caller, trackingNumber string) ([]parcelgate.HeldCode, error) {
	if err := c.May(parcelgate.ActionReadCodes); err != nil {
		return nil, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) ([]parcelgate.HeldCode, error) {
		own := tenantOf(c, "", "org_id")
		rows, err := r.Query(ctx, `SELECT code, tracking_number, parcel_id, created_at, expires_at, released_at FROM codes
			WHERE `+own.sql()+` AND tracking_number = ? AND environment = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
			own.with(parcelgate.NormalizeID(trackingNumber), string(c.Environment), parcelgate.MaxCodeHistory)...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		now := s.db.clock.Now(c.Environment)
		var out []parcelgate.HeldCode
		for rows.Next() {
			var k parcelgate.HeldCode
			var created, expires, released int64
			if err := rows.Scan(&k.Code, &k.TrackingNumber, &k.ParcelID, &created, &expires, &released); err != nil {
				return nil, err
			}
			k.CreatedAt, k.ExpiresAt = fromMicros(created), fromMicros(expires)
			if released != 0 {
				k.ReleasedAt = fromMicros(released)
			}
			k.State = parcelgate.CodeState(k.ExpiresAt, k.ReleasedAt, now)
			out = append(out, k)
		}
		return out, rows.Err()
	})
}
