package console

import (
	"context"
	"net/http"

	"github.com/parcelgate/parcelgate"
)

// Dropshipping's shipments in the parcels area (decisions §51): they live
// in tables of their own (decisions §34), so the parcels list, which reads
// the shipment data, does not hold them. This page lists them for either
// side of the trade, newest first, a page at a time by key and without a
// count: the shipments the organization ships as a supplier, and those
// its suppliers ship for its orders as a retailer. Each acts for the
// session's caller; another organization's shipments are never listed.

// DropshipLister is the dropshipping shipments' list of the parcels area
// (sqlstore's DropshipService.ListDropshipShipments).
type DropshipLister interface {
	ListDropshipShipments(ctx context.Context, c *parcelgate.Caller, asRetailer bool, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.DropshipShipment], error)
}

type dropshipData struct {
	// Side is "supplier" (the shipments the organization ships) or
	// "retailer" (its suppliers' shipments of its orders); Sides are
	// those the session may read, in that order.
	Side  string
	Sides []string
	Page  parcelgate.Page[*parcelgate.DropshipShipment]
	Error string
}

// dropshipPage is GET /console/shipments/dropship?side=&page=.
func (c *Console) dropshipPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	d := &dropshipData{}
	if s.caller.May(parcelgate.ActionSupplyShipments) == nil {
		d.Sides = append(d.Sides, "supplier")
	}
	if s.caller.May(parcelgate.ActionReadOrders) == nil {
		d.Sides = append(d.Sides, "retailer")
	}
	q := r.URL.Query()
	d.Side = q.Get("side")
	switch {
	case len(d.Sides) == 0:
		// Neither a supplier nor a retailer: the service refuses the
		// supplier's side in its words, whatever side was asked.
		d.Side = "supplier"
	case d.Side == "":
		d.Side = d.Sides[0]
	case d.Side == "supplier", d.Side == "retailer":
		// A side the session may not read is the service's refusal.
	default:
		d.Side = d.Sides[0]
		d.Error = "side must be supplier or retailer."
		c.renderView(w, r, http.StatusBadRequest, "dropship-parcels", &view{Title: "Dropshipping parcels", Session: s, Nav: "shipments", Data: d})
		return
	}
	status := http.StatusOK
	page, err := c.dropship.ListDropshipShipments(r.Context(), s.caller, d.Side == "retailer", parcelgate.PageRequest{After: q.Get("page"), Size: pageSize})
	switch {
	case parcelgate.ErrorCode(err) == parcelgate.EINVALID:
		d.Error = "This page link is not one of this list's; start again from the first page."
		status = http.StatusBadRequest
	case err != nil:
		c.fail(w, r, s, err)
		return
	default:
		d.Page = page
	}
	c.renderView(w, r, status, "dropship-parcels", &view{Title: "Dropshipping parcels", Session: s, Nav: "shipments", Data: d})
}
