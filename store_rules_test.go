package parcelgate

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The decisions below were once made inside the store's SQL; each is now
// a root function the store calls (issue 21 part 2).

// interface §4.1: a delivered shipment gets no sending code; without
// noEdiCheck the shipment data must exist.
func TestSendingCodeDecision(t *testing.T) {
	for _, c := range []struct {
		status     ShipmentStatus
		noEdiCheck bool
		want       string
	}{
		{ShipmentCreated, false, ""},
		{ShipmentCreated, true, ""},
		{"", true, ""},
		{"", false, ENOTFOUND},
		{ShipmentDelivered, false, ECONFLICT},
		{ShipmentDelivered, true, ECONFLICT},
	} {
		if got := ErrorCode(SendingCodeDecision("JJFI1", c.status, c.noEdiCheck)); got != c.want {
			t.Errorf("%q noEdiCheck %v: %q, want %q", c.status, c.noEdiCheck, got, c.want)
		}
	}
}

// interface §4.2 rule 1, §7 rule 1: only a valid parcel of shipment data
// not yet delivered holds an errand code; each other gets a ResultText
// saying why.
func TestErrandCodeOutcome(t *testing.T) {
	const id = "JJFI12345678901234567"
	for _, c := range []struct {
		id     string
		status ShipmentStatus
		text   string
		holds  bool
	}{
		{id, ShipmentCreated, ResultOK, true},
		{id, "", ResultShipmentNotFound, false},
		{id, ShipmentDelivered, ResultShipmentDelivered, false},
		{"SHORT", ShipmentCreated, ResultInvalidParcelID, false},
		{"jjfi12345678901234567", ShipmentCreated, ResultInvalidParcelID, false}, // not normalized
	} {
		text, holds := ErrandCodeOutcome(c.id, c.status)
		if text != c.text || holds != c.holds {
			t.Errorf("%s %q: %q %v, want %q %v", c.id, c.status, text, holds, c.text, c.holds)
		}
	}
}

// interface §4.1, §2.1: one check of a tracking number for shipment data,
// sending-code requests and the store.
func TestCheckTrackingNumber(t *testing.T) {
	for _, c := range []struct {
		tn       string
		required bool
		want     string
	}{
		{"JJFI1", true, ""},
		{"", false, ""},
		{"", true, "is required"},
		{"ABC", false, "must be 4-35 characters of A-Z and 0-9"},
		{"AB-12", true, "must be 4-35 characters of A-Z and 0-9"},
		{strings.Repeat("A", 36), true, "must be 4-35 characters of A-Z and 0-9"},
	} {
		var p Problems
		CheckTrackingNumber(&p, "f", c.tn, c.required)
		got := ""
		if l := p.List(); len(l) > 0 {
			got = l[0].Message
			if l[0].Field != "f" {
				t.Errorf("%q: field %q", c.tn, l[0].Field)
			}
		}
		if got != c.want {
			t.Errorf("%q required %v: %q, want %q", c.tn, c.required, got, c.want)
		}
	}
}

// interface §4.3 rule 2 option 1: a made externalId is the business ID and
// up to 10 random characters, within 20; a business ID too long for 6 of
// them must send its own (EINVALID naming externalId).
func TestNewOrderExternalID(t *testing.T) {
	id, err := NewOrderExternalID(testBID)
	if err != nil || !strings.HasPrefix(id, testBID+"-") || len(id) != len(testBID)+11 || len(id) > MaxOrderIDLength {
		t.Fatalf("%q %v", id, err)
	}
	if other, _ := NewOrderExternalID(testBID); other == id {
		t.Error("two made IDs are equal")
	}
	long := "FI" + strings.Repeat("9", 12) // 14 characters: 5 left
	if _, err := NewOrderExternalID(long); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "externalId" {
		t.Errorf("long business ID: %v", err)
	}
	if id, err := NewOrderExternalID("FI" + strings.Repeat("9", 11)); err != nil || len(id) != 20 {
		t.Errorf("6 left: %q %v", id, err)
	}
}

// decisions §7: the engine moves an order out of from once its wait is
// over, and out of Created only with autoSubmit.
func TestDueForWarehouse(t *testing.T) {
	before := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	early, late := before.Add(-time.Microsecond), before.Add(time.Microsecond)
	for _, c := range []struct {
		from, status OrderStatus
		autoSubmit   bool
		readyAt      time.Time
		want         bool
	}{
		{OrderCreated, OrderCreated, true, early, true},
		{OrderCreated, OrderCreated, true, before, true},
		{OrderCreated, OrderCreated, true, late, false},
		{OrderCreated, OrderCreated, false, early, false},
		{OrderCreated, OrderSubmitted, true, early, false},
		{OrderSubmitted, OrderSubmitted, false, early, true},
		{OrderSubmitted, OrderSubmitted, true, late, false},
		{OrderSubmitted, OrderDelivered, false, early, false},
	} {
		d := DueForWarehouse(c.from, before)
		if d.AutoSubmitOnly != (c.from == OrderCreated) {
			t.Errorf("from %s: AutoSubmitOnly %v", c.from, d.AutoSubmitOnly)
		}
		if got := d.Covers(c.status, c.autoSubmit, c.readyAt); got != c.want {
			t.Errorf("from %s: %s autoSubmit %v ready %v: %v, want %v", c.from, c.status, c.autoSubmit, c.readyAt, got, c.want)
		}
	}
}

// decisions §7, interface §2.5 allocated, §4.4 PUT balances rule 5: how much
// stock moves when an order takes, releases or takes again what it holds.
func TestStockMoves(t *testing.T) {
	rows := []OrderRow{{Quantity: 2}, {Quantity: 3}, {Quantity: 1}}
	a := Allocation{BalanceIDs: []int64{7, 8, 7}}
	if got := a.Takes(rows); !slices.Equal(got, []StockMove{{7, -3, 3}, {8, -3, 3}}) {
		t.Errorf("takes %v", got)
	}

	levels := map[int64]StockLevel{7: {Quantity: 10, Allocated: 4}, 8: {Quantity: 0, Allocated: 1}}
	holds := []StockHold{{7, 3}, {7, 3}, {8, 2}, {9, 5}} // 9 is removed: no move
	if got := ReleaseHolds(levels, holds, true); !slices.Equal(got, []StockMove{{7, 3, -3}, {7, 1, -1}, {8, 1, -1}}) {
		t.Errorf("restock %v", got)
	}
	if got := ReleaseHolds(levels, holds, false); !slices.Equal(got, []StockMove{{7, 0, -3}, {7, 0, -1}, {8, 0, -1}}) {
		t.Errorf("ship %v", got)
	}
	if got := ReleaseHolds(map[int64]StockLevel{7: {}}, []StockHold{{7, 2}}, true); !slices.Equal(got, []StockMove{{7, 0, 0}}) {
		t.Errorf("released meanwhile: %v (a zero move still stamps the balance)", got)
	}
	if got := RetakeHolds(levels, []StockHold{{7, 6}, {7, 6}, {8, 2}}); !slices.Equal(got, []StockMove{{7, -6, 6}, {7, -4, 4}, {8, 0, 0}}) {
		t.Errorf("retake %v", got)
	}
	if levels[7] != (StockLevel{Quantity: 10, Allocated: 4}) {
		t.Error("the levels given were changed")
	}
}

// interface §2.3 Fragile/Oversized, §2.4: one reader of the product
// document; a member of another type is absent.
func TestReadProductDocument(t *testing.T) {
	for _, c := range []struct {
		doc               string
		fragile, oversize bool
		name              string
	}{
		{`{"isFragile":true,"descriptions":{"fi":{"name":"Muki"},"en":{"name":"Mug"}}}`, true, false, "Mug"},
		{`{"isOversized":true,"descriptions":{"sv":{"name":"Kopp"},"fi":{"name":"Muki"}}}`, false, true, "Muki"},
		{`{"descriptions":{"sv":{"name":"Kopp"},"de":{"name":""},"da":{"name":"Krus"}}}`, false, false, "Krus"},
		{`{"isFragile":"yes","isOversized":true}`, false, true, ""},
		{`not json`, false, false, ""},
	} {
		d := ReadProductDocument([]byte(c.doc))
		if d.IsFragile != c.fragile || d.IsOversized != c.oversize || d.Name() != c.name {
			t.Errorf("%s: %+v name %q", c.doc, d, d.Name())
		}
	}
}
