package parcelgate

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

var splitNow = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func q(n int64) *Quantity { v := Quantity(n); return &v }

func st(s DropshipStatus) *DropshipStatus { return &s }

func codes() func(string) string {
	n := 0
	return func(string) string { n++; return fmt.Sprintf("JJFI%017d", n) }
}

// twoSupplierOrder is an order of three rows: two from supplier A (org 7),
// one from the retailer's warehouse, and one from supplier B (org 8).
func twoSupplierOrder() (*Order, []DropshipPart) {
	o := &Order{ExternalID: "1234567-8-A1", ServiceCode: "2103", PickupPointID: "001003200", References: []OrderReference{{Name: "SO", Value: "A1"}},
		DeliveryAddress: Address{Name: "Buyer", Email: "b@example.com"},
		Rows: []OrderRow{
			{ExternalProductID: "A-1", ExternalWarehouseID: "DROP", Quantity: 2, SupplierID: "7654321-0"},
			{ExternalProductID: "A-2", ExternalWarehouseID: "DROP", Quantity: 1, SupplierID: "7654321-0"},
			{ExternalProductID: "B-1", ExternalWarehouseID: "DROP", Quantity: 5, SupplierID: "2345678-9"},
		}}
	retailer := &Organization{BusinessID: "1234567-8", ContractNumber: "612345"}
	supply := []OrderRowSupply{{7, "7654321-0"}, {7, "7654321-0"}, {8, "2345678-9"}}
	services := [][]string{{ServiceFragile}, nil, {ServiceOversized}}
	n := 0
	parts := SplitOrder(o, retailer, supply, services, func() string { n++; return fmt.Sprint("S", n) }, splitNow)
	return o, parts
}

// decisions §34: one shipment per supplier, keyed by supplier, with
// parcel "1" holding every row (as the provider's Glue does).
func TestSplitOrderOneShipmentPerSupplier(t *testing.T) {
	_, parts := twoSupplierOrder()
	if len(parts) != 2 {
		t.Fatalf("parts = %d, want 2", len(parts))
	}
	a, b := parts[0], parts[1]
	if a.SupplierOrg != 7 || !slices.Equal(a.Lines, []int{0, 1}) || b.SupplierOrg != 8 || !slices.Equal(b.Lines, []int{2}) {
		t.Fatalf("parts = %+v / %+v", a, b)
	}
	s := a.Shipment
	if s.ClientID != "7654321-0" || s.Metadata.SourceOrganization != "1234567-8" || s.Status.Value != DropshipCreated || s.ShipmentID != "S1" {
		t.Errorf("shipment head = %+v", s)
	}
	if !slices.Equal(s.References, []OrderReference{{"PO", "1234567-8-A1"}, {"SO", "A1"}}) {
		t.Errorf("references = %v", s.References)
	}
	c := s.Consignment
	if len(c.Rows) != 2 || c.Rows[0].ItemID != "A-1" || c.Rows[1].Quantity != 1 || c.ContractNumber != "612345" {
		t.Errorf("rows = %+v", c.Rows)
	}
	if len(c.Parcels) != 1 || c.Parcels[0].ParcelID != "1" || c.Parcels[0].ServiceCode != "2103" || c.Parcels[0].PickupPointID != "001003200" || len(c.Parcels[0].Rows) != 2 {
		t.Errorf("parcels = %+v", c.Parcels)
	}
	if got := c.Parcels[0].AdditionalServices; len(got) != 1 || got[0].ServiceCode != ServiceFragile {
		t.Errorf("services = %v, want Fragile only (A's products)", got)
	}
	if got := b.Shipment.Consignment.Parcels[0].AdditionalServices; len(got) != 1 || got[0].ServiceCode != ServiceOversized {
		t.Errorf("B's services = %v", got)
	}
}

// Warehouse rows (no supplier) are not split.
func TestSplitOrderLeavesWarehouseRows(t *testing.T) {
	o := &Order{Rows: []OrderRow{{ExternalProductID: "W", Quantity: 1}}}
	if parts := SplitOrder(o, &Organization{}, []OrderRowSupply{{}}, [][]string{nil}, func() string { return "x" }, splitNow); len(parts) != 0 {
		t.Fatalf("parts = %v", parts)
	}
}

// decisions §34: statuses are case-sensitive; a final status gets no
// further updates.
func TestMoveShipmentStatusMachine(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	if _, _, err := MoveShipment(s, DropshipUpdate{Status: st("viewed")}, codes(), splitNow); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "status.value" {
		t.Fatalf("lower-case status: %v", err)
	}
	if _, _, err := MoveShipment(s, DropshipUpdate{}, codes(), splitNow); ErrorCode(err) != EINVALID {
		t.Fatalf("no status: %v", err)
	}
	if _, _, err := MoveShipment(s, DropshipUpdate{Status: st(DropshipSubmitted)}, codes(), splitNow); ErrorCode(err) != EINVALID {
		t.Fatalf("Submitted is not the supplier's: %v", err)
	}
	v, changed, err := MoveShipment(s, DropshipUpdate{Status: st(DropshipPacking)}, codes(), splitNow.Add(time.Minute))
	if err != nil || !changed || v.Status.Value != DropshipPacking || !v.Status.Timestamp.Equal(splitNow.Add(time.Minute)) {
		t.Fatalf("Packing: %v %v %+v", err, changed, v.Status)
	}
	if s.Status.Value != DropshipCreated {
		t.Fatal("MoveShipment changed its argument")
	}
	if _, _, err := MoveShipment(v, DropshipUpdate{Status: st(DropshipViewed)}, codes(), splitNow); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "status.value" {
		t.Fatalf("back to Viewed: %v", err)
	}
	same, changed, err := MoveShipment(v, DropshipUpdate{Status: st(DropshipPacking)}, codes(), splitNow)
	if err != nil || changed || same != v {
		t.Fatalf("same status again: %v %v", err, changed)
	}
	c, _, err := MoveShipment(v, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow)
	if err != nil || c.Status.Value != DropshipCancelled || *c.Consignment.Rows[0].DeliveredQuantity != 0 {
		t.Fatalf("cancel: %v %+v", err, c)
	}
	if _, _, err := MoveShipment(c, DropshipUpdate{Status: st(DropshipDelivered)}, codes(), splitNow); ErrorCode(err) != ECONFLICT {
		t.Fatalf("out of Cancelled: %v", err)
	}
	if again, changed, err := MoveShipment(c, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow); err != nil || changed || again != c {
		t.Fatalf("Cancelled again: %v", err)
	}
}

// decisions §34, confirm: parcels with rows and deliveredQuantity; with
// the supplier's own trackingCodes the platform makes none.
func TestConfirmOwnTrackingCodes(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	u := DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", TrackingCodes: []string{"EXT123"},
		Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(2)}, {ItemID: "A-2", DeliveredQuantity: q(1)}}}}}
	out, _, err := MoveShipment(s, u, codes(), splitNow)
	if err != nil {
		t.Fatal(err)
	}
	p := out.Consignment.Parcels[0]
	if !slices.Equal(p.TrackingCodes, []string{"EXT123"}) || p.PlatformCodes || !p.Ready {
		t.Errorf("parcel = %+v", p)
	}
	if d := out.Delivered(); !slices.Equal(d, []int64{2, 1}) {
		t.Errorf("delivered = %v", d)
	}
}

// Every mistake in a confirmation names its field.
func TestConfirmRefusesMistakes(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	cases := []struct {
		parcels []ConsignmentParcel
		field   string
	}{
		{[]ConsignmentParcel{{ParcelID: "9", Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(1)}}}}, "consignment.parcels[0].parcelId"},
		{[]ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "NOPE", DeliveredQuantity: q(1)}}}}, "consignment.parcels[0].rows[0].itemId"},
		{[]ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(3)}}}}, "consignment.parcels[0].rows[0].deliveredQuantity"},
		{[]ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "A-1"}}}}, "consignment.parcels[0].rows[0].deliveredQuantity"},
		{[]ConsignmentParcel{{ParcelID: "1", TrackingCodes: []string{"x"}, Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(1)}}}}, "consignment.parcels[0].trackingCodes[0]"},
		{[]ConsignmentParcel{{ParcelID: "1", ServiceCode: "2104", Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(1)}}}}, "consignment.parcels[0].deliveryOperator"},
	}
	for i, c := range cases {
		_, _, err := MoveShipment(s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: c.parcels}, codes(), splitNow)
		if ErrorCode(err) != EINVALID || !slices.ContainsFunc(ErrorFields(err), func(f FieldError) bool { return f.Field == c.field }) {
			t.Errorf("case %d: %v, want a problem with %s", i, err, c.field)
		}
	}
	if _, _, err := MoveShipment(s, DropshipUpdate{Status: st(DropshipPacking), HasParcels: true}, codes(), splitNow); ErrorCode(err) != EINVALID {
		t.Errorf("parcels with Packing: %v", err)
	}
}

// decisions §34, split: a row shared by two parcels appears in both with
// its ordered quantity and each parcel's share; partial delivery lists
// the rows not sent with deliveredQuantity 0.
func TestSplitThenPartialDelivery(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[1].Shipment // B-1, quantity 5
	split, err := SplitShipment(s, DropshipUpdate{HasParcels: true, Parcels: []ConsignmentParcel{
		{ParcelID: "1", PackageType: "PC", ServiceCode: "2103", Rows: []ConsignmentParcelRow{{ItemID: "B-1", Quantity: 5, DeliveredQuantity: q(2)}}},
		{ParcelID: "2", PackageType: "PC", ServiceCode: "2103", PickupPointID: "002303200", RoutingServiceCode: "3200", Rows: []ConsignmentParcelRow{{ItemID: "B-1", Quantity: 5, DeliveredQuantity: q(3)}}},
	}}, codes(), splitNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(split.Consignment.Parcels) != 2 || split.Consignment.Parcels[1].PickupPointID != "002303200" || split.Status.Value != DropshipCreated {
		t.Fatalf("split = %+v", split.Consignment.Parcels)
	}
	// Deliver parcel 1 only: parcel 2 carries nothing.
	out, _, err := MoveShipment(split, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{
		{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(2)}}},
		{ParcelID: "2", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(0)}}},
	}}, codes(), splitNow)
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Delivered(); d[0] != 2 {
		t.Errorf("delivered = %v", d)
	}
	p1, p2 := out.Consignment.Parcels[0], out.Consignment.Parcels[1]
	if len(p1.TrackingCodes) != 1 || !p1.PlatformCodes || len(p2.TrackingCodes) != 0 {
		t.Errorf("codes: %v %v", p1.TrackingCodes, p2.TrackingCodes)
	}
	// Shares over the quantity, a duplicate parcel ID, a row in no parcel.
	for i, ps := range [][]ConsignmentParcel{
		{{ParcelID: "1", PackageType: "PC", ServiceCode: "2103", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(4)}}}, {ParcelID: "2", PackageType: "PC", ServiceCode: "2103", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(2)}}}},
		{{ParcelID: "1", PackageType: "PC", ServiceCode: "2103", Rows: []ConsignmentParcelRow{{ItemID: "B-1"}}}, {ParcelID: "1", PackageType: "PC", ServiceCode: "2103"}},
		{{ParcelID: "1", PackageType: "PC", ServiceCode: "2103"}},
		{{ParcelID: "3", ServiceCode: "2104", RoutingServiceCode: "3200", Rows: []ConsignmentParcelRow{{ItemID: "B-1"}}}},
	} {
		if _, err := SplitShipment(s, DropshipUpdate{HasParcels: true, Parcels: ps}, codes(), splitNow); ErrorCode(err) != EINVALID {
			t.Errorf("bad split %d: %v", i, err)
		}
	}
}

// decisions §34, fast confirm: Delivered, deliveredQuantity = ordered
// quantity, platform codes; not via Unifaun.
func TestFastConfirm(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	out, changed, err := FastConfirm(s, codes(), splitNow)
	if err != nil || !changed || out.Status.Value != DropshipDelivered || !slices.Equal(out.Delivered(), []int64{2, 1}) || len(out.Consignment.Parcels[0].TrackingCodes) != 1 {
		t.Fatalf("fast confirm: %v %+v", err, out)
	}
	if again, changed, err := FastConfirm(out, codes(), splitNow); err != nil || changed || again != out {
		t.Fatalf("again: %v", err)
	}
	u := cloneShipment(s)
	u.Consignment.Parcels[0].DeliveryOperator = "Unifaun"
	if _, _, err := FastConfirm(u, codes(), splitNow); ErrorCode(err) != ECONFLICT {
		t.Fatalf("via Unifaun: %v", err)
	}
}

// interface §2.5: delivered quantities leave allocated, undelivered ones
// return to quantity; never more than is still allocated.
func TestSettleShipment(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[1].Shipment
	out, _, _ := MoveShipment(s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(2)}}}}}, codes(), splitNow)
	settle := SettleShipment(out, []int64{40})
	if len(settle) != 1 || settle[0] != (DropshipSettlement{BalanceID: 40, Units: 5, Returned: 3}) {
		t.Fatalf("settle = %v", settle)
	}
	moves := SettleHolds(map[int64]StockLevel{40: {Quantity: 10, Allocated: 5}}, settle)
	if len(moves) != 1 || moves[0] != (StockMove{BalanceID: 40, Quantity: 3, Allocated: -5}) {
		t.Fatalf("moves = %v", moves)
	}
	// The supplier released 4 of the 5 itself: only 1 is left to settle.
	moves = SettleHolds(map[int64]StockLevel{40: {Quantity: 10, Allocated: 1}}, settle)
	if moves[0] != (StockMove{BalanceID: 40, Quantity: 1, Allocated: -1}) {
		t.Fatalf("moves = %v", moves)
	}
	if SettleShipment(s, []int64{40}) != nil {
		t.Fatal("an open shipment settles")
	}
	if m := SettleHolds(map[int64]StockLevel{}, settle); len(m) != 0 {
		t.Fatalf("removed balance moved: %v", m)
	}
}

// decisions §34, back to the retailer: rows have their own statuses; "Partially
// delivered" when suppliers differ or quantities fall short; tracking
// codes on the order and its rows.
func TestProgress(t *testing.T) {
	_, parts := twoSupplierOrder()
	a, b := parts[0], parts[1]
	of := func(sa, sb *DropshipShipment) OrderProgress {
		return Progress(3, []DropshipOfRows{{sa, a.Lines}, {sb, b.Lines}}, nil)
	}
	if p := of(a.Shipment, b.Shipment); p.Status != OrderCreated || p.Rows[0].Status != OrderCreated {
		t.Fatalf("new: %+v", p)
	}
	viewed, _, _ := MoveShipment(a.Shipment, DropshipUpdate{Status: st(DropshipViewed)}, codes(), splitNow)
	if p := of(viewed, b.Shipment); p.Status != OrderSubmitted || p.Rows[0].Status != "Viewed" || p.Rows[2].Status != OrderCreated {
		t.Fatalf("viewed: %+v", p)
	}
	aDone, _, _ := MoveShipment(a.Shipment, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", TrackingCodes: []string{"EXT1"},
		Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(2)}, {ItemID: "A-2", DeliveredQuantity: q(1)}}}}}, codes(), splitNow)
	p := of(aDone, b.Shipment)
	if p.Status != OrderPartiallyDelivered || p.Rows[0].Status != OrderDelivered || !slices.Equal(p.Rows[1].TrackingCodes, []string{"EXT1"}) || !slices.Equal(p.TrackingCodes, []string{"EXT1"}) {
		t.Fatalf("one delivered: %+v", p)
	}
	bShort, _, _ := MoveShipment(b.Shipment, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(2)}}}}}, codes(), splitNow)
	p = of(aDone, bShort)
	if p.Status != OrderPartiallyDelivered || p.Rows[2].Status != OrderPartiallyDelivered || *p.Rows[2].DeliveredQuantity != 2 || len(p.TrackingCodes) != 2 {
		t.Fatalf("short: %+v", p)
	}
	bFull, _, _ := FastConfirm(b.Shipment, codes(), splitNow)
	if p = of(aDone, bFull); p.Status != OrderDelivered {
		t.Fatalf("all delivered: %+v", p)
	}
	aCancel, _, _ := MoveShipment(a.Shipment, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow)
	bCancel, _, _ := MoveShipment(b.Shipment, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow)
	if p = of(aCancel, bFull); p.Status != OrderPartiallyDelivered || p.Rows[0].Status != OrderCancelled || *p.Rows[0].DeliveredQuantity != 0 {
		t.Fatalf("one cancelled: %+v", p)
	}
	if p = of(aCancel, bCancel); p.Status != OrderCancelled {
		t.Fatalf("all cancelled: %+v", p)
	}
	bErr, _, _ := MoveShipment(b.Shipment, DropshipUpdate{Status: st(DropshipError)}, codes(), splitNow)
	if p = of(aCancel, bErr); p.Status != OrderError {
		t.Fatalf("cancel + error: %+v", p)
	}
}

// decisions §34: with the supplier's own trackingCodes Glue makes no
// label (note only); platform codes come with a label.
func TestLabelDecision(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[0].Shipment
	p, err := ShipmentParcelOf(s, "1")
	if err != nil || LabelDecision(s, p) == nil {
		t.Fatalf("unconfirmed parcel: %v", err)
	}
	if _, err := ShipmentParcelOf(s, "2"); ErrorCode(err) != ENOTFOUND {
		t.Fatalf("parcel 2: %v", err)
	}
	platform, _, _ := FastConfirm(s, codes(), splitNow)
	if p, _ := ShipmentParcelOf(platform, "1"); LabelDecision(platform, p) != nil {
		t.Fatal("platform codes: no label")
	}
	own, _, _ := MoveShipment(s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", TrackingCodes: []string{"EXT1"},
		Rows: []ConsignmentParcelRow{{ItemID: "A-1", DeliveredQuantity: q(2)}}}}}, codes(), splitNow)
	if p, _ := ShipmentParcelOf(own, "1"); ErrorCode(LabelDecision(own, p)) != ECONFLICT {
		t.Fatal("own codes: a label")
	}
}

// The automatic supplier: fast confirm, or the test scenarios (a supplier
// cancels, delivers part), never in production.
func TestAutoSupply(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[1].Shipment // B-1 × 5
	full, _, err := AutoSupply(Test, "1234567-8-A1", s, codes(), splitNow)
	if err != nil || full.Status.Value != DropshipDelivered || full.Delivered()[0] != 5 {
		t.Fatalf("plain: %v %+v", err, full.Status)
	}
	c, _, _ := AutoSupply(Test, "1234567-8-A1.scancel", s, codes(), splitNow)
	if c.Status.Value != DropshipCancelled {
		t.Fatalf("cancel scenario: %v", c.Status.Value)
	}
	p, _, err := AutoSupply(Test, "1234567-8-A1.SPART", s, codes(), splitNow)
	if err != nil || p.Status.Value != DropshipDelivered || p.Delivered()[0] != 2 {
		t.Fatalf("partial scenario: %v %v", err, p.Delivered())
	}
	if prod, _, _ := AutoSupply(Production, "1234567-8-A1.SCANCEL", s, codes(), splitNow); prod.Status.Value != DropshipDelivered {
		t.Fatalf("production: %v", prod.Status.Value)
	}
	if same, changed, _ := AutoSupply(Test, "x", c, codes(), splitNow); changed || same != c {
		t.Fatal("a final shipment moved")
	}
	if (AutoSupplier{DelaySeconds: -1}).Validate() == nil || (AutoSupplier{DelaySeconds: 60}).Validate() != nil {
		t.Fatal("delay check")
	}
}

// Platform codes are the shipping API's parcel numbers of the parcel's
// service: JJFI and 17 digits domestic, an S10 number international.
func TestPlatformParcelNumber(t *testing.T) {
	for _, c := range []struct{ code, prefix string }{{"2103", "JJFI"}, {"PO2103", "JJFI"}, {"2711", "CP"}, {"NOUTO", "JJFI"}} {
		if got := PlatformParcelNumber(c.code); len(got) < 13 || got[:len(c.prefix)] != c.prefix {
			t.Errorf("%s: %q", c.code, got)
		}
	}
}

// provider Shipments V3: the split example is one PUT that also confirms
// (status Delivered): parcel 1 is sent as Glue made it, without a
// service; parcel 2 is added with service, pick-up point and routing code;
// both get tracking codes (platform-made, so with labels).
func TestSplitAndConfirmInOnePut(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[1].Shipment // B-1, quantity 5
	out, err := SplitShipment(s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{
		{ParcelID: "1", PackageType: "PC", Rows: []ConsignmentParcelRow{{ExternalWarehouseID: "DROP", ItemID: "B-1", Quantity: 5, DeliveredQuantity: q(2)}}},
		{ParcelID: "2", PackageType: "PC", ServiceCode: "2103", PickupPointID: "002303200", RoutingServiceCode: "3200",
			Rows: []ConsignmentParcelRow{{ExternalWarehouseID: "DROP", ItemID: "B-1", Quantity: 5, DeliveredQuantity: q(3)}}},
	}}, codes(), splitNow)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status.Value != DropshipDelivered || !slices.Equal(out.Delivered(), []int64{5}) {
		t.Fatalf("status %v delivered %v", out.Status.Value, out.Delivered())
	}
	p1, p2 := out.Consignment.Parcels[0], out.Consignment.Parcels[1]
	if p1.ServiceCode != "2103" || p1.PickupPointID != "001003200" || len(p1.AdditionalServices) != 1 {
		t.Errorf("parcel 1 lost what it had: %+v", p1)
	}
	if len(p1.TrackingCodes) != 1 || len(p2.TrackingCodes) != 1 || !p1.PlatformCodes || !p2.PlatformCodes || p1.TrackingCodes[0] == p2.TrackingCodes[0] {
		t.Errorf("codes: %+v / %+v", p1, p2)
	}
	for _, p := range []*ConsignmentParcel{&p1, &p2} {
		if label, note := ParcelDocuments(out, p); !label || !note {
			t.Errorf("parcel %s documents: label %v note %v", p.ParcelID, label, note)
		}
	}
	// The supplier's own codes: no label, the note only.
	own, err := SplitShipment(s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{
		{ParcelID: "1", TrackingCodes: []string{"EXT0001"}, Rows: []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(5)}}}}}, codes(), splitNow)
	if err != nil {
		t.Fatal(err)
	}
	if p := own.Consignment.Parcels[0]; !slices.Equal(p.TrackingCodes, []string{"EXT0001"}) || p.PlatformCodes {
		t.Errorf("own codes: %+v", p)
	} else if label, note := ParcelDocuments(own, &p); label || !note {
		t.Errorf("own codes documents: label %v note %v", label, note)
	}
}

// decisions §38: an added parcel needs its service fields, a confirming
// PUT needs every share, and the status moves forward only; each refusal
// names its field.
func TestSplitRefusals(t *testing.T) {
	_, parts := twoSupplierOrder()
	s := parts[1].Shipment
	row := func(n int64) []ConsignmentParcelRow {
		return []ConsignmentParcelRow{{ItemID: "B-1", DeliveredQuantity: q(n)}}
	}
	packing, _, _ := MoveShipment(s, DropshipUpdate{Status: st(DropshipPacking)}, codes(), splitNow)
	for _, c := range []struct {
		from  *DropshipShipment
		u     DropshipUpdate
		field string
	}{
		{s, DropshipUpdate{HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(2)}, {ParcelID: "2", PackageType: "PC", Rows: row(3)}}}, "consignment.parcels[1].serviceCode"},
		{s, DropshipUpdate{HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(2)}, {ParcelID: "2", PackageType: "PC", ServiceCode: "2103", RoutingServiceCode: "3200", Rows: row(3)}}}, "consignment.parcels[1].pickupPointId"},
		{s, DropshipUpdate{HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(2)}, {ParcelID: "2", PackageType: "PC", ServiceCode: "2104", Rows: row(3)}}}, "consignment.parcels[1].routingServiceCode"},
		{s, DropshipUpdate{HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(2)}, {ParcelID: "2", ServiceCode: "2104", RoutingServiceCode: "3200", Rows: row(3)}}}, "consignment.parcels[1].packageType"},
		{s, DropshipUpdate{Status: st(DropshipDelivered), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: []ConsignmentParcelRow{{ItemID: "B-1"}}}}}, "consignment.parcels[0].rows[0].deliveredQuantity"},
		{packing, DropshipUpdate{Status: st(DropshipViewed), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(5)}}}, "status.value"},
		{s, DropshipUpdate{Status: st(DropshipSubmitted), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(5)}}}, "status.value"},
	} {
		_, err := SplitShipment(c.from, c.u, codes(), splitNow)
		if ErrorCode(err) != EINVALID || !slices.ContainsFunc(ErrorFields(err), func(f FieldError) bool { return f.Field == c.field }) {
			t.Errorf("%+v: %v, want a problem with %s", c.u, err, c.field)
		}
	}
	// A status other than Delivered applies after the split, as a PATCH.
	out, err := SplitShipment(s, DropshipUpdate{Status: st(DropshipPacking), HasParcels: true, Parcels: []ConsignmentParcel{{ParcelID: "1", Rows: row(5)}}}, codes(), splitNow)
	if err != nil || out.Status.Value != DropshipPacking || len(out.Consignment.Parcels[0].TrackingCodes) != 0 {
		t.Errorf("split to Packing: %v %+v", err, out)
	}
}

// pick-up services name their point.
func TestDeliversToPickupPoint(t *testing.T) {
	for code, want := range map[string]bool{"2103": true, "PO2103": true, "2104": false, "2102": false, "": false} {
		if got := DeliversToPickupPoint(code); got != want {
			t.Errorf("%q: %v", code, got)
		}
	}
}

// provider Orders V3: an order over several parties — here a supplier's
// shipment and the retailer's warehouse (decisions §38) — is "Partially
// delivered" while some rows are delivered and others not; its rows keep
// their own statuses; Delivered once all are.
func TestProgressWithWarehousePart(t *testing.T) {
	_, parts := twoSupplierOrder()
	a := parts[0] // rows 0 and 1; row 2 is the warehouse's here
	wh := &WarehousePart{Status: OrderSubmitted, Lines: []int{2}}
	rows := func(p OrderProgress) []OrderStatus {
		return []OrderStatus{p.Rows[0].Status, p.Rows[1].Status, p.Rows[2].Status}
	}
	p := Progress(3, []DropshipOfRows{{a.Shipment, a.Lines}}, &WarehousePart{Status: OrderCreated, Lines: []int{2}})
	if p.Status != OrderCreated {
		t.Errorf("all created: %v", p.Status)
	}
	if p = Progress(3, []DropshipOfRows{{a.Shipment, a.Lines}}, wh); p.Status != OrderSubmitted || p.Rows[2].Status != OrderSubmitted {
		t.Errorf("warehouse submitted: %v %v", p.Status, rows(p))
	}
	done, _, _ := MoveShipment(a.Shipment, DropshipUpdate{Status: st(DropshipDelivered)}, codes(), splitNow)
	p = Progress(3, []DropshipOfRows{{done, a.Lines}}, wh)
	if p.Status != OrderPartiallyDelivered || !slices.Equal(rows(p), []OrderStatus{OrderDelivered, OrderDelivered, OrderSubmitted}) {
		t.Errorf("supplier delivered, warehouse not: %v %v", p.Status, rows(p))
	}
	whDone := &WarehousePart{Status: OrderDelivered, Lines: []int{2}, Codes: [][]string{{"JJFI1"}}}
	p = Progress(3, []DropshipOfRows{{done, a.Lines}}, whDone)
	if p.Status != OrderDelivered || len(p.TrackingCodes) != 2 || !slices.Equal(p.Rows[2].TrackingCodes, []string{"JJFI1"}) {
		t.Errorf("both delivered: %v %v", p.Status, p.TrackingCodes)
	}
	p = Progress(3, []DropshipOfRows{{a.Shipment, a.Lines}}, whDone)
	if p.Status != OrderPartiallyDelivered {
		t.Errorf("warehouse delivered, supplier not: %v", p.Status)
	}
	cancelled, _, _ := MoveShipment(a.Shipment, DropshipUpdate{Status: st(DropshipCancelled)}, codes(), splitNow)
	if p = Progress(3, []DropshipOfRows{{cancelled, a.Lines}}, &WarehousePart{Status: OrderCancelled, Lines: []int{2}}); p.Status != OrderCancelled {
		t.Errorf("all cancelled: %v", p.Status)
	}
}

// decisions §38: which rows a supplier ships is decided once, by the
// row's catalog; an order may mix both kinds.
func TestDropshipRowsAndMixedCheck(t *testing.T) {
	r := &OrderRequest{Rows: []OrderRowRequest{{ExternalProductID: "7654321-2-A1", ExternalWarehouseID: "DROP"}, {ExternalProductID: "OWN1", ExternalWarehouseID: "WH1"}}}
	drop := r.DropshipRows([]string{"DROP"})
	if !slices.Equal(drop, []bool{true, false}) {
		t.Fatalf("drop = %v", drop)
	}
	if err := r.CheckRowCatalogs("1234567-8", drop); err != nil {
		t.Errorf("mixed order refused: %v", err)
	}
	r.Rows[1].ExternalProductID = "7654321-2-A2"
	if err := r.CheckRowCatalogs("1234567-8", drop); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "rows[1].externalProductId" {
		t.Errorf("a supplier's product on a warehouse row: %v", err)
	}
}

// decisions §38: the warehouse's hand moves the warehouse part of a mixed
// order, whose rows show its status; any other order's own status.
func TestWarehouseStatus(t *testing.T) {
	o := &Order{Status: OrderState{Value: OrderPartiallyDelivered}, Rows: []OrderRow{
		{SupplierID: "7654321-2", Status: OrderState{Value: OrderDelivered}}, {Status: OrderState{Value: OrderSubmitted}}}}
	if !o.MixedSupply() || o.WarehouseStatus() != OrderSubmitted {
		t.Errorf("mixed: %v %v", o.MixedSupply(), o.WarehouseStatus())
	}
	o.Rows = o.Rows[:1]
	if o.MixedSupply() || o.WarehouseStatus() != OrderPartiallyDelivered {
		t.Errorf("dropship only: %v %v", o.MixedSupply(), o.WarehouseStatus())
	}
}
