package parcelgate

import (
	"testing"
	"time"
)

func journeyShipment(service, ref string, created time.Time) *Shipment {
	return &Shipment{ServiceCode: service, Reference: ref, CreatedAt: created,
		Sender:   Address{PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver: Address{PostalCode: "33100", PostOffice: "Tampere", Country: "FI"}}
}

func statusAt(t *testing.T, env Environment, sh *Shipment, point *PickupPoint, moves []TrackingMove, now time.Time) ParcelStatus {
	t.Helper()
	return ParcelTimeline(testEstimates, env, sh, point, moves, now).Status
}

// decisions §30: the journey's steps and their times: created WAITING,
// +2 h RECEIVED, +5 h IN_TRANSPORT, at the estimate READY_FOR_PICKUP (to a
// point) or 5 h before it OUT_FOR_DELIVERY, DELIVERED a day after arrival
// at a point or at the estimate.
func TestParcelTimelineSteps(t *testing.T) {
	created := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC) // a Tuesday, 10:00 in Finland
	point, ok := testNetwork{}.NearestPickupPoint("33100", "2103")
	if !ok {
		t.Fatal("no point")
	}
	sh := journeyShipment("2103", "", created)
	due := testEstimates.EstimateDeliveryTime(EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: point.PostalCode, ToCountry: "FI", Product: "2103", Phase: PhaseDroppedOff, At: created.Add(2 * time.Hour)})
	for _, c := range []struct {
		at   time.Time
		want ParcelStatus
	}{
		{created, StatusWaiting},
		{created.Add(2 * time.Hour), StatusReceived},
		{created.Add(5 * time.Hour), StatusInTransport},
		{due.Add(-time.Second), StatusInTransport},
		{due, StatusReadyForPickup},
		{due.Add(24 * time.Hour), StatusDelivered},
	} {
		if got := statusAt(t, Production, sh, &point, nil, c.at); got != c.want {
			t.Errorf("2103 at %s: %s, want %s", c.at, got, c.want)
		}
	}
	if tl := ParcelTimeline(testEstimates, Production, sh, &point, nil, created); !tl.Estimate.Equal(due) || !tl.ModifiedAt.Equal(created) || len(tl.Events) != 1 {
		t.Errorf("at creation: %+v (estimate %s)", tl, due)
	}
	home := journeyShipment("2104", "", created)
	dueHome := testEstimates.EstimateDeliveryTime(EstimateRequest{FromPostcode: "00100", FromCountry: "FI", ToPostcode: "33100", ToCountry: "FI", Product: "2104", Phase: PhaseDroppedOff, At: created.Add(2 * time.Hour)})
	if got := statusAt(t, Production, home, nil, nil, dueHome.Add(-5*time.Hour)); got != StatusOutForDelivery {
		t.Errorf("2104 5 h before the estimate: %s", got)
	}
	if tl := ParcelTimeline(testEstimates, Production, home, nil, nil, dueHome); tl.Status != StatusDelivered || !tl.Estimate.IsZero() {
		t.Errorf("2104 at the estimate: %+v", tl)
	}
}

// Scenarios act in the test environment only; the operator's moves end the
// clock's journey; a shipment delivered by the operator is DELIVERED then.
func TestParcelTimelineScenariosAndMoves(t *testing.T) {
	created := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	point, _ := testNetwork{}.NearestPickupPoint("33100", "2103")
	later := created.Add(20 * 24 * time.Hour)
	if got := statusAt(t, Test, journeyShipment("2103", "x.nopick", created), &point, nil, later); got != StatusReturnedToSender {
		t.Errorf("test .UNCOLLECTED: %s", got)
	}
	if got := statusAt(t, Production, journeyShipment("2103", "x.nopick", created), &point, nil, later); got != StatusDelivered {
		t.Errorf("production .UNCOLLECTED: %s", got)
	}
	if tl := ParcelTimeline(testEstimates, Test, journeyShipment("2104", "x.return", created), nil, nil, later); tl.Status != StatusReturnedToSender || tl.Events[len(tl.Events)-2].Code != EventRefused {
		t.Errorf("test .RETURN: %+v", tl.Events)
	}
	moved := []TrackingMove{{StatusCustoms, created.Add(4 * time.Hour)}}
	tl := ParcelTimeline(testEstimates, Production, journeyShipment("2103", "", created), &point, moved, later)
	if tl.Status != StatusCustoms || len(tl.Events) != 3 || !tl.Estimate.IsZero() {
		t.Errorf("after a move at +4 h: %+v", tl)
	}
	sh := journeyShipment("2103", "", created)
	at := created.Add(3 * time.Hour)
	sh.DeliveredAt = &at
	if tl := ParcelTimeline(testEstimates, Production, sh, &point, nil, later); tl.Status != StatusDelivered || !tl.ModifiedAt.Equal(at) {
		t.Errorf("delivered by the operator at +3 h: %+v", tl)
	}
}

// Timestamps are written in Finnish time: EET in winter, EEST in summer.
func TestFinnishClock(t *testing.T) {
	for at, off := range map[time.Time]int{
		time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC): 2 * 3600,
		time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC): 3 * 3600,
	} {
		if _, got := FinnishClock(at).Zone(); got != off || !FinnishClock(at).Equal(at) {
			t.Errorf("%s: offset %d, want %d", at, got, off)
		}
	}
}

// A shipment made by an instance whose clock is a moment ahead of this
// one's is read before its creation: it is shown as just created (its
// pre-advice), not as a panic (decisions §30).
func TestParcelTimelineBeforeCreation(t *testing.T) {
	created := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	tl := ParcelTimeline(testEstimates, Production, journeyShipment("2104", "", created), nil, nil, created.Add(-time.Second))
	if len(tl.Events) != 1 || tl.Status != StatusWaiting || !tl.ModifiedAt.Equal(created) {
		t.Fatalf("%+v", tl)
	}
}
