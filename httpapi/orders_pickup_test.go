package httpapi_test

import (
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/pickup"
)

// interface §2.3 pickupPointId: optional; a named point must
// be one of the pick-up points (the plugin sends the externalId it parsed
// out of "(#id)"), else a 400 naming pickupPointId and nothing stored; a
// 2103 order naming none is routed to the point nearest its delivery
// postal code, shown on the order; other services keep none.
func TestOrderPickupPoint(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		m := newMerchant(t, e, parcelgate.Production, merchantBID)

		nearest, ok := pickup.Network{}.NearestPickupPoint("00200", "2103")
		if !ok {
			t.Fatal("no point near 00200")
		}
		o := m.create(m.orderBody("PP1", 1))
		if o.PickupPointID != nearest.ExternalID {
			t.Errorf("2103 without a point: routed to %q, want the nearest %q", o.PickupPointID, nearest.ExternalID)
		}
		if got := m.get(m.bid + "-PP1").PickupPointID; got != nearest.ExternalID {
			t.Errorf("read back: %q", got)
		}

		named := m.orderBody("PP2", 1)
		named["pickupPointId"] = "331003200"
		if got := m.create(named).PickupPointID; got != "331003200" {
			t.Errorf("named point: %q", got)
		}
		// A former 7-digit ID is still read, for one release, as its
		// 9-digit successor's (decisions §32), and stored so.
		legacy := m.orderBody("PP5", 1)
		legacy["pickupPointId"] = "3310001"
		if got := m.create(legacy).PickupPointID; got != "331003200" {
			t.Errorf("former ID: %q", got)
		}

		unknown := m.orderBody("PP3", 1)
		unknown["pickupPointId"] = "6681"
		var eb httpapi.EcomError
		m.do("PUT", "/ecommerce/v3/order", unknown).Expect(400).JSON(&eb)
		if len(eb.Errors) != 1 || eb.Errors[0].Field != "pickupPointId" {
			t.Errorf("unknown point: %+v", eb)
		}
		m.do("GET", "/ecommerce/v3/orders/"+m.bid+"-PP3", nil).Expect(404)
		if b := m.balance("P1"); b.Allocated != 3 {
			t.Errorf("allocated %d after three orders of 1 and a refused one", b.Allocated)
		}

		home := m.orderBody("PP4", 1)
		home["serviceCode"] = "2104"
		if got := m.create(home).PickupPointID; got != "" {
			t.Errorf("home delivery got a pick-up point %q", got)
		}
	})
}
