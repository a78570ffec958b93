package parcelgate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// decisions §9: an operator moves an order to any status but Created
// (Viewed is Submitted's old name, interface §3), with a trimmed reason
// of at most 500 bytes; the operator API and the console read the move
// with this one function.
func TestParseOrderMove(t *testing.T) {
	long := strings.Repeat("x", MaxMoveReason)
	for _, c := range []struct {
		value, reason string
		to            OrderStatus
		why           string
		bad           []string // the fields refused
	}{
		{"Delivered", "", OrderDelivered, "", nil},
		{" viewed ", "  late  ", OrderSubmitted, "late", nil},
		{"Cancelled", long, OrderCancelled, long, nil},
		{"Error", " " + long + " ", OrderError, long, nil}, // the limit is on what is kept
		{"", "", "", "", []string{"value"}},
		{"Shipped", "", "", "", []string{"value"}},
		{"Created", "", OrderCreated, "", []string{"value"}},
		{"Error", long + "y", OrderError, long + "y", []string{"reason"}},
		{"Lost", long + "y", "", long + "y", []string{"value", "reason"}},
	} {
		to, why, err := ParseOrderMove(c.value, c.reason)
		var fields []string
		for _, f := range ErrorFields(err) {
			fields = append(fields, f.Field)
		}
		if !slices.Equal(fields, c.bad) || (err != nil) != (c.bad != nil) {
			t.Errorf("ParseOrderMove(%q, %d bytes): problems %v, want %v (%v)", c.value, len(c.reason), fields, c.bad, err)
		}
		if c.bad == nil && (to != c.to || why != c.why) {
			t.Errorf("ParseOrderMove(%q, …) = %s, %d bytes; want %s, %d bytes", c.value, to, len(why), c.to, len(c.why))
		}
		if err != nil && ErrorCode(err) != EINVALID {
			t.Errorf("ParseOrderMove(%q): code %s, want EINVALID", c.value, ErrorCode(err))
		}
	}
}

// decisions §5 and §8: each error code is answered with one status, on
// the API and in the console alike; anything not an *Error is a 500.
func TestErrorStatus(t *testing.T) {
	for err, want := range map[error]int{
		Errorf(EINVALID, "x"):                             400,
		Errorf(EUNAUTHORIZED, "x"):                        401,
		Errorf(EFORBIDDEN, "x"):                           403,
		Errorf(ENOTFOUND, "x"):                            404,
		fmt.Errorf("wrapped: %w", Errorf(ECONFLICT, "x")): 409,
		Errorf(ETOOLARGE, "x"):                            413,
		Errorf(EUNSUPPORTED, "x"):                         415,
		Errorf(ERATELIMITED, "x"):                         429,
		Errorf(EUNAVAILABLE, "x"):                         503,
		Errorf(EINTERNAL, "x"):                            500,
		errors.New("disk on fire"):                        500,
	} {
		if got := ErrorStatus(err); got != want {
			t.Errorf("ErrorStatus(%v) = %d, want %d", err, got, want)
		}
	}
}

// interface §3 rules 1-2, decisions §6: the console shows a caller what
// is published to the catalogs it may read (ReadableCatalogTypes), EOS
// ones for 14 days, and its own products unless it reads only as a
// retailer.
func TestConsoleProductScope(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ecom := func(roles ...Role) *Caller { return &Caller{Kind: KindEcom, Roles: roles} }
	for _, c := range []struct {
		name     string
		caller   *Caller
		own, pub bool
		types    []CatalogType
	}{
		{"operator", &Caller{Kind: KindOperator}, true, true, nil},
		{"supplier", ecom(RoleSupplier), true, false, []CatalogType{}},
		{"merchant", ecom(RoleMerchant), true, true, []CatalogType{CatalogPosti}},
		{"retailer", ecom(RoleRetailer), false, true, nil},
		{"supplier and retailer", ecom(RoleSupplier, RoleRetailer), true, true, nil},
		// No right to read either: the console does not open the page
		// (Caller.May); a store caller sees the organization's own.
		{"no roles", ecom(), true, false, []CatalogType{}},
	} {
		s := ConsoleProductScope(c.caller, now)
		if s.Own != c.own || s.Published != c.pub || !slices.Equal(s.CatalogTypes, c.types) || (s.CatalogTypes == nil) != (c.types == nil) {
			t.Errorf("%s: %+v, want own %v published %v types %v", c.name, s, c.own, c.pub, c.types)
		}
		if !s.EOSSince.Equal(now.Add(-14 * 24 * time.Hour)) {
			t.Errorf("%s: EOS since %s, want 14 days before now", c.name, s.EOSSince)
		}
	}
}

// decisions §9: a gateway client is granted served versions only, each
// once, tiers 0-1000; no versions means every served one at tier 1.
func TestGatewayClientRequestValidate(t *testing.T) {
	served := []string{"2024-01", "2025-06"}
	gc, err := (&GatewayClientRequest{Environment: "test", BusinessID: "1234567-1"}).Validate(served)
	if err != nil || gc.Environment != Test || len(gc.Versions) != 2 || gc.Versions[1] != (VersionGrant{Version: "2025-06", Tier: 1}) || gc.ClientID != "" {
		t.Fatalf("defaults: %+v %v", gc, err)
	}
	for _, c := range []struct {
		req GatewayClientRequest
		bad []string
	}{
		{GatewayClientRequest{Environment: "staging", BusinessID: "1234567-1"}, []string{"environment"}},
		{GatewayClientRequest{}, []string{"businessId"}},
		{GatewayClientRequest{BusinessID: "1234567-1", Versions: []VersionGrant{}}, []string{"versions"}},
		{GatewayClientRequest{BusinessID: "1234567-1", Versions: []VersionGrant{{"2023-01", 1}, {"2024-01", 1}, {"2024-01", 1}, {"2025-06", 1001}}}, []string{"versions", "versions", "versions"}},
	} {
		_, err := c.req.Validate(served)
		var fields []string
		for _, f := range ErrorFields(err) {
			fields = append(fields, f.Field)
		}
		if !slices.Equal(fields, c.bad) {
			t.Errorf("%+v: problems %v, want %v", c.req, fields, c.bad)
		}
	}
}

// decisions §9 and interface §5.2: a service account has a valid
// username, known roles and, when one is chosen, a password of 12-128
// characters.
func TestServiceAccountRequestValidate(t *testing.T) {
	a, err := (&ServiceAccountRequest{BusinessID: "1234567-1", Username: "shop-api", Roles: []string{"retailer", "merchant", "merchant"}}).Validate()
	if err != nil || a.Environment != Production || !slices.Equal(a.Roles, []Role{RoleMerchant, RoleRetailer}) || a.Password != "" {
		t.Fatalf("valid: %+v %v", a, err)
	}
	_, err = (&ServiceAccountRequest{Environment: "nowhere", Username: "", Password: "short", Roles: []string{"admin"}}).Validate()
	var fields []string
	for _, f := range ErrorFields(err) {
		fields = append(fields, f.Field)
	}
	if want := []string{"environment", "businessId", "username", "password", "roles"}; !slices.Equal(fields, want) {
		t.Errorf("problems %v, want %v", fields, want)
	}
}

// decisions §5: a code is active until it expires or is freed; a freed
// code reads released whatever its expiry.
func TestCodeState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		expires, released time.Time
		want              string
	}{
		{now.Add(time.Second), time.Time{}, CodeActive},
		{now, time.Time{}, CodeExpired},
		{now.Add(-time.Hour), time.Time{}, CodeExpired},
		{now.Add(time.Hour), now.Add(-time.Minute), CodeReleased},
		{now.Add(-time.Hour), now.Add(-time.Minute), CodeReleased},
	} {
		if got := CodeState(c.expires, c.released, now); got != c.want {
			t.Errorf("CodeState(%s, %s) = %s, want %s", c.expires, c.released, got, c.want)
		}
	}
}

// The console's filters refuse texts past their lengths, naming the
// console's fields; texts at the length pass.
func TestConsoleFilterLengths(t *testing.T) {
	if err := ValidConsoleOrderFilter(strings.Repeat("r", MaxConsoleReference), strings.Repeat("w", MaxConsoleWarehouse)); err != nil {
		t.Fatalf("filter at the lengths: %v", err)
	}
	fields := ErrorFields(ValidConsoleOrderFilter(strings.Repeat("r", MaxConsoleReference+1), strings.Repeat("w", MaxConsoleWarehouse+1)))
	if len(fields) != 2 || fields[0].Field != "ref" || fields[1].Field != "warehouse" || fields[0].Message != "At most 200 characters." {
		t.Fatalf("filter past the lengths: %+v", fields)
	}
	if err := ValidConsoleSearch(strings.Repeat("q", MaxConsoleSearch)); err != nil {
		t.Fatalf("search at the length: %v", err)
	}
	if f := ErrorFields(ValidConsoleSearch(strings.Repeat("q", MaxConsoleSearch+1))); len(f) != 1 || f[0].Field != "q" || f[0].Message != "At most 100 characters." {
		t.Fatalf("search past the length: %+v", f)
	}
}

// decisions §16, §18: the console's products pages are open to whoever
// may read products (suppliers, merchants: their own) or every catalog
// (retailers: what is published to them), and the operator; a refusal
// is ActionReadProducts's. Its overview and request journal
// (ActionViewTenant) are open to every service account, never to a
// gateway client.
func TestConsoleReadAccess(t *testing.T) {
	ecom := func(roles ...Role) *Caller { return &Caller{Kind: KindEcom, Roles: roles} }
	gateway := &Caller{Kind: KindGateway}
	operator := &Caller{Kind: KindOperator}
	for _, c := range []struct {
		c                 *Caller
		products, journal string // the error code, "" when allowed
	}{
		{ecom(RoleSupplier), "", ""},
		{ecom(RoleMerchant), "", ""},
		{ecom(RoleRetailer), "", ""},
		{operator, "", ""},
		{gateway, EFORBIDDEN, EFORBIDDEN},
		{nil, EUNAUTHORIZED, EUNAUTHORIZED},
	} {
		err := MayReadConsoleProducts(c.c)
		if ErrorCode(err) != c.products {
			t.Errorf("MayReadConsoleProducts(%+v) = %v, want %q", c.c, err, c.products)
		}
		if c.products == EFORBIDDEN && ErrorMessage(err) != ErrorMessage(c.c.May(ActionReadProducts)) {
			t.Errorf("refusal %q is not ActionReadProducts's", ErrorMessage(err))
		}
		if got := ErrorCode(c.c.May(ActionViewTenant)); got != c.journal {
			t.Errorf("May(ActionViewTenant) for %+v = %q, want %q", c.c, got, c.journal)
		}
	}
}
