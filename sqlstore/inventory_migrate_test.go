package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The provider's ID migration over a database from before bare IDs were
// accepted: {businessId}-{x} becomes {x}; where both
// forms were created as two products, both stay and the conflict is
// reported, every time; reads of either form find the bare one; another
// supplier's products are untouched.
func TestMigrateProductIDsConflicts(t *testing.T) {
	testdb.Each(t, frozenClock{time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		orgs := map[string]*parcelgate.Organization{}
		for _, bid := range []string{"1234567-1", "7654321-2"} {
			o := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: bid, Name: bid}
			if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
				t.Fatal(err)
			}
			orgs[bid] = o
		}
		m, n := orgs["1234567-1"], orgs["7654321-2"]
		for _, p := range []struct {
			org *parcelgate.Organization
			id  string
		}{{m, "1234567-1-A"}, {m, "1234567-1-DUP"}, {m, "DUP"}, {m, "B"}, {n, "7654321-2-A"}} {
			if err := db.InsertProductForTest(ctx, parcelgate.Production, p.org.ID, p.id); err != nil {
				t.Fatal(err)
			}
		}
		c := &parcelgate.Caller{OrgID: m.ID, BusinessID: m.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}
		for round := range 2 {
			res, err := sqlstore.NewInventoryService(db).MigrateProductIDs(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			wantMigrated := "[A]"
			if round == 1 {
				wantMigrated = "[]"
			}
			if fmt.Sprint(res.Migrated) != wantMigrated || len(res.Conflicts) != 1 || res.Conflicts[0].ExternalID != "1234567-1-DUP" || res.Conflicts[0].BareID != "DUP" {
				t.Fatalf("round %d: %+v", round, res)
			}
		}
		for id, want := range map[string]string{"A": "A", "1234567-1-A": "A", "1234567-1-DUP": "DUP", "DUP": "DUP"} {
			item, err := sqlstore.NewInventoryService(db).FindInventoryItem(ctx, c, id)
			if err != nil || item.Product.ExternalID != want {
				t.Errorf("find %s: %+v %v", id, item, err)
			}
		}
		cn := &parcelgate.Caller{OrgID: n.ID, BusinessID: n.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleSupplier}}
		if item, err := sqlstore.NewInventoryService(db).FindInventoryItem(ctx, cn, "7654321-2-A"); err != nil || item.Product.ExternalID != "7654321-2-A" {
			t.Errorf("the other supplier's product: %+v %v", item, err)
		}
		if _, err := sqlstore.NewInventoryService(db).FindInventoryItem(ctx, cn, "1234567-1-A"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Errorf("another supplier reads M's product: %v", err)
		}
	})
}
