package parcelgate

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Tracking (decisions §30): the provider's Tracking API v7 over every
// parcel of shipment data. A parcel's journey is not stored as it happens:
// it is decided, when asked, from what is stored (the shipment, its
// parcel, the operator's moves) and the environment's clock, by
// ParcelTimeline. Moving the environment clock moves every parcel along.

// ParcelStatus is a parcel's status code in the Tracking API.
type ParcelStatus string

// The provider's parcel status codes.
const (
	StatusWaiting              ParcelStatus = "WAITING"
	StatusReceived             ParcelStatus = "RECEIVED"
	StatusInTransport          ParcelStatus = "IN_TRANSPORT"
	StatusReadyForPickup       ParcelStatus = "READY_FOR_PICKUP"
	StatusOutForDelivery       ParcelStatus = "OUT_FOR_DELIVERY"
	StatusDelivered            ParcelStatus = "DELIVERED"
	StatusReturnedToSender     ParcelStatus = "RETURNED_TO_SENDER"
	StatusReturnWaiting        ParcelStatus = "RETURN_WAITING"
	StatusReturnInTransport    ParcelStatus = "RETURN_IN_TRANSPORT"
	StatusReturnReadyForPickup ParcelStatus = "RETURN_READY_FOR_PICKUP"
	StatusReturnDelivered      ParcelStatus = "RETURN_DELIVERED"
	StatusCustoms              ParcelStatus = "CUSTOMS"
)

// ParcelStatuses lists every status, in journey order.
var ParcelStatuses = []ParcelStatus{StatusWaiting, StatusReceived, StatusInTransport, StatusCustoms, StatusReadyForPickup, StatusOutForDelivery, StatusDelivered,
	StatusReturnWaiting, StatusReturnInTransport, StatusReturnReadyForPickup, StatusReturnDelivered, StatusReturnedToSender}

// statusNames are each status's description in fi, en and sv.
var statusNames = map[ParcelStatus][3]string{
	StatusWaiting:              {"Odottaa lähettäjältä", "Waiting for the sender", "Väntar på avsändaren"},
	StatusReceived:             {"Vastaanotettu", "Received", "Mottagen"},
	StatusInTransport:          {"Kuljetuksessa", "In transport", "Under transport"},
	StatusCustoms:              {"Tullauksessa", "In customs", "I tullen"},
	StatusReadyForPickup:       {"Noudettavissa", "Ready for pick-up", "Kan hämtas"},
	StatusOutForDelivery:       {"Jakelussa", "Out for delivery", "Ute för utdelning"},
	StatusDelivered:            {"Toimitettu", "Delivered", "Levererad"},
	StatusReturnWaiting:        {"Palautus odottaa", "Return waiting", "Retur väntar"},
	StatusReturnInTransport:    {"Palautus kuljetuksessa", "Return in transport", "Retur under transport"},
	StatusReturnReadyForPickup: {"Palautus noudettavissa", "Return ready for pick-up", "Retur kan hämtas"},
	StatusReturnDelivered:      {"Palautus toimitettu", "Return delivered", "Retur levererad"},
	StatusReturnedToSender:     {"Palautettu lähettäjälle", "Returned to sender", "Returnerad till avsändaren"},
}

// Localized is a text in fi, en and sv.
type Localized struct {
	FI string `json:"fi"`
	EN string `json:"en"`
	SV string `json:"sv"`
}

// Description is the status's description in fi, en and sv.
func (s ParcelStatus) Description() Localized {
	n := statusNames[s]
	return Localized{n[0], n[1], n[2]}
}

// Valid reports whether s is one of ParcelStatuses.
func (s ParcelStatus) Valid() bool { return slices.Contains(ParcelStatuses, s) }

// Event codes of the journey (decisions §30; the provider's own codes
// were not found, these are invented and stable).
const (
	EventPreAdvice      = "PRE_ADVICE"         // shipment data received
	EventReceived       = "RECEIVED"           // handed over by the sender
	EventSorted         = "SORTED"             // at the sorting centre
	EventArrived        = "ARRIVED_PICKUP"     // at the pick-up point
	EventOutForDelivery = "OUT_FOR_DELIVERY"   // loaded for delivery
	EventDelivered      = "DELIVERED"          // delivered or collected
	EventReminder       = "PICKUP_REMINDER"    // the receiver reminded to collect
	EventNotCollected   = "NOT_COLLECTED"      // holding period over, returned
	EventRefused        = "REFUSED"            // the receiver refused it
	EventReturned       = "RETURNED_TO_SENDER" // back with the sender
	EventOperator       = "STATUS_SET"         // the operator set the status
)

var eventNames = map[string][3]string{
	EventPreAdvice:      {"Lähetystiedot vastaanotettu", "Shipment data received", "Försändelseuppgifterna mottagna"},
	EventReceived:       {"Lähetys vastaanotettu", "The shipment has been received", "Försändelsen har tagits emot"},
	EventSorted:         {"Lähetys lajiteltu", "The shipment has been sorted", "Försändelsen har sorterats"},
	EventArrived:        {"Saapunut noutopisteeseen", "Arrived at the pick-up point", "Har anlänt till utlämningsstället"},
	EventOutForDelivery: {"Jakelussa", "Out for delivery", "Ute för utdelning"},
	EventDelivered:      {"Toimitettu", "Delivered", "Levererad"},
	EventReminder:       {"Noutomuistutus lähetetty", "Pick-up reminder sent", "Påminnelse om avhämtning skickad"},
	EventNotCollected:   {"Noutamaton lähetys palautetaan", "Not collected; returning to sender", "Inte avhämtad; returneras till avsändaren"},
	EventRefused:        {"Vastaanottaja kieltäytyi", "Refused by the receiver", "Mottagaren vägrade ta emot"},
	EventReturned:       {"Palautettu lähettäjälle", "Returned to sender", "Returnerad till avsändaren"},
	EventOperator:       {"Tila päivitetty", "Status updated", "Status uppdaterad"},
}

// Place is where an event happened.
type Place struct {
	Code    string `json:"code,omitempty"` // a postal code or pick-up point ID
	Name    string `json:"name,omitempty"`
	City    string `json:"city,omitempty"`
	Country string `json:"country,omitempty"`
}

// TrackingEvent is one step of a parcel's journey.
type TrackingEvent struct {
	Code   string
	Status ParcelStatus
	At     time.Time
	Place  Place
}

// Description is the event's description in fi, en and sv.
func (e TrackingEvent) Description() Localized {
	n := eventNames[e.Code]
	return Localized{n[0], n[1], n[2]}
}

// TrackingMove is a status an operator set on a parcel at a time.
type TrackingMove struct {
	Status ParcelStatus `json:"status"`
	At     time.Time    `json:"at"`
}

// Journey timing (decisions §30).
const (
	handOverAfter = 2 * time.Hour      // created → received
	sortAfter     = 3 * time.Hour      // received → sorted, in transport
	outBefore     = 5 * time.Hour      // out for delivery before the estimate
	collectAfter  = 24 * time.Hour     // ready → collected by the receiver
	remindAfter   = 72 * time.Hour     // ready → reminder
	HoldingPeriod = 7 * 24 * time.Hour // ready → returned when not collected
	returnTakes   = 48 * time.Hour     // refused → back with the sender
	// fallbackTransit is the transit when the estimate model has no
	// answer (a sender abroad, a product it does not know).
	fallbackTransit = 72 * time.Hour
)

// sortingCentre is where every parcel is sorted.
var sortingCentre = Place{Code: "01530", Name: "Posti Logistics Centre", City: "VANTAA", Country: "FI"}

// Timeline is a parcel's journey as of a time.
type Timeline struct {
	// Events happened by the time asked for, oldest first.
	Events []TrackingEvent
	Status ParcelStatus
	// Estimate is when the parcel is to be delivered (or to be ready at
	// its pick-up point); zero once it is delivered or returned.
	Estimate time.Time
	// ModifiedAt is the time of the last event.
	ModifiedAt time.Time
	// Due is when the parcel reaches its destination as its journey has
	// it, passed or not: ready at its pick-up point, or delivered (or
	// refused) at the receiver's address; zero when it never does (an
	// operator's move or delivery came first). Reservations count by it
	// (decisions §39).
	Due time.Time
}

// ParcelTimeline decides the journey of a parcel of shipment sh (in env),
// by the estimate model est,
// as of now: created → WAITING; handed over 2 h later (RECEIVED); sorted
// 3 h after that (IN_TRANSPORT); at the time the estimate model gives for
// the product from the sender's to the destination's postal code (the
// pick-up point's, else the receiver's) it is READY_FOR_PICKUP at the point
// and collected a day later (DELIVERED), or OUT_FOR_DELIVERY 5 h before and
// DELIVERED then. The test scenarios change the end. An operator's move
// ends the clock's journey at the first move: the moves are the journey's
// events from then on. A shipment the operator delivered (its codes freed)
// is DELIVERED at that time if the clock has not got it there first.
func ParcelTimeline(est DeliveryEstimator, env Environment, sh *Shipment, point *PickupPoint, moves []TrackingMove, now time.Time) Timeline {
	created := sh.CreatedAt
	from := Place{Code: sh.Sender.PostalCode, City: strings.ToUpper(sh.Sender.PostOffice), Country: orFI(sh.Sender.Country)}
	dest := Place{Code: sh.Receiver.PostalCode, City: strings.ToUpper(sh.Receiver.PostOffice), Country: orFI(sh.Receiver.Country)}
	if point != nil {
		dest = Place{Code: point.ExternalID, Name: point.Name, City: strings.ToUpper(point.PostOffice), Country: orFI(point.Country)}
	}
	received := created.Add(handOverAfter)
	sorted := received.Add(sortAfter)
	due := estimateArrival(est, sh, point, received)
	if min := sorted.Add(time.Hour); due.Before(min) {
		due = min
	}
	ev := []TrackingEvent{
		{EventPreAdvice, StatusWaiting, created, from},
		{EventReceived, StatusReceived, received, from},
		{EventSorted, StatusInTransport, sorted, sortingCentre},
	}
	scenario := TrackingScenario(env, sh.Reference, point != nil)
	handedAt := due // when the receiver gets (or refuses) it
	if point != nil {
		ev = append(ev, TrackingEvent{EventArrived, StatusReadyForPickup, due, dest})
		handedAt = due.Add(collectAfter)
	} else {
		out := due.Add(-outBefore)
		if !out.After(sorted) {
			out = sorted.Add(time.Minute)
		}
		ev = append(ev, TrackingEvent{EventOutForDelivery, StatusOutForDelivery, out, dest})
	}
	switch scenario {
	case ScenarioReturn:
		ev = append(ev, TrackingEvent{EventRefused, StatusReturnInTransport, handedAt, dest},
			TrackingEvent{EventReturned, StatusReturnedToSender, handedAt.Add(returnTakes), from})
	case ScenarioUncollected:
		ev = append(ev, TrackingEvent{EventReminder, StatusReadyForPickup, due.Add(remindAfter), dest},
			TrackingEvent{EventNotCollected, StatusReturnInTransport, due.Add(HoldingPeriod), dest},
			TrackingEvent{EventReturned, StatusReturnedToSender, due.Add(HoldingPeriod + returnTakes), from})
	default:
		ev = append(ev, TrackingEvent{EventDelivered, StatusDelivered, handedAt, dest})
	}
	if sh.DeliveredAt != nil {
		ev = cutAt(ev, *sh.DeliveredAt)
		if last := ev[len(ev)-1]; last.Status != StatusDelivered && !isReturn(last.Status) {
			ev = append(ev, TrackingEvent{EventDelivered, StatusDelivered, *sh.DeliveredAt, dest})
		}
	}
	if len(moves) > 0 {
		ev = cutAt(ev, moves[0].At)
		for _, m := range moves {
			ev = append(ev, TrackingEvent{EventOperator, m.Status, m.At, moveAt(m.Status, from, dest)})
		}
	}
	slices.SortStableFunc(ev, func(a, b TrackingEvent) int { return a.At.Compare(b.At) })
	t := Timeline{Estimate: due}
	if slices.ContainsFunc(ev, func(e TrackingEvent) bool { return e.At.Equal(due) && e.Place == dest && e.Code != EventOperator }) {
		t.Due = due
	}
	for _, e := range ev {
		if e.At.After(now) {
			break
		}
		t.Events = append(t.Events, e)
	}
	if len(t.Events) == 0 {
		// Created after now: another instance's clock, a moment ahead,
		// made it. It is shown as just created (its pre-advice), never
		// as nothing.
		t.Events = append(t.Events, ev[0])
	}
	last := t.Events[len(t.Events)-1]
	t.Status, t.ModifiedAt = last.Status, last.At
	if last.Status == StatusDelivered || isReturn(last.Status) || len(moves) > 0 {
		t.Estimate = time.Time{}
	}
	return t
}

// cutAt keeps the events before at (at least the first).
func cutAt(ev []TrackingEvent, at time.Time) []TrackingEvent {
	n := 1
	for n < len(ev) && ev[n].At.Before(at) {
		n++
	}
	return ev[:n]
}

func isReturn(s ParcelStatus) bool {
	return s == StatusReturnedToSender || strings.HasPrefix(string(s), "RETURN_")
}

// moveAt is where an operator's move happens: back with the sender for a
// return, at the sorting centre while in transport, else at the
// destination.
func moveAt(s ParcelStatus, from, dest Place) Place {
	switch {
	case s == StatusWaiting || s == StatusReceived || s == StatusReturnedToSender || s == StatusReturnDelivered:
		return from
	case s == StatusInTransport || s == StatusCustoms || s == StatusReturnInTransport:
		return sortingCentre
	}
	return dest
}

func orFI(c string) string {
	if c == "" {
		return "FI"
	}
	return strings.ToUpper(c)
}

// estimateArrival is when the estimate model (est) has a parcel
// handed over at `at` arrive: from the sender's postal code to the pick-up
// point's, else the receiver's. Without an answer (a sender abroad, a
// product the model does not know) it is fallbackTransit later.
func estimateArrival(est DeliveryEstimator, sh *Shipment, point *PickupPoint, at time.Time) time.Time {
	q := EstimateRequest{FromPostcode: sh.Sender.PostalCode, FromCountry: orFI(sh.Sender.Country),
		ToPostcode: sh.Receiver.PostalCode, ToCountry: orFI(sh.Receiver.Country), Product: sh.ServiceCode, At: at}
	if point != nil {
		q.ToPostcode, q.ToCountry = point.PostalCode, orFI(point.Country)
	}
	if est.CheckEstimate(&q, EstimateFields{}) != nil {
		return at.Add(fallbackTransit)
	}
	return est.EstimateDeliveryTime(q)
}

// FinnishClock is t in Finnish time with its UTC offset, as the Tracking
// API writes its timestamps.
func FinnishClock(t time.Time) time.Time {
	off := finnishTime(t).Sub(t.UTC())
	name := "EET"
	if off == 3*time.Hour {
		name = "EEST"
	}
	return t.In(time.FixedZone(name, int(off/time.Second)))
}

// TrackedParcel is one parcel the Tracking API answers: its shipment, its
// place in it, the operator's moves, and whether the caller's organization
// owns it (the contract view) or not (the public view).
type TrackedParcel struct {
	Shipment *Shipment
	Parcel   Parcel
	// Index is the parcel's place in its shipment (from 0) of Count.
	Index, Count int
	Moves        []TrackingMove
	Own          bool
}

// Tracking limits (decisions §30, the provider's): at most 100 parcels a
// page, 100 numbers or keywords a request, keywords of 3-60 characters.
const (
	MaxTrackingLimit   = 100
	MaxTrackingNumbers = 100
	MinKeyword         = 3
	MaxKeyword         = 60
	// EventDateLookback bounds the shipments event/date looks at: no
	// journey lasts longer (the longest is the uncollected one, about 12
	// days).
	EventDateLookback = 30 * 24 * time.Hour
)

// TrackingService finds parcels for the Tracking API. Every call acts for
// one caller (a service account) in the caller's environment. Lookups by
// number find any organization's parcel (Own false: the public view);
// searches by keyword, reference, errand code or event date find the
// caller's own only, so that they reveal nothing of another tenant's.
// Every method asks Caller.May itself first (decisions §30), so a caller
// without the right is EFORBIDDEN and nothing is read or written for it.
type TrackingService interface {
	// TrackNumbers returns the parcels with the numbers, in the order
	// asked: a parcel's number is that parcel, another shipment tracking
	// number all the shipment's parcels; numbers that match nothing are
	// left out. Only a caller that may ActionTrackParcels.
	TrackNumbers(ctx context.Context, c *Caller, numbers []string) ([]TrackedParcel, error)
	// FindParcels returns c's parcels whose number, shipment tracking
	// number or reference, each only when in fields (ParseFindKeys;
	// FindAll for all three), is one of the keywords (case-insensitive),
	// oldest first, the page asked for (PageFrom: at most limit from
	// start, resolved by key). No fields find nothing.
	// Only a caller that may ActionTrackParcels.
	FindParcels(ctx context.Context, c *Caller, keywords []string, fields FindFields, page PageRequest) ([]TrackedParcel, error)
	// TrackBy returns the parcels key's value names (TrackingKey.Match),
	// oldest shipment first, the page asked for (PageFrom): for a lookup key
	// (TrackingKey.Lookup) any organization's in c's environment, else
	// c's own only. A value the key refuses is EINVALID, a restricted key
	// EFORBIDDEN (TrackingKey.Value). Only a caller that may
	// ActionTrackParcels.
	TrackBy(ctx context.Context, c *Caller, key TrackingKey, value string, page PageRequest) ([]TrackedParcel, error)
	// ParcelsCreatedBetween returns c's parcels whose shipment was created
	// in [from, to), oldest first, the page asked for (PageFrom). Only
	// a caller that may ActionTrackParcels.
	ParcelsCreatedBetween(ctx context.Context, c *Caller, from, to time.Time, page PageRequest) ([]TrackedParcel, error)
	// MoveParcel sets the status of c's parcel with the number from the
	// clock's now, and returns the parcel; another organization's parcel
	// is ENOTFOUND like a missing one. Only the operator acts
	// (ActionOperate): c is an OperatorCaller of the parcel's
	// organization (on the workbench, acting for the warehouse).
	MoveParcel(ctx context.Context, c *Caller, number string, status ParcelStatus) (*TrackedParcel, error)
}
