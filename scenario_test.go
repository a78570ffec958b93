package parcelgate

import (
	"strings"
	"testing"
)

// The scenario values decide only in the test environment, by
// suffix, whatever the case.
func TestScenarios(t *testing.T) {
	for _, c := range []struct {
		env    Environment
		id     string
		status OrderStatus
	}{
		{Test, "1234567-1-100.ERROR", OrderError},
		{Test, "1234567-1-100.error", OrderError},
		{Test, "1234567-1-100.CANCEL", OrderCancelled},
		{Test, "1234567-1-100", ""},
		{Test, "1234567-1ERROR-2", ""},
		{Production, "1234567-1-100.ERROR", ""},
	} {
		st, reason, ok := OrderScenario(c.env, c.id)
		if st != c.status || ok != (c.status != "") || ok && reason == "" {
			t.Errorf("%s %s: %q %q %v", c.env, c.id, st, reason, ok)
		}
	}
	if !AlwaysOutOfStock(Test, "1234567-1-A.NOSTOCK") || AlwaysOutOfStock(Production, "1234567-1-A.NOSTOCK") || AlwaysOutOfStock(Test, "1234567-1-A") {
		t.Error("AlwaysOutOfStock")
	}
	if err := SendingCodeScenario(Test, "JJFI123NOTALLOWED"); ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "trackingNumber" {
		t.Errorf("refused code: %v", err)
	}
	if SendingCodeScenario(Production, "JJFI123NOTALLOWED") != nil || SendingCodeScenario(Test, "JJFI1234567") != nil {
		t.Error("SendingCodeScenario outside its value")
	}
}

// The scenarios go through the allocation decision: a scenario
// order gets its status instead of being allocated, a .NOSTOCK product
// has none available, an unknown product is still Error, and production
// orders with the same IDs allocate.
func TestAllocateOrderScenarios(t *testing.T) {
	whs := []string{"WH1"}
	rows := func(p string) []OrderRow {
		return []OrderRow{{ExternalProductID: p, ExternalWarehouseID: "WH1", Quantity: 2}}
	}
	stock := []*RowStock{{BalanceID: 1, Available: 10}}
	for _, c := range []struct {
		env      Environment
		order, p string
		stock    []*RowStock
		status   OrderStatus
		reason   string
	}{
		{Test, "O.ERROR", "P1", stock, OrderError, ScenarioErrorReason},
		{Test, "O.CANCEL", "P1", stock, OrderCancelled, ScenarioCancelReason},
		{Test, "O.CANCEL", "P9", []*RowStock{nil}, OrderError, "not stocked"},
		{Test, "O", "P1.NOSTOCK", stock, OrderCancelled, "has 0 available"},
		{Test, "O", "P1", stock, OrderCreated, ""},
		{Production, "O.ERROR", "P1.NOSTOCK", stock, OrderCreated, ""},
	} {
		a := AllocateOrder(c.env, c.order, rows(c.p), c.stock, whs)
		if a.Status != c.status || !strings.Contains(a.Reason, c.reason) || (c.reason == "") != (a.Reason == "") {
			t.Errorf("%s %s %s: %s %q", c.env, c.order, c.p, a.Status, a.Reason)
		}
	}
	if stock[0].Available != 10 {
		t.Error("AllocateOrder changed the store's stock")
	}
}

// An order ending in .SPLIT and a digit 2-9 is delivered in
// that many parcels per row, at most one per unit; every other order, and
// every production order, in one parcel per row (decisions §7).
func TestDeliveryParcels(t *testing.T) {
	for _, c := range []struct {
		env  Environment
		id   string
		qty  []Quantity
		want []int
	}{
		{Test, "1234567-1-A.SPLIT3", []Quantity{5, 3, 2, 1}, []int{3, 3, 2, 1}},
		{Test, "1234567-1-A.split9", []Quantity{20}, []int{9}},
		{Test, "1234567-1-A.SPLIT2", []Quantity{2, 7}, []int{2, 2}},
		{Test, "1234567-1-A.SPLIT1", []Quantity{5}, []int{1}},
		{Test, "1234567-1-A.SPLIT0", []Quantity{5}, []int{1}},
		{Test, "1234567-1-A.SPLITX", []Quantity{5}, []int{1}},
		{Test, "1234567-1-A.SPLIT", []Quantity{5}, []int{1}},
		{Test, "1234567-1-A.SPLIT3X", []Quantity{5}, []int{1}},
		{Test, "1234567-1-ASPLIT3", []Quantity{5}, []int{1}},
		{Test, "1234567-1-A", []Quantity{5, 1}, []int{1, 1}},
		{Test, ".SPLIT4", []Quantity{4}, []int{4}},
		{Test, "3", []Quantity{4}, []int{1}},
		{Production, "1234567-1-A.SPLIT3", []Quantity{5}, []int{1}},
	} {
		got := DeliveryParcels(c.env, c.id, c.qty)
		if len(got) != len(c.want) {
			t.Errorf("%s %s: %v, want %v", c.env, c.id, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s %s: %v, want %v", c.env, c.id, got, c.want)
				break
			}
		}
	}
}

// docs/controls.md: the tracking scenarios act in the test environment only,
// case-insensitively; .NOPICK only for a parcel to a pick-up point.
func TestTrackingScenario(t *testing.T) {
	for _, c := range []struct {
		env     Environment
		ref     string
		toPoint bool
		want    string
	}{
		{Test, "1234567-1-A7.return", false, ScenarioReturn},
		{Test, "SO-1.NOPICK", true, ScenarioUncollected},
		{Test, "SO-1.NOPICK", false, ""},
		{Production, "SO-1.RETURN", true, ""},
		{Test, "SO-1", true, ""},
	} {
		if got := TrackingScenario(c.env, c.ref, c.toPoint); got != c.want {
			t.Errorf("TrackingScenario(%s, %q, %v) = %q, want %q", c.env, c.ref, c.toPoint, got, c.want)
		}
	}
}
