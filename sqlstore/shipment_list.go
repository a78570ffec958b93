package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// ListShipments pages the organization's shipments of every origin (the
// shipping API, the shipment data alias, warehouse orders' deliveries) by
// id, newest first, with the console's keyset pager: each page is read
// from the index shipments_org_id (org_id, id) in its order, LIMIT 51
// rows, whatever the organization holds (migration 0029; decisions §40).
// A search keeps the ids its lookups find, each by an index: the tracking
// number (org_id, tracking_number), a parcel's number (org_id, parcel_id),
// an active code (environment, code) and the reference (org_id,
// UPPER(reference)). The page's parcels are read in one more statement.
// Only a caller that may ActionReadShipments: a gateway client, the
// operator, and any service account of the organization (decisions §40).
func (s *ShipmentService) ListShipments(ctx context.Context, c *parcelgate.Caller, q parcelgate.ShipmentSearch, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Shipment], error) {
	if err := c.May(parcelgate.ActionReadShipments); err != nil {
		return parcelgate.Page[*parcelgate.Shipment]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.Shipment], error) {
		var f filterSQL
		f.tenant(c, "", "org_id")
		f.add("environment = ?", string(c.Environment))
		var lookups []string
		var args []any
		own, code := tenantOf(c, "", "org_id"), tenantOf(c, "", "k.org_id")
		if q.Number != "" {
			lookups = append(lookups,
				`SELECT id FROM shipments WHERE `+own.sql()+` AND tracking_number = ?`,
				`SELECT shipment_id FROM parcels WHERE `+own.sql()+` AND parcel_id = ?`,
				`SELECT h.id FROM codes k JOIN shipments h ON h.org_id = k.org_id AND h.tracking_number = k.tracking_number
					WHERE k.environment = ? AND k.code = ? AND k.released_at = 0 AND k.expires_at > ? AND `+code.sql())
			args = slices.Concat(args, own.with(q.Number), own.with(q.Number),
				[]any{string(c.Environment), q.Number, micros(s.db.clock.Now(c.Environment))}, code.with())
		}
		if q.Reference != "" {
			lookups = append(lookups, `SELECT id FROM shipments WHERE `+own.sql()+` AND UPPER(reference) = UPPER(?)`)
			args = append(args, own.with(q.Reference)...)
		}
		if len(lookups) > 0 {
			f.add("id IN ("+strings.Join(lookups, " UNION ")+")", args...)
		}
		page, err := keysetPage(ctx, r, newestFirstQuery(&f, "shipments", "", ""), p, shipmentColumns, "",
			func(rows *sql.Rows) (*parcelgate.Shipment, pageKey, error) {
				var row shipmentRow
				if err := rows.Scan(row.dest()...); err != nil {
					return nil, pageKey{}, err
				}
				sh, err := row.shipment()
				if err != nil {
					return nil, pageKey{}, err
				}
				return sh, pageKey{id: sh.ID}, nil
			})
		if err != nil || len(page.Items) == 0 {
			return page, err
		}
		return page, pageParcels(ctx, r, c, page.Items)
	})
}

// pageParcels fills in the parcels of a page's shipments of c's
// organization in one statement, each shipment's in order. The
// parcels are found by shipment (the primary key, shipment_id first);
// the organization is checked on them, `+ 0` keeping it out of the
// index choice: PostgreSQL's generic plan, which estimates an
// organization's parcels at the average's share, otherwise ANDs the
// primary key's entries with the organization's every entry of
// (org_id, parcel_id), a million for the big merchant (decisions §63).
func pageParcels(ctx context.Context, r reader, c *parcelgate.Caller, shipments []*parcelgate.Shipment) error {
	own := tenantOf(c, "", "org_id + 0")
	byID := make(map[int64]*parcelgate.Shipment, len(shipments))
	ids := own.with()
	for _, sh := range shipments {
		sh.Parcels = []parcelgate.Parcel{}
		byID[sh.ID] = sh
		ids = append(ids, sh.ID)
	}
	rows, err := r.Query(ctx, `SELECT shipment_id, parcel_id, package_code, weight, length, width, height, locker_size, contents FROM parcels
		WHERE `+own.sql()+` AND shipment_id IN (`+placeholders(len(shipments))+`) ORDER BY shipment_id, position`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var p parcelgate.Parcel
		var w, l, wd, h sql.NullFloat64
		var size string
		if err := rows.Scan(&id, &p.ParcelID, &p.PackageCode, &w, &l, &wd, &h, &size, &p.Contents); err != nil {
			return err
		}
		p.Weight, p.Length, p.Width, p.Height, p.LockerSize = floatPtr(w), floatPtr(l), floatPtr(wd), floatPtr(h), parcelgate.LockerSize(size)
		if sh := byID[id]; sh != nil {
			sh.Parcels = append(sh.Parcels, p)
		}
	}
	return rows.Err()
}
