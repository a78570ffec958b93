package sdke2e_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/adminclient"
	"github.com/parcelgate/parcelgate/parcelgatetest"
)

// The SDK's main flows (the examples of package client) run against an
// in-process server seeded with the demo tenant, as "parcelgate serve
// --demo" is, with their output checked.

func startSandbox() *parcelgatetest.Server {
	sb, err := parcelgatetest.Start()
	if err != nil {
		log.Fatal(err)
	}
	return sb
}

// Shipment data -> sending code -> errand code (interface §4.1, §4.2).
func Example_sendingAndErrandCodes() {
	sb := startSandbox()
	defer sb.Close()
	ctx := context.Background()

	c, err := client.New(client.Config{BaseURL: sb.URL, ClientID: "demo-client", ClientSecret: "demo-client-secret"})
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
	// The same code comes back for the same shipment.
	again, err := c.SendingCode(ctx, sh.TrackingNumber)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("sending code:", len(code.SendingCode), "characters, same on lookup:", again.SendingCode == code.SendingCode)

	res, err := c.ErrandCode(ctx, sh.Parcels[0].ParcelID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("errand code:", res.ResultText, "locker", sh.Parcels[0].LockerSize)
	// Output:
	// sending code: 6 characters, same on lookup: true
	// errand code: OK locker M
}

// Publish stock -> poll the changes (interface §4.4, §6).
func Example_publishAndPollStock() {
	sb := startSandbox()
	defer sb.Close()
	ctx := context.Background()

	c, err := client.New(client.Config{BaseURL: sb.URL, Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	sync := c.BalanceSync(&client.ProductQuery{CatalogExternalID: "WH1"}, time.Time{})
	n := 0
	for _, err := range sync.Changes(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("demo balances in WH1:", n > 0)

	_, err = c.PutBalances(ctx, []client.BalanceUpdate{{
		ProductExternalID: "1234567-1-MUG", RetailerID: "1234567-1", CatalogExternalID: "WH1",
		Quantity: client.Ptr[int64](42),
	}})
	if err != nil {
		log.Fatal(err)
	}
	for b, err := range sync.Changes(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("changed:", b.ProductExternalID, b.Quantity)
	}
	// Output:
	// demo balances in WH1: true
	// changed: 1234567-1-MUG 42
}

// Order -> follow it to Delivered (interface §4.3, §3, §6). The sandbox has
// no warehouse engine; the example moves the order as the warehouse would,
// through the operator API.
func Example_orderToDelivered() {
	sb := startSandbox()
	defer sb.Close()
	ctx := context.Background()

	c, err := client.New(client.Config{BaseURL: sb.URL, Username: "demo", Password: "demo-password"})
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
	fmt.Println(o.ExternalID, o.Status.Value)

	sync := c.OrderSync(nil, o.Metadata.InsertDate.Add(-time.Microsecond))
	for _, step := range []client.OrderStatus{client.OrderSubmitted, client.OrderDelivered} {
		warehouseMoves(sb, o.ExternalID, step)
		for changed, err := range sync.Changes(ctx) {
			if err != nil {
				log.Fatal(err)
			}
			if changed.ID == o.ID {
				fmt.Println(changed.ExternalID, changed.Status.Value)
			}
		}
	}
	// Output:
	// 1234567-1-A100 Created
	// 1234567-1-A100 Submitted
	// 1234567-1-A100 Delivered
}

// warehouseMoves moves an order of the demo tenant as the warehouse does.
func warehouseMoves(sb *parcelgatetest.Server, externalID string, to client.OrderStatus) {
	op := adminclient.Client{BaseURL: sb.URL, Token: sb.AdminToken}
	body := map[string]string{"businessId": "1234567-1", "externalId": externalID, "value": string(to)}
	if err := op.Call(context.Background(), "POST", "/admin/v1/orders/status", body, nil); err != nil {
		log.Fatalf("move to %s: %v", to, err)
	}
}

func Example_ecomToken() {
	sb := startSandbox()
	defer sb.Close()

	c, err := client.New(client.Config{BaseURL: sb.URL, Username: "demo", Password: "demo-password"})
	if err != nil {
		log.Fatal(err)
	}
	tok, err := c.EcomToken(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.TokenType, tok.Scope)
	// Output: bearer internal
}

func Example_error() {
	sb := startSandbox()
	defer sb.Close()

	c, _ := client.New(client.Config{BaseURL: sb.URL, Username: "demo", Password: "not-the-password"})
	_, err := c.EcomToken(context.Background())
	var e *client.Error
	if errors.As(err, &e) && e.StatusCode == http.StatusUnauthorized {
		fmt.Println(e.Code+":", e.Message)
	}
	// Output: Unauthorized: Bad credentials
}

// Shipping API -> label -> tracking (decisions §29, §30).
func Example_shipLabelAndTrack() {
	sb := startSandbox()
	defer sb.Close()
	ctx := context.Background()

	c, err := client.New(client.Config{BaseURL: sb.URL, ClientID: "demo-client", ClientSecret: "demo-client-secret", Username: "demo", Password: "demo-password"})
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
	fmt.Println("parcels:", len(res.Parcels), "label:", string(res.Prints[0].Data[:5]), res.Prints[0].Media)
	pdf, err := c.Label(ctx, res.Prints[0].Href)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("label by href:", string(pdf[:5]))
	parcels, err := c.Track(ctx, res.Parcels[0].ParcelNo, res.Parcels[1].ParcelNo)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parcels {
		fmt.Println(p.TrackingCode == res.Parcels[0].ParcelNo || p.TrackingCode == res.Parcels[1].ParcelNo, p.Status.Code, p.Status.Description.EN)
	}
	// Output:
	// parcels: 2 label: %PDF- thermo-225
	// label by href: %PDF-
	// true WAITING Waiting for the sender
	// true WAITING Waiting for the sender
}
