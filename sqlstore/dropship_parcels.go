package sqlstore

import (
	"context"
	"database/sql"

	"github.com/parcelgate/parcelgate"
)

// ListDropshipShipments pages the dropshipping shipments of c's
// organization for the console's parcels area (decisions §51), newest
// first by id with the console's keyset pager and no count: as the
// supplier that ships them (asRetailer false; a caller that may
// ActionSupplyShipments), or as the retailer whose orders they come from
// (asRetailer true; a caller that may ActionReadOrders, as
// OrderShipments). Each page reads its rows from the index of its side,
// (supplier_org_id, environment, id + 0) or (retailer_org_id,
// environment, id + 0) (migration 0051), whatever the organization holds.
// Another organization's shipments are never read: the organization is
// the list's first condition.
//
// The list is ordered and paged by id + 0, the same order as id's, so
// that only those indexes give it (decisions §67): ordered by id, the
// primary key gave the order too, and PostgreSQL's generic plan walked it
// backwards, filtering by organization, whenever it took an
// organization's share to be large (it estimates the average share, and
// a generic plan does not know the LIMIT). Without that choice, a page
// costs its rows whatever the estimate.
func (s *DropshipService) ListDropshipShipments(ctx context.Context, c *parcelgate.Caller, asRetailer bool, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.DropshipShipment], error) {
	side, action := dropshipSide(asRetailer)
	if err := c.May(action); err != nil {
		return parcelgate.Page[*parcelgate.DropshipShipment]{}, err
	}
	var f filterSQL
	f.add(side+" = ?", c.OrgID)
	f.add("environment = ?", string(c.Environment))
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.DropshipShipment], error) {
		q := newestFirstQuery(&f, "supplier_shipments", "", "")
		q.idCol = dropshipKey
		return keysetPage(ctx, r, q, p, dropshipColumns, "",
			func(rows *sql.Rows) (*parcelgate.DropshipShipment, pageKey, error) {
				row, err := scanSupply(rows)
				if err != nil {
					return nil, pageKey{}, err
				}
				return row.view(), pageKey{id: row.pk}, nil
			})
	})
}

// dropshipKey is the list's key, id in an order only migration 0051's
// indexes give (see ListDropshipShipments).
const dropshipKey = "id + 0"

// dropshipColumns are supplyColumns without the table's alias.
const dropshipColumns = `id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at`

// dropshipSide is the column that names the caller's organization on a
// side of the trade, and what the caller must be allowed to read it.
func dropshipSide(asRetailer bool) (string, parcelgate.Action) {
	if asRetailer {
		return "retailer_org_id", parcelgate.ActionReadOrders
	}
	return "supplier_org_id", parcelgate.ActionSupplyShipments
}
