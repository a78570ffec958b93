package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// trackedSum names each parcel found: its shipment, its number, whether it
// is the caller's own.
func trackedSum(ps []parcelgate.TrackedParcel, err error) (string, error) {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("%s/%s own=%v", p.Shipment.TrackingNumber, p.Parcel.ParcelID, p.Own))
	}
	return strings.Join(s, ","), err
}

// trackingTenants makes tenants a and b in production and a's shipment tn
// with the parcels and the reference, made by a's gateway client.
func trackingTenants(t *testing.T, db *sqlstore.DB, tn, reference string, parcels ...string) (a, b *parcelgate.Caller) {
	t.Helper()
	a = testOrg(t, db, parcelgate.Production, "1234567-1")
	b = testOrg(t, db, parcelgate.Production, "7654321-2")
	sh := testShipment(tn, parcels...)
	sh.Reference = reference
	if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(context.Background(), gatewayClientOf(orgOf(a)), sh); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// decisions §30: TrackBy asks May first; a lookup key finds any
// organization's parcels in the environment (the public view: Own false),
// a search key the caller's own only, and another tenant's object answers
// a search as a missing one does.
func TestTrackByAsksMayAndKeepsTenants(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		tracking := sqlstore.NewTrackingService(db)
		const tn, p1, p2 = "JJFI10000000000000001", "JJFI100000000000000P1", "JJFI100000000000000P2"
		a, b := trackingTenants(t, db, tn, "SO-1001", p1, p2)
		gwA := gatewayClientOf(orgOf(a))
		res, err := sqlstore.NewCodeService(db).ErrandCodes(ctx, gwA, []string{p1})
		if err != nil || res[0].ResultText != parcelgate.ResultOK {
			t.Fatalf("errand code: %+v %v", res, err)
		}
		code := res[0].ErrandCode
		noCode := "000000"
		if code == noCode {
			noCode = "000001"
		}
		by := func(key parcelgate.TrackingKey) func(c *parcelgate.Caller, v string) (string, error) {
			return func(c *parcelgate.Caller, v string) (string, error) {
				return trackedSum(tracking.TrackBy(ctx, c, key, v, parcelgate.PageFrom(0, 10)))
			}
		}
		gw := gatewayClientOf(orgOf(a))
		// Lookups: the check is of the caller's right; another tenant
		// finds the parcel too, in the public view (below).
		checkAccess(t, writtenIn(t, db), tn, "JJFI10000000000000099", []accessCase{
			{name: "consignmentnumber", denied: []*parcelgate.Caller{gw}, owner: a, ownerSees: true, call: by(parcelgate.KeyConsignmentNumber)},
		})
		// Searches: another tenant's reference or code is nothing to b.
		checkAccess(t, writtenIn(t, db), "SO-1001", "SO-1009", []accessCase{
			{name: "senderreference", denied: []*parcelgate.Caller{gw}, other: b, listing: true, owner: a, ownerSees: true, call: func(c *parcelgate.Caller, v string) (string, error) {
				s, err := by(parcelgate.KeySenderReference)(c, v)
				return strings.ReplaceAll(s, tn, v), err // names the reference when it finds the shipment
			}},
			{name: "ordernumber", denied: []*parcelgate.Caller{gw}, other: b, listing: true, owner: a, ownerSees: true, call: func(c *parcelgate.Caller, v string) (string, error) {
				s, err := by(parcelgate.KeyOrderNumber)(c, v)
				return strings.ReplaceAll(s, tn, v), err
			}},
		})
		checkAccess(t, writtenIn(t, db), code, noCode, []accessCase{
			{name: "errandcode", denied: []*parcelgate.Caller{gw}, other: b, listing: true, owner: a, ownerSees: true, call: func(c *parcelgate.Caller, v string) (string, error) {
				s, err := by(parcelgate.KeyErrandCode)(c, v)
				return strings.ReplaceAll(s, p1, v), err
			}},
		})

		want := func(c *parcelgate.Caller, key parcelgate.TrackingKey, v string, start, limit int, sum string) {
			t.Helper()
			got, err := trackedSum(tracking.TrackBy(ctx, c, key, v, parcelgate.PageFrom(int64(start), limit)))
			if err != nil || got != sum {
				t.Errorf("%s %q (start %d, limit %d): %q %v, want %q", key, v, start, limit, got, err, sum)
			}
		}
		both := tn + "/" + p1 + " own=true," + tn + "/" + p2 + " own=true"
		// decisions §30: a consignment number is the shipment's tracking
		// number: all its parcels, in order, paged.
		want(a, parcelgate.KeyConsignmentNumber, strings.ToLower(tn), 0, 10, both)
		want(a, parcelgate.KeyConsignmentNumber, tn, 1, 1, tn+"/"+p2+" own=true")
		want(a, parcelgate.KeyConsignmentNumber, p2, 0, 10, "")
		// decisions §39: a waybill number and a goods item ID are freight
		// keys, and parcelgate carries no freight: they find nothing, the
		// owner's parcels neither.
		want(a, parcelgate.KeyWaybillNumber, tn, 0, 10, "")
		want(a, parcelgate.KeyGoodsItemID, p2, 0, 10, "")
		// Another tenant: the lookup's public view, the searches nothing.
		want(b, parcelgate.KeyConsignmentNumber, tn, 0, 10, strings.ReplaceAll(both, "true", "false"))
		want(b, parcelgate.KeySenderReference, "SO-1001", 0, 10, "")
		want(b, parcelgate.KeyErrandCode, code, 0, 10, "")
		// A sender reference or order number is the shipment's reference,
		// case-insensitive; the errand code its parcel.
		want(a, parcelgate.KeySenderReference, "so-1001", 0, 10, both)
		want(a, parcelgate.KeyOrderNumber, " SO-1001 ", 1, 5, tn+"/"+p2+" own=true")
		want(a, parcelgate.KeyErrandCode, strings.ToLower(code), 0, 10, tn+"/"+p1+" own=true")
		// decisions §30: a reference beyond ASCII is found as it was stored,
		// and its ASCII letters in any case, by find and by the reference
		// keys alike (SQLite's UPPER folds ASCII only; neither side may be
		// folded by Go alone).
		const tn3, p3 = "JJFI10000000000000003", "JJFI100000000000000P3"
		sh3 := testShipment(tn3, p3)
		sh3.Reference = "Tilaus-å-7"
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, gwA, sh3); err != nil {
			t.Fatal(err)
		}
		want(a, parcelgate.KeySenderReference, "Tilaus-å-7", 0, 10, tn3+"/"+p3+" own=true")
		want(a, parcelgate.KeyOrderNumber, "TILAUS-å-7", 0, 10, tn3+"/"+p3+" own=true")
		for _, kw := range []string{"Tilaus-å-7", "tilaus-å-7"} {
			if got, err := trackedSum(tracking.FindParcels(ctx, a, []string{kw}, parcelgate.FindAll, parcelgate.PageFrom(0, 10))); err != nil || got != tn3+"/"+p3+" own=true" {
				t.Errorf("find %q: %q %v", kw, got, err)
			}
		}
		// decisions §30 (invented): no receiver reference is stored.
		want(a, parcelgate.KeyReceiverReference, "SO-1001", 0, 10, "")

		// The same tracking number at another tenant (numbers are unique
		// per organization): a lookup finds both, each in its view.
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).CreateShipment(ctx, gatewayClientOf(orgOf(b)), testShipment(tn, "JJFI100000000000000B1")); err != nil {
			t.Fatal(err)
		}
		want(a, parcelgate.KeyConsignmentNumber, tn, 0, 10, both+","+tn+"/JJFI100000000000000B1 own=false")
		// Another environment is another world.
		ta := testOrg(t, db, parcelgate.Test, "1234567-1")
		want(ta, parcelgate.KeyConsignmentNumber, tn, 0, 10, "")
		want(ta, parcelgate.KeySenderReference, "SO-1001", 0, 10, "")

		// decisions §5: a delivered shipment's codes are freed; its errand
		// code names nothing.
		if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).DeliverShipment(ctx, parcelgate.OperatorCaller(orgOf(a)), tn); err != nil {
			t.Fatal(err)
		}
		want(a, parcelgate.KeyErrandCode, code, 0, 10, "")

		// decisions §30: phonenumber is refused to every caller; a bad value
		// is EINVALID on the key's parameter.
		if _, err := tracking.TrackBy(ctx, a, parcelgate.KeyPhoneNumber, "+358401234567", parcelgate.PageFrom(0, 10)); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
			t.Errorf("phonenumber: %v", err)
		}
		if _, err := tracking.TrackBy(ctx, a, parcelgate.KeyErrandCode, "XYZ", parcelgate.PageFrom(0, 10)); parcelgate.ErrorCode(err) != parcelgate.EINVALID || parcelgate.ErrorFields(err)[0].Field != "errandCode" {
			t.Errorf("a bad errand code: %v", err)
		}
	})
}
