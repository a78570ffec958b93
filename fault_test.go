package parcelgate

import (
	"testing"
	"time"
)

// A fault's fields are checked, naming the field.
func TestFaultValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     Fault
		field string
	}{
		{"ok", Fault{Status: 503, Remaining: -1}, ""},
		{"latency only", Fault{Latency: time.Second, Remaining: -1}, ""},
		{"status outside the list", Fault{Status: 404, Remaining: -1}, "status"},
		{"nothing to do", Fault{Remaining: -1}, "status"},
		{"negative latency", Fault{Status: 500, Latency: -1, Remaining: -1}, "latency"},
		{"latency too long", Fault{Status: 500, Latency: 2 * time.Minute, Remaining: -1}, "latency"},
		{"probability over 1", Fault{Status: 500, Probability: 1.5, Remaining: -1}, "probability"},
		{"count 0", Fault{Status: 500, Remaining: 0}, "count"},
		{"bad method", Fault{Status: 500, Method: "TRACE", Remaining: -1}, "method"},
		{"operator route", Fault{Status: 500, Route: "/admin/v1/faults", Remaining: -1}, "route"},
		{"relative route", Fault{Status: 500, Route: "orders", Remaining: -1}, "route"},
		{"retry after", Fault{Status: 429, RetryAfter: -1, Remaining: -1}, "retryAfter"},
	} {
		err := c.f.Validate()
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		fs := ErrorFields(err)
		if len(fs) == 0 || fs[0].Field != c.field {
			t.Errorf("%s: %v, want a problem with %s", c.name, err, c.field)
		}
	}
}

// A fault matches its environment, organization, method and route
// (pattern or path), while it has calls left and has not expired.
func TestFaultMatches(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Minute)
	f := Fault{Environment: Test, OrgID: 7, Method: "POST", Route: "/{version}/labelless", Remaining: -1, ExpiresAt: &later}
	for _, c := range []struct {
		name                string
		env                 Environment
		org                 int64
		method, route, path string
		at                  time.Time
		want                bool
	}{
		{"match by pattern", Test, 7, "POST", "/{version}/labelless", "/2025-04/labelless", now, true},
		{"other environment", Production, 7, "POST", "/{version}/labelless", "/2025-04/labelless", now, false},
		{"other organization", Test, 8, "POST", "/{version}/labelless", "/2025-04/labelless", now, false},
		{"other method", Test, 7, "GET", "/{version}/labelless", "/2025-04/labelless", now, false},
		{"other route", Test, 7, "POST", "/{version}/shipments", "/2025-04/shipments", now, false},
		{"expired", Test, 7, "POST", "/{version}/labelless", "/2025-04/labelless", later, false},
	} {
		if got := f.Matches(c.env, c.org, c.method, c.route, c.path, c.at); got != c.want {
			t.Errorf("%s: %v", c.name, got)
		}
	}
	byPath := Fault{Environment: Test, Route: "/2025-04/labelless", Remaining: -1}
	if !byPath.Matches(Test, 1, "POST", "/{version}/labelless", "/2025-04/labelless", now) {
		t.Error("a fault given by request path does not match it")
	}
	spent := Fault{Environment: Test, Remaining: 0}
	if spent.Matches(Test, 1, "GET", "/x", "/x", now) {
		t.Error("a spent fault matches")
	}
	if !(&Fault{}).Fires(0.99) || (&Fault{Probability: 0.25}).Fires(0.25) || !(&Fault{Probability: 0.25}).Fires(0.1) {
		t.Error("Fires")
	}
}
