package sdke2e_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// sdkVersion is sdk's Client calling gateway release version.
func sdkVersion(t *testing.T, e *apitest.Env, tn tenant, version string, oauth bool) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{
		BaseURL: e.URL, Version: version, ServiceAccountOAuth: oauth,
		ClientID: tn.ClientID, ClientSecret: tn.ClientSecret,
		Username: tn.Username, Password: tn.Password,
		Retry: client.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The provider's live pick-up point shapes (decisions §36) through an SDK
// Client configured for 2026-04: the provider's coordinates example finds
// K-Market Etu-Töölö (001003230), "Posti, ..." in care of "c/o Posti,
// ...", capabilities with cut-off times, hours by dayOfWeek in HH:MM:SS;
// a search in Sweden and one in Estonia answer points there in their
// languages. A Client of 2025-04 reads the same point in its release's
// shapes.
func TestSDKPickupPoints2026(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		tn := newTenant(t, e, parcelgate.Production, "1234567-1", parcelgate.RoleMerchant)
		c := sdkVersion(t, e, tn, "2026-04", false)
		pts, err := c.SearchPickupPoints(ctx, client.PickupPointSearch{Coordinates: &[2]float64{60.17, 24.93}, RadiusMetres: 450, Limit: 15, Language: "en"})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(pts, func(p client.GatewayPickupPoint) bool { return p.ID == "001003230" })
		if i < 0 {
			t.Fatalf("001003230 not within 450 m: %d points", len(pts))
		}
		p := pts[i]
		drop, ok := p.Capabilities.Find("parcelDropoff")
		if p.PublicName != "Posti, K-Market Etu-Töölö" || p.CareOf != "c/o Posti, K-Market Etu-Töölö" || !ok || drop.Value != "MANUAL_DROP" || drop.CutOffTime != "11:30:00" {
			t.Errorf("the live shapes: %q %q %+v", p.PublicName, p.CareOf, p.Capabilities)
		}
		if h := p.Availability.OpeningHours; len(h) != 7 || h[0].Day() != "MONDAY" || h[0].DayOfWeek != "MONDAY" || len(h[0].Opens) != 8 || h[0].Closed {
			t.Errorf("opening hours: %+v", h)
		}
		one, err := c.GatewayPickupPoint(ctx, "FI", "001003230", "fi")
		if err != nil || one == nil || one.ID != "001003230" || len(one.Capabilities) == 0 || one.Capabilities[0].Value == "" {
			t.Fatalf("one point on 2026-04: %+v %v", one, err)
		}
		// Points abroad (the provider's partner networks).
		for _, q := range []struct{ country, postcode, lang string }{{"SE", "11120", "sv"}, {"EE", "10111", "et"}} {
			pts, err := c.SearchPickupPoints(ctx, client.PickupPointSearch{Postcode: q.postcode, CountryCode: q.country, Limit: 3, Language: q.lang})
			if err != nil || len(pts) == 0 || pts[0].Location.CountryCode != q.country {
				t.Errorf("%s %s: %d points %v", q.country, q.postcode, len(pts), err)
			}
		}
		old := sdkVersion(t, e, tn, "2025-04", false)
		was, err := old.GatewayPickupPoint(ctx, "FI", "001003230", "en")
		if err != nil || was == nil || was.Availability.OpeningHours[0].Weekday != "MONDAY" || len(was.Capabilities) == 0 || was.Capabilities[0].Value != "" {
			t.Fatalf("one point on 2025-04: %+v %v", was, err)
		}
	})
}

// The provider's Authentication API route (decisions §37) through the
// SDK: a Client with ServiceAccountOAuth takes its service account's token
// from POST /oauth/token and calls the ecom API with it; wrong credentials
// are the same 401 as /auth/token's.
func TestSDKServiceAccountOAuthToken(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		tn := newTenant(t, e, parcelgate.Production, "1234567-1")
		c := sdkVersion(t, e, tn, "2025-04", true)
		tok, err := c.EcomToken(ctx)
		if err != nil || tok.AccessToken == "" || tok.Scope != "" {
			t.Fatalf("token: %+v %v", tok, err)
		}
		if until := time.Until(tok.Expiry); until < 59*time.Minute || until > time.Hour {
			t.Errorf("expires in %v", until)
		}
		if _, err := c.OrdersPage(ctx, nil); err != nil {
			t.Errorf("a call with the token: %v", err)
		}
		tn.Password = "wrong-" + tn.Password
		_, err = sdkVersion(t, e, tn, "2025-04", true).EcomToken(ctx)
		if ae := asError(t, err); ae.StatusCode != 401 {
			t.Errorf("wrong password: %+v", ae)
		}
	})
}

// decisions §39: x-test-environment through the SDK — TestEnvironment
// answers mock codes for any well-formed number, the same every time,
// marked Mock, with nothing stored: without it the same number has no
// code.
func TestSDKMockSendingCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		mock := &client.SendingCodeOptions{TestEnvironment: true}
		const tn = "JJFI65432100000000001"
		made, err := c.CreateSendingCode(ctx, tn, mock)
		if err != nil || !made.Mock || len(made.SendingCode) != 6 || made.TrackingNumber != tn {
			t.Fatalf("mock create: %+v %v", made, err)
		}
		again, err := c.SendingCode(ctx, tn, mock)
		if err != nil || again.SendingCode != made.SendingCode || !again.Mock {
			t.Fatalf("mock lookup: %+v %v", again, err)
		}
		byCode, err := c.ShipmentBySendingCode(ctx, made.SendingCode, mock)
		if err != nil || !byCode.Mock || byCode.Receiver == nil || byCode.TrackingNumber == "" {
			t.Fatalf("mock shipment: %+v %v", byCode, err)
		}
		_, err = c.SendingCode(ctx, tn)
		if ae := asError(t, err); ae.StatusCode != 404 {
			t.Errorf("the real lookup found a mock code: %+v", ae)
		}
	})
}

// The provider's Orders V3 through the SDK: a row by EAN alone, the list's
// from/to (order date) and documentType filters, and one row per product.
func TestSDKOrdersV3(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		const bid = "1234567-1"
		c := merchantSDK(t, e, bid)
		_, err := c.PutInventory(ctx, []client.InventoryEntry{{
			Product:  client.Product{ExternalID: bid + "-E1", EANCode: "6410000000011", Descriptions: map[string]client.Description{"fi": {Name: "EAN-tuote"}}},
			Balances: []client.BalanceUpdate{{RetailerID: bid, CatalogExternalID: "WH1", Quantity: client.Ptr[int64](10), WholesalePrice: client.Ptr(1.0), Currency: "EUR"}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		april := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
		byEAN := orderRequest(bid, "V1", 1)
		byEAN.OrderDate = april
		byEAN.Rows = []client.OrderRowRequest{{ProductEANCode: "6410000000011", ExternalWarehouseID: "WH1", Quantity: 1}}
		o, err := c.CreateOrder(ctx, byEAN)
		if err != nil || o.Status.Value != client.OrderCreated || o.Rows[0].ExternalProductID != bid+"-E1" {
			t.Fatalf("a row by EAN: %+v %v", o, err)
		}
		may := orderRequest(bid, "V2", 1)
		may.OrderDate = april.AddDate(0, 1, 0)
		if _, err := c.CreateOrder(ctx, may); err != nil {
			t.Fatal(err)
		}
		got := all(t, c.Orders(ctx, &client.OrderQuery{OrderedFrom: april.AddDate(0, 0, -1), OrderedTo: april.AddDate(0, 0, 1), DocumentType: client.DocumentSalesOrder}))
		if len(got) != 1 || got[0].ID != o.ID {
			t.Errorf("from/to: %d orders", len(got))
		}
		if got := all(t, c.Orders(ctx, &client.OrderQuery{DocumentType: client.DocumentPurchaseOrder})); len(got) != 0 {
			t.Errorf("purchase orders: %d", len(got))
		}
		twice := orderRequest(bid, "V3", 1)
		twice.Rows = append(twice.Rows, client.OrderRowRequest{ExternalProductID: "P1", ExternalWarehouseID: "WH1", Quantity: 2})
		_, err = c.CreateOrder(ctx, twice)
		if ae := asError(t, err); ae.StatusCode != 400 || len(ae.Fields) != 1 || ae.Fields[0].Field != "rows[1].externalProductId" {
			t.Errorf("two rows of a product: %+v", ae)
		}
	})
}

// The find keys in the provider's names through the SDK's constants
// (decisions §39): parcel_order_number searches the reference, freight
// keys nothing.
func TestSDKFindKeysInTheProvidersNames(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		res, err := c.CreateShippingOrder(ctx, &client.ShippingOrder{Shipment: client.ShippingShipment{
			Sender:   client.ShippingParty{Name: "Demo Shop Oy", Address1: "Kauppakatu 1", Zipcode: "00100", City: "Helsinki", Country: "FI"},
			Receiver: client.ShippingParty{Name: "Maija Meikäläinen", Address1: "Tie 2", Zipcode: "33100", City: "Tampere", Country: "FI"},
			Service:  client.ShippingService{ID: "PO2103"},
			OrderNo:  "SO-7001",
			Parcels:  []client.ShippingParcel{{Copies: 1, Weight: 1}},
		}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			keys    []client.TrackingKey
			keyword string
			want    int
		}{
			{[]client.TrackingKey{client.KeyParcelOrderNumber}, "SO-7001", 1},
			{[]client.TrackingKey{client.KeyAll, client.KeyParcelOrderNumber.Not()}, "SO-7001", 0},
			{[]client.TrackingKey{client.KeyParcelTrackingNumber}, res.Parcels[0].ParcelNo, 1},
			{[]client.TrackingKey{client.KeyFreightAll}, "SO-7001", 0},
			{[]client.TrackingKey{client.KeyFreightWaybillNumber}, res.Parcels[0].ParcelNo, 0},
		} {
			got, err := c.FindParcelsIn(ctx, q.keys, q.keyword)
			if err != nil || len(got) != q.want {
				t.Errorf("keys %v, %s: %d parcels %v, want %d", q.keys, q.keyword, len(got), err, q.want)
			}
		}
	})
}
