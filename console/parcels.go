package console

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/label"
)

// The parcels area (decisions §40): the organization's shipments of every
// origin, each with its labels, its parcels' journeys and its codes, and
// in the test environment (or a sandbox) controls that drive the
// journeys. Every read goes through the services the API calls, with
// the narrow interfaces below: the shipment data (FindShipment,
// ListShipments), the labels' codes (the shipping API's ShipmentCodes,
// rendered by package label as the API renders them), the Tracking API's
// parcels (TrackNumbers, with ParcelTimeline deciding the journey), the
// code service's history of a shipment's codes. Each acts for the
// session's caller, so another tenant's shipment is the 404 page of a
// missing one.

// ShipmentReader is what the parcels area reads and does with shipment
// data: parcelgate.ShipmentService's methods it calls.
type ShipmentReader interface {
	FindShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error)
	ListShipments(ctx context.Context, c *parcelgate.Caller, q parcelgate.ShipmentSearch, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Shipment], error)
	DeliverShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error)
}

// LabelCodes is the shipping API's read of the codes printed on a
// shipment's labels (parcelgate.ShipmentService).
type LabelCodes interface {
	ShipmentCodes(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (parcelgate.ShipmentCodes, error)
}

// CodeHistory is the code service's list of the codes a shipment held
// (parcelgate.CodeService).
type CodeHistory interface {
	ShipmentCodeHistory(ctx context.Context, c *parcelgate.Caller, trackingNumber string) ([]parcelgate.HeldCode, error)
}

// ParcelTracker is the Tracking API's service as the console uses it
// (parcelgate.TrackingService): the parcels of a shipment and the
// operator's move of one.
type ParcelTracker interface {
	TrackNumbers(ctx context.Context, c *parcelgate.Caller, numbers []string) ([]parcelgate.TrackedParcel, error)
	MoveParcel(ctx context.Context, c *parcelgate.Caller, number string, status parcelgate.ParcelStatus) (*parcelgate.TrackedParcel, error)
}

// --- the list ----------------------------------------------------------------

type shipmentsData struct {
	Form   url.Values
	Query  string
	By     string
	Errors map[string]string
	Page   parcelgate.Page[*parcelgate.Shipment]
	// Searched: the list is a search's answer.
	Searched bool
}

// shipmentsPage lists the organization's shipments newest first, a page
// at a time by key, or those a search names (a tracking number, a
// parcel's number, a code it holds, or its reference).
func (c *Console) shipmentsPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	q := r.URL.Query()
	d := &shipmentsData{Form: q, Query: strings.TrimSpace(q.Get("q")), By: q.Get("by"), Errors: map[string]string{}}
	status := http.StatusOK
	search, err := parcelgate.ParseShipmentSearch(d.Query, d.By)
	if err != nil {
		// Who may read shipments is the shipment service's, asked
		// before the search's problems are shown.
		if !c.ask(w, r, s, err, func(u *parcelgate.Caller) error {
			_, err := c.shipments.ListShipments(r.Context(), u, parcelgate.ShipmentSearch{}, parcelgate.PageRequest{})
			return err
		}) {
			return
		}
		d.Errors = fieldErrors(err)
		status = http.StatusBadRequest
	} else {
		d.Searched = !search.Empty()
		page, err := c.shipments.ListShipments(r.Context(), s.caller, search, parcelgate.PageRequest{After: q.Get("page"), Size: pageSize})
		switch {
		case parcelgate.ErrorCode(err) == parcelgate.EINVALID:
			d.Errors["page"] = "This page link is not one of this list's; start again from the first page."
			status = http.StatusBadRequest
		case err != nil:
			c.fail(w, r, s, err)
			return
		default:
			// A search that names exactly one shipment opens it, as a
			// tracking number typed into a carrier's page does.
			if d.Searched && q.Get("page") == "" && len(page.Items) == 1 && page.Next == "" {
				http.Redirect(w, r, Prefix+"/shipments/"+url.PathEscape(page.Items[0].TrackingNumber), http.StatusSeeOther)
				return
			}
			d.Page = page
		}
	}
	c.renderView(w, r, status, "shipments", &view{Title: "Parcels", Session: s, Nav: "shipments", Data: d})
}

// --- one shipment ----------------------------------------------------------------

type shipmentData struct {
	Shipment *parcelgate.Shipment
	Codes    []parcelgate.HeldCode
	// Medias are the label media the shipping API prints; Media the one
	// the shipment was made with (else laser-a5).
	Medias []label.Media
	Media  label.Media
	// Labels are what each parcel's label prints (label.FromShipment with
	// the codes the parcels hold now), previewed on the page; More counts
	// the parcels past the preview's.
	Labels []label.Parcel
	More   int
	// Point is the pick-up point, when the finder knows it.
	Point *parcelgate.PickupPoint
	// Parcels are the parcels' journeys as of the environment's clock.
	Parcels []parcelJourney
	// Scenario is the test scenario the journey follows ("" none).
	Scenario string
	// CanMove: the session may set a parcel's status (the operator's
	// move); CanDrive: it may deliver or return the shipment and, with
	// CanClock, move the clock (decisions §23, §40).
	CanMove  bool
	CanDrive bool
	CanClock bool
	Statuses []parcelgate.ParcelStatus
	// Next is the earliest event still ahead on the clock, of any parcel.
	Next *parcelgate.TrackingEvent
	// The refused journey form: its name, error and input.
	Form, FormError, Advance string
	Presets                  []advancePreset
}

// labelPreviews is how many parcels' labels the shipment page previews;
// the PDF holds them all.
const labelPreviews = 4

// advancePreset is a ready-made clock move of the journey panel.
type advancePreset struct{ Value, Label string }

var advancePresets = []advancePreset{{"2h", "2 hours"}, {"24h", "1 day"}, {"72h", "3 days"}, {"168h", "7 days"}}

// parcelJourney is one parcel with its tracking on the shipment page.
type parcelJourney struct {
	parcelgate.Parcel
	Timeline parcelgate.Timeline
	// Ahead are the events still to come on the clock, as the journey
	// stands now (none once an operator moved the parcel).
	Ahead []parcelgate.TrackingEvent
}

func (c *Console) shipment(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderShipment(w, r, s, http.StatusOK, func(*shipmentData) {})
}

// renderShipment shows the shipment of the path after form sets the state
// of a refused form.
func (c *Console) renderShipment(w http.ResponseWriter, r *http.Request, s *session, status int, form func(*shipmentData)) {
	if !c.needTenant(w, r, s) {
		return
	}
	sh, ok := c.findShipment(w, r, s)
	if !ok {
		return
	}
	ctx := r.Context()
	codes, err := c.codes.ShipmentCodeHistory(ctx, s.caller, sh.TrackingNumber)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := &shipmentData{Shipment: sh, Codes: codes, Medias: label.Medias, Media: labelMedia(sh), Statuses: parcelgate.ParcelStatuses, Presets: advancePresets}
	if len(sh.Parcels) > 0 {
		held, err := c.shipping.ShipmentCodes(ctx, s.caller, sh.TrackingNumber)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Labels = label.FromShipment(sh, held, c.pickupPoint(sh.PickupPointID))
		if len(d.Labels) > labelPreviews {
			d.Labels, d.More = d.Labels[:labelPreviews], len(d.Labels)-labelPreviews
		}
	}
	d.Point = c.pickupPoint(sh.PickupPointID)
	d.Scenario = parcelgate.TrackingScenario(sh.Environment, sh.Reference, d.Point != nil)
	if d.Parcels, err = c.journeys(r, s, sh, d.Point); err != nil {
		c.fail(w, r, s, err)
		return
	}
	for _, p := range d.Parcels {
		if len(p.Ahead) > 0 && (d.Next == nil || p.Ahead[0].At.Before(d.Next.At)) {
			d.Next = &p.Ahead[0]
		}
	}
	d.CanMove, d.CanDrive = c.mayMoveParcels(s), c.mayDriveJourney(s)
	d.CanClock = d.CanDrive && c.cfg.OffsetClock != nil && parcelgate.DecideWorkbench(c.cfg.Sandbox, s.caller, parcelgate.ControlClock) == nil
	form(d)
	c.renderView(w, r, status, "shipment", &view{Title: "Shipment " + sh.TrackingNumber, Session: s, Nav: "shipments", Data: d})
}

// findShipment reads the shipment of the path for the session, or sends
// the 404 page (another tenant's, another environment's and a missing
// one alike).
func (c *Console) findShipment(w http.ResponseWriter, r *http.Request, s *session) (*parcelgate.Shipment, bool) {
	sh, err := c.shipments.FindShipment(r.Context(), s.caller, r.PathValue("tn"))
	if err == nil && !s.caller.Covers(sh.Environment, sh.OrgID) {
		err = parcelgate.Errorf(parcelgate.ENOTFOUND, "Shipment not found")
	}
	if err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	return sh, true
}

// pickupPoint is the point of id through the finder, nil when there is
// none (or id is empty).
func (c *Console) pickupPoint(id string) *parcelgate.PickupPoint {
	if id == "" || c.pickups == nil {
		return nil
	}
	pt, ok := c.pickups.FindPickupPoint(id)
	if !ok {
		return nil
	}
	return &pt
}

// journeys decides the journey of each parcel of sh as of the
// environment's clock, as the Tracking API answers it (decisions §30):
// the parcels and the operator's moves from TrackNumbers, the events from
// ParcelTimeline. The events still ahead are the same journey decided at
// a time far ahead, less those already past.
func (c *Console) journeys(r *http.Request, s *session, sh *parcelgate.Shipment, point *parcelgate.PickupPoint) ([]parcelJourney, error) {
	ids := make([]string, len(sh.Parcels))
	for i, p := range sh.Parcels {
		ids[i] = p.ParcelID
	}
	tracked, err := c.tracking.TrackNumbers(r.Context(), s.caller, ids)
	if err != nil {
		return nil, err
	}
	now := c.cfg.Clock.Now(s.Environment)
	var out []parcelJourney
	for _, tp := range tracked {
		if !tp.Own || tp.Shipment.ID != sh.ID {
			continue
		}
		j := parcelJourney{Parcel: tp.Parcel, Timeline: parcelgate.ParcelTimeline(c.estimates, s.Environment, tp.Shipment, point, tp.Moves, now)}
		all := parcelgate.ParcelTimeline(c.estimates, s.Environment, tp.Shipment, point, tp.Moves, now.AddDate(10, 0, 0))
		j.Ahead = all.Events[len(j.Timeline.Events):]
		out = append(out, j)
	}
	return out, nil
}

// mayMoveParcels reports whether s may set a parcel's tracking status: the
// operator (as POST /admin/v1/parcels/status), or an integrator where it
// may drive the journey (the test environment, whatever its roles: a
// parcel is no order).
func (c *Console) mayMoveParcels(s *session) bool {
	return parcelgate.DecideParcelMove(c.cfg.Sandbox, s.caller) == nil
}

// mayDriveJourney reports whether s may deliver or return a shipment from
// its page: where the workbench's moves are allowed (DecideWorkbench):
// the test environment, and production on a --sandbox server for the
// operator. Any service account of the organization may, as any may see
// the shipment (decisions §40).
func (c *Console) mayDriveJourney(s *session) bool {
	return parcelgate.DecideWorkbench(c.cfg.Sandbox, s.caller, parcelgate.ControlMove) == nil
}

// labelMedia is the medium sh's labels were asked in, else laser-a5.
func labelMedia(sh *parcelgate.Shipment) label.Media {
	if m, ok := label.ParseMedia(sh.PrintMedia); ok {
		return m
	}
	return label.LaserA5
}

// shipmentLabel serves the shipment's address labels as the shipping API
// does (decisions §29): rendered by package label with the codes its
// parcels hold now, in the medium asked for or the one it was made with.
func (c *Console) shipmentLabel(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	sh, ok := c.findShipment(w, r, s)
	if !ok {
		return
	}
	media := labelMedia(sh)
	if v := r.URL.Query().Get("media"); v != "" {
		if media, ok = label.ParseMedia(v); !ok {
			c.errorPage(w, r, s, http.StatusBadRequest, fmt.Sprintf("There is no label medium %q: choose one of %s.", v, label.MediaNames()))
			return
		}
	}
	if len(sh.Parcels) == 0 {
		c.errorPage(w, r, s, http.StatusNotFound, "This shipment has no parcels to label.")
		return
	}
	codes, err := c.shipping.ShipmentCodes(r.Context(), s.caller, sh.TrackingNumber)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	var buf bytes.Buffer
	if err := label.Render(&buf, media, label.FromShipment(sh, codes, c.pickupPoint(sh.PickupPointID))); err != nil {
		c.fail(w, r, s, err)
		return
	}
	disposition := "inline"
	if r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", fmt.Sprintf("%s; filename=%q", disposition, sh.TrackingNumber+"-"+string(media)+".pdf"))
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

// moveParcel sets a parcel's tracking status, as the operator API's POST
// /admin/v1/parcels/status does (decisions §30).
func (c *Console) moveParcel(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	if !c.decided(w, r, s, parcelgate.DecideParcelMove(c.cfg.Sandbox, s.caller)) {
		return
	}
	to := parcelgate.ParcelStatus(strings.ToUpper(strings.TrimSpace(r.PostFormValue("to"))))
	if !to.Valid() {
		c.errorPage(w, r, s, http.StatusBadRequest, "Choose a parcel status to move to.")
		return
	}
	sh, ok := c.findShipment(w, r, s)
	if !ok {
		return
	}
	parcel := parcelgate.NormalizeID(r.PathValue("parcel"))
	if !slices.ContainsFunc(sh.Parcels, func(p parcelgate.Parcel) bool { return p.ParcelID == parcel }) {
		c.fail(w, r, s, parcelgate.Errorf(parcelgate.ENOTFOUND, "Parcel not found"))
		return
	}
	if _, err := c.tracking.MoveParcel(r.Context(), c.warehouse(s), parcel, to); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/shipments/"+url.PathEscape(sh.TrackingNumber)+"?done=parcel-moved#tracking", http.StatusSeeOther)
}

// warehouse is the caller the console's moves of s's parcels and
// shipments act as: the operator of s's organization, as an order's move
// is (moveOrder): the operator's own, or on the workbench an integrator's
// acting for the warehouse (the caller of the check decided which).
func (c *Console) warehouse(s *session) *parcelgate.Caller {
	return parcelgate.OperatorCaller(&parcelgate.Organization{ID: s.OrgID, BusinessID: s.BusinessID, Environment: s.Environment})
}

// Journey actions of the shipment page's panel.
const (
	journeyNext    = "next"    // move the clock to the next event
	journeyAdvance = "advance" // move the clock by a duration
	journeyDeliver = "deliver" // deliver the shipment now (its codes freed)
	journeyReturn  = "return"  // the receiver refuses it: back to the sender
)

// driveJourney is the journey panel's form: the clock moved (as POST
// /admin/v1/clock), the shipment delivered (as POST
// /admin/v1/shipments/status, which frees its codes) or returned (each
// parcel moved to RETURN_IN_TRANSPORT, as POST /admin/v1/parcels/status).
// Delivering and returning are final, so they ask the typed business ID
// (ConfirmDangerous) as the workbench's reset does; moving the clock asks
// none, as on the overview. Only where DecideWorkbench allows (the test
// environment; production on a --sandbox server for the operator).
func (c *Console) driveJourney(w http.ResponseWriter, r *http.Request, s *session) {
	// Who may read the shipment is the shipment service's (findShipment);
	// every role may (decisions §40), so only the workbench's rule comes
	// first.
	if !c.needTenant(w, r, s) || !c.workbench(w, r, s, parcelgate.ControlMove) {
		return
	}
	action := r.PostFormValue("action")
	refuse := func(status int, form, msg, input string) {
		c.renderShipment(w, r, s, status, func(d *shipmentData) { d.Form, d.FormError, d.Advance = form, msg, input })
	}
	sh, ok := c.findShipment(w, r, s)
	if !ok {
		return
	}
	ctx := r.Context()
	done := ""
	switch action {
	case journeyNext, journeyAdvance:
		if !c.workbench(w, r, s, parcelgate.ControlClock) {
			return
		}
		if c.cfg.OffsetClock == nil {
			c.errorPage(w, r, s, http.StatusForbidden, "This server's clock cannot be moved.")
			return
		}
		var d time.Duration
		in := strings.TrimSpace(r.PostFormValue("by"))
		if action == journeyNext {
			js, err := c.journeys(r, s, sh, c.pickupPoint(sh.PickupPointID))
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			now := c.cfg.Clock.Now(s.Environment)
			for _, j := range js {
				if len(j.Ahead) > 0 && (d == 0 || j.Ahead[0].At.Sub(now) < d) {
					d = j.Ahead[0].At.Sub(now)
				}
			}
			if d <= 0 {
				refuse(http.StatusConflict, "clock", "No event of this shipment is ahead on the clock: its journey has ended, or an operator's move made it yours.", "")
				return
			}
			// A second past it, so the event is in the past when the page
			// reads the clock again.
			d = d.Truncate(time.Second) + time.Second
		} else {
			var err error
			d, err = time.ParseDuration(in)
			if err != nil || d <= 0 {
				refuse(http.StatusBadRequest, "clock", "Enter a positive duration such as 90m, 24h or 336h.", in)
				return
			}
		}
		if err := c.advance(r, s, d); err != nil {
			status := http.StatusBadRequest
			if parcelgate.ErrorCode(err) == parcelgate.EFORBIDDEN {
				status = http.StatusForbidden
			}
			refuse(status, "clock", parcelgate.ErrorMessage(err), in)
			return
		}
		done = "clock"
	case journeyDeliver, journeyReturn:
		if err := parcelgate.ConfirmDangerous(s.BusinessID, r.PostFormValue("confirm")); err != nil {
			refuse(http.StatusBadRequest, action, "Type "+s.BusinessID+" to confirm; nothing was changed.", "")
			return
		}
		if action == journeyDeliver {
			if sh.Status == parcelgate.ShipmentDelivered {
				refuse(http.StatusConflict, action, "This shipment is delivered already.", "")
				return
			}
			if _, err := c.shipments.DeliverShipment(ctx, c.warehouse(s), sh.TrackingNumber); err != nil {
				c.fail(w, r, s, err)
				return
			}
			done = "shipment-delivered"
			break
		}
		for _, p := range sh.Parcels {
			if _, err := c.tracking.MoveParcel(ctx, c.warehouse(s), p.ParcelID, parcelgate.StatusReturnInTransport); err != nil {
				c.fail(w, r, s, err)
				return
			}
		}
		done = "shipment-returned"
	default:
		c.errorPage(w, r, s, http.StatusBadRequest, "Choose what to do with the journey: the next event, a clock move, deliver or return.")
		return
	}
	http.Redirect(w, r, Prefix+"/shipments/"+url.PathEscape(sh.TrackingNumber)+"?done="+done+"#journey", http.StatusSeeOther)
}
