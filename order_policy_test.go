package parcelgate

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// decisions §7 (interface §3 shows only the first status): Created → Submitted →
// Delivered; Created or Submitted → Cancelled or Error; the rest are final.
func TestCanMoveTable(t *testing.T) {
	allowed := map[[2]OrderStatus]bool{
		{OrderCreated, OrderSubmitted}: true, {OrderCreated, OrderCancelled}: true, {OrderCreated, OrderError}: true,
		{OrderSubmitted, OrderDelivered}: true, {OrderSubmitted, OrderCancelled}: true, {OrderSubmitted, OrderError}: true,
	}
	for _, from := range OrderStatuses {
		for _, to := range OrderStatuses {
			if got := CanMove(from, to); got != allowed[[2]OrderStatus{from, to}] {
				t.Errorf("CanMove(%s, %s) = %v", from, to, got)
			}
		}
	}
	for st, final := range map[OrderStatus]bool{OrderCreated: false, OrderSubmitted: false, OrderDelivered: true, OrderError: true, OrderCancelled: true} {
		if st.Terminal() != final {
			t.Errorf("%s.Terminal() = %v", st, !final)
		}
	}
	// The warehouse engine walks WarehousePath; every step is a move of the table.
	for i := 1; i < len(WarehousePath); i++ {
		if !CanMove(WarehousePath[i-1], WarehousePath[i]) {
			t.Errorf("warehouse step %s → %s is not in the table", WarehousePath[i-1], WarehousePath[i])
		}
	}
}

// decisions §7: Delivered takes the allocation away with the parcels;
// Cancelled and Error return it to quantity; Submitted keeps it.
func TestEffectOf(t *testing.T) {
	for to, want := range map[OrderStatus]StockEffect{OrderSubmitted: StockKeep, OrderDelivered: StockShip, OrderCancelled: StockReturn, OrderError: StockReturn} {
		if got := EffectOf(to); got != want {
			t.Errorf("EffectOf(%s) = %v, want %v", to, got, want)
		}
	}
}

// decisions §7 re-sending an existing externalId: same content → the stored
// order; new content while Created → replaced; otherwise 409.
func TestResendDecision(t *testing.T) {
	for _, tc := range []struct {
		st   OrderStatus
		same bool
		want ResendAction
		code string
	}{
		{OrderCreated, true, ResendRetry, ""},
		{OrderSubmitted, true, ResendRetry, ""},
		{OrderCancelled, true, ResendRetry, ""},
		{OrderCreated, false, ResendReplace, ""},
		{OrderSubmitted, false, 0, ECONFLICT},
		{OrderDelivered, false, 0, ECONFLICT},
		{OrderCancelled, false, 0, ECONFLICT},
		{OrderError, false, 0, ECONFLICT},
	} {
		got, err := ResendDecision("1005", tc.st, tc.same)
		if got != tc.want || ErrorCode(err) != tc.code {
			t.Errorf("%s same=%v: %v %v", tc.st, tc.same, got, err)
		}
	}
}

// The warehouse plugin re-sends a cancelled shop order with POST
// /orders/{id}: Error and Cancelled go live again; Delivered is final;
// open orders are not re-sent.
func TestReopenDecision(t *testing.T) {
	for st, code := range map[OrderStatus]string{OrderError: "", OrderCancelled: "", OrderDelivered: ECONFLICT, OrderCreated: ECONFLICT, OrderSubmitted: ECONFLICT} {
		err := ReopenDecision("1005", st)
		if ErrorCode(err) != code {
			t.Errorf("%s: %v", st, err)
		}
	}
	if err := ReopenDecision("1005", OrderDelivered); !strings.Contains(ErrorMessage(err), "final") {
		t.Errorf("Delivered: the message says why: %v", err)
	}
}

// decisions §7: a client cancels while Created or Submitted; a second cancel
// changes nothing; Delivered and Error are 409. The operator's moves follow
// the table; the status an order has is a no-op.
func TestCancelAndOperatorDecisions(t *testing.T) {
	for st, want := range map[OrderStatus]struct {
		move bool
		code string
	}{OrderCreated: {true, ""}, OrderSubmitted: {true, ""}, OrderCancelled: {false, ""}, OrderDelivered: {false, ECONFLICT}, OrderError: {false, ECONFLICT}} {
		move, err := CancelDecision("X", st)
		if move != want.move || ErrorCode(err) != want.code {
			t.Errorf("cancel %s: %v %v", st, move, err)
		}
	}
	for _, tc := range []struct {
		from, to OrderStatus
		move     bool
		code     string
	}{
		{OrderCreated, OrderSubmitted, true, ""},
		{OrderSubmitted, OrderSubmitted, false, ""},
		{OrderCreated, OrderDelivered, false, ECONFLICT},
		{OrderDelivered, OrderCancelled, false, ECONFLICT},
	} {
		move, err := OperatorMoveDecision("X", tc.from, tc.to)
		if move != tc.move || ErrorCode(err) != tc.code {
			t.Errorf("%s → %s: %v %v", tc.from, tc.to, move, err)
		}
	}
	if DefaultReason(OrderError, "") == "" || DefaultReason(OrderCancelled, "") == "" || DefaultReason(OrderSubmitted, "") != "" || DefaultReason(OrderError, "why") != "why" {
		t.Error("Error and Cancelled always carry a reason")
	}
}

// decisions §7: autoSubmit changes only while Created; a no-op always passes.
func TestPreferencesDecision(t *testing.T) {
	if change, err := PreferencesDecision("X", OrderCreated, false, true); !change || err != nil {
		t.Errorf("Created: %v %v", change, err)
	}
	if change, err := PreferencesDecision("X", OrderSubmitted, true, true); change || err != nil {
		t.Errorf("no-op: %v %v", change, err)
	}
	if _, err := PreferencesDecision("X", OrderSubmitted, false, true); ErrorCode(err) != ECONFLICT {
		t.Errorf("Submitted change: %v", err)
	}
}

// decisions §7 allocation: all or nothing; a product unknown in its warehouse
// or at end of sale is Error, too little stock Cancelled, each with a
// reason; prices and the Fragile/Oversized services of interface §2.3 are taken
// from the balances and products.
func TestAllocate(t *testing.T) {
	row := func(p string, q int64) OrderRow {
		return OrderRow{ExternalProductID: p, ExternalWarehouseID: "WH1", Quantity: Quantity(q)}
	}
	whs := []string{"WH1"}
	p1 := &RowStock{BalanceID: 1, Available: 10, Price: "2.50", Fragile: true}
	p2 := &RowStock{BalanceID: 2, Available: 5, Price: "1.25", Oversized: true}
	for name, tc := range map[string]struct {
		rows   []OrderRow
		stock  []*RowStock
		whs    []string
		status OrderStatus
		reason string
	}{
		"covered":                 {[]OrderRow{row("P1", 3), row("P2", 2)}, []*RowStock{p1, p2}, whs, OrderCreated, ""},
		"exactly all":             {[]OrderRow{row("P1", 10)}, []*RowStock{p1}, whs, OrderCreated, ""},
		"short":                   {[]OrderRow{row("P1", 3), row("P2", 6)}, []*RowStock{p1, p2}, whs, OrderCancelled, "P2 has 5 available"},
		"same balance twice":      {[]OrderRow{row("P1", 6), row("P1", 5)}, []*RowStock{p1, p1}, whs, OrderCancelled, "needs 11"},
		"unknown product":         {[]OrderRow{row("P1", 1), row("P9", 1)}, []*RowStock{p1, nil}, whs, OrderError, "P9 is not stocked in warehouse WH1"},
		"not the merchant's":      {[]OrderRow{row("P1", 1)}, []*RowStock{nil}, nil, OrderError, "not one of your warehouses"},
		"EOS":                     {[]OrderRow{row("P1", 1)}, []*RowStock{{BalanceID: 3, Available: 9, EOS: true}}, whs, OrderError, "end of sale"},
		"error wins over short":   {[]OrderRow{row("P2", 99), row("P9", 1)}, []*RowStock{p2, nil}, whs, OrderError, "P9"},
		"unpriced counts nothing": {[]OrderRow{row("P3", 1)}, []*RowStock{{BalanceID: 4, Available: 1}}, whs, OrderCreated, ""},
	} {
		t.Run(name, func(t *testing.T) {
			a := Allocate(tc.rows, tc.stock, tc.whs)
			if a.Status != tc.status || !strings.Contains(a.Reason, tc.reason) || (tc.reason == "") != (a.Reason == "") {
				t.Fatalf("%s %q", a.Status, a.Reason)
			}
			if a.Allocates() != (tc.status == OrderCreated) || len(a.BalanceIDs) != len(tc.rows) {
				t.Fatalf("allocates %v, balances %v", a.Allocates(), a.BalanceIDs)
			}
		})
	}
	a := Allocate([]OrderRow{row("P1", 3), row("P2", 2), row("P1", 1)}, []*RowStock{p1, p2, p1}, whs)
	if a.Total != 4*2.50+2*1.25 || !slices.Equal(a.Prices, []float64{2.5, 1.25, 2.5}) || !slices.Equal(a.Services, []string{ServiceFragile, ServiceOversized}) {
		t.Fatalf("pricing %+v", a)
	}
	// The client's own services come first, then the products', each once.
	o := &Order{Rows: []OrderRow{row("P1", 3), row("P2", 2), row("P1", 1)}, RequestedServices: []AdditionalService{{"3101"}, {ServiceFragile}}}
	o.Apply(a)
	if !slices.Equal(o.AdditionalServices, []AdditionalService{{"3101"}, {ServiceFragile}, {ServiceOversized}}) || o.Rows[1].WholesalePrice != 1.25 || o.TotalWholeSalePrice != 12.5 {
		t.Fatalf("applied %+v", o)
	}
}

// Since the provider's ID migration real clients send IDs bare (the
// warehouse plugin: order 1005, SKU WOO6) as well as {businessId}-{own};
// both are the caller's; another business's prefix is refused.
func TestOwnID(t *testing.T) {
	for id, want := range map[string]string{
		"1005": "1005", "1234567-1-1005": "1005", "WOO6": "WOO6", "1234567-1-WOO-6.b": "WOO-6.b",
		"7654321-2-1005": "", "1234567-1-": "", "a/b": "", "ABCDEFGHIJKLMNOPQRSTU": "", "": "",
		// decisions §14: only a valid business ID (check digit) is another
		// business's prefix, for orders as for products.
		"1234567-0-1005": "1234567-0-1005",
	} {
		own, problem := OwnID(testBID, id)
		if own != want || (want == "") != (problem != "") {
			t.Errorf("OwnID(%q) = %q, %q", id, own, problem)
		}
	}
	if got := IDForms(testBID, "WOO6"); !slices.Equal(got, []string{"WOO6", testBID + "-WOO6"}) {
		t.Errorf("forms of a bare ID: %v", got)
	}
	if got := IDForms(testBID, testBID+"-WOO6"); !slices.Equal(got, []string{testBID + "-WOO6", "WOO6"}) {
		t.Errorf("forms of a prefixed ID: %v", got)
	}
}

// OwnID's character check and prefix cut are the regular expression
// ^[A-Za-z0-9._-]+$ and strings.CutPrefix(id, businessID+"-") they
// replace, on every byte and on IDs around the prefix.
func TestOwnIDCharsIsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	ids := []string{"", "-", "--", "a", "-abc", "1234567-1", "1234567-1-", "1234567-1-x", "1234567-1x", "1234567-", "x1234567-1-y", "ä", "a b", "a\x00"}
	for c := range 256 {
		ids = append(ids, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)})+"c")
	}
	for _, id := range ids {
		if got, want := ownIDChars(id), pattern.MatchString(id); got != want {
			t.Errorf("ownIDChars(%q) = %v, the pattern %v", id, got, want)
		}
		for _, bid := range []string{testBID, ""} {
			own, prefixed := strings.CutPrefix(id, bid+"-")
			wantOwn := id
			if prefixed {
				wantOwn = own
			}
			if !pattern.MatchString(wantOwn) || len(id) > MaxOrderIDLength || (prefixed && own == "") {
				wantOwn = ""
			}
			if _, foreign := OtherBusinessPrefix(bid, id); foreign && !prefixed {
				wantOwn = ""
			}
			if got, _ := OwnID(bid, id); got != wantOwn {
				t.Errorf("OwnID(%q, %q) = %q, want %q", bid, id, got, wantOwn)
			}
		}
	}
}

// The warehouse plugin sends notes without IDs; a re-sent order or a
// comment sent again replaces by externalId (or same type and value) and
// drops nothing.
func TestMergeComments(t *testing.T) {
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	first := MergeComments(nil, []OrderComment{{Type: "pickingNote", Value: "Door code 1234"}, {ExternalID: "7", Type: "passThrough", Value: "a"}}, t0)
	if len(first) != 2 || first[0].ID == "" || first[0].ID == first[1].ID || !first[0].CreatedDate.Equal(t0) {
		t.Fatalf("first %+v", first)
	}
	t1 := t0.Add(time.Hour)
	next := MergeComments(first, []OrderComment{{Type: "pickingNote", Value: "Door code 1234"}, {ExternalID: "7", Type: "passThrough", Value: "b"}, {ExternalID: "8", Type: "passThrough", Value: "c"}}, t1)
	if len(next) != 3 || next[0].ID != first[0].ID || !next[0].CreatedDate.Equal(t0) || next[1].ID != first[1].ID || next[1].Value != "b" || next[2].ExternalID != "8" {
		t.Fatalf("merged %+v", next)
	}
	if FindComment(next, "8") != 2 || FindComment(next, first[0].ID) != 0 || FindComment(next, "nope") != -1 {
		t.Fatal("FindComment by ID or externalId")
	}
}

// The decisions below were once made inside the store's SQL; each is now
// a root function the store calls.

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
	d := ReadProductDocument([]byte(`{"descriptions":{"sv":{"name":"Kopp"},"fi":{"name":"Muki","description":"Iso"},"da":{},"en":{"shortDescription":"A mug"}}}`))
	if got := d.Languages(); !slices.Equal(got, []string{"en", "fi", "da", "sv"}) {
		t.Errorf("languages %v", got)
	}
	if d.Descriptions["fi"].Description != "Iso" || d.Descriptions["en"].ShortDescription != "A mug" || d.Name() != "Muki" {
		t.Errorf("descriptions %+v", d.Descriptions)
	}
}

// An order keeps at most MaxOrderComments: a new comment past them is
// refused (409), a comment replacing one by externalId is not; a deleted
// one frees a place. Deleting finds a comment by ID or externalId.
func TestOrderCommentCap(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := &Order{ExternalID: "SO-1"}
	for i := range MaxOrderComments {
		if _, added, err := o.AddComment(OrderComment{ExternalID: strconv.Itoa(i), Type: "note", Value: "v"}, now); err != nil || !added {
			t.Fatalf("comment %d: added %v, %v", i, added, err)
		}
	}
	if _, _, err := o.AddComment(OrderComment{ExternalID: "new", Type: "note", Value: "v"}, now); ErrorCode(err) != ECONFLICT {
		t.Fatalf("comment past the cap: %v, want ECONFLICT", err)
	}
	got, added, err := o.AddComment(OrderComment{ExternalID: "7", Type: "note", Value: "changed"}, now)
	if err != nil || added || got.Value != "changed" || got.ID != o.Comments[7].ID || len(o.Comments) != MaxOrderComments {
		t.Fatalf("replacing comment 7 at the cap: %+v, added %v, %v", got, added, err)
	}
	if err := o.DeleteComment("7"); err != nil {
		t.Fatal(err)
	}
	if err := o.DeleteComment(o.Comments[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := o.DeleteComment("7"); ErrorCode(err) != ENOTFOUND {
		t.Fatalf("deleting a gone comment: %v, want ENOTFOUND", err)
	}
	if _, added, err := o.AddComment(OrderComment{ExternalID: "new", Type: "note", Value: "v"}, now); err != nil || !added {
		t.Fatalf("a comment after deleting: added %v, %v", added, err)
	}
}
