package sdke2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

func shipmentRequest(parcels ...client.ParcelRequest) *client.ShipmentRequest {
	return &client.ShipmentRequest{
		ServiceCode: "2103",
		Sender:      client.Address{Name: "Demo Shop Oy", StreetAddress: "Demokatu 1", PostalCode: "00100", PostOffice: "Helsinki", Country: "FI"},
		Receiver:    client.Address{Name: "Maija Meikäläinen", StreetAddress: "Kotikatu 2", PostalCode: "33100", PostOffice: "Tampere", Country: "FI", Email: "maija@example.com"},
		Parcels:     parcels,
	}
}

// Interface §4.1 and decisions §5: shipment data, then its sending code, through
// the SDK.
func TestSendingCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))

		sh, err := c.CreateShipment(ctx, shipmentRequest(
			client.ParcelRequest{PackageCode: client.PackageM},
			client.ParcelRequest{Weight: client.Ptr(2.5), Length: client.Ptr(50.0), Width: client.Ptr(30.0), Height: client.Ptr(30.0)},
		))
		if err != nil {
			t.Fatal(err)
		}
		if sh.TrackingNumber == "" || len(sh.Parcels) != 2 || sh.Parcels[0].LockerSize != "M" || sh.Parcels[1].LockerSize != "L" || sh.Parcels[0].ParcelID == "" {
			t.Fatalf("shipment %+v", sh)
		}
		got, err := c.Shipment(ctx, strings.ToLower(sh.TrackingNumber))
		if err != nil || got.TrackingNumber != sh.TrackingNumber || got.Receiver.PostOffice != "Tampere" {
			t.Fatalf("Shipment: %+v, %v", got, err)
		}

		code, err := c.CreateSendingCode(ctx, sh.TrackingNumber, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(code.SendingCode) != 6 || code.TrackingNumber != sh.TrackingNumber {
			t.Fatalf("sending code %+v", code)
		}
		again, err := c.CreateSendingCode(ctx, sh.TrackingNumber, nil)
		if err != nil || again.SendingCode != code.SendingCode {
			t.Errorf("second create: %+v, %v; want the same code", again, err)
		}
		byTN, err := c.SendingCode(ctx, sh.TrackingNumber)
		if err != nil || byTN.SendingCode != code.SendingCode {
			t.Errorf("SendingCode: %+v, %v", byTN, err)
		}
		byCode, err := c.ShipmentBySendingCode(ctx, strings.ToLower(code.SendingCode))
		if err != nil || byCode.TrackingNumber != sh.TrackingNumber || byCode.Receiver == nil || byCode.Receiver.PostOffice != "Tampere" || len(byCode.Parcels) != 2 {
			t.Errorf("ShipmentBySendingCode: %+v, %v", byCode, err)
		}

		// Without shipment data: NOT_FOUND, unless noEdiCheck.
		_, err = c.CreateSendingCode(ctx, "JJFI00000000000000001", nil)
		if ae := asError(t, err); ae.StatusCode != 404 || ae.Code != "NOT_FOUND" || ae.Message != "Shipment not found" {
			t.Errorf("no shipment data: %+v", ae)
		}
		bare, err := c.CreateSendingCode(ctx, "JJFI00000000000000001", &client.SendingCodeOptions{NoEDICheck: true})
		if err != nil || len(bare.SendingCode) != 6 {
			t.Errorf("noEdiCheck: %+v, %v", bare, err)
		}

		// A gateway validation error carries its field errors.
		bad := shipmentRequest(client.ParcelRequest{PackageCode: "Z9"})
		bad.ServiceCode = ""
		_, err = c.CreateShipment(ctx, bad)
		ae := asError(t, err)
		if ae.StatusCode != 400 || ae.Code != "VALIDATION_ERROR" || len(ae.Fields) < 2 || ae.RequestID == "" {
			t.Errorf("invalid shipment: %+v", ae)
		}
	})
}

// Interface §4.2: errand codes, one and many, in both environments.
func TestErrandCodes(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		for _, env := range parcelgate.Environments {
			c := sdk(t, e, env, newTenant(t, e, env, "1234567-1"))
			sh, err := c.CreateShipment(ctx, shipmentRequest(client.ParcelRequest{}, client.ParcelRequest{}))
			if err != nil {
				t.Fatal(err)
			}
			p0, p1 := sh.Parcels[0].ParcelID, sh.Parcels[1].ParcelID
			one, err := c.ErrandCode(ctx, p0)
			if err != nil || !one.OK() || len(one.ErrandCode) != 6 || one.ParcelID != p0 {
				t.Fatalf("%s ErrandCode: %+v, %v", env, one, err)
			}
			// Interface §4.2 rule 1: no shipment data, no code.
			_, err = c.ErrandCode(ctx, "JJFI99999999999999")
			if ae := asError(t, err); ae.StatusCode != 404 || ae.Code != "NOT_FOUND" || ae.Message == "" || ae.Message == "Not Found" {
				t.Errorf("%s unknown parcel: %+v", env, ae)
			}
			res, err := c.ErrandCodes(ctx, p1, "JJFI99999999999999", "bad", p0)
			if err != nil || len(res) != 4 {
				t.Fatalf("%s ErrandCodes: %+v, %v", env, res, err)
			}
			if !res[0].OK() || res[1].OK() || res[2].OK() || res[3].ErrandCode != one.ErrandCode {
				t.Errorf("%s results %+v", env, res)
			}
		}

		// More IDs than one request takes are asked in several, in order.
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		ids := make([]string, 150)
		for i := range ids {
			ids[i] = fmt.Sprintf("JJFI%014d", i)
		}
		res, err := c.ErrandCodes(ctx, ids...)
		if err != nil || len(res) != 150 || res[149].ParcelID != ids[149] {
			t.Fatalf("150 IDs: %d results, %v", len(res), err)
		}

		// A production client on the test environment's path is refused.
		tn := newTenant(t, e, parcelgate.Production, "1234567-1")
		cfg := client.Config{BaseURL: e.URL, Environment: client.Test, ClientID: tn.ClientID, ClientSecret: tn.ClientSecret}
		wrong, _ := client.New(cfg)
		_, err = wrong.ErrandCodes(ctx, ids[0])
		if ae := asError(t, err); ae.StatusCode != 403 || ae.Code != "FORBIDDEN" {
			t.Errorf("wrong environment: %+v", ae)
		}
	})
}

// Interface §5 (tokens expire after 3600 s): when the server refuses the cached
// token as expired, the SDK gets a new one and the call succeeds.
func TestExpiredTokenRefreshed(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		c := sdk(t, e, parcelgate.Production, newTenant(t, e, parcelgate.Production, "1234567-1"))
		sh, err := c.CreateShipment(ctx, shipmentRequest(client.ParcelRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		before, _ := c.GatewayToken(ctx)
		e.Clock.Advance(3601 * time.Second)
		if _, err := c.Shipment(ctx, sh.TrackingNumber); err != nil {
			t.Fatalf("after expiry: %v", err)
		}
		after, _ := c.GatewayToken(ctx)
		if after.AccessToken == before.AccessToken {
			t.Error("the expired token is still cached")
		}
	})
}
