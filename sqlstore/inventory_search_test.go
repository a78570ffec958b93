package sqlstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §58: the console's product search matches the start of an
// externalId, ignoring the case of ASCII letters, or a whole EAN code; it
// answers in externalId order (the order of the index that serves it),
// paged by key both ways over the caller's own products and those
// published to its catalogs; nobody else's. A product's balances are
// paged by catalog, and the list shows their total.
func TestProductSearchIsAPrefixPagedByExternalID(t *testing.T) {
	testdb.Each(t, frozenClock{time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		r, s, x := stockOrg(t, db, "1234567-1"), stockOrg(t, db, "7654321-2"), stockOrg(t, db, "0737546-2")
		for _, name := range []string{"SHOP", "SHOP2"} {
			if err := sqlstore.NewCatalogService(db).CreateCatalog(ctx, parcelgate.EnvironmentOperator(parcelgate.Production),
				&parcelgate.Catalog{RetailerID: r.BusinessID, ExternalID: name, Type: parcelgate.CatalogDropship, SupplierIDs: []string{s.BusinessID}}); err != nil {
				t.Fatal(err)
			}
		}
		inv := sqlstore.NewInventoryService(db)
		put := func(c *parcelgate.Caller, id, ean string, qty int64, catalogs ...string) {
			e := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: id, EANCode: ean, Document: []byte(`{"externalId":"` + id + `","descriptions":{"en":{"name":"` + id + `"}}}`)}, Named: true}
			for _, k := range catalogs {
				e.Balances = append(e.Balances, parcelgate.BalanceInput{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: k, Quantity: &qty})
			}
			if failed, err := inv.PutInventory(ctx, c, []parcelgate.InventoryInput{e}); err != nil || len(failed) > 0 {
				t.Fatal(failed, err)
			}
		}
		own, sup, stranger := accountOf(r, parcelgate.RoleMerchant), accountOf(s, parcelgate.RoleSupplier), accountOf(x, parcelgate.RoleSupplier)
		put(own, "ab-2", "", 0)
		put(sup, "AB-S2", "", 5, "SHOP")
		put(own, "ABC", "", 0)
		put(own, "Ab-1", "", 0)
		put(sup, "ab-s1", "", 4, "SHOP", "SHOP2")
		put(sup, "AB-S3", "", 0) // not published to R
		put(own, "b-ab", "", 0)  // "ab" inside, not at the start
		put(own, "Z-EAN", "6400000000017", 0)
		put(stranger, "AB-X", "6400000000017", 0)
		op := parcelgate.OperatorCaller(r)
		search := func(c *parcelgate.Caller, term, after string, size int) parcelgate.Page[*parcelgate.ScopedProduct] {
			t.Helper()
			page, err := inv.ListProducts(ctx, c, parcelgate.ProductQuery{Search: term}, parcelgate.PageRequest{After: after, Size: size})
			if err != nil {
				t.Fatal(err)
			}
			return page
		}
		ids := func(page parcelgate.Page[*parcelgate.ScopedProduct]) (out []string) {
			for _, p := range page.Items {
				out = append(out, p.Product.ExternalID)
			}
			return out
		}
		// Byte order of the upper-cased IDs: '-' sorts before 'C'.
		want := []string{"Ab-1", "ab-2", "ab-s1", "AB-S2", "ABC"}
		var got []string
		var pages []parcelgate.Page[*parcelgate.ScopedProduct]
		after := ""
		for {
			page := search(op, "aB", after, 2)
			got, pages = append(got, ids(page)...), append(pages, page)
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		if !slices.Equal(got, want) || len(pages) != 3 || pages[0].Prev != "" {
			t.Fatalf("search aB: %v in %d pages, want %v in 3", got, len(pages), want)
		}
		// Back from the last page: the pages before, the first one with
		// no Prev.
		for i := len(pages) - 1; i > 0; i-- {
			back := search(op, "aB", pages[i].Prev, 2)
			if !slices.Equal(ids(back), ids(pages[i-1])) || (i-1 == 0) != (back.Prev == "") {
				t.Fatalf("Prev of page %d: %v (Prev %q), want %v", i, ids(back), back.Prev, ids(pages[i-1]))
			}
		}
		for term, want := range map[string][]string{
			"ab-s":          {"ab-s1", "AB-S2"},
			"6400000000017": {"Z-EAN"}, // the stranger's product of that EAN is not R's
			"b":             {"b-ab"},
			"zz":            nil,
		} {
			if got := ids(search(op, term, "", 50)); !slices.Equal(got, want) {
				t.Fatalf("search %q: %v, want %v", term, got, want)
			}
		}
		// A retailer's account sees only what is published to it; the
		// stranger only its own.
		if got := ids(search(accountOf(r, parcelgate.RoleRetailer), "ab", "", 50)); !slices.Equal(got, []string{"ab-s1", "AB-S2"}) {
			t.Fatalf("retailer's search: %v", got)
		}
		if got := ids(search(parcelgate.OperatorCaller(x), "ab", "", 50)); !slices.Equal(got, []string{"AB-X"}) {
			t.Fatalf("stranger's search: %v", got)
		}
		if _, err := inv.ListProducts(ctx, op, parcelgate.ProductQuery{Search: "ab"}, parcelgate.PageRequest{After: "bm90IGEgY3Vyc29y"}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Fatalf("a bad cursor: %v", err)
		}

		// The total of ab-s1's stock R sees (both of R's catalogs), and
		// its balances a page at a time, by catalog.
		s1 := search(op, "ab-s1", "", 1).Items[0]
		if s1.Total != (parcelgate.StockTotal{Quantity: 8, Catalogs: 2}) {
			t.Fatalf("ab-s1's total: %+v", s1.Total)
		}
		var catalogs []string
		next := ""
		for range 3 {
			page, err := inv.ProductStock(ctx, op, s1.Product.ID, parcelgate.PageRequest{After: next, Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range page.Items {
				catalogs = append(catalogs, st.Balance.CatalogExternalID)
			}
			if next = page.Next; next == "" {
				break
			}
		}
		if !slices.Equal(catalogs, []string{"SHOP", "SHOP2"}) {
			t.Fatalf("ab-s1's balances: %v", catalogs)
		}
		// The stranger and the other environment find it missing.
		twinOrg := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: r.BusinessID, Name: "twin"}
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), twinOrg); err != nil {
			t.Fatal(err)
		}
		twin := parcelgate.OperatorCaller(twinOrg)
		if got := ids(search(twin, "ab", "", 50)); len(got) != 0 {
			t.Fatalf("the other environment's twin finds %v", got)
		}
		for _, c := range []*parcelgate.Caller{stranger, parcelgate.OperatorCaller(x), twin} {
			if _, err := inv.ProductStock(ctx, c, s1.Product.ID, parcelgate.PageRequest{}); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
				t.Fatalf("%s %s reads ab-s1's balances: %v", c.BusinessID, c.Environment, err)
			}
		}
	})
}
