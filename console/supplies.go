package console

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/parcelgate/parcelgate"
)

// A supplier's dropshipping shipments (decisions §34): the list, one
// shipment with its rows and parcels, and the moves a supplier makes from
// its integration (a status, the fast confirmation), for trying the flow by
// hand.

type supplyListData struct {
	Page   parcelgate.Page[*parcelgate.SupplierShipment]
	Number int
	Prev   string
	Next   string
}

// supplierShipmentsPage lists the session's shipments, latest change last
// (the order GET /shipments pages in), 50 a page.
func (c *Console) supplierShipmentsPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) || !c.may(w, r, s, parcelgate.ActionSupplyShipments) {
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(0, min(n, parcelgate.MaxPageNumber))
	page, err := c.supplies.ListShipments(r.Context(), s.caller, parcelgate.ShipmentQuery{}, parcelgate.PageRequest{Number: n, Size: pageSize})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := &supplyListData{Page: page, Number: n}
	if n > 0 {
		d.Prev = "?page=" + strconv.Itoa(n-1)
	}
	if int64(n+1)*pageSize < page.Total {
		d.Next = "?page=" + strconv.Itoa(n+1)
	}
	c.renderView(w, r, http.StatusOK, "supplier-shipments", &view{Title: "Dropshipping", Session: s, Nav: "supplies", Data: d})
}

type supplyData struct {
	Shipment *parcelgate.SupplierShipment
	// Moves are the statuses the supplier may move it to now.
	Moves []parcelgate.SupplyStatus
	Error string
}

func (c *Console) loadSupply(w http.ResponseWriter, r *http.Request, s *session) (*supplyData, bool) {
	if !c.needTenant(w, r, s) || !c.may(w, r, s, parcelgate.ActionSupplyShipments) {
		return nil, false
	}
	sh, err := c.supplies.FindShipment(r.Context(), s.caller, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	d := &supplyData{Shipment: sh}
	if !sh.Status.Value.Final() {
		for _, to := range parcelgate.SupplierStatuses {
			if _, _, err := parcelgate.MoveShipment(sh, parcelgate.ShipmentUpdate{Status: &to}, func(string) string { return "" }, sh.Status.Timestamp); err == nil && to != sh.Status.Value {
				d.Moves = append(d.Moves, to)
			}
		}
	}
	return d, true
}

func (c *Console) supplierShipment(w http.ResponseWriter, r *http.Request, s *session) {
	d, ok := c.loadSupply(w, r, s)
	if !ok {
		return
	}
	c.renderView(w, r, http.StatusOK, "supplier-shipment", &view{Title: "Shipment " + d.Shipment.ShipmentID, Session: s, Nav: "supplies", Data: d, Live: true})
}

// moveSupplierShipment is PATCH /shipments/{id} with a status, from the
// form's "to".
func (c *Console) moveSupplierShipment(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) || !c.may(w, r, s, parcelgate.ActionSupplyShipments) {
		return
	}
	to := parcelgate.SupplyStatus(r.PostFormValue("to"))
	_, err := c.supplies.UpdateShipment(r.Context(), s.caller, r.PathValue("id"), parcelgate.ShipmentUpdate{Status: &to})
	c.afterSupply(w, r, s, err)
}

// confirmSupplierShipment is POST /shipments/{id}/delivered.
func (c *Console) confirmSupplierShipment(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) || !c.may(w, r, s, parcelgate.ActionSupplyShipments) {
		return
	}
	_, err := c.supplies.ConfirmShipment(r.Context(), s.caller, r.PathValue("id"))
	c.afterSupply(w, r, s, err)
}

// afterSupply shows the shipment again: after a move, or with why it was
// refused.
func (c *Console) afterSupply(w http.ResponseWriter, r *http.Request, s *session, err error) {
	switch code := parcelgate.ErrorCode(err); code {
	case "":
		http.Redirect(w, r, Prefix+"/supplier-shipments/"+url.PathEscape(r.PathValue("id")), http.StatusSeeOther)
	case parcelgate.EINVALID, parcelgate.ECONFLICT:
		d, ok := c.loadSupply(w, r, s)
		if !ok {
			return
		}
		d.Error = parcelgate.ErrorMessage(err)
		status := http.StatusConflict
		if code == parcelgate.EINVALID {
			status = http.StatusBadRequest
		}
		c.renderView(w, r, status, "supplier-shipment", &view{Title: "Shipment " + d.Shipment.ShipmentID, Session: s, Nav: "supplies", Data: d})
	default:
		c.fail(w, r, s, err)
	}
}
