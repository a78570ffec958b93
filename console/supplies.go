package console

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// A supplier's dropshipping shipments (decisions §34): the list, one
// shipment with its rows and parcels, and the moves a supplier makes from
// its integration (a status, the fast confirmation, a confirmation with
// parcels, a split into parcels), for trying the flow by hand.

type supplyListData struct {
	Page   parcelgate.Page[*parcelgate.DropshipShipment]
	Number int
	Prev   string
	Next   string
}

// supplierShipmentsPage lists the session's shipments, latest change last
// (the order GET /shipments pages in), 50 a page.
func (c *Console) supplierShipmentsPage(w http.ResponseWriter, r *http.Request, s *session) {
	// Who may act is the service's (decisions §57); its refusal is
	// mapped onto the 403 page as any of its errors.
	if !c.needTenant(w, r, s) {
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(0, min(n, parcelgate.MaxPageNumber))
	page, err := c.supplies.ListShipments(r.Context(), s.caller, parcelgate.DropshipQuery{}, parcelgate.PageAt(n, pageSize))
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
	Shipment *parcelgate.DropshipShipment
	// Moves are the statuses the supplier may move it to now.
	Moves []parcelgate.DropshipStatus
	Error string
	// Open: the shipment is in progress, so it may be confirmed with
	// parcels or split (decisions §34); Confirm and Split are those forms.
	Open    bool
	Confirm *parcelsForm
	Split   *parcelsForm
	// SplitParcels is how many parcels the split form shows (?parcels=).
	SplitParcels int
	MaxParcels   int
}

// parcelsForm is the confirmation or the split form: one entry per
// parcel, as the shipment has them or as they were posted, with why the
// last post was refused.
type parcelsForm struct {
	Parcels []parcelEntry
	Error   string
	Fields  []parcelgate.FieldError
}

// parcelEntry is one parcel of a form. Shares[j] is what it carries of
// the shipment's row j ("" leaves the row out of the parcel); Codes are
// the supplier's own tracking codes, separated by spaces or commas (""
// lets the platform make them).
type parcelEntry struct {
	ID, Type, Service, Point, Routing, Codes string
	Shares                                   []string
}

func (c *Console) loadSupply(w http.ResponseWriter, r *http.Request, s *session) (*supplyData, bool) {
	// Who may act is the service's (decisions §57); its refusal is
	// mapped onto the 403 page as any of its errors.
	if !c.needTenant(w, r, s) {
		return nil, false
	}
	sh, err := c.supplies.FindShipment(r.Context(), s.caller, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	d := &supplyData{Shipment: sh, Open: !sh.Status.Value.Final(), MaxParcels: parcelgate.MaxShipmentParcels}
	if d.Open {
		n, err := strconv.Atoi(r.URL.Query().Get("parcels"))
		if err != nil || n < 1 {
			n = len(sh.Consignment.Parcels)
		}
		d.SplitParcels = max(1, min(n, parcelgate.MaxShipmentParcels))
		d.Confirm = &parcelsForm{Parcels: confirmEntries(sh)}
		d.Split = &parcelsForm{Parcels: splitEntries(sh, d.SplitParcels)}
		for _, to := range parcelgate.SupplierStatuses {
			if _, _, err := parcelgate.MoveShipment(sh, parcelgate.DropshipUpdate{Status: &to}, func(string) string { return "" }, sh.Status.Timestamp); err == nil && to != sh.Status.Value {
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
	// Who may act is the service's (decisions §57); its refusal is
	// mapped onto the 403 page as any of its errors.
	if !c.needTenant(w, r, s) {
		return
	}
	to := parcelgate.DropshipStatus(r.PostFormValue("to"))
	_, err := c.supplies.UpdateShipment(r.Context(), s.caller, r.PathValue("id"), parcelgate.DropshipUpdate{Status: &to})
	c.afterSupply(w, r, s, "shipment-moved", err)
}

// confirmSupplierShipment is POST /shipments/{id}/delivered.
func (c *Console) confirmSupplierShipment(w http.ResponseWriter, r *http.Request, s *session) {
	// Who may act is the service's (decisions §57); its refusal is
	// mapped onto the 403 page as any of its errors.
	if !c.needTenant(w, r, s) {
		return
	}
	_, err := c.supplies.ConfirmShipment(r.Context(), s.caller, r.PathValue("id"))
	c.afterSupply(w, r, s, "shipment-confirmed", err)
}

// confirmWithParcels is PATCH /shipments/{id} with status Delivered and
// consignment.parcels, from the confirmation form: each parcel's delivered
// quantities and its own tracking codes, if any (decisions §34).
func (c *Console) confirmWithParcels(w http.ResponseWriter, r *http.Request, s *session) {
	c.postParcels(w, r, s, false)
}

// splitSupplierShipment is PUT /shipments/{id} from the split form: the
// full parcel list with each parcel's share of the rows (decisions §34).
func (c *Console) splitSupplierShipment(w http.ResponseWriter, r *http.Request, s *session) {
	c.postParcels(w, r, s, true)
}

func (c *Console) postParcels(w http.ResponseWriter, r *http.Request, s *session, split bool) {
	// Who may act is the service's (decisions §57); its refusal is
	// mapped onto the 403 page as any of its errors.
	if !c.needTenant(w, r, s) {
		return
	}
	// The shipment's rows name the form's columns; another organization's
	// shipment is not found here exactly as a missing one.
	sh, err := c.supplies.FindShipment(r.Context(), s.caller, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	entries, parcels, err := parseParcelsForm(r, sh, split)
	if err == nil {
		u := parcelgate.DropshipUpdate{Parcels: parcels, HasParcels: true}
		if split {
			_, err = c.supplies.SplitShipment(r.Context(), s.caller, sh.ShipmentID, u)
		} else {
			delivered := parcelgate.DropshipDelivered
			u.Status = &delivered
			_, err = c.supplies.UpdateShipment(r.Context(), s.caller, sh.ShipmentID, u)
		}
	}
	code := parcelgate.ErrorCode(err)
	if code != parcelgate.EINVALID && code != parcelgate.ECONFLICT {
		done := "shipment-confirmed"
		if split {
			done = "shipment-split"
		}
		c.afterSupply(w, r, s, done, err)
		return
	}
	d, ok := c.loadSupply(w, r, s)
	if !ok {
		return
	}
	// The refusal goes next to the form that was posted, with what the
	// user entered.
	f := &parcelsForm{Parcels: entries, Error: parcelgate.ErrorMessage(err), Fields: parcelgate.ErrorFields(err)}
	switch {
	case !d.Open || entries == nil:
		// Nothing of the form to show again: the shipment took a final
		// status meanwhile, or the form's parcel count was wrong.
		d.Error = f.Error
	case split:
		d.Split, d.SplitParcels = f, len(entries)
	default:
		d.Confirm = f
	}
	status := http.StatusConflict
	if code == parcelgate.EINVALID {
		status = http.StatusBadRequest
	}
	c.renderView(w, r, status, "supplier-shipment", &view{Title: "Shipment " + d.Shipment.ShipmentID, Session: s, Nav: "supplies", Data: d})
}

// Bounds of the parcel forms' texts: no longer than the API takes, so a
// form cannot make the server hold more than a JSON body could.
const (
	maxParcelIDLen   = 35
	maxPackageLen    = 20
	maxServiceLen    = 20
	maxPointLen      = 50
	maxShareLen      = 19                                     // an int64
	maxCodesFieldLen = parcelgate.MaxTrackingCodes*(35+2) + 2 // codes of 35 and their separators
)

// parseParcelsForm reads the confirmation (split false) or split form
// strictly: "parcels" says how many (1 to parcelgate.MaxShipmentParcels),
// then for parcel i "p{i}-id", with a split "p{i}-type",
// "p{i}-service", "p{i}-point" and "p{i}-routing", with a confirmation "p{i}-codes", and "p{i}-r{j}" its
// share of the shipment's row j. It reads only those names, so a form
// cannot make it allocate more than the bounds allow. entries echo the
// form for a refusal; a bad number or a too long text is EINVALID naming
// the field. What the API checks (a parcel ID's form, a share's range,
// the codes) is left to the service, which answers as the API does.
func parseParcelsForm(r *http.Request, sh *parcelgate.DropshipShipment, split bool) ([]parcelEntry, []parcelgate.ConsignmentParcel, error) {
	var p parcelgate.Problems
	n, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("parcels")))
	if err != nil || n < 1 || n > parcelgate.MaxShipmentParcels {
		return nil, nil, parcelgate.Invalid("parcels", "the number of parcels must be 1 to %d, not %q", parcelgate.MaxShipmentParcels, r.PostFormValue("parcels"))
	}
	rows := sh.Consignment.Rows
	entries := make([]parcelEntry, n)
	parcels := make([]parcelgate.ConsignmentParcel, n)
	text := func(name string, limit int) string {
		v := strings.TrimSpace(r.PostFormValue(name))
		if len(v) > limit {
			p.Add(name, "must be at most %d characters", limit)
			return strings.ToValidUTF8(v[:limit], "")
		}
		return v
	}
	for i := range n {
		e := &entries[i]
		pfx := "p" + strconv.Itoa(i) + "-"
		e.ID = text(pfx+"id", maxParcelIDLen)
		parcel := parcelgate.ConsignmentParcel{ParcelID: e.ID, Rows: []parcelgate.ConsignmentParcelRow{}}
		if split {
			e.Type, e.Service = text(pfx+"type", maxPackageLen), text(pfx+"service", maxServiceLen)
			e.Point, e.Routing = text(pfx+"point", maxPointLen), text(pfx+"routing", maxServiceLen)
			parcel.PackageType, parcel.ServiceCode = e.Type, e.Service
			parcel.PickupPointID, parcel.RoutingServiceCode = e.Point, e.Routing
		} else {
			e.Codes = text(pfx+"codes", maxCodesFieldLen)
			codes := strings.FieldsFunc(e.Codes, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
			switch {
			case len(codes) > parcelgate.MaxTrackingCodes:
				p.Add(pfx+"codes", "parcel %s: at most %d tracking codes, not %d", e.ID, parcelgate.MaxTrackingCodes, len(codes))
			case len(codes) > 0:
				parcel.TrackingCodes = codes
			}
		}
		e.Shares = make([]string, len(rows))
		for j, row := range rows {
			name := pfx + "r" + strconv.Itoa(j)
			v := text(name, maxShareLen)
			e.Shares[j] = v
			if v == "" {
				continue
			}
			q, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				p.Add(name, "parcel %s, row %s: %q is not a whole number", e.ID, row.ItemID, v)
				continue
			}
			share := parcelgate.Quantity(q)
			parcel.Rows = append(parcel.Rows, parcelgate.ConsignmentParcelRow{ItemID: row.ItemID, DeliveredQuantity: &share})
		}
		parcels[i] = parcel
	}
	return entries, parcels, p.Err()
}

// confirmEntries fills the confirmation form from the shipment's parcels:
// the shares a split gave, else each row in full in the first parcel that
// holds it; the supplier's own codes when a parcel has them.
func confirmEntries(sh *parcelgate.DropshipShipment) []parcelEntry {
	out := make([]parcelEntry, len(sh.Consignment.Parcels))
	for i, p := range sh.Consignment.Parcels {
		out[i] = parcelEntry{ID: p.ParcelID, Type: p.PackageType, Service: p.ServiceCode, Shares: shares(sh, i)}
		if !p.PlatformCodes {
			out[i].Codes = strings.Join(p.TrackingCodes, " ")
		}
	}
	return out
}

// splitEntries fills the split form with n parcels: the shipment's own
// first, then new ones with a free number as ID, the first parcel's
// service, pick-up point and routing code (an added parcel needs them,
// decisions §38), package type PC, and no rows.
func splitEntries(sh *parcelgate.DropshipShipment, n int) []parcelEntry {
	ps := sh.Consignment.Parcels
	out := make([]parcelEntry, n)
	next := 1
	for i := range out {
		if i < len(ps) {
			out[i] = parcelEntry{ID: ps[i].ParcelID, Type: ps[i].PackageType, Service: ps[i].ServiceCode, Point: ps[i].PickupPointID,
				Routing: ps[i].RoutingServiceCode, Shares: shares(sh, i)}
			continue
		}
		for slices.ContainsFunc(ps, func(p parcelgate.ConsignmentParcel) bool { return p.ParcelID == strconv.Itoa(next) }) || next <= i {
			next++
		}
		out[i] = parcelEntry{ID: strconv.Itoa(next), Type: parcelgate.DefaultPackageType, Shares: make([]string, len(sh.Consignment.Rows))}
		if len(ps) > 0 {
			out[i].Service, out[i].Point, out[i].Routing = ps[0].ServiceCode, ps[0].PickupPointID, ps[0].RoutingServiceCode
		}
		next++
	}
	return out
}

// shares is parcel i's share of each row of sh as the forms show it: the
// share it has, else the row's quantity in the first parcel holding the
// row and 0 in the others; "" for a row it does not hold.
func shares(sh *parcelgate.DropshipShipment, i int) []string {
	ps := sh.Consignment.Parcels
	out := make([]string, len(sh.Consignment.Rows))
	for j, row := range sh.Consignment.Rows {
		holds := func(p parcelgate.ConsignmentParcel) bool {
			return slices.ContainsFunc(p.Rows, func(r parcelgate.ConsignmentParcelRow) bool { return r.ItemID == row.ItemID })
		}
		at := slices.IndexFunc(ps[i].Rows, func(r parcelgate.ConsignmentParcelRow) bool { return r.ItemID == row.ItemID })
		switch {
		case at < 0:
		case ps[i].Rows[at].DeliveredQuantity != nil:
			out[j] = strconv.FormatInt(int64(*ps[i].Rows[at].DeliveredQuantity), 10)
		case slices.IndexFunc(ps, holds) == i:
			out[j] = strconv.FormatInt(int64(row.Quantity), 10)
		default:
			out[j] = "0"
		}
	}
	return out
}

// afterSupply shows the shipment again: after a move, with the notice
// done names, or with why it was refused.
func (c *Console) afterSupply(w http.ResponseWriter, r *http.Request, s *session, done string, err error) {
	switch code := parcelgate.ErrorCode(err); code {
	case "":
		http.Redirect(w, r, Prefix+"/supplier-shipments/"+url.PathEscape(r.PathValue("id"))+"?done="+done, http.StatusSeeOther)
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
