package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// stockOrg creates the production organization bid.
func stockOrg(t *testing.T, db *sqlstore.DB, bid string) *parcelgate.Organization {
	t.Helper()
	o := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: bid, Name: bid}
	if err := sqlstore.NewOrganizationService(db).CreateOrganization(context.Background(), parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
		t.Fatal(err)
	}
	return o
}

func jsonOf(t *testing.T, v any, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// interface §5.2: the InventoryService asks Caller.May itself, whoever
// calls it (the API, the console, the demo seed, a test): a caller
// without the action of the method's route is EFORBIDDEN and nothing is
// written. decisions §4: another supplier's product answers like a
// missing one, and another supplier's writes never reach it.
func TestInventoryServiceAccess(t *testing.T) {
	testdb.Each(t, frozenClock{time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		s, o, r := stockOrg(t, db, "1234567-1"), stockOrg(t, db, "7654321-2"), stockOrg(t, db, "0737546-2")
		if err := sqlstore.NewCatalogService(db).CreateCatalog(ctx, parcelgate.EnvironmentOperator(parcelgate.Production),
			&parcelgate.Catalog{RetailerID: r.BusinessID, ExternalID: "SHOP", Type: parcelgate.CatalogDropship, SupplierIDs: []string{s.BusinessID, o.BusinessID}}); err != nil {
			t.Fatal(err)
		}
		inv := sqlstore.NewInventoryService(db)
		sup, other := accountOf(s, parcelgate.RoleSupplier), accountOf(o, parcelgate.RoleSupplier)
		retailer, roleless, gateway := accountOf(s, parcelgate.RoleRetailer), accountOf(s), gatewayClientOf(s)
		qty := int64(5)
		entry := func(id string) parcelgate.InventoryInput {
			return parcelgate.InventoryInput{
				Product: &parcelgate.Product{ExternalID: id, Document: []byte(`{"externalId":"` + id + `","descriptions":{"en":{"name":"` + id + `"}}}`)}, Named: true,
				Balances: []parcelgate.BalanceInput{{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: "SHOP", Quantity: &qty}},
			}
		}
		// P1 for the reads and the moves; P2 and P3 each for one method
		// that takes the owner's balance away.
		if failed, err := inv.PutInventory(ctx, sup, []parcelgate.InventoryInput{entry("P1"), entry("P2"), entry("P3")}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		// A product from before bare IDs: a migration would rename it.
		if err := db.InsertProductForTest(ctx, parcelgate.Production, s.ID, "1234567-1-OLD"); err != nil {
			t.Fatal(err)
		}
		// The supplier's products and balances as it reads them: any write
		// to them changes a status, a quantity, an ID or a stamp. Another
		// supplier's writes of its own do not.
		written := func() string {
			items, err := inv.ListInventory(ctx, sup, parcelgate.InventoryFilter{}, parcelgate.PageRequest{Size: 100})
			bals, err2 := inv.ListSupplierBalances(ctx, sup, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 100})
			if err == nil {
				err = err2
			}
			stamps := []time.Time{}
			for _, it := range items.Items {
				stamps = append(stamps, it.Product.ModifiedAt)
			}
			for _, b := range bals.Items {
				stamps = append(stamps, b.ModifiedAt)
			}
			return jsonOf(t, []any{items, bals, stamps}, err)
		}
		// A retailer reads what is published to it through the catalogs,
		// never the supplier's own side; a gateway token never acts on the
		// ecom API (decisions §4); the stock moves are the operator's.
		notSuppliers := []*parcelgate.Caller{retailer, roleless, gateway}
		item := func(it *parcelgate.InventoryItem, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return it.Product.ExternalID + " of " + it.Product.SupplierID, nil
		}
		zero := int64(0)
		removal := func(id string) parcelgate.BalanceRemoval {
			return parcelgate.BalanceRemoval{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: "SHOP"}
		}
		// Another supplier, which may do all of it, finds none of s's
		// products: each answers as one that is not there, in either ID
		// form, and lists none of them.
		checkAccess(t, written, "P1", "NOPE", []accessCase{
			{name: "ListInventory", denied: notSuppliers, other: other, listing: true, crossSum: "0 products: ", owner: sup, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := inv.ListInventory(ctx, c, parcelgate.InventoryFilter{}, parcelgate.PageRequest{Size: 10})
					var ids []string
					for _, it := range page.Items {
						ids = append(ids, it.Product.ExternalID)
					}
					return fmt.Sprintf("%d products: %s", page.Total, strings.Join(ids, ",")), err
				}},
			{name: "ListSupplierBalances", denied: notSuppliers, other: other, listing: true, crossSum: "0 balances: ", owner: sup, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := inv.ListSupplierBalances(ctx, c, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
					var ids []string
					for _, b := range page.Items {
						ids = append(ids, b.ProductExternalID)
					}
					return fmt.Sprintf("%d balances: %s", page.Total, strings.Join(ids, ",")), err
				}},
			{name: "FindInventoryItem", denied: notSuppliers, other: other, crossCode: parcelgate.ENOTFOUND, owner: sup, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return item(inv.FindInventoryItem(ctx, c, id)) }},
			// The operator of another organization moves nothing of s's.
			{name: "MoveStock", denied: append([]*parcelgate.Caller{sup}, notSuppliers...), other: parcelgate.OperatorCaller(o), crossSum: "moved=false", owner: parcelgate.OperatorCaller(s),
				call: func(c *parcelgate.Caller, id string) (string, error) {
					moved, err := inv.MoveStock(ctx, c, s.BusinessID, id, r.BusinessID, "SHOP", -1, 1)
					return fmt.Sprint("moved=", moved), err
				}},
			// A balance names a product of the caller's: s's P1 is as
			// unknown to another supplier as no product at all.
			{name: "PutBalances", denied: notSuppliers, other: other, crossCode: parcelgate.EINVALID, owner: sup,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					_, err := inv.PutBalances(ctx, c, []parcelgate.BalanceInput{{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: "SHOP", Quantity: &zero}})
					return "", err
				}},
			{name: "MigrateProductIDs", denied: notSuppliers, other: other, crossSum: "migrated [], conflicts []", owner: sup,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					res, err := inv.MigrateProductIDs(ctx, c)
					if err != nil {
						return "", err
					}
					return fmt.Sprintf("migrated %v, conflicts %v", res.Migrated, res.Conflicts), nil
				}},
			{name: "EndOfSale", denied: notSuppliers, other: other, crossCode: parcelgate.ENOTFOUND, owner: sup,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					_, err := inv.EndOfSale(ctx, c, []string{id})
					return "", err
				}},
		})
		checkAccess(t, written, "1234567-1-P2", "1234567-1-NOPE", []accessCase{
			{name: "FindInventoryItem/prefixed", denied: notSuppliers, other: other, crossCode: parcelgate.ENOTFOUND, owner: sup,
				call: func(c *parcelgate.Caller, id string) (string, error) { return item(inv.FindInventoryItem(ctx, c, id)) }},
		})
		checkAccess(t, written, "P2", "NOPE", []accessCase{
			{name: "DeleteBalances", denied: notSuppliers, other: other, crossCode: parcelgate.ENOTFOUND, owner: sup,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					_, err := inv.DeleteBalances(ctx, c, removal(id))
					return "", err
				}},
		})
		checkAccess(t, written, "P3", "NOPE", []accessCase{
			{name: "RemoveFromCatalogs", denied: notSuppliers, other: other, crossCode: parcelgate.ENOTFOUND, owner: sup,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					failed, err := inv.RemoveFromCatalogs(ctx, c, []parcelgate.BalanceRemoval{removal(id)})
					if err == nil && failed[0] != nil {
						return "", failed[0]
					}
					return "", err
				}},
		})
		// Last, as another supplier's call writes: its own P1, not s's.
		checkAccess(t, written, "P1", "NOPE", []accessCase{
			{name: "PutInventory", denied: notSuppliers, other: other, crossSum: "P1 of " + o.BusinessID, owner: sup, ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					failed, err := inv.PutInventory(ctx, c, []parcelgate.InventoryInput{entry(id), entry("NEW")})
					if err == nil && len(failed) > 0 {
						return "", failed[0]
					}
					if err != nil {
						return "", err
					}
					return item(inv.FindInventoryItem(ctx, c, id))
				}},
		})
	})
}

// interface §5.2: the CatalogService asks Caller.May itself: only the
// operator creates and lists every catalog; any ecom role lists its own;
// only who may read some of its catalogs reads their balances and
// products (ReadableCatalogTypes), others are EFORBIDDEN, and nothing is
// written. decisions §4: another retailer's catalog answers like a
// missing one, and the operator acting in one tenant neither creates
// nor lists another's.
func TestCatalogServiceAccess(t *testing.T) {
	testdb.Each(t, frozenClock{time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		s, r1, r2 := stockOrg(t, db, "1234567-1"), stockOrg(t, db, "7654321-2"), stockOrg(t, db, "0737546-2")
		cats := sqlstore.NewCatalogService(db)
		for _, k := range []*parcelgate.Catalog{
			{RetailerID: r1.BusinessID, ExternalID: "SHOP", Type: parcelgate.CatalogDropship, SupplierIDs: []string{s.BusinessID}},
			{RetailerID: r2.BusinessID, ExternalID: "OTHER", Type: parcelgate.CatalogDropship, SupplierIDs: []string{s.BusinessID}},
		} {
			if err := cats.CreateCatalog(ctx, parcelgate.OperatorCaller(map[string]*parcelgate.Organization{r1.BusinessID: r1, r2.BusinessID: r2}[k.RetailerID]), k); err != nil {
				t.Fatal(err)
			}
		}
		sup := accountOf(s, parcelgate.RoleSupplier)
		qty := int64(5)
		if failed, err := sqlstore.NewInventoryService(db).PutInventory(ctx, sup, []parcelgate.InventoryInput{{
			Product: &parcelgate.Product{ExternalID: "P1", Document: []byte(`{"externalId":"P1","descriptions":{"en":{"name":"P1"}}}`)}, Named: true,
			Balances: []parcelgate.BalanceInput{
				{ProductExternalID: "P1", RetailerID: r1.BusinessID, CatalogExternalID: "SHOP", Quantity: &qty},
				{ProductExternalID: "P1", RetailerID: r2.BusinessID, CatalogExternalID: "OTHER", Quantity: &qty},
			},
		}}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		everywhere := parcelgate.AllOperator()
		written := writtenIn(t, db, "catalogs", "catalog_suppliers", "balances", "products")
		// Tenant A is r2, with its catalog OTHER; r1, with SHOP, is the
		// other tenant.
		retailer, merchant := accountOf(r2, parcelgate.RoleRetailer), accountOf(r2, parcelgate.RoleMerchant)
		supplierOfR2, roleless, gateway := accountOf(r2, parcelgate.RoleSupplier), accountOf(r2), gatewayClientOf(r2)
		everyRole := accountOf(r2, parcelgate.Roles...)
		r1Retailer := accountOf(r1, parcelgate.RoleRetailer)
		catalogs := func(cs []*parcelgate.Catalog) string {
			var ids []string
			for _, k := range cs {
				ids = append(ids, k.ExternalID)
			}
			return fmt.Sprintf("%d catalogs: %s", len(cs), strings.Join(ids, ","))
		}
		balances := func(c *parcelgate.Caller, id string) (string, error) {
			page, err := cats.ListCatalogBalances(ctx, c, id, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
			var ids []string
			for _, b := range page.Items {
				ids = append(ids, b.CatalogExternalID)
			}
			return fmt.Sprintf("%d balances: %s", page.Total, strings.Join(ids, ",")), err
		}
		// A new catalog of the retailer id, named after its creator.
		create := func(c *parcelgate.Caller, id string) (string, error) {
			name := "NEW"
			if c != nil {
				name = fmt.Sprintf("NEW-%d", c.OrgID)
			}
			return "", cats.CreateCatalog(ctx, c, &parcelgate.Catalog{Environment: parcelgate.Production, RetailerID: id, ExternalID: name, SupplierIDs: []string{s.BusinessID}})
		}
		listAll := func(c *parcelgate.Caller, _ string) (string, error) {
			cs, err := cats.ListCatalogs(ctx, c, parcelgate.PageRequest{})
			return catalogs(cs.Items), err
		}
		// The operator creates every catalog, the retailer itself not; the
		// operator acting in r1's tenant does not find r2, and the test
		// environment's operator does not reach production (EINVALID).
		checkAccess(t, written, r2.BusinessID, "7777777-4", []accessCase{
			{name: "CreateCatalog", denied: []*parcelgate.Caller{everyRole, gateway}, other: parcelgate.OperatorCaller(r1), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.OperatorCaller(r2), call: create},
			{name: "CreateCatalog/test environment", denied: []*parcelgate.Caller{everyRole, gateway}, other: parcelgate.EnvironmentOperator(parcelgate.Test), crossCode: parcelgate.EINVALID, owner: parcelgate.EnvironmentOperator(parcelgate.Production), call: create},
		})
		checkAccess(t, written, "OTHER", "NOPE", []accessCase{
			// Only the operator lists every catalog: r1's operator lists
			// r1's, the test environment's none of production's.
			{name: "ListCatalogs", denied: []*parcelgate.Caller{everyRole}, other: parcelgate.OperatorCaller(r1), listing: true, crossSum: "1 catalogs: SHOP", owner: parcelgate.OperatorCaller(r2), ownerSees: true, call: listAll},
			{name: "ListCatalogs/test environment", denied: []*parcelgate.Caller{everyRole}, other: parcelgate.EnvironmentOperator(parcelgate.Test), listing: true, crossSum: "0 catalogs: ", owner: everywhere, ownerSees: true, call: listAll},
			{name: "ListOwnCatalogs", denied: []*parcelgate.Caller{roleless, gateway}, other: r1Retailer, listing: true, crossSum: "1 catalogs: SHOP", owner: retailer, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					page, err := cats.ListOwnCatalogs(ctx, c, parcelgate.CatalogRoleRetailer, parcelgate.PageRequest{Size: 10})
					var ids []string
					for _, k := range page.Items {
						ids = append(ids, k.ExternalID)
					}
					return fmt.Sprintf("%d catalogs: %s", page.Total, strings.Join(ids, ",")), err
				}},
			// Another retailer's catalog is not there for r1, and a
			// merchant reads only its warehouse (Posti) catalogs.
			{name: "ListCatalogBalances", denied: []*parcelgate.Caller{supplierOfR2, gateway}, other: r1Retailer, crossCode: parcelgate.ENOTFOUND, owner: retailer, ownerSees: true, call: balances},
			{name: "ListCatalogBalances/merchant", other: merchant, crossCode: parcelgate.ENOTFOUND, owner: retailer, ownerSees: true, call: balances},
			{name: "ListCatalogBalances/all", denied: []*parcelgate.Caller{supplierOfR2}, other: r1Retailer, listing: true, crossSum: "1 balances: SHOP", owner: retailer, ownerSees: true,
				call: func(c *parcelgate.Caller, _ string) (string, error) { return balances(c, "") }},
			{name: "ListCatalogProducts", denied: []*parcelgate.Caller{supplierOfR2, roleless}, other: r1Retailer, crossCode: parcelgate.ENOTFOUND, owner: retailer,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					page, err := cats.ListCatalogProducts(ctx, c, id, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
					return fmt.Sprintf("%d products", page.Total), err
				}},
		})
	})
}
