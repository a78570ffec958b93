package console_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// The console shows the products the API's reads show (decisions §18,
// ConsoleProductScope): a retailer sees what is published to its catalogs,
// an end-of-sale product for 14 days and then no more (interface §3 rules
// 1-2); a merchant account of the same organization reads only warehouse
// catalogs (ReadableCatalogTypes), so not the demo web shop's; the
// supplier keeps seeing its own product, marked EOS.
func TestConsoleProductsFollowTheAPIsVisibility(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		retailer := e.browser()
		if p := retailer.signIn(prod.RetailerUsername, prod.RetailerPassword); p.status != http.StatusSeeOther {
			t.Fatalf("retailer sign-in: %d", p.status)
		}
		// A merchant account of the retailer's organization: its catalog
		// reads are the Posti catalogs only, and the web shop is not one.
		hash, err := auth.HashPassword("merchant-of-the-shop")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Credentials.CreateServiceAccount(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), &parcelgate.ServiceAccount{Username: "shop-merchant", Environment: parcelgate.Production, BusinessID: prod.RetailerID, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}, hash); err != nil {
			t.Fatal(err)
		}
		merchant := e.browser()
		if p := merchant.signIn("shop-merchant", "merchant-of-the-shop"); p.status != http.StatusSeeOther {
			t.Fatalf("merchant sign-in: %d", p.status)
		}
		supplier := e.browser()
		if p := supplier.signIn(prod.Username, prod.Password); p.status != http.StatusSeeOther {
			t.Fatalf("supplier sign-in: %d", p.status)
		}
		const mug = "1234567-1-MUG"
		mustContain(t, retailer.get("/console/products"), mug, "published to you")
		if p := merchant.get("/console/products"); p.status != http.StatusOK || contains(p, mug) {
			t.Fatalf("a merchant sees a product of a catalog it may not read (status %d)", p.status)
		}

		org, err := e.api.Organizations.FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), prod.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		owner := &parcelgate.Caller{Subject: prod.Username, OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}
		if _, err := e.api.Inventory.EndOfSale(ctx, owner, []string{mug}); err != nil {
			t.Fatal(err)
		}
		// Within 14 days the retailer still sees it, as its catalog reads do.
		if _, err := e.store.Controls.AdvanceClock(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), 13*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		mustContain(t, retailer.get("/console/products"), mug)
		// Past them it is gone from the retailer's list and detail page.
		if _, err := e.store.Controls.AdvanceClock(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), 2*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if p := retailer.get("/console/products"); p.status != http.StatusOK || contains(p, mug) {
			t.Fatalf("an EOS product is still in the retailer's console after 14 days (status %d)", p.status)
		}
		// Its supplier still sees it, marked as ended.
		mustContain(t, supplier.get("/console/products"), mug, "EOS")
	})
}

func contains(p page, s string) bool { return strings.Contains(p.body, s) }
