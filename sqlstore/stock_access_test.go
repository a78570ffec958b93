package sqlstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/testdb"
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

// accessCase is one call of a service by a caller, and the code it must
// fail with ("" when it must succeed; it then checks its answer itself).
type accessCase struct {
	name string
	call func(ctx context.Context) error
	want string
}

// runAccessCases runs each case and proves it wrote nothing: state, read
// by the owners, is the same after it as before.
func runAccessCases(t *testing.T, cases []accessCase, state func() string) {
	t.Helper()
	for _, tc := range cases {
		before := state()
		err := tc.call(context.Background())
		if got := parcelgate.ErrorCode(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%s: %v (code %q), want %q", tc.name, err, got, tc.want)
		}
		if after := state(); after != before {
			t.Errorf("%s wrote:\nbefore %s\nafter  %s", tc.name, before, after)
		}
	}
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
				Product:  &parcelgate.Product{ExternalID: id, Document: []byte(`{"externalId":"` + id + `","descriptions":{"en":{"name":"` + id + `"}}}`)},
				Balances: []parcelgate.BalanceInput{{ProductExternalID: id, RetailerID: r.BusinessID, CatalogExternalID: "SHOP", Quantity: &qty}},
			}
		}
		if failed, err := inv.PutInventory(ctx, sup, []parcelgate.InventoryInput{entry("P1")}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		// A product from before bare IDs: a migration would rename it.
		if err := db.InsertProductForTest(ctx, parcelgate.Production, s.ID, "1234567-1-OLD"); err != nil {
			t.Fatal(err)
		}
		// The supplier's products and balances as it reads them: any write
		// to them changes a status, a quantity, an ID or a stamp.
		state := func() string {
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
		zero := int64(0)
		removal := parcelgate.BalanceRemoval{ProductExternalID: "P1", RetailerID: r.BusinessID, CatalogExternalID: "SHOP"}
		calls := []struct {
			method string
			call   func(ctx context.Context, c *parcelgate.Caller) error
		}{
			{"PutInventory", func(ctx context.Context, c *parcelgate.Caller) error {
				failed, err := inv.PutInventory(ctx, c, []parcelgate.InventoryInput{entry("P1"), entry("NEW")})
				if err == nil && len(failed) > 0 {
					return failed[0]
				}
				return err
			}},
			{"ListInventory", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.ListInventory(ctx, c, parcelgate.InventoryFilter{}, parcelgate.PageRequest{Size: 10})
				return err
			}},
			{"FindInventoryItem", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.FindInventoryItem(ctx, c, "P1")
				return err
			}},
			{"EndOfSale", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.EndOfSale(ctx, c, []string{"P1"})
				return err
			}},
			{"PutBalances", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.PutBalances(ctx, c, []parcelgate.BalanceInput{{ProductExternalID: "P1", RetailerID: r.BusinessID, CatalogExternalID: "SHOP", Quantity: &zero}})
				return err
			}},
			{"ListSupplierBalances", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.ListSupplierBalances(ctx, c, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
				return err
			}},
			{"DeleteBalances", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.DeleteBalances(ctx, c, removal)
				return err
			}},
			{"RemoveFromCatalogs", func(ctx context.Context, c *parcelgate.Caller) error {
				failed, err := inv.RemoveFromCatalogs(ctx, c, []parcelgate.BalanceRemoval{removal})
				if err == nil && failed[0] != nil {
					return failed[0]
				}
				return err
			}},
			{"MigrateProductIDs", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.MigrateProductIDs(ctx, c)
				return err
			}},
			{"MoveStock", func(ctx context.Context, c *parcelgate.Caller) error {
				_, err := inv.MoveStock(ctx, c, s.BusinessID, "P1", r.BusinessID, "SHOP", -1, 1)
				return err
			}},
		}
		var cases []accessCase
		for _, m := range calls {
			// A retailer reads what is published to it through the
			// catalogs, never the supplier's own side; a gateway token
			// never acts on the ecom API (decisions §4); the stock moves
			// are the operator's.
			for who, c := range map[string]*parcelgate.Caller{"retailer": retailer, "role-less account": roleless, "gateway client": gateway} {
				cases = append(cases, accessCase{m.method + " by a " + who, func(ctx context.Context) error { return m.call(ctx, c) }, parcelgate.EFORBIDDEN})
			}
		}
		cases = append(cases,
			accessCase{"MoveStock by the supplier", func(ctx context.Context) error { return calls[9].call(ctx, sup) }, parcelgate.EFORBIDDEN},
			accessCase{"MoveStock by the operator of another organization", func(ctx context.Context) error {
				moved, err := inv.MoveStock(ctx, parcelgate.OperatorCaller(o), s.BusinessID, "P1", r.BusinessID, "SHOP", -1, 1)
				if err == nil && moved {
					return fmt.Errorf("moved another organization's stock")
				}
				return err
			}, ""},
		)
		// Another supplier, which may do all of it, finds none of s's
		// products: each answers as one that is not there, in either ID
		// form, and what it writes is its own.
		cases = append(cases,
			accessCase{"FindInventoryItem of another supplier's product", func(ctx context.Context) error {
				_, err := inv.FindInventoryItem(ctx, other, "P1")
				return err
			}, parcelgate.ENOTFOUND},
			accessCase{"FindInventoryItem of another supplier's product, prefixed", func(ctx context.Context) error {
				_, err := inv.FindInventoryItem(ctx, other, "1234567-1-P1")
				return err
			}, parcelgate.ENOTFOUND},
			accessCase{"EndOfSale of another supplier's product", func(ctx context.Context) error { return calls[3].call(ctx, other) }, parcelgate.ENOTFOUND},
			accessCase{"DeleteBalances of another supplier's product", func(ctx context.Context) error { return calls[6].call(ctx, other) }, parcelgate.ENOTFOUND},
			accessCase{"RemoveFromCatalogs of another supplier's product", func(ctx context.Context) error { return calls[7].call(ctx, other) }, parcelgate.ENOTFOUND},
			accessCase{"PutBalances of another supplier's product", func(ctx context.Context) error {
				err := calls[4].call(ctx, other)
				_, missing := inv.PutBalances(ctx, other, []parcelgate.BalanceInput{{ProductExternalID: "NOPE", RetailerID: r.BusinessID, CatalogExternalID: "SHOP", Quantity: &zero}})
				if err == nil || parcelgate.ErrorCode(err) != parcelgate.ErrorCode(missing) {
					return fmt.Errorf("%v, where a missing product is %v", err, missing)
				}
				return nil
			}, ""},
			accessCase{"ListInventory of another supplier", func(ctx context.Context) error {
				page, err := inv.ListInventory(ctx, other, parcelgate.InventoryFilter{}, parcelgate.PageRequest{Size: 10})
				if err == nil && (page.Total != 0 || len(page.Items) != 0) {
					return fmt.Errorf("another supplier lists %d products", page.Total)
				}
				return err
			}, ""},
			accessCase{"ListSupplierBalances of another supplier", func(ctx context.Context) error {
				page, err := inv.ListSupplierBalances(ctx, other, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
				if err == nil && (page.Total != 0 || len(page.Items) != 0) {
					return fmt.Errorf("another supplier lists %d balances", page.Total)
				}
				return err
			}, ""},
			accessCase{"MigrateProductIDs of another supplier", func(ctx context.Context) error {
				res, err := inv.MigrateProductIDs(ctx, other)
				if err == nil && (len(res.Migrated) != 0 || len(res.Conflicts) != 0) {
					return fmt.Errorf("another supplier migrates %+v", res)
				}
				return err
			}, ""},
			// Last, as it writes: the other supplier's own P1, not s's.
			accessCase{"PutInventory of another supplier's product ID", func(ctx context.Context) error {
				if err := calls[0].call(ctx, other); err != nil {
					return err
				}
				item, err := inv.FindInventoryItem(ctx, other, "P1")
				if err == nil && item.Product.SupplierID != o.BusinessID {
					return fmt.Errorf("the other supplier's P1 is %s's", item.Product.SupplierID)
				}
				return err
			}, ""},
		)
		runAccessCases(t, cases, state)
		// The owner itself still may.
		if item, err := inv.FindInventoryItem(ctx, sup, "P1"); err != nil || len(item.Balances) != 1 || item.Balances[0].Quantity != qty {
			t.Fatalf("the supplier's own P1: %+v %v", item, err)
		}
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
			Product: &parcelgate.Product{ExternalID: "P1", Document: []byte(`{"externalId":"P1","descriptions":{"en":{"name":"P1"}}}`)},
			Balances: []parcelgate.BalanceInput{
				{ProductExternalID: "P1", RetailerID: r1.BusinessID, CatalogExternalID: "SHOP", Quantity: &qty},
				{ProductExternalID: "P1", RetailerID: r2.BusinessID, CatalogExternalID: "OTHER", Quantity: &qty},
			},
		}}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		everywhere := parcelgate.EnvironmentOperator("")
		state := func() string {
			all, err := cats.ListCatalogs(ctx, everywhere)
			return jsonOf(t, all, err)
		}
		retailer, merchant := accountOf(r1, parcelgate.RoleRetailer), accountOf(r1, parcelgate.RoleMerchant)
		supplierOfR1, roleless, gateway := accountOf(r1, parcelgate.RoleSupplier), accountOf(r1), gatewayClientOf(r1)
		newCatalog := func(retailerID string) *parcelgate.Catalog {
			return &parcelgate.Catalog{Environment: parcelgate.Production, RetailerID: retailerID, ExternalID: "NEW", SupplierIDs: []string{s.BusinessID}}
		}
		create := func(c *parcelgate.Caller, retailerID string) func(context.Context) error {
			return func(ctx context.Context) error { return cats.CreateCatalog(ctx, c, newCatalog(retailerID)) }
		}
		listAll := func(c *parcelgate.Caller) func(context.Context) error {
			return func(ctx context.Context) error { _, err := cats.ListCatalogs(ctx, c); return err }
		}
		own := func(c *parcelgate.Caller) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := cats.ListOwnCatalogs(ctx, c, parcelgate.CatalogRoleRetailer, parcelgate.PageRequest{Size: 10})
				return err
			}
		}
		balances := func(c *parcelgate.Caller, id string) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := cats.ListCatalogBalances(ctx, c, id, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
				return err
			}
		}
		products := func(c *parcelgate.Caller, id string) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := cats.ListCatalogProducts(ctx, c, id, parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
				return err
			}
		}
		cases := []accessCase{
			{"CreateCatalog by the retailer itself", create(accountOf(r1, parcelgate.Roles...), r1.BusinessID), parcelgate.EFORBIDDEN},
			{"CreateCatalog by a gateway client", create(gateway, r1.BusinessID), parcelgate.EFORBIDDEN},
			{"ListCatalogs by the retailer itself", listAll(accountOf(r1, parcelgate.Roles...)), parcelgate.EFORBIDDEN},
			{"ListOwnCatalogs by a role-less account", own(roleless), parcelgate.EFORBIDDEN},
			{"ListOwnCatalogs by a gateway client", own(gateway), parcelgate.EFORBIDDEN},
			{"ListCatalogBalances by a supplier", balances(supplierOfR1, "SHOP"), parcelgate.EFORBIDDEN},
			{"ListCatalogBalances of all by a supplier", balances(supplierOfR1, ""), parcelgate.EFORBIDDEN},
			{"ListCatalogBalances by a gateway client", balances(gateway, "SHOP"), parcelgate.EFORBIDDEN},
			{"ListCatalogProducts by a supplier", products(supplierOfR1, "SHOP"), parcelgate.EFORBIDDEN},
			{"ListCatalogProducts by a role-less account", products(roleless, "SHOP"), parcelgate.EFORBIDDEN},

			// Another retailer's catalog is not there for r1, and a
			// merchant reads only its warehouse (Posti) catalogs.
			{"ListCatalogBalances of another retailer's catalog", balances(retailer, "OTHER"), parcelgate.ENOTFOUND},
			{"ListCatalogProducts of another retailer's catalog", products(retailer, "OTHER"), parcelgate.ENOTFOUND},
			{"ListCatalogBalances of a catalog a merchant may not read", balances(merchant, "SHOP"), parcelgate.ENOTFOUND},
			{"ListCatalogBalances of all the retailer's catalogs", func(ctx context.Context) error {
				page, err := cats.ListCatalogBalances(ctx, retailer, "", parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
				if err == nil && (page.Total != 1 || page.Items[0].CatalogExternalID != "SHOP") {
					return fmt.Errorf("r1 reads %s", jsonOf(t, page, nil))
				}
				return err
			}, ""},
			{"ListOwnCatalogs of the retailer", func(ctx context.Context) error {
				page, err := cats.ListOwnCatalogs(ctx, retailer, parcelgate.CatalogRoleRetailer, parcelgate.PageRequest{Size: 10})
				if err == nil && (page.Total != 1 || page.Items[0].ExternalID != "SHOP") {
					return fmt.Errorf("r1 lists %s", jsonOf(t, page, nil))
				}
				return err
			}, ""},
			// The operator acting in r1's tenant: another retailer is not
			// there, and only r1's catalogs are listed.
			{"CreateCatalog for another retailer by the operator of r1", create(parcelgate.OperatorCaller(r1), r2.BusinessID), parcelgate.ENOTFOUND},
			{"ListCatalogs by the operator of r1", func(ctx context.Context) error {
				cs, err := cats.ListCatalogs(ctx, parcelgate.OperatorCaller(r1))
				if err == nil && (len(cs) != 1 || cs[0].ExternalID != "SHOP") {
					return fmt.Errorf("the operator of r1 lists %s", jsonOf(t, cs, nil))
				}
				return err
			}, ""},
			// The operator acting in the test environment: production's
			// organizations and catalogs are not there.
			{"CreateCatalog of production by the test environment's operator", create(parcelgate.EnvironmentOperator(parcelgate.Test), r1.BusinessID), parcelgate.EINVALID},
			{"ListCatalogs of the test environment", func(ctx context.Context) error {
				cs, err := cats.ListCatalogs(ctx, parcelgate.EnvironmentOperator(parcelgate.Test))
				if err == nil && len(cs) != 0 {
					return fmt.Errorf("production's catalogs listed in test: %s", jsonOf(t, cs, nil))
				}
				return err
			}, ""},
		}
		runAccessCases(t, cases, state)
		// The operator of the environment, and of r1, still create r1's.
		for _, c := range []*parcelgate.Caller{parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.OperatorCaller(r1)} {
			k := newCatalog(r1.BusinessID)
			k.ExternalID = fmt.Sprintf("NEW-%d", c.OrgID)
			if err := cats.CreateCatalog(ctx, c, k); err != nil {
				t.Fatalf("%+v: %v", c, err)
			}
		}
	})
}
