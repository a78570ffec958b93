package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §53: the console's product list is two sets — what the caller
// supplies and what is published to its catalogs — read each from its own
// index and merged by id. Walking Next links meets every product of both
// sets exactly once, newest first (a product in two of the retailer's
// catalogs once), Prev links walk back to the same pages, and neither
// another organization nor the same business ID in the other environment
// sees any of them.
func TestListProductsMergesOwnAndPublishedByKeyBothWays(t *testing.T) {
	testdb.Each(t, frozenClock{time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		r, s, x := stockOrg(t, db, "1234567-1"), stockOrg(t, db, "7654321-2"), stockOrg(t, db, "0737546-2")
		twin := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: r.BusinessID, Name: "twin"}
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), twin); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"SHOP", "SHOP2"} {
			if err := sqlstore.NewCatalogService(db).CreateCatalog(ctx, parcelgate.EnvironmentOperator(parcelgate.Production),
				&parcelgate.Catalog{RetailerID: r.BusinessID, ExternalID: name, Type: parcelgate.CatalogDropship, SupplierIDs: []string{s.BusinessID}}); err != nil {
				t.Fatal(err)
			}
		}
		inv := sqlstore.NewInventoryService(db)
		qty := int64(3)
		put := func(c *parcelgate.Caller, id string, catalogs ...string) {
			e := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: id, Document: []byte(`{"externalId":"` + id + `","descriptions":{"en":{"name":"` + id + `"}}}`)}, Named: true}
			for _, k := range catalogs {
				e.Balances = append(e.Balances, parcelgate.BalanceInput{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: k, Quantity: &qty})
			}
			if failed, err := inv.PutInventory(ctx, c, []parcelgate.InventoryInput{e}); err != nil || len(failed) > 0 {
				t.Fatal(failed, err)
			}
		}
		// The two sets' ids interleave; S's products not published to R
		// are in neither.
		own, sup, stranger := accountOf(r, parcelgate.RoleMerchant), accountOf(s, parcelgate.RoleSupplier), accountOf(x, parcelgate.RoleSupplier)
		var want []string
		for i := range 9 {
			put(own, fmt.Sprintf("R%d", i))
			want = append(want, fmt.Sprintf("R%d", i))
			switch i % 3 {
			case 0:
				put(sup, fmt.Sprintf("S%d", i), "SHOP", "SHOP2")
				want = append(want, fmt.Sprintf("S%d", i))
			case 1:
				put(sup, fmt.Sprintf("S%d", i), "SHOP")
				want = append(want, fmt.Sprintf("S%d", i))
			default:
				put(sup, fmt.Sprintf("S%d", i))
			}
			put(stranger, fmt.Sprintf("X%d", i))
		}
		slices.Reverse(want)
		op := parcelgate.OperatorCaller(r) // reads products and every catalog: both sets
		var pages []parcelgate.Page[*parcelgate.ScopedProduct]
		var got []string
		cursor := ""
		for {
			page, err := inv.ListProducts(ctx, op, parcelgate.ProductQuery{}, parcelgate.PageRequest{After: cursor, Size: 4})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Items {
				got = append(got, p.Product.ExternalID)
				if p.Own != (p.Product.ExternalID[0] == 'R') {
					t.Fatalf("%s: Own %v", p.Product.ExternalID, p.Own)
				}
				// decisions §58: one total a product, of the balances
				// the caller sees (S0 is in both of R's catalogs).
				wantCatalogs := map[bool]int{true: 1, false: 0}[p.Product.ExternalID[0] == 'S']
				if p.Product.ExternalID == "S0" || p.Product.ExternalID == "S3" || p.Product.ExternalID == "S6" {
					wantCatalogs = 2
				}
				if p.Total.Catalogs != wantCatalogs || p.Total.Quantity != int64(wantCatalogs)*qty {
					t.Fatalf("%s: total %+v, want %d catalogs of %d", p.Product.ExternalID, p.Total, wantCatalogs, qty)
				}
			}
			if len(pages) == 0 && page.Prev != "" {
				t.Fatal("the first page has a Prev link")
			}
			pages = append(pages, page)
			if page.Next == "" {
				break
			}
			cursor = page.Next
		}
		if !slices.Equal(got, want) {
			t.Fatalf("walked %v, want %v", got, want)
		}
		for i := len(pages) - 1; i > 0; i-- {
			page, err := inv.ListProducts(ctx, op, parcelgate.ProductQuery{}, parcelgate.PageRequest{After: pages[i].Prev, Size: 4})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != len(pages[i-1].Items) || page.Items[0].Product.ID != pages[i-1].Items[0].Product.ID {
				t.Fatalf("Prev from page %d is not page %d", i, i-1)
			}
			if (i-1 == 0) != (page.Prev == "") {
				t.Fatalf("page %d reached backwards: Prev %q", i-1, page.Prev)
			}
		}
		// The search keeps each set's matches: externalIds starting
		// with it, either case (decisions §58).
		page, err := inv.ListProducts(ctx, op, parcelgate.ProductQuery{Search: "s"}, parcelgate.PageRequest{Size: 50})
		if err != nil || len(page.Items) != 6 {
			t.Fatalf("search s: %d items, %v", len(page.Items), err)
		}
		if page, err := inv.ListProducts(ctx, op, parcelgate.ProductQuery{Search: "0"}, parcelgate.PageRequest{Size: 50}); err != nil || len(page.Items) != 0 {
			t.Fatalf("search 0 (not a prefix): %d items, %v", len(page.Items), err)
		}
		// A retailer's account reads only what is published to it.
		page, err = inv.ListProducts(ctx, accountOf(r, parcelgate.RoleRetailer), parcelgate.ProductQuery{}, parcelgate.PageRequest{Size: 50})
		if err != nil || len(page.Items) != 6 {
			t.Fatalf("retailer: %d items, %v", len(page.Items), err)
		}
		// Another organization and the other environment's twin see none
		// of them, and find them as missing.
		for _, c := range []*parcelgate.Caller{parcelgate.OperatorCaller(x), parcelgate.OperatorCaller(twin)} {
			page, err := inv.ListProducts(ctx, c, parcelgate.ProductQuery{}, parcelgate.PageRequest{Size: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range page.Items {
				if p.Product.ExternalID[0] != 'X' {
					t.Fatalf("%s sees %s", c.BusinessID, p.Product.ExternalID)
				}
			}
			for _, p := range pages[0].Items {
				if _, err := inv.FindProduct(ctx, c, p.Product.ID); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
					t.Fatalf("%s finds %s: %v", c.BusinessID, p.Product.ExternalID, err)
				}
			}
		}
		for _, p := range pages[0].Items {
			if found, err := inv.FindProduct(ctx, op, p.Product.ID); err != nil || found.Product.ExternalID != p.Product.ExternalID {
				t.Fatalf("find %s: %v", p.Product.ExternalID, err)
			}
		}
	})
}
