package sdke2e_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/apitest"
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
