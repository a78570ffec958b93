package parcelgate

import "testing"

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
