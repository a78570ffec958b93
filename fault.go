package parcelgate

import (
	"fmt"
	"strings"
	"time"
)

// Fault is an injected failure of the sandbox: an API call that
// matches it is answered with Status, in the error shape of its surface,
// before it is handled, so nothing is written. Latency delays the answer;
// with Status 0 it only delays the real answer. An operator sets faults so
// that an integrator can see its retries work against the answers real
// clients retry (429, 502, 503).
type Fault struct {
	ID          string      `json:"id"`
	Environment Environment `json:"environment"`
	// BusinessID limits the fault to one organization; empty: every one.
	BusinessID string `json:"businessId,omitempty"`
	OrgID      int64  `json:"-"`
	// Method limits the fault to one HTTP method; empty: every one.
	Method string `json:"method,omitempty"`
	// Route limits the fault to a route, given as its pattern
	// ("/ecommerce/v3/orders/{id}", "/{version}/labelless") or a request
	// path ("/2025-04/labelless"); empty: every API route.
	Route string `json:"route,omitempty"`
	// Status is the answer: 429, 500, 502, 503 or 504; 0 adds Latency to
	// the real answer.
	Status     int           `json:"status"`
	Latency    time.Duration `json:"-"`
	RetryAfter int           `json:"retryAfter,omitempty"`
	// Probability is the chance (0-1] that a matching call fails; 0 with
	// a Count means every matching call until Count is spent.
	Probability float64 `json:"probability,omitempty"`
	// Remaining is how many more calls the fault answers; -1: no limit.
	Remaining int64      `json:"remaining"`
	Fired     int64      `json:"fired"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// FaultStatuses are the statuses a fault may answer with: what real
// gateways and the provider answer under load or failure.
var FaultStatuses = []int{429, 500, 502, 503, 504}

// MaxFaultLatency bounds a fault's delay, so a fault cannot hold a request
// past the server's write timeout.
const MaxFaultLatency = time.Minute

// Validate checks a fault an operator asks for.
func (f *Fault) Validate() error {
	var p Problems
	if f.Status != 0 && !containsInt(FaultStatuses, f.Status) {
		p.Add("status", "must be one of 429, 500, 502, 503, 504 (or left out with a latency), not %d", f.Status)
	}
	if f.Status == 0 && f.Latency == 0 {
		p.Add("status", "is required unless a latency is given")
	}
	if f.Latency < 0 || f.Latency > MaxFaultLatency {
		p.Add("latency", "must be a duration from 0 to %s", MaxFaultLatency)
	}
	if f.RetryAfter < 0 || f.RetryAfter > 3600 {
		p.Add("retryAfter", "must be 0-3600 seconds")
	}
	if f.Probability < 0 || f.Probability > 1 {
		p.Add("probability", "must be from 0 to 1")
	}
	if f.Remaining == 0 || f.Remaining < -1 {
		p.Add("count", "must be at least 1")
	}
	if f.Method != "" {
		f.Method = strings.ToUpper(f.Method)
		switch f.Method {
		case "GET", "PUT", "POST", "PATCH", "DELETE":
		default:
			p.Add("method", "must be GET, PUT, POST, PATCH or DELETE, not %q", f.Method)
		}
	}
	if f.Route != "" && (!strings.HasPrefix(f.Route, "/") || len(f.Route) > 200 || strings.HasPrefix(f.Route, "/admin/")) {
		p.Add("route", "must be an API route path such as /ecommerce/v3/orders/{id} (the operator API cannot fail)")
	}
	return p.Err()
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Matches reports whether the fault applies to a call of org (in env) with
// method to route (the pattern's path) at path, at now.
func (f *Fault) Matches(env Environment, orgID int64, method, route, path string, now time.Time) bool {
	switch {
	case f.Environment != env,
		ScopeOf(f.Environment, f.OrgID) == ScopeOrganization && f.OrgID != orgID,
		f.Method != "" && f.Method != method,
		f.Route != "" && f.Route != route && f.Route != path,
		f.Remaining == 0,
		f.ExpiresAt != nil && !now.Before(*f.ExpiresAt):
		return false
	}
	return true
}

// Fires decides whether a matching call fails, given a uniform draw in
// [0, 1): always without a probability, else with that chance.
func (f *Fault) Fires(draw float64) bool {
	return f.Probability == 0 || draw < f.Probability
}

// Message is the error message of a fault's answer: it says the failure was
// injected, so nobody hunts a real bug.
func (f *Fault) Message() string {
	return fmt.Sprintf("Injected fault %s: this sandbox answers %d here on purpose.", f.ID, f.Status)
}
