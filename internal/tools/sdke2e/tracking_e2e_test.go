package sdke2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §30, §39 (Find keys) through the SDK: FindParcelsIn compares the
// keywords only with what the keys name, a key's Not excludes it, no keys
// is FindParcels; an unknown key is 400 on keys, phonenumber 403.
func TestFindParcelsInThroughTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		res, err := c.CreateShippingOrder(ctx, &client.ShippingOrder{Shipment: client.ShippingShipment{
			Sender:   client.ShippingParty{Name: "Demo Shop Oy", Address1: "Kauppakatu 1", Zipcode: "00100", City: "Helsinki", Country: "FI"},
			Receiver: client.ShippingParty{Name: "Maija Meikäläinen", Address1: "Tie 2", Zipcode: "33100", City: "Tampere", Country: "FI"},
			Service:  client.ShippingService{ID: "PO2103"},
			OrderNo:  "SO-6001",
			Parcels:  []client.ShippingParcel{{Copies: 2, Weight: 1}},
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p1 := res.Parcels[1].ParcelNo
		for _, q := range []struct {
			keys    []client.TrackingKey
			keyword string
			want    int
		}{
			{nil, "SO-6001", 2},
			{nil, p1, 1},
			{[]client.TrackingKey{client.BySenderReference}, "so-6001", 2},
			{[]client.TrackingKey{client.BySenderReference}, p1, 0},
			{[]client.TrackingKey{client.BySenderReference.Not()}, p1, 1},
			{[]client.TrackingKey{client.BySenderReference.Not()}, "SO-6001", 0},
			// decisions §39: goodsitemid is a freight key (nothing), the
			// provider's names work, keys=all,!parcel_order_number too.
			{[]client.TrackingKey{client.ByGoodsItemID, client.ByOrderNumber}, p1, 0},
			{[]client.TrackingKey{"parcel_tracking_number"}, p1, 1},
			{[]client.TrackingKey{"all", client.TrackingKey("parcel_order_number").Not()}, "SO-6001", 0},
			{[]client.TrackingKey{"all", client.TrackingKey("parcel_order_number").Not()}, p1, 1},
			{[]client.TrackingKey{"freight_all"}, "SO-6001", 0},
			{[]client.TrackingKey{client.ByTrackingNumber}, "SO-6001", 0},
		} {
			got, err := c.FindParcelsIn(ctx, q.keys, q.keyword)
			if err != nil || len(got) != q.want {
				t.Errorf("keys %v, %s: %d parcels %v, want %d", q.keys, q.keyword, len(got), err, q.want)
			}
		}
		_, err = c.FindParcelsIn(ctx, []client.TrackingKey{"reference"}, "SO-6001")
		if ae := asError(t, err); ae.StatusCode != 400 || len(ae.Fields) != 1 || ae.Fields[0].Field != "keys" {
			t.Errorf("an unknown key: %+v", ae)
		}
		_, err = c.FindParcelsIn(ctx, []client.TrackingKey{client.ByPhoneNumber}, "SO-6001")
		if ae := asError(t, err); ae.StatusCode != 403 {
			t.Errorf("phonenumber: %+v", ae)
		}
	})
}

// decisions §39 through the SDK: ReservationStatus answers the caller's
// parcels due at the postcodes, a day at a time; a missing postcode is 400
// naming it.
func TestReservationStatusThroughTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		res, err := c.CreateShippingOrder(ctx, &client.ShippingOrder{Shipment: client.ShippingShipment{
			Sender:   client.ShippingParty{Name: "Demo Shop Oy", Address1: "Kauppakatu 1", Zipcode: "00100", City: "Helsinki", Country: "FI"},
			Receiver: client.ShippingParty{Name: "Maija Meikäläinen", Address1: "Tie 2", Zipcode: "33720", City: "Tampere", Country: "FI"},
			Service:  client.ShippingService{ID: "PO2104"},
			Parcels:  []client.ShippingParcel{{Copies: 1, Weight: 1}},
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		now := e.Clock.Now(parcelgate.Production)
		days, err := c.ReservationStatus(ctx, client.ReservationQuery{From: now, To: now.Add(7 * 24 * time.Hour), Country: "FI", Postcodes: []string{"33720"}, Products: []string{"2104"}})
		var all []string
		for _, d := range days {
			all = append(all, d.TrackingNumbers...)
		}
		if err != nil || len(all) != 1 || all[0] != res.Parcels[0].ParcelNo {
			t.Fatalf("reservations %v %+v", err, days)
		}
		_, err = c.ReservationStatus(ctx, client.ReservationQuery{From: now, To: now.Add(time.Hour), Country: "FI"})
		if ae := asError(t, err); ae.StatusCode != 400 || len(ae.Fields) != 1 || ae.Fields[0].Field != "postcode" {
			t.Errorf("no postcode: %+v", ae)
		}
	})
}
