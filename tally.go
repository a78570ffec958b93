package parcelgate

import (
	"context"
	"slices"
)

// Kept counts (decisions §52): how many rows of a kind an organization (or
// an environment) has in each status, kept by the database on every write
// in the writing transaction, so reading one costs a few index entries
// whatever the tenant's size, and is exact in the snapshot it is read in.

// TallyKind names what a kept count counts.
type TallyKind string

const (
	// TallyOrders counts orders per organization and status, and per
	// environment and status (OrgID 0).
	TallyOrders TallyKind = "orders"
	// TallyShipments counts shipments (shipment data) per organization and
	// status.
	TallyShipments TallyKind = "shipments"
	// TallyProducts counts a supplier's products per status (ACTIVE, EOS).
	TallyProducts TallyKind = "products"
	// TallyOrganizations counts an environment's organizations (OrgID 0,
	// Status "").
	TallyOrganizations TallyKind = "organizations"
	// TallySupplierShipments counts a supplier's dropshipping shipments per
	// status (the total of a supplier's GET /shipments, decisions §63).
	TallySupplierShipments TallyKind = "supplier_shipments"
)

// TallyQuery asks for the kept counts of one kind.
type TallyQuery struct {
	Kind TallyKind
	// OrgIDs are the organizations whose counts are asked, those outside
	// the caller's scope left out. None: the caller's own organization, or
	// for an operator of an environment (or of all) the environment-wide
	// counts (OrgID 0).
	OrgIDs []int64
}

// Tally is one kept count: the rows of Environment's organization OrgID
// (0: of the whole environment) in Status ("" for a kind without one).
type Tally struct {
	Environment Environment
	OrgID       int64
	Status      string
	N           int64
}

// Tallier reads kept counts. Who may ask: orders, a caller that may
// ActionReadOrders; shipments and products, one that may ActionViewTenant;
// organizations and every environment-wide count, the operator
// (ActionOperate).
type Tallier interface {
	Tallies(ctx context.Context, c *Caller, q TallyQuery) ([]Tally, error)
}

// TallySum is the sum of the counts of ts of organization orgID (0: the
// environment-wide ones) in any of statuses (none: every status).
func TallySum(ts []Tally, orgID int64, statuses ...string) int64 {
	var n int64
	for _, t := range ts {
		if t.OrgID != orgID {
			continue
		}
		if len(statuses) > 0 && !slices.Contains(statuses, t.Status) {
			continue
		}
		n += t.N
	}
	return n
}
