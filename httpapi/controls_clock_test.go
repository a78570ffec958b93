package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// waitWithin polls cond every 50 ms until it holds or within passes.
func waitWithin(t *testing.T, within time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// expectField fails t unless r is an ecom-shaped error naming field.
func expectField(t *testing.T, r *apitest.Response, field string) {
	t.Helper()
	var eb httpapi.EcomError
	r.JSON(&eb)
	for _, f := range eb.Errors {
		if f.Field == field {
			return
		}
	}
	t.Errorf("error does not name %s: %s", field, r.Body)
}

func clockOf(e *apitest.Env, env parcelgate.Environment) httpapi.ClockState {
	var st httpapi.ClockState
	e.Admin("GET", "/admin/v1/clock?environment="+string(env), nil).Expect(http.StatusOK).JSON(&st)
	return st
}

// The environment clock is stored per environment, so every instance
// shows the same time within a second of a move, token expiry (interface §5.2: a
// token lives an hour) follows the moved environment only, and a restart
// keeps the time.
func TestSharedOffsetClock(t *testing.T) {
	apitest.EachShared(t, 2, func(t *testing.T, es []*apitest.Env) {
		a, b := es[0], es[1]
		testTok := b.EcomToken(parcelgate.Test, "1234567-1", parcelgate.RoleSupplier)
		prodTok := b.EcomToken(parcelgate.Production, "1234567-1", parcelgate.RoleSupplier)
		list := func(e *apitest.Env, tok string) int {
			return e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory", Bearer: tok}).Status
		}
		if s := list(b, testTok); s != http.StatusOK {
			t.Fatalf("fresh test token: %d", s)
		}

		var moved httpapi.ClockState
		a.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "61m", "environment": "test"}).Expect(http.StatusOK).JSON(&moved)
		if moved.Environment != parcelgate.Test || moved.Offset != "1h1m0s" || !moved.Sandbox {
			t.Fatalf("advance answered %+v", moved)
		}
		// The other instance follows within a second.
		if !waitWithin(t, time.Second, func() bool { return clockOf(b, parcelgate.Test).Offset == "1h1m0s" }) {
			t.Fatalf("instance b did not see the move within a second: %+v", clockOf(b, parcelgate.Test))
		}
		if got := clockOf(b, parcelgate.Production); got.Offset != "0s" {
			t.Fatalf("production clock moved with test: %+v", got)
		}
		// The test token expired on the other instance; production's did not.
		if s := list(b, testTok); s != http.StatusUnauthorized {
			t.Fatalf("test token after 61 minutes on instance b: %d", s)
		}
		if s := list(b, prodTok); s != http.StatusOK {
			t.Fatalf("production token after moving the test clock: %d", s)
		}

		// A restarted instance keeps the time.
		c := apitest.Instance(t, a.DSN)
		if got := clockOf(c, parcelgate.Test); got.Offset != "1h1m0s" {
			t.Fatalf("restarted instance lost the clock: %+v", got)
		}
		// Each environment moves only when named (decisions §21).
		c.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "1h", "environment": "production"}).Expect(http.StatusOK)
		if !waitWithin(t, time.Second, func() bool {
			return clockOf(a, parcelgate.Test).Offset == "1h1m0s" && clockOf(a, parcelgate.Production).Offset == "1h0m0s"
		}) {
			t.Fatalf("after moving production: test %+v production %+v", clockOf(a, parcelgate.Test), clockOf(a, parcelgate.Production))
		}
	})
}

// Bad clock moves name the field.
func TestOffsetClockBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"advance": "-1h", "environment": "test"}, "advance"},
			{map[string]any{"advance": "0s", "environment": "test"}, "advance"},
			{map[string]any{"advance": "1000000h", "environment": "test"}, "advance"},
			{map[string]any{"advance": "1h"}, "environment"},
			{map[string]any{"advance": "1h", "environment": "staging"}, "environment"},
		} {
			expectField(t, e.Admin("POST", "/admin/v1/clock", c.body).Expect(http.StatusBadRequest), c.field)
		}
		e.Admin("GET", "/admin/v1/clock?environment=staging", nil).Expect(http.StatusBadRequest)
	})
}
