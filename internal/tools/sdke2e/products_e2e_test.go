package sdke2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

func all[T any](t *testing.T, seq iter.Seq2[T, error]) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func product(id string) client.Product {
	return client.Product{
		ExternalID:    id,
		EANCode:       "64" + id[len(id)-3:] + "00000000",
		UnitOfMeasure: "PCS",
		Measurements:  &client.Measurements{Weight: client.Ptr(0.5), Length: client.Ptr(20.0), Width: client.Ptr(10.0), Height: client.Ptr(5.0)},
		Descriptions:  map[string]client.Description{"en": {Name: "Product " + id}},
		Extra:         map[string]json.RawMessage{"colour": json.RawMessage(`"blue"`)},
	}
}

// Interface §4.4: a supplier publishes products to a retailer's catalog; the
// retailer reads them, page by page, and follows the changes of their
// balances.
func TestProductsAndCatalogs(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const supplierID, retailerID = "1234567-1", "7654321-2"
		e.Catalog(parcelgate.Production, retailerID, "SHOP1", parcelgate.CatalogDropship, supplierID)
		supplier := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, supplierID, parcelgate.RoleSupplier))
		retailer := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, retailerID, parcelgate.RoleRetailer))

		var entries []client.InventoryEntry
		for i := range 5 {
			entries = append(entries, client.InventoryEntry{
				Product:  product(fmt.Sprintf("P-%03d", i)),
				Balances: []client.BalanceUpdate{{RetailerID: retailerID, CatalogExternalID: "SHOP1", Quantity: client.Ptr[int64](10), WholesalePrice: client.Ptr(9.9), Currency: "EUR"}},
			})
		}
		failed, err := supplier.PutInventory(ctx, entries)
		if err != nil || len(failed) != 0 {
			t.Fatal(failed, err)
		}
		put := all(t, supplier.Inventory(ctx, nil))
		if len(put) != 5 || put[0].Product.Status != client.ProductActive || put[0].Product.SupplierID != supplierID {
			t.Fatalf("PutInventory: %+v", put)
		}
		item, err := supplier.InventoryItem(ctx, "P-002")
		if err != nil {
			t.Fatal(err)
		}
		// Fields the SDK does not name round-trip through Extra.
		if string(item.Product.Extra["colour"]) != `"blue"` || item.Product.Descriptions["en"].Name != "Product P-002" || len(item.Balances) != 1 || item.Balances[0].Quantity != 10 || item.Balances[0].WholesalePrice != 9.9 {
			t.Errorf("InventoryItem: %+v", item)
		}

		// Interface §4.4 GET rule 1: every page, by the iterator.
		if got := all(t, supplier.Inventory(ctx, &client.ProductQuery{Paging: client.Paging{Size: 2}})); len(got) != 5 || got[4].Product.ExternalID != "P-004" {
			t.Errorf("Inventory: %d items", len(got))
		}
		page, err := supplier.InventoryPage(ctx, &client.ProductQuery{Paging: client.Paging{Page: 1, Size: 2}})
		if err != nil || page.Page.TotalPages != 3 || page.Page.Number != 1 || len(page.Content) != 2 || page.Link("next") == "" {
			t.Errorf("InventoryPage: %+v, %v", page, err)
		}
		if got := all(t, supplier.Balances(ctx, &client.ProductQuery{ProductExternalIDs: []string{"P-000", "P-001"}})); len(got) != 2 {
			t.Errorf("Balances filtered: %d", len(got))
		}

		cats := all(t, retailer.Catalogs(ctx, &client.CatalogQuery{Role: client.RoleRetailer}))
		if len(cats) != 1 || cats[0].ExternalID != "SHOP1" || cats[0].Type != "Catalog" {
			t.Errorf("Catalogs: %+v", cats)
		}
		if got := all(t, retailer.CatalogProducts(ctx, "SHOP1", &client.ProductQuery{Paging: client.Paging{Size: 2}})); len(got) != 5 {
			t.Errorf("CatalogProducts: %d", len(got))
		}
		if got := all(t, retailer.CatalogBalances(ctx, "", nil)); len(got) != 5 {
			t.Errorf("CatalogBalances of every catalog: %d", len(got))
		}

		// Interface §4.4 GET rule 3: the Sync yields every balance once, then
		// only what changed.
		sync := retailer.CatalogBalanceSync("SHOP1", &client.ProductQuery{Paging: client.Paging{Size: 2}}, time.Time{})
		if got := all(t, sync.Changes(ctx)); len(got) != 5 || sync.Cursor.IsZero() {
			t.Fatalf("first poll: %d balances, cursor %v", len(got), sync.Cursor)
		}
		if got := all(t, sync.Changes(ctx)); len(got) != 0 {
			t.Errorf("poll without changes: %d", len(got))
		}
		// Interface §4.4 PUT balances rule 2 and 4: a stock update in every catalog.
		if _, err := supplier.PutBalances(ctx, []client.BalanceUpdate{{ProductExternalID: "P-003", Quantity: client.Ptr[int64](0)}}); err != nil {
			t.Fatal(err)
		}
		got := all(t, sync.Changes(ctx))
		if len(got) != 1 || got[0].ProductExternalID != "P-003" || got[0].Quantity != 0 {
			t.Errorf("poll after an update: %+v", got)
		}

		// Interface §3: deletion is EOS; the supplier no longer sees it, the
		// retailer sees it with status EOS.
		if _, err := supplier.DeleteProducts(ctx, "P-004"); err != nil {
			t.Fatal(err)
		}
		_, err = supplier.InventoryItem(ctx, "P-004")
		if ae := asError(t, err); ae.StatusCode != 404 {
			t.Errorf("EOS product for its supplier: %+v", ae)
		}
		eos := all(t, retailer.CatalogProducts(ctx, "SHOP1", &client.ProductQuery{ProductExternalIDs: []string{"P-004"}}))
		if len(eos) != 1 || eos[0].Product.Status != client.ProductEOS {
			t.Errorf("EOS product for the retailer: %+v", eos)
		}

		removed, err := supplier.DeleteBalances(ctx, "P-000", retailerID, "SHOP1")
		if err != nil || len(removed) != 1 {
			t.Errorf("DeleteBalances: %+v, %v", removed, err)
		}
		// decisions §6, interface §4.4 DELETE balances rule 2: the removal reaches the
		// retailer's Sync as a removed balance; plain reads leave it out.
		got = all(t, sync.Changes(ctx))
		if i := slices.IndexFunc(got, func(b client.Balance) bool { return b.ProductExternalID == "P-000" }); i < 0 || !got[i].Removed || got[i].Quantity != 0 {
			t.Errorf("poll after a removal: %+v", got)
		}
		if got := all(t, retailer.CatalogBalances(ctx, "SHOP1", nil)); slices.ContainsFunc(got, func(b client.Balance) bool { return b.ProductExternalID == "P-000" }) {
			t.Errorf("a removed balance in the catalog's balances: %+v", got)
		}

		// Each entry on its own: the valid one is applied, the invalid one
		// listed with its index and every problem (decisions §6).
		failed, err = supplier.PutInventory(ctx, []client.InventoryEntry{{Product: product("P-100")}, {Product: client.Product{ExternalID: "bad id!"}}})
		if err != nil || len(failed) != 1 || failed[0].Index != 1 || failed[0].Field != "product.externalId" || len(failed[0].Errors) != 2 {
			t.Errorf("invalid entries: %+v %v", failed, err)
		}
		if _, err := supplier.InventoryItem(ctx, "P-100"); err != nil {
			t.Errorf("the valid entry: %v", err)
		}
		// All or nothing when the body is over the limits.
		_, err = supplier.PutInventory(ctx, make([]client.InventoryEntry, 2001))
		if ae := asError(t, err); ae.StatusCode != 400 || ae.Code != "Bad Request" || len(ae.Fields) == 0 || ae.Fields[0].Field != "(body)" {
			t.Errorf("over the limit: %+v", ae)
		}
	})
}

// The provider's ID migration and the warehouse plugin's removals through
// the SDK: bare and prefixed IDs name one product,
// EOS by PutInventory ends the sale, RemoveFromCatalogs answers the
// entries not applied, MigrateProductIDs drops the prefix once.
func TestSDKMigrationAndRemovals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const bid = "1234567-1"
		e.Catalog(parcelgate.Production, bid, "WH1", parcelgate.CatalogPosti, bid)
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, bid, parcelgate.RoleMerchant))
		pub := []client.BalanceUpdate{{RetailerID: bid, CatalogExternalID: "WH1", Quantity: client.Ptr[int64](4)}}
		failed, err := c.PutInventory(ctx, []client.InventoryEntry{{Product: product(bid + "-OLD"), Balances: pub}, {Product: product("WOO6"), Balances: pub}, {Product: product("WOO7")}})
		if err != nil || len(failed) != 0 {
			t.Fatal(failed, err)
		}
		res, err := c.MigrateProductIDs(ctx)
		if err != nil || len(res.Migrated) != 1 || res.Migrated[0] != "OLD" || len(res.Conflicts) != 0 {
			t.Fatalf("migrate: %+v %v", res, err)
		}
		item, err := c.InventoryItem(ctx, bid+"-OLD")
		if err != nil || item.Product.ExternalID != "OLD" || len(item.Balances) != 1 || item.Balances[0].ProductExternalID != "OLD" {
			t.Fatalf("after the migration: %+v %v", item, err)
		}
		failed, err = c.RemoveFromCatalogs(ctx, []client.BalanceRemoval{{ProductExternalID: "WOO6", CatalogExternalID: "WH1", RetailerID: bid}, {ProductExternalID: "NOPE"}})
		if err != nil || len(failed) != 1 || failed[0].Index != 1 || failed[0].Field != "productExternalId" {
			t.Fatalf("removals: %+v %v", failed, err)
		}
		if item, err := c.InventoryItem(ctx, "WOO6"); err != nil || len(item.Balances) != 0 {
			t.Fatalf("WOO6 still published: %+v %v", item, err)
		}
		eos := product("WOO7")
		eos.Status = client.ProductEOS
		if failed, err := c.PutInventory(ctx, []client.InventoryEntry{{Product: eos}}); err != nil || len(failed) != 0 {
			t.Fatal(failed, err)
		}
		if _, err := c.InventoryItem(ctx, "WOO7"); asError(t, err).StatusCode != 404 {
			t.Fatalf("WOO7 after EOS: %v", err)
		}
	})
}
