package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// The provider's live pick-up point answer (postcode 00100, limit 1, en),
// as a public client printed it: the shapes the gateway answers from
// 2026-04 on.
const livePickupAnswer = `{"pickupPoints":[{"id":"001003230","publicName":"Posti, K-Market Etu-Töölö","careOf":"c/o Posti, K-Market Etu-Töölö","routingServiceCode":"3230","distanceInMeters":292,"parcelLocker":false,
"capabilities":[{"name":"accessibility","value":"WHEELCHAIR","cutOffTime":null},{"name":"expressDelivery","value":"NOT_POSSIBLE","cutOffTime":null},{"name":"identityCheck","value":"NONE","cutOffTime":null},{"name":"ADRLimitedQuantities","value":"ALLOWED","cutOffTime":null},{"name":"parcelDropoff","value":"MANUAL_DROP","cutOffTime":"11:30:00"},{"name":"parcelPickup","value":"AVAILABLE","cutOffTime":null},{"name":"parcelReturn","value":"MANUAL_DROP","cutOffTime":"11:30:00"},{"name":"saturdayDelivery","value":"NOT_POSSIBLE","cutOffTime":null},{"name":"sundayDelivery","value":"NOT_POSSIBLE","cutOffTime":null}],
"availability":{"exceptions":[{"date":"2026-12-06","opens":null,"closes":null,"closed":true,"open24h":false}],"openingHours":[{"dayOfWeek":"MONDAY","opens":"07:00:00","closes":"22:00:00","closed":false,"open24h":false},{"dayOfWeek":"SUNDAY","opens":null,"closes":null,"closed":true,"open24h":false}]},
"location":{"city":"Helsinki","countryCode":"FI","municipality":"Helsinki","coordinates":{"latitude":60.17034,"longitude":24.92358},"street":"Lapuankatu 4","postcode":"00100"}}]}`

// Release 2025-04's object of the same point.
const pickupAnswer2025 = `{"pickupPoints":[{"id":"001003230","pupCode":"001003230","externalId":"001003230","publicName":"Posti service point, K-Market Etu-Töölö","careOf":"K-Market Etu-Töölö","parcelLocker":false,"routingServiceCode":"3230","distanceInMeters":292,
"availability":{"openingHours":[{"weekday":"MONDAY","opens":"07:00","closes":"22:00","description":"Monday 07:00–22:00"}],"exceptions":[{"date":"2026-12-06","closed":true,"description":"public holiday, closed"}]},
"location":{"country":"FI","countryCode":"FI","street":"Lapuankatu 4","postcode":"00100","city":"Helsinki","municipality":"Helsinki","coordinates":{"latitude":60.17034,"longitude":24.92358},"specificLocation":"","routingPostcode":"00100"},
"capabilities":["parcelPickup","parcelDropoff","wheelchairAccessibility"]}]}`

// A Client configured for 2026-04 reads the provider's live shapes, and one
// of 2025-04 its release's: both through the same GatewayPickupPoint.
func TestPickupPointShapesOfBothReleases(t *testing.T) {
	for _, c := range []struct {
		version, answer string
		check           func(p GatewayPickupPoint) error
	}{
		{"2026-04", livePickupAnswer, func(p GatewayPickupPoint) error {
			drop, ok := p.Capabilities.Find("parcelDropoff")
			pick, _ := p.Capabilities.Find("parcelPickup")
			h := p.Availability.OpeningHours
			x := p.Availability.Exceptions
			switch {
			case p.CareOf != "c/o Posti, K-Market Etu-Töölö" || p.PublicName != "Posti, K-Market Etu-Töölö":
				return fmt.Errorf("names %q %q", p.PublicName, p.CareOf)
			case len(p.Capabilities) != 9 || !ok || drop.Value != "MANUAL_DROP" || drop.CutOffTime != "11:30:00" || pick.Value != "AVAILABLE" || pick.CutOffTime != "":
				return fmt.Errorf("capabilities %+v", p.Capabilities)
			case len(h) != 2 || h[0].Day() != "MONDAY" || h[0].Opens != "07:00:00" || h[0].Closes != "22:00:00" || h[0].Closed || !h[1].Closed || h[1].Opens != "":
				return fmt.Errorf("opening hours %+v", h)
			case len(x) != 1 || x[0].Date != "2026-12-06" || !x[0].Closed:
				return fmt.Errorf("exceptions %+v", x)
			}
			return nil
		}},
		{"2025-04", pickupAnswer2025, func(p GatewayPickupPoint) error {
			h := p.Availability.OpeningHours
			switch {
			case !slices.Equal(p.Capabilities.Names(), []string{"parcelPickup", "parcelDropoff", "wheelchairAccessibility"}) || p.Capabilities[0].Value != "":
				return fmt.Errorf("capabilities %+v", p.Capabilities)
			case len(h) != 1 || h[0].Day() != "MONDAY" || h[0].Opens != "07:00" || h[0].Description == "":
				return fmt.Errorf("opening hours %+v", h)
			case p.Availability.Exceptions[0].Description != "public holiday, closed" || p.Location.RoutingPostcode != "00100":
				return fmt.Errorf("%+v", p)
			}
			return nil
		}},
	} {
		var path string
		gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/token" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"access_token":"gw","token_type":"Bearer","expires_in":3600}`)
				return
			}
			path = r.URL.Path
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, c.answer)
		}))
		cl, err := New(Config{BaseURL: gw.URL, ClientID: "id", ClientSecret: "secret", Version: c.version})
		if err != nil {
			t.Fatal(err)
		}
		pts, err := cl.SearchPickupPoints(context.Background(), PickupPointSearch{Postcode: "00100", Limit: 1})
		gw.Close()
		if err != nil || len(pts) != 1 {
			t.Fatalf("%s: %v %v", c.version, pts, err)
		}
		if path != "/"+c.version+"/pickuppoints" {
			t.Errorf("%s: called %s", c.version, path)
		}
		if err := c.check(pts[0]); err != nil {
			t.Errorf("%s: %v", c.version, err)
		}
	}
	var cs PickupCapabilities
	if err := json.Unmarshal([]byte(`[{"name":1}]`), &cs); err == nil {
		t.Errorf("a capability of neither shape was read: %+v", cs)
	}
}

// ServiceAccountOAuth: the token comes from the provider's Authentication
// API route, POST /oauth/token with grant_type=client_credentials in the
// query and HTTP Basic, and is used as the ecom token.
func TestServiceAccountTokenByOAuthRoute(t *testing.T) {
	var seen []string
	mux := http.NewServeMux()
	mux.HandleFunc("/oauth/token", func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		seen = append(seen, r.Method+" "+r.URL.Query().Get("grant_type")+" "+u+":"+p)
		fmt.Fprint(w, `{"token_type":"bearer","access_token":"sa-1","expires_in":3599}`)
	})
	mux.HandleFunc("/x", func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		fmt.Fprint(w, `{}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, Username: "acct", Password: "secret", ServiceAccountOAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := get(c, "/x", nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"POST client_credentials acct:secret", "Bearer sa-1"}) {
		t.Errorf("calls %q", seen)
	}
	tok, err := c.EcomToken(context.Background())
	if err != nil || tok.AccessToken != "sa-1" || tok.Expiry.IsZero() {
		t.Errorf("token %+v %v", tok, err)
	}
}

// TestEnvironment sends x-test-environment: true on each sending code
// call, and only there; the answer's mock flag is read.
func TestSendingCodeTestEnvironmentHeader(t *testing.T) {
	var headers []string
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/token" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"gw","token_type":"Bearer","expires_in":3600}`)
			return
		}
		headers = append(headers, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Test-Environment"))
		fmt.Fprint(w, `{"shipments":[{"trackingNumber":"JJFI12345678901234567","sendingCode":"A1B2C3","mock":true}]}`)
	}))
	defer gw.Close()
	c, err := New(Config{BaseURL: gw.URL, ClientID: "id", ClientSecret: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, mock := context.Background(), &SendingCodeOptions{TestEnvironment: true}
	sc, err := c.CreateSendingCode(ctx, "JJFI12345678901234567", mock)
	if err != nil || !sc.Mock {
		t.Fatalf("%+v %v", sc, err)
	}
	c.SendingCode(ctx, "JJFI12345678901234567", mock)
	c.ShipmentBySendingCode(ctx, "A1B2C3", mock)
	c.SendingCode(ctx, "JJFI12345678901234567")
	c.CreateSendingCode(ctx, "JJFI12345678901234567", &SendingCodeOptions{NoEDICheck: true})
	want := []string{"POST /2025-04/labelless true", "GET /2025-04/labelless/JJFI12345678901234567 true", "GET /2025-04/labelless/shipment/A1B2C3 true",
		"GET /2025-04/labelless/JJFI12345678901234567 ", "POST /2025-04/labelless "}
	if !slices.Equal(headers, want) {
		t.Errorf("calls\n%q\nwant\n%q", headers, want)
	}
}

// OrderQuery sends the provider's Orders V3 filters; a row by EAN alone
// leaves externalProductId out.
func TestOrderQueryFiltersAndEANRows(t *testing.T) {
	q := &OrderQuery{OrderedFrom: mustTime("2026-04-01T00:00:00Z"), OrderedTo: mustTime("2026-05-01T00:00:00Z"), DocumentType: DocumentSalesOrder,
		Statuses: []OrderStatus{OrderCreated, OrderPartiallyDelivered}}
	v := q.values()
	if v.Get("from") != "2026-04-01T00:00:00Z" || v.Get("to") != "2026-05-01T00:00:00Z" || v.Get("documentType") != "SalesOrder" || v.Get("status") != "Created,Partially delivered" {
		t.Errorf("query %v", v)
	}
	b, _ := json.Marshal(OrderRowRequest{ProductEANCode: "6410000000011", Quantity: 1})
	if string(b) != `{"productEANCode":"6410000000011","quantity":1}` {
		t.Errorf("row by EAN: %s", b)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
