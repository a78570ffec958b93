package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/parcelgate/parcelgate/client"
)

// These examples are the main flows of the interface as a program writes
// them, against "parcelgate serve --demo" on its default address with the
// demo tenant's public credentials. The same flows run, with their output
// checked, in the server's tests (package internal/tools/sdke2e).

// A Client for the provider itself, whose surfaces have addresses of their
// own; Environment picks the test addresses.
func ExampleNew() {
	c, err := client.New(client.Config{
		GatewayURL:  "https://gateway.provider.example",
		ErrandURL:   "https://connect.provider.example",
		EcomURL:     "https://ecom.provider.example",
		EcomTestURL: "https://ecom-test.provider.example",
		Environment: client.Test, // errand codes under /parcel-uat, ecom at EcomTestURL

		ClientID:     "my-client-id",
		ClientSecret: "my-client-secret",
		Username:     "my-service-account",
		Password:     "my-password",
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = c
}

// Label-less sending: register the shipment's data, get the 6-character
// sending code the sender types at the parcel locker, and the errand code
// that opens the locker for its parcel.
func Example_sendingAndErrandCodes() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:8080", ClientID: "demo-client", ClientSecret: "demo-client-secret"})
	if err != nil {
		log.Fatal(err)
	}
	sh, err := c.CreateShipment(ctx, &client.ShipmentRequest{
		ServiceCode: "2103",
		Sender:      client.Address{Name: "Demo Shop Oy", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver:    client.Address{Name: "Maija Meikäläinen", PostalCode: "33100", PostOffice: "Tampere", Country: "FI"},
		Parcels:     []client.ParcelRequest{{PackageCode: client.PackageM}},
	})
	if err != nil {
		log.Fatal(err)
	}
	code, err := c.CreateSendingCode(ctx, sh.TrackingNumber, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("type", code.SendingCode, "at the locker; it expires", code.ExpiresAt.Format(time.DateOnly))

	res, err := c.ErrandCode(ctx, sh.Parcels[0].ParcelID)
	if err != nil {
		log.Fatal(err)
	}
	if res.OK() {
		fmt.Println("errand code of", res.ParcelID, "is", res.ErrandCode)
	}
}

// A supplier publishes stock to its warehouse catalog; whoever follows the
// stock polls the changes with a Sync, which keeps the cursor.
func Example_publishAndPollStock() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:8080", Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	sync := c.BalanceSync(&client.ProductQuery{CatalogExternalID: "WH1"}, time.Time{})
	for b, err := range sync.Changes(ctx) { // everything so far
		if err != nil {
			log.Fatal(err)
		}
		_ = b
	}

	_, err = c.PutBalances(ctx, []client.BalanceUpdate{{
		ProductExternalID: "1234567-1-MUG", RetailerID: "1234567-1", CatalogExternalID: "WH1",
		Quantity: client.Ptr[int64](42),
	}})
	if err != nil {
		log.Fatal(err)
	}
	for b, err := range sync.Changes(ctx) { // only what changed since
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(b.ProductExternalID, b.Quantity)
	}
	// Keep sync.Cursor to resume after a restart.
}

// A merchant places a warehouse order and follows it until the warehouse
// has delivered it, with a Sync over the orders that changed.
func Example_orderToDelivered() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:8080", Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	o, err := c.CreateOrder(ctx, &client.OrderRequest{
		ExternalID:      "1234567-1-A100",
		ServiceCode:     "2103",
		DeliveryAddress: client.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "33100", PostOffice: "Tampere", Country: "FI", Email: "maija@example.com"},
		Rows:            []client.OrderRowRequest{{ExternalProductID: "1234567-1-MUG", ExternalWarehouseID: "WH1", Quantity: 1}},
	})
	if err != nil {
		log.Fatal(err)
	}
	sync := c.OrderSync(nil, o.Metadata.InsertDate.Add(-time.Microsecond))
	for {
		for changed, err := range sync.Changes(ctx) {
			if err != nil {
				log.Fatal(err)
			}
			if changed.ID == o.ID && changed.Status.Value == client.OrderDelivered {
				fmt.Println(changed.ExternalID, "delivered")
				return
			}
		}
		time.Sleep(5 * time.Second) // the warehouse moves orders on by itself
	}
}

// Every answer other than 2xx is an *Error, whichever surface gave it.
func ExampleError() {
	c, _ := client.New(client.Config{BaseURL: "http://127.0.0.1:8080", Username: "demo", Password: "not-the-password"})
	_, err := c.EcomToken(context.Background())
	var e *client.Error
	if errors.As(err, &e) && e.StatusCode == http.StatusUnauthorized {
		fmt.Println(e.Code+":", e.Message)
	}
}

// The provider's shipping API: make a shipment to a pick-up point with
// label-less sending (additional service 3196), save its label, and follow
// its parcels with the Tracking API (the service account's token).
func Example_shipLabelAndTrack() {
	ctx := context.Background()
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:8080",
		ClientID: "demo-client", ClientSecret: "demo-client-secret", Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.CreateShippingOrder(ctx, &client.ShippingOrder{
		PrintConfig: &client.PrintConfig{Target1Media: "thermo-225"},
		Shipment: client.ShippingShipment{
			Sender:   client.ShippingParty{Name: "Demo Shop Oy", Address1: "Kauppakatu 1", Zipcode: "00100", City: "Helsinki", Country: "FI"},
			Receiver: client.ShippingParty{Name: "Maija Meikäläinen", Address1: "Tie 2", Zipcode: "33100", City: "Tampere", Country: "FI"},
			Service:  client.ShippingService{ID: "PO2103", Addons: []client.Addon{{ID: "3196"}}},
			Parcels:  []client.ShippingParcel{{Copies: 2, Weight: 2.5, PackageCode: "PKT"}},
		},
	}, &client.ShippingOptions{ReturnFile: true})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(res.ShipmentNo+".pdf", res.Prints[0].Data, 0o644); err != nil {
		log.Fatal(err)
	}
	parcels, err := c.Track(ctx, res.Parcels[0].ParcelNo, res.Parcels[1].ParcelNo)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parcels {
		fmt.Println(p.TrackingCode, p.Status.Code, p.Status.Description.EN)
	}
}
