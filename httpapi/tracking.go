package httpapi

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The Tracking API v7 (decisions §30) under /tracking/7, for service
// accounts (an ecom token of any role), in the ecom error shape. A parcel
// of the caller's organization is answered with every field (the contract
// view); another organization's, found by its number, with the public
// fields only; searches see the caller's own parcels only.

func (s *Server) trackingRoutes() {
	const base = "GET /tracking/7/shipments/"
	// Each route's service decides who may act, before the query or the
	// path (decisions §57): ask hands it what the handler found wrong.
	numbers := func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.tracking.TrackNumbers(ctx, c, nil)
		return err
	}
	find := func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.tracking.FindParcels(ctx, c, nil, 0, parcelgate.PageRequest{})
		return err
	}
	created := func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.tracking.ParcelsCreatedBetween(ctx, c, time.Time{}, time.Time{}, parcelgate.PageRequest{})
		return err
	}
	s.handle(base+"trackingnumber/{number}", s.ecomReading(numbers, s.trackNumber))
	s.handle(base+"trackingnumbers/{numbers}", s.ecomReading(numbers, s.trackNumbers))
	s.handle(base+"find", s.ecomReading(find, s.findParcels))
	s.handle(base+"find/{keyword}", s.ecomReading(find, s.findParcel))
	s.handle(base+"event/date", s.ecomReading(created, s.parcelsByEventDate))
	for _, key := range parcelgate.TrackingKeys {
		s.handle(base+string(key)+"/{"+key.Param()+"}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
			_, err := s.tracking.TrackBy(ctx, c, key, "", parcelgate.PageRequest{})
			return err
		}, s.trackBy(key)))
	}
	s.handle("GET /tracking/7/reservations/status", s.ecomReading(created, s.reservationStatus))
	s.handle("POST /admin/v1/parcels/status", s.admin(s.moveParcel))
	// The Tracking API's own token URL (its spec's /tracking/oauth/token):
	// the service account's token, as POST /auth/token answers it.
	s.handle("POST /tracking/oauth/token", http.HandlerFunc(s.ecomToken))
}

// TrackingAnswer is the body of every Tracking API answer.
type TrackingAnswer struct {
	ParcelShipments  []ParcelShipment `json:"parcelShipments"`
	FreightShipments []struct{}       `json:"freightShipments"`
}

// ParcelShipment is one parcel as the Tracking API shows it. The fields
// marked contract are shown to the parcel's own organization only.
type ParcelShipment struct {
	TrackingCode string          `json:"trackingCode"`
	Product      TrackingProduct `json:"product"`
	Status       TrackingStatus  `json:"status"`
	ModifiedAt   time.Time       `json:"modifiedAt"`
	// EstimatedDeliveryTime is absent once the parcel is delivered or
	// returned, or after an operator moved it.
	EstimatedDeliveryTime *time.Time            `json:"estimatedDeliveryTime,omitempty"`
	Destination           parcelgate.Place      `json:"destination"`
	PickupPoint           *parcelgate.Place     `json:"pickupPoint,omitempty"`
	Events                []TrackingEventAnswer `json:"events"`

	// Contract view only.
	ShipmentTrackingCode string                    `json:"shipmentTrackingCode,omitempty"`
	Weight               *TrackingMeasure          `json:"weight,omitempty"`
	Dimensions           *TrackingDimensions       `json:"dimensions,omitempty"`
	LockerSize           string                    `json:"lockerSize,omitempty"`
	Sender               *parcelgate.Address       `json:"sender,omitempty"`
	Receiver             *parcelgate.Address       `json:"receiver,omitempty"`
	References           []TrackingReference       `json:"references,omitempty"`
	AdditionalServices   []string                  `json:"additionalServices,omitempty"`
	ParcelIndex          *int                      `json:"parcelIndex,omitempty"`
	ParcelCount          *int                      `json:"parcelCount,omitempty"`
	Origin               parcelgate.ShipmentOrigin `json:"shipmentOrigin,omitempty"`
}

// TrackingProduct is the parcel's delivery service.
type TrackingProduct struct {
	Code string               `json:"code"`
	Name parcelgate.Localized `json:"name"`
}

// TrackingStatus is a parcel's status with its description.
type TrackingStatus struct {
	Code        parcelgate.ParcelStatus `json:"code"`
	Description parcelgate.Localized    `json:"description"`
}

// TrackingEventAnswer is one event of a parcel's journey.
type TrackingEventAnswer struct {
	EventCode        string                  `json:"eventCode"`
	EventDescription parcelgate.Localized    `json:"eventDescription"`
	Status           parcelgate.ParcelStatus `json:"status"`
	Timestamp        time.Time               `json:"timestamp"`
	Location         parcelgate.Place        `json:"location"`
}

// TrackingMeasure is a quantity with its unit.
type TrackingMeasure struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// TrackingDimensions are a parcel's length, width and height.
type TrackingDimensions struct {
	Length float64 `json:"length"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Unit   string  `json:"unit"`
}

// TrackingReference is a reference of the shipment.
type TrackingReference struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// trackingQuery is the common parameters of the Tracking API.
type trackingQuery struct {
	start, limit int
	desc         bool
	freightOnly  bool
	lastModified time.Time
}

// page maps start and limit onto the keyset (decisions §59): the one
// place the Tracking API's start becomes a store's request, the limit
// parcels from the position start, which the store resolves by key.
func (tq trackingQuery) page() parcelgate.PageRequest {
	return parcelgate.PageFrom(int64(tq.start), tq.limit)
}

// parseTrackingQuery reads start (default 0), limit (default and at most
// 100: larger is taken as 100, as the provider caps it), type
// (ANY, PARCEL or FREIGHT), order (ASC or DESC, of the events) and
// lastModified (only parcels modified after it).
func parseTrackingQuery(q url.Values) (trackingQuery, error) {
	tq := trackingQuery{limit: parcelgate.MaxTrackingLimit}
	var p parcelgate.Problems
	if v := q.Get("start"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			p.Add("start", "must be a whole number from 0, not %q", v)
		}
		tq.start = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			p.Add("limit", "must be a whole number from 1, not %q", v)
		}
		tq.limit = min(n, parcelgate.MaxTrackingLimit)
	}
	switch v := strings.ToUpper(q.Get("type")); v {
	case "", "ANY", "PARCEL":
	case "FREIGHT":
		tq.freightOnly = true
	default:
		p.Add("type", "must be ANY, PARCEL or FREIGHT, not %q", q.Get("type"))
	}
	switch v := strings.ToUpper(q.Get("order")); v {
	case "", "ASC":
	case "DESC":
		tq.desc = true
	default:
		p.Add("order", "must be ASC or DESC, not %q", q.Get("order"))
	}
	if v := q.Get("lastModified"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			p.Add("lastModified", "must be an RFC 3339 time, not %q", v)
		}
		tq.lastModified = t
	}
	return tq, p.Err()
}

// view renders tracked parcels as of now, in the caller's view of each.
func (s *Server) view(r *http.Request, tq trackingQuery, ps []parcelgate.TrackedParcel) TrackingAnswer {
	ans := TrackingAnswer{ParcelShipments: []ParcelShipment{}, FreightShipments: []struct{}{}}
	if tq.freightOnly {
		return ans
	}
	now := s.clock.Now(caller(r).Environment)
	for _, tp := range ps {
		p := s.parcelShipment(tp, now, tq.desc)
		if !tq.lastModified.IsZero() && !p.ModifiedAt.After(tq.lastModified) {
			continue
		}
		ans.ParcelShipments = append(ans.ParcelShipments, p)
	}
	return ans
}

// ParcelView is a parcel as the Tracking API answers it at now: the
// contract view when tp is the caller's own, else the public one.
func (s *Server) ParcelView(tp parcelgate.TrackedParcel, now time.Time) ParcelShipment {
	return s.parcelShipment(tp, now, false)
}

func (s *Server) parcelShipment(tp parcelgate.TrackedParcel, now time.Time, desc bool) ParcelShipment {
	sh := tp.Shipment
	var point *parcelgate.PickupPoint
	if pt, ok := s.pickups.FindPickupPoint(sh.PickupPointID); ok && sh.PickupPointID != "" {
		point = &pt
	}
	tl := parcelgate.ParcelTimeline(s.estimates, sh.Environment, sh, point, tp.Moves, now)
	out := ParcelShipment{
		TrackingCode: tp.Parcel.ParcelID,
		Product: TrackingProduct{Code: sh.ServiceCode, Name: parcelgate.Localized{
			FI: parcelgate.ServiceName(sh.ServiceCode, "fi"), EN: parcelgate.ServiceName(sh.ServiceCode, "en"), SV: parcelgate.ServiceName(sh.ServiceCode, "sv")}},
		Status:      TrackingStatus{Code: tl.Status, Description: tl.Status.Description()},
		ModifiedAt:  parcelgate.FinnishClock(tl.ModifiedAt),
		Destination: parcelgate.Place{Code: sh.Receiver.PostalCode, City: strings.ToUpper(sh.Receiver.PostOffice), Country: sh.Receiver.Country},
		Events:      make([]TrackingEventAnswer, 0, len(tl.Events)),
	}
	if !tl.Estimate.IsZero() {
		e := parcelgate.FinnishClock(tl.Estimate)
		out.EstimatedDeliveryTime = &e
	}
	if point != nil {
		out.PickupPoint = &parcelgate.Place{Code: point.ExternalID, Name: point.Name, City: strings.ToUpper(point.PostOffice), Country: point.Country}
	}
	for _, e := range tl.Events {
		out.Events = append(out.Events, TrackingEventAnswer{EventCode: e.Code, EventDescription: e.Description(), Status: e.Status, Timestamp: parcelgate.FinnishClock(e.At), Location: e.Place})
	}
	if desc {
		slices.Reverse(out.Events)
	}
	if !tp.Own {
		return out
	}
	p := tp.Parcel
	out.ShipmentTrackingCode, out.LockerSize, out.Origin = sh.TrackingNumber, string(p.LockerSize), sh.Origin
	if p.Weight != nil {
		out.Weight = &TrackingMeasure{Value: *p.Weight, Unit: "kg"}
	}
	if p.Length != nil && p.Width != nil && p.Height != nil {
		out.Dimensions = &TrackingDimensions{Length: *p.Length, Width: *p.Width, Height: *p.Height, Unit: "cm"}
	}
	sender, receiver := sh.Sender, sh.Receiver
	out.Sender, out.Receiver = &sender, &receiver
	if sh.Reference != "" {
		out.References = []TrackingReference{{Type: "SENDER_REFERENCE", Value: sh.Reference}}
	}
	out.AdditionalServices = sh.AdditionalServices
	idx, n := tp.Index+1, tp.Count
	out.ParcelIndex, out.ParcelCount = &idx, &n
	return out
}

// trackNumber answers one number: 404 when no parcel has it.
func (s *Server) trackNumber(w http.ResponseWriter, r *http.Request) error {
	tq, err := parseTrackingQuery(r.URL.Query())
	if err != nil {
		return err
	}
	n := strings.TrimSpace(r.PathValue("number"))
	ps, err := s.tracking.TrackNumbers(r.Context(), caller(r), []string{n})
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "No shipment with tracking number %s.", parcelgate.NormalizeID(n))
	}
	writeJSON(w, http.StatusOK, s.view(r, tq, page(ps, tq)))
	return nil
}

// trackNumbers answers up to 100 comma-separated numbers; those that match
// nothing are left out.
func (s *Server) trackNumbers(w http.ResponseWriter, r *http.Request) error {
	tq, err := parseTrackingQuery(r.URL.Query())
	if err != nil {
		return err
	}
	numbers := splitList(r.PathValue("numbers"))
	if err := checkCount("trackingnumbers", numbers, parcelgate.MaxTrackingNumbers); err != nil {
		return err
	}
	ps, err := s.tracking.TrackNumbers(r.Context(), caller(r), numbers)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.view(r, tq, page(ps, tq)))
	return nil
}

// findParcels answers keywords (1-100, comma-separated or repeated) over
// the caller's own parcels, in the fields keys chooses.
func (s *Server) findParcels(w http.ResponseWriter, r *http.Request) error {
	tq, err := parseTrackingQuery(r.URL.Query())
	if err != nil {
		return err
	}
	keywords := commaValues(r.URL.Query(), "keywords")
	if err := checkCount("keywords", keywords, parcelgate.MaxTrackingNumbers); err != nil {
		return err
	}
	return s.find(w, r, tq, keywords)
}

// findParcel answers one keyword of 3-60 characters.
func (s *Server) findParcel(w http.ResponseWriter, r *http.Request) error {
	tq, err := parseTrackingQuery(r.URL.Query())
	if err != nil {
		return err
	}
	k := strings.TrimSpace(r.PathValue("keyword"))
	if n := len([]rune(k)); n < parcelgate.MinKeyword || n > parcelgate.MaxKeyword {
		var p parcelgate.Problems
		p.Add("keyword", "must be %d-%d characters, not %d", parcelgate.MinKeyword, parcelgate.MaxKeyword, n)
		return p.Err()
	}
	return s.find(w, r, tq, []string{k})
}

// find answers the keywords, compared with the fields the keys parameter
// chooses (decisions §30; all when it is absent).
func (s *Server) find(w http.ResponseWriter, r *http.Request, tq trackingQuery, keywords []string) error {
	fields, err := parcelgate.ParseFindKeys(r.URL.Query()["keys"])
	if err != nil {
		return err
	}
	ps, err := s.tracking.FindParcels(r.Context(), caller(r), keywords, fields, tq.page())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.view(r, tq, ps))
	return nil
}

// trackBy answers one of the other keys (decisions §30): a lookup key as
// trackingnumber answers a number (404 when no parcel has it), a search key
// as find answers a keyword (an empty list when none); phonenumber is 403
// for every caller.
func (s *Server) trackBy(key parcelgate.TrackingKey) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		v, err := key.Value(r.PathValue(key.Param()))
		if err != nil {
			return err
		}
		tq, err := parseTrackingQuery(r.URL.Query())
		if err != nil {
			return err
		}
		// A search is paged by the store. A lookup's page is cut here, as
		// trackingnumber's is, so that a page past its last parcel is an
		// empty list while no parcel at all is 404.
		pr := tq.page()
		if key.Lookup() {
			pr = parcelgate.PageFrom(0, tq.limit+min(tq.start, math.MaxInt-tq.limit))
		}
		ps, err := s.tracking.TrackBy(r.Context(), caller(r), key, v, pr)
		if err != nil {
			return err
		}
		if key.Lookup() {
			if len(ps) == 0 {
				return key.NotFound(v)
			}
			ps = page(ps, tq)
		}
		writeJSON(w, http.StatusOK, s.view(r, tq, ps))
		return nil
	}
}

// maxEventDateWindow bounds event/date's from-to: its parcels are found by
// their shipments' creation, EventDateLookback before from.
const maxEventDateWindow = 31 * 24 * time.Hour

// eventDateScan caps the parcels event/date looks at for one answer.
const eventDateScan = 20000

// parcelsByEventDate answers the caller's parcels with an event in
// [from, to).
func (s *Server) parcelsByEventDate(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	tq, err := parseTrackingQuery(q)
	if err != nil {
		return err
	}
	var p parcelgate.Problems
	times := map[string]time.Time{}
	for _, name := range []string{"from", "to"} {
		v := q.Get(name)
		t, err := time.Parse(time.RFC3339, v)
		switch {
		case v == "":
			p.Add(name, "is required: an RFC 3339 time")
		case err != nil:
			p.Add(name, "must be an RFC 3339 time, not %q", v)
		}
		times[name] = t
	}
	from, to := times["from"], times["to"]
	if p.Len() == 0 && !to.After(from) {
		p.Add("to", "must be after from")
	} else if p.Len() == 0 && to.Sub(from) > maxEventDateWindow {
		p.Add("to", "must be at most 31 days after from")
	}
	if err := p.Err(); err != nil {
		return err
	}
	c := caller(r)
	now := s.clock.Now(c.Environment)
	var matched []parcelgate.TrackedParcel
	const batch = 500
	for offset := 0; offset < eventDateScan && len(matched) < tq.start+tq.limit; offset += batch {
		ps, err := s.tracking.ParcelsCreatedBetween(r.Context(), c, from.Add(-parcelgate.EventDateLookback), to, parcelgate.PageFrom(int64(offset), batch))
		if err != nil {
			return err
		}
		for _, tp := range ps {
			var point *parcelgate.PickupPoint
			if pt, ok := s.pickups.FindPickupPoint(tp.Shipment.PickupPointID); ok && tp.Shipment.PickupPointID != "" {
				point = &pt
			}
			tl := parcelgate.ParcelTimeline(s.estimates, tp.Shipment.Environment, tp.Shipment, point, tp.Moves, now)
			if slices.ContainsFunc(tl.Events, func(e parcelgate.TrackingEvent) bool { return !e.At.Before(from) && e.At.Before(to) }) {
				matched = append(matched, tp)
			}
		}
		if len(ps) < batch {
			break
		}
	}
	writeJSON(w, http.StatusOK, s.view(r, tq, page(matched, tq)))
	return nil
}

// ReservationStatuses is the answer of reservations/status (the
// provider's shape).
type ReservationStatuses struct {
	Reservations []ReservationStatus `json:"reservations"`
}

// ReservationStatus is one day of the window: the caller's parcels due at
// the destinations asked for, by their numbers.
type ReservationStatus struct {
	From            time.Time `json:"from"`
	To              time.Time `json:"to"`
	Count           int       `json:"count"`
	TrackingNumbers []string  `json:"trackingNumbers"`
}

// reservationStatus answers GET /tracking/7/reservations/status
// (decisions §39): the caller's own parcels due at the postcodes of the
// country in the window, a day at a time. Its parcels are found by their
// shipments' creation, EventDateLookback before from up to to (no journey
// is longer), at most eventDateScan of them, as event/date finds its.
func (s *Server) reservationStatus(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	q, err := parcelgate.ParseReservationQuery(v.Get("from"), v.Get("to"), v.Get("country"), v["postcode"], v["product"], v["service"])
	if err != nil {
		return err
	}
	c := caller(r)
	var ps []parcelgate.TrackedParcel
	const batch = 500
	for offset := 0; offset < eventDateScan; offset += batch {
		found, err := s.tracking.ParcelsCreatedBetween(r.Context(), c, q.From.Add(-parcelgate.EventDateLookback), q.To, parcelgate.PageFrom(int64(offset), batch))
		if err != nil {
			return err
		}
		ps = append(ps, found...)
		if len(found) < batch {
			break
		}
	}
	ans := ReservationStatuses{Reservations: []ReservationStatus{}}
	for _, d := range parcelgate.CountReservations(s.pickups, s.estimates, q, ps, s.clock.Now(c.Environment)) {
		ans.Reservations = append(ans.Reservations, ReservationStatus{From: parcelgate.FinnishClock(d.From), To: parcelgate.FinnishClock(d.To),
			Count: len(d.TrackingNumbers), TrackingNumbers: d.TrackingNumbers})
	}
	writeJSON(w, http.StatusOK, ans)
	return nil
}

// page is the start-th to the (start+limit)-th of ps.
func page(ps []parcelgate.TrackedParcel, tq trackingQuery) []parcelgate.TrackedParcel {
	if tq.start >= len(ps) {
		return nil
	}
	return ps[tq.start:min(len(ps), tq.start+tq.limit)]
}

func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func checkCount(field string, vs []string, most int) error {
	var p parcelgate.Problems
	switch {
	case len(vs) == 0:
		p.Add(field, "is required: 1 to %d values, comma-separated", most)
	case len(vs) > most:
		p.Add(field, "at most %d values, not %d", most, len(vs))
	}
	return p.Err()
}

type moveParcelRequest struct {
	Environment    string `json:"environment"`
	BusinessID     string `json:"businessId"`
	TrackingNumber string `json:"trackingNumber"`
	Value          string `json:"value"`
}

// moveParcel is the operator's move of a parcel's tracking status
// (decisions §30): from now on the parcel's journey is the operator's.
func (s *Server) moveParcel(w http.ResponseWriter, r *http.Request) error {
	var req moveParcelRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := operatorTarget(&p, req.Environment, req.BusinessID, "trackingNumber", req.TrackingNumber)
	status := parcelgate.ParcelStatus(strings.ToUpper(strings.TrimSpace(req.Value)))
	if !status.Valid() {
		names := make([]string, len(parcelgate.ParcelStatuses))
		for i, st := range parcelgate.ParcelStatuses {
			names[i] = string(st)
		}
		p.Add("value", "must be one of %s, not %q", strings.Join(names, ", "), req.Value)
	}
	if err := p.Err(); err != nil {
		return err
	}
	org, err := s.orgs.FindOrganization(r.Context(), parcelgate.EnvironmentOperator(env), req.BusinessID)
	if err != nil {
		return err
	}
	tp, err := s.tracking.MoveParcel(r.Context(), parcelgate.OperatorCaller(org), req.TrackingNumber, status)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, TrackingAnswer{ParcelShipments: []ParcelShipment{s.ParcelView(*tp, s.clock.Now(env))}, FreightShipments: []struct{}{}})
	return nil
}
