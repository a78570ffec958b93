package sdke2e_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// A shop lists the delivery services, finds the pick-up points near a
// shopper, and gets a clear error for a bad postal code.
func TestDeliveryServicesAndPickupPoints(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1", parcelgate.RoleMerchant))
		svcs, err := c.DeliveryServices(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(svcs, func(s client.DeliveryService) bool { return s.ID == "2103" })
		if i < 0 || !slices.Contains(svcs[i].Tags, "PICKUP_POINT") || svcs[i].Description["fi"] == "" {
			t.Fatalf("services: %+v", svcs)
		}
		pts, err := c.PickupPoints(ctx, client.PickupPointQuery{ServiceCodes: []string{"2103"}, PostalCode: "90100", Capabilities: []string{"!outdoors"}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 5 || pts[0].PostOffice != "OULU" || pts[0].Distance == nil || pts[0].Estimation == "" {
			t.Fatalf("points near 90100: %+v", pts)
		}
		for _, p := range pts {
			if slices.Contains(p.Capabilities, "outdoors") {
				t.Errorf("outdoor locker %s", p.ExternalID)
			}
		}
		_, err = c.PickupPoints(ctx, client.PickupPointQuery{PostalCode: "9010"})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.StatusCode != 400 || len(ce.Fields) == 0 || ce.Fields[0].Field != "postalCode" {
			t.Fatalf("bad postal code: %v", err)
		}
	})
}

// The SDK's gateway Pick-up Point API and delivery estimate, end
// to end: the provider's published search and its second published
// estimate, answered as published.
func TestGatewayPickupPointsAndEstimate(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1", parcelgate.RoleMerchant))
		pts, err := c.SearchPickupPoints(ctx, client.PickupPointSearch{Postcode: "20100", CountryCode: "FI", Limit: 20, Language: "fi",
			EstimateFrom: "00100", EstimateProduct: "2103", Occupancy: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 20 || pts[0].Location.Postcode != "20100" || len(pts[0].ID) != 9 || pts[0].DistanceInMeters == nil ||
			pts[0].Extensions == nil || pts[0].Extensions.Estimate == nil || pts[0].Extensions.Estimate.Time == nil {
			t.Fatalf("points near 20100: %+v", pts[0])
		}
		one, err := c.GatewayPickupPoint(ctx, "FI", pts[0].ID, "sv")
		if err != nil || one == nil || one.ID != pts[0].ID || one.Location.City != "Åbo" {
			t.Fatalf("one point: %+v %v", one, err)
		}
		if none, err := c.GatewayPickupPoint(ctx, "FI", "999999999", ""); err != nil || none != nil {
			t.Fatalf("no point: %+v %v", none, err)
		}
		page, err := c.ListPickupPoints(ctx, "FI", "", "")
		if err != nil || len(page.PickupPoints) != parcelgate.PickupPageSize || page.PagingContinuationToken == "" {
			t.Fatalf("first page: %v", err)
		}
		next, err := c.ListPickupPoints(ctx, "FI", page.PagingContinuationToken, "")
		if err != nil || next.PickupPoints[0].ID <= page.PickupPoints[len(page.PickupPoints)-1].ID {
			t.Fatalf("second page: %v", err)
		}
		at, _ := time.Parse("2006-01-02T15:04:05.000-0700", "2014-10-03T13:30:00.000+0300")
		est, err := c.Estimate(ctx, client.EstimateRequest{FromPostcode: "00100", ToPostcode: "33100", ProductCode: "2102", At: at,
			LogisticPhase: client.PhasePickedUp, AdditionalServices: []string{client.SaturdayDelivery}})
		if err != nil || est.Time == nil || !est.Time.Equal(time.Date(2014, 10, 4, 6, 0, 0, 0, time.UTC)) {
			t.Fatalf("estimate: %+v %v", est, err)
		}
		_, err = c.Estimate(ctx, client.EstimateRequest{FromPostcode: "00100", ToPostcode: "3310", ProductCode: "2103"})
		var ce *client.Error
		if !errors.As(err, &ce) || ce.StatusCode != 400 || len(ce.Fields) == 0 || ce.Fields[0].Field != "estimate.destination.postcode" {
			t.Fatalf("bad postcode: %v", err)
		}
	})
}
