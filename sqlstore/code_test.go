package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// testOrg makes the organization bid of env and returns its merchant's
// service account, the caller of the ecom API's orders, products and
// balances (interface §5.2); gatewayClientOf(orgOf(c)) is the same
// organization's gateway client.
func testOrg(t testing.TB, db *sqlstore.DB, env parcelgate.Environment, bid string) *parcelgate.Caller {
	t.Helper()
	o := &parcelgate.Organization{Environment: env, BusinessID: bid, Name: "Org"}
	if err := sqlstore.NewOrganizationService(db).CreateOrganization(context.Background(), parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
		t.Fatal(err)
	}
	return accountOf(o, parcelgate.RoleMerchant)
}

// testOrderRequest is a valid one-row order of c with externalId id and an
// SO reference; nothing is stocked for it, so it is stored in Error.
func testOrderRequest(t testing.TB, c *parcelgate.Caller, id string) *parcelgate.OrderRequest {
	t.Helper()
	req := &parcelgate.OrderRequest{ExternalID: id, DeliveryAddress: parcelgate.Address{Name: "N", Email: "n@example.com"}, ServiceCode: "2104",
		Rows: []parcelgate.OrderRowRequest{{ExternalProductID: "P1", ExternalWarehouseID: "WH1", Quantity: 1}}, References: []parcelgate.OrderReference{{Name: "SO", Value: "100"}}}
	if err := req.Validate(c.BusinessID, pickup.Network{}); err != nil {
		t.Fatal(err)
	}
	return req
}

// decisions §5: one code space per environment, shared by sending and errand
// codes and enforced by the database; an expired code is taken back by the
// allocation that draws it.
func TestCodeSpaceEnforcedByDatabase(t *testing.T) {
	clock := new(parcelgate.OffsetClock)
	testdb.Each(t, clock, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		prod := testOrg(t, db, parcelgate.Production, "1234567-1")
		test := testOrg(t, db, parcelgate.Test, "1234567-1")
		expires := clock.Now(parcelgate.Production).Add(time.Hour)
		try := func(c *parcelgate.Caller, tn, parcel string, want bool) {
			t.Helper()
			ok, err := db.TryCodeForTest(ctx, c.Environment, c.OrgID, tn, parcel, "ABCDEF", expires)
			if err != nil || ok != want {
				t.Fatalf("%s %s/%s: %v %v, want %v", c.Environment, tn, parcel, ok, err, want)
			}
		}
		try(prod, "TN000001", "", true)
		try(prod, "TN000002", "PARCEL000001", false) // an errand code may not take a sending code's value
		try(test, "TN000001", "", true)              // the other environment has its own space
		clock.Advance(time.Hour)
		try(prod, "TN000002", "PARCEL000001", true) // expired: reclaimed
		if _, err := sqlstore.NewCodeService(db).FindSendingCode(ctx, gatewayClientOf(orgOf(prod)), "TN000001"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("expired code still found: %v", err)
		}
	})
}

// decisions §5, §10: instances writing at once never hand out one code twice.
// The store draws from 256 codes only, so concurrent allocations collide
// often and only the unique index keeps them apart; and concurrent first
// requests for one tracking number all get the same code.
func TestConcurrentCodeAllocation(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		c := gatewayClientOf(orgOf(testOrg(t, db, parcelgate.Production, "1234567-1")))
		db.DrawCodesFromForTest(256, nil)
		var mu sync.Mutex
		codes := map[string]string{}
		same := map[string]bool{}
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := range 16 {
					tn := fmt.Sprintf("TN%02d%04d", w, i)
					sc, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, c, tn, true)
					if err != nil {
						t.Error(err)
						return
					}
					shared, err := sqlstore.NewCodeService(db).CreateSendingCode(ctx, c, "SHARED01", true)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if prev, dup := codes[sc.SendingCode]; dup {
						t.Errorf("code %s handed to %s and %s", sc.SendingCode, prev, tn)
					}
					codes[sc.SendingCode] = tn
					same[shared.SendingCode] = true
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(codes) != 128 || len(same) != 1 {
			t.Fatalf("%d distinct codes for 128 tracking numbers; %d codes for one shared tracking number", len(codes), len(same))
		}
		for code := range same {
			if _, dup := codes[code]; dup {
				t.Fatalf("shared code %s also given to %s", code, codes[code])
			}
		}
		if n, err := sqlstore.NewCodeService(db).ActiveCodes(ctx, parcelgate.EnvironmentOperator(parcelgate.Production)); err != nil || n != 129 {
			t.Fatalf("active codes %d %v", n, err)
		}
	})
}
