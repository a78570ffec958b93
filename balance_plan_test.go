package parcelgate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

func n(v int64) *int64     { return &v }
func str(s string) *string { return &s }

// describe renders a plan compactly: each write as
// "publish P@SHOP q=5" or "update #7 q=5 a=0 price=1.5 cur=EUR".
func describe(p parcelgate.BalancePlan) string {
	var out []string
	for _, w := range p.Writes {
		s := fmt.Sprintf("update #%d", w.BalanceID)
		if w.Publishes() {
			s = fmt.Sprintf("publish %s@%s", w.ProductKey, w.Catalog.ExternalID)
		}
		if w.Quantity != nil {
			s += fmt.Sprintf(" q=%d", *w.Quantity)
		}
		if w.Allocated != nil {
			s += fmt.Sprintf(" a=%d", *w.Allocated)
		}
		if w.WholesalePrice != nil {
			s += " price=" + *w.WholesalePrice
		}
		if w.Currency != nil {
			s += " cur=" + *w.Currency
		}
		out = append(out, s)
	}
	for g := range len(p.Failed) + 10 {
		if e := p.Failed[g]; e != nil {
			out = append(out, fmt.Sprintf("fail %d %s", g, e.Fields[0].Field))
		}
	}
	return strings.Join(out, "; ")
}

// PlanBalances decides interface §4.4 PUT /inventory/balances rules 1-5.
func TestPlanBalances(t *testing.T) {
	shop := parcelgate.CatalogRef{ID: 1, RetailerOrg: 10, RetailerID: "0737546-2", ExternalID: "SHOP"}
	outlet := parcelgate.CatalogRef{ID: 2, RetailerOrg: 10, RetailerID: "0737546-2", ExternalID: "OUTLET"}
	other := parcelgate.CatalogRef{ID: 3, RetailerOrg: 11, RetailerID: "SE5560360793", ExternalID: "SHOP"}
	st := parcelgate.StockState{
		SupplierID: "1234567-1",
		Products:   map[string]bool{"P1": true, "P2": true, "WOO6": true},
		Open:       []parcelgate.CatalogRef{shop, outlet, other},
		Published: map[string][]parcelgate.PublishedBalance{
			"P1": {{BalanceID: 7, Catalog: shop}, {BalanceID: 8, Catalog: other}},
		},
	}
	one := func(es ...parcelgate.BalanceInput) [][]parcelgate.BalanceInput {
		var gs [][]parcelgate.BalanceInput
		for _, e := range es {
			gs = append(gs, []parcelgate.BalanceInput{e})
		}
		return gs
	}
	for _, c := range []struct {
		rule   string
		groups [][]parcelgate.BalanceInput
		want   string
	}{
		{"rule 1: publish with quantity, price and currency",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(5), WholesalePrice: str("1.5"), Currency: str("EUR")}),
			"publish P2@SHOP q=5 price=1.5 cur=EUR"},
		{"rule 1: publish without retailerId when the catalog ID is unambiguous",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", CatalogExternalID: "OUTLET"}),
			"publish P2@OUTLET"},
		{"rule 1: a catalog ID of several retailers needs retailerId",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", CatalogExternalID: "SHOP"}),
			"fail 0 catalogExternalId"},
		{"rule 1: a catalog not open to the supplier",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", RetailerID: "0737546-2", CatalogExternalID: "CLOSED"}),
			"fail 0 catalogExternalId"},
		{"rule 2: stock update of a published balance",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(3)}),
			"update #7 q=3"},
		{"rule 3: price update for one retailer",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "SE5560360793", CatalogExternalID: "SHOP", WholesalePrice: str("2")}),
			"update #8 price=2"},
		{"rule 4: no catalog updates every catalog where the product is published",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", Quantity: n(0)}),
			"update #7 q=0; update #8 q=0"},
		{"rule 4: no catalog, one retailer",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "SE5560360793", Quantity: n(4)}),
			"update #8 q=4"},
		{"rule 4: not published anywhere yet",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", Quantity: n(4)}),
			"fail 0 catalogExternalId"},
		{"rule 4 sees a catalog an earlier entry published",
			one(parcelgate.BalanceInput{ProductExternalID: "P2", CatalogExternalID: "OUTLET"}, parcelgate.BalanceInput{ProductExternalID: "P2", Quantity: n(9)}),
			"publish P2@OUTLET q=9"},
		{"rule 5: a quantity update leaves allocations alone",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(1)}),
			"update #7 q=1"},
		{"rule 5: allocated 0 releases, in the same entry as a quantity",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(1), Allocated: n(0)}),
			"update #7 q=1 a=0"},
		{"entries of one balance merge, the last value of each field wins",
			one(parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(1), Currency: str("EUR")},
				parcelgate.BalanceInput{ProductExternalID: "P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(2)}),
			"update #7 q=2 cur=EUR"},
		{"an unknown product",
			one(parcelgate.BalanceInput{ProductExternalID: "NOPE", Quantity: n(1)}),
			"fail 0 productExternalId"},
		{"a product named with the supplier's prefix is the bare one (interface §2.4, ID migration)",
			one(parcelgate.BalanceInput{ProductExternalID: "1234567-1-P1", RetailerID: "0737546-2", CatalogExternalID: "SHOP", Quantity: n(6)}),
			"update #7 q=6"},
		{"a group stands or falls as one, and takes back what it published",
			[][]parcelgate.BalanceInput{
				{{ProductExternalID: "P2", CatalogExternalID: "OUTLET"}, {ProductExternalID: "P2", RetailerID: "0737546-2", CatalogExternalID: "NOPE"}},
				{{ProductExternalID: "P2", Quantity: n(1)}},
				{{ProductExternalID: "WOO6", CatalogExternalID: "OUTLET", Quantity: n(2)}},
			},
			"publish WOO6@OUTLET q=2; fail 0 catalogExternalId; fail 1 catalogExternalId"},
	} {
		if got := describe(parcelgate.PlanBalances(st, c.groups)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.rule, got, c.want)
		}
	}
	if len(st.Published["P1"]) != 2 || len(st.Published["P2"]) != 0 {
		t.Errorf("planning changed the state it was given: %+v", st.Published)
	}
}

// Interface §3 rules 1-2, interface §8: EOS products stay visible to retailers for 14
// days after their deletion.
func TestEOSVisible(t *testing.T) {
	now := time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		deleted time.Time
		want    bool
	}{
		{time.Time{}, true},
		{now.Add(-time.Hour), true},
		{now.Add(-14*24*time.Hour + time.Microsecond), true},
		{now.Add(-14 * 24 * time.Hour), false},
		{now.Add(-15 * 24 * time.Hour), false},
	} {
		// As the stores filter: on sale, or ended after the cut-off.
		if got := c.deleted.IsZero() || c.deleted.After(parcelgate.EOSVisibleSince(now)); got != c.want {
			t.Errorf("deleted %v: visible %v, want %v", c.deleted, got, c.want)
		}
	}
	if got := parcelgate.EOSVisibleSince(now); !got.Equal(now.AddDate(0, 0, -14)) {
		t.Errorf("EOSVisibleSince %v", got)
	}
}

// A merchant is its own retailer in the warehouse service and reads its
// Posti catalogs; a retailer reads all of its catalogs.
func TestReadableCatalogTypes(t *testing.T) {
	for _, c := range []struct {
		roles []parcelgate.Role
		want  string
	}{
		{[]parcelgate.Role{parcelgate.RoleRetailer}, "[]"},
		{[]parcelgate.Role{parcelgate.RoleMerchant, parcelgate.RoleRetailer}, "[]"},
		{[]parcelgate.Role{parcelgate.RoleMerchant}, "[Posti]"},
		{[]parcelgate.Role{parcelgate.RoleSupplier}, "[]"},
	} {
		got := parcelgate.ReadableCatalogTypes(&parcelgate.Caller{Kind: parcelgate.KindEcom, Roles: c.roles})
		if fmt.Sprint(got) != c.want || (c.want == "[]" && (got == nil) != (c.roles[len(c.roles)-1] == parcelgate.RoleRetailer)) {
			t.Errorf("%v: %v (nil %v), want %s", c.roles, got, got == nil, c.want)
		}
	}
}

// interface §5.2: whoever may read all of its catalogs may read its
// warehouse catalogs, so the catalog reads, which ask
// ActionReadWarehouseCatalogs first, refuse exactly the callers
// ReadableCatalogTypes gives no type.
func TestReadAllCatalogsReadsWarehouseCatalogs(t *testing.T) {
	for _, r := range parcelgate.RolesFor(parcelgate.ActionReadAllCatalogs) {
		if !slices.Contains(parcelgate.RolesFor(parcelgate.ActionReadWarehouseCatalogs), r) {
			t.Errorf("role %s may read all catalogs but not the warehouse's", r)
		}
	}
	for _, roles := range [][]parcelgate.Role{nil, {parcelgate.RoleSupplier}, {parcelgate.RoleMerchant}, {parcelgate.RoleRetailer}, parcelgate.Roles} {
		c := &parcelgate.Caller{Kind: parcelgate.KindEcom, Roles: roles}
		readsNone := fmt.Sprint(parcelgate.ReadableCatalogTypes(c)) == "[]" && parcelgate.ReadableCatalogTypes(c) != nil
		if refused := c.May(parcelgate.ActionReadWarehouseCatalogs) != nil; refused != readsNone {
			t.Errorf("%v: refused %v, reads no type %v", roles, refused, readsNone)
		}
	}
}

// Stock is whole units (decisions §13); prices are numbers from 0 to under 10^12.
func TestParseStockCountAndPrice(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{{"2", 2, true}, {"2.0", 2, true}, {"1e3", 1000, true}, {"2.5", 0, false}, {"-1", 0, false}, {"1e400", 0, false}, {"1000000001", 0, false}, {"x", 0, false}} {
		got, err := parcelgate.ParseStockCount(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseStockCount(%q) = %d, %v", c.in, got, err)
		}
	}
	for _, c := range []struct {
		in string
		ok bool
	}{{"12.50", true}, {"0", true}, {"-0.01", false}, {"1e12", false}, {"1e400", false}} {
		if _, err := parcelgate.ParsePrice(c.in); (err == nil) != c.ok {
			t.Errorf("ParsePrice(%q): %v", c.in, err)
		}
	}
}

// Interface §2.4 and the ID migration: a PUT /inventory envelope's rules.
func TestInventoryInputValidate(t *testing.T) {
	const bid = "1234567-1"
	for _, c := range []struct {
		name string
		in   parcelgate.InventoryInput
		want string // fields with problems
	}{
		{"bare SKU", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Named: true}, ""},
		{"own prefix", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "1234567-1-WOO6"}, Named: true}, ""},
		{"another business's prefix", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "7654321-2-WOO6"}, Named: true}, "product.externalId"},
		{"no name", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}}, "product.descriptions"},
		{"EOS needs no name (interface §3)", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Status: "EOS"}, ""},
		{"a balance of another product", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Named: true,
			Balances: []parcelgate.BalanceInput{{ProductExternalID: "WOO7", CatalogExternalID: "WH1"}}}, "balances[0].productExternalId"},
		{"a balance naming the product in the other form", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Named: true,
			Balances: []parcelgate.BalanceInput{{ProductExternalID: "1234567-1-WOO6", CatalogExternalID: "WH1"}}}, ""},
		{"interface §4.4 PUT balances rule 5: allocated only 0", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Named: true,
			Balances: []parcelgate.BalanceInput{{CatalogExternalID: "WH1", Allocated: n(3)}}}, "balances[0].allocated"},
		{"a balance that changes nothing", parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Named: true,
			Balances: []parcelgate.BalanceInput{{}}}, "balances[0].(entry)"},
	} {
		var got []string
		for _, f := range parcelgate.ErrorFields(c.in.Validate(bid)) {
			got = append(got, f.Field)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: problems %v, want %s", c.name, got, c.want)
		}
	}
	eos := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Status: "EOS"}
	withBalances := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: "WOO6"}, Status: "EOS", Balances: []parcelgate.BalanceInput{{Quantity: n(1)}}}
	if !eos.EndsSale() || withBalances.EndsSale() {
		t.Errorf("EndsSale: %v %v", eos.EndsSale(), withBalances.EndsSale())
	}
}

// The provider's ID migration: {businessId}-{x} becomes
// {x}; a bare ID that exists is a conflict and both stay; idempotent.
func TestPlanIDMigration(t *testing.T) {
	renames, m := parcelgate.PlanIDMigration("1234567-1", []string{"1234567-1-A", "1234567-1-B", "B", "C", "1234567-1-"})
	if fmt.Sprint(renames) != "map[1234567-1-A:A]" || fmt.Sprint(m.Migrated) != "[A]" || len(m.Conflicts) != 1 || m.Conflicts[0].ExternalID != "1234567-1-B" || m.Conflicts[0].BareID != "B" {
		t.Fatalf("renames %v, outcome %+v", renames, m)
	}
	renames, m = parcelgate.PlanIDMigration("1234567-1", []string{"A", "B", "C"})
	if len(renames) != 0 || len(m.Migrated) != 0 || len(m.Conflicts) != 0 {
		t.Fatalf("a second run: %v %+v", renames, m)
	}
}

// PUT /inventory: each entry atomic, EOS needs a product (interface §3).
func TestPlanInventory(t *testing.T) {
	wh := parcelgate.CatalogRef{ID: 1, RetailerID: "1234567-1", ExternalID: "WH1"}
	st := parcelgate.StockState{SupplierID: "1234567-1", Products: map[string]bool{"OLD": true, "GONE": false}, Open: []parcelgate.CatalogRef{wh}, Published: map[string][]parcelgate.PublishedBalance{}}
	p := func(id string) *parcelgate.Product { return &parcelgate.Product{ExternalID: id} }
	plan := parcelgate.PlanInventory(st, []parcelgate.InventoryInput{
		{Product: p("NEW"), Balances: []parcelgate.BalanceInput{{ProductExternalID: "NEW", CatalogExternalID: "WH1", Quantity: n(1)}}},
		{Product: p("BAD"), Balances: []parcelgate.BalanceInput{{ProductExternalID: "BAD", CatalogExternalID: "NOPE"}}},
		{Product: p("OLD"), Status: "EOS"},
		{Product: p("NEVER"), Status: "EOS"},
		{Product: p("GONE"), Status: "EOS"},                                                            // already EOS: nothing to do, no error
		{Product: p("1234567-1-NEW"), Status: "EOS"},                                                   // created above, then ended, in either form
		{Product: p("BAD"), Status: "EOS"},                                                             // its only writer failed
		{Product: p("OLD2"), Balances: nil}, {Product: p("OLD2"), Status: "EOS"}, {Product: p("OLD2")}, // the last entry wins
	})
	var upserts []string
	for _, u := range plan.Upserts {
		upserts = append(upserts, u.ExternalID)
	}
	if fmt.Sprint(upserts) != "[NEW OLD2]" || fmt.Sprint(plan.EndSale) != "[GONE NEW OLD]" ||
		len(plan.Failed) != 3 || plan.Failed[1] == nil || plan.Failed[3] == nil || plan.Failed[6] == nil ||
		describe(plan.Balances) != "publish NEW@WH1 q=1; fail 1 catalogExternalId" {
		t.Fatalf("upserts %v, ends %v, failed %v, balances %s", upserts, plan.EndSale, plan.Failed, describe(plan.Balances))
	}
}
