package parcelgate

import (
	"strings"
	"testing"
)

// Issue 13: the scenario values decide only in the test environment, by
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

// Issue 13: the scenarios go through the allocation decision: a scenario
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
