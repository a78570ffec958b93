package sqlstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §30: a find compares its keywords with the fields its keys
// chose and with no other; no fields find nothing; May is asked first
// whatever the fields; another tenant's parcels are found by none.
func TestFindParcelsComparesOnlyTheChosenFields(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		tracking := sqlstore.NewTrackingService(db)
		const tn, p1, p2 = "JJFI20000000000000001", "JJFI200000000000000P1", "JJFI200000000000000P2"
		a, b := trackingTenants(t, db, tn, "SO-2001", p1, p2)
		gw := gatewayClientOf(orgOf(a))
		own := func(ps ...string) string {
			var s []string
			for _, p := range ps {
				s = append(s, tn+"/"+p+" own=true")
			}
			return strings.Join(s, ",")
		}
		const parcel, shipment, ref = parcelgate.FindParcelNumber, parcelgate.FindShipmentNumber, parcelgate.FindReference
		for _, c := range []struct {
			keyword string
			fields  parcelgate.FindFields
			want    string
		}{
			{p2, parcelgate.FindAll, own(p2)},
			{tn, parcelgate.FindAll, own(p1, p2)},
			{"so-2001", parcelgate.FindAll, own(p1, p2)},
			{strings.ToLower(p2), parcel, own(p2)},
			{tn, parcel, ""},
			{"SO-2001", parcel, ""},
			{tn, shipment, own(p1, p2)},
			{p2, shipment, ""},
			{"SO-2001", shipment, ""},
			{"So-2001", ref, own(p1, p2)},
			{p2, ref, ""},
			{tn, ref, ""},
			{p2, shipment | ref, ""},
			{"SO-2001", parcel | shipment, ""},
			{tn, parcel | ref, ""},
			{p1, parcel | ref, own(p1)},
			{"SO-2001", 0, ""},
			{p1, 0, ""},
		} {
			got, err := trackedSum(tracking.FindParcels(ctx, a, []string{c.keyword}, c.fields, parcelgate.PageFrom(0, 10)))
			if err != nil || got != c.want {
				t.Errorf("%q in %03b: %q %v, want %q", c.keyword, c.fields, got, err, c.want)
			}
			if got, err := trackedSum(tracking.FindParcels(ctx, b, []string{c.keyword}, c.fields, parcelgate.PageFrom(0, 10))); err != nil || got != "" {
				t.Errorf("another tenant: %q in %03b: %q %v", c.keyword, c.fields, got, err)
			}
		}
		for _, fields := range []parcelgate.FindFields{parcelgate.FindAll, ref, 0} {
			if _, err := tracking.FindParcels(ctx, gw, []string{"SO-2001"}, fields, parcelgate.PageFrom(0, 10)); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
				t.Errorf("a gateway client in %03b: %v", fields, err)
			}
		}
	})
}
