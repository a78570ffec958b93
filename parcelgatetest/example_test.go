package parcelgatetest_test

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate/parcelgatetest"
)

// gatewayToken gets a gateway access token of the seeded tenant, as any
// client does (interface §5.1).
func gatewayToken(srv *parcelgatetest.Server) string {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {srv.Tenant.ClientID}, "client_secret": {srv.Tenant.ClientSecret}}
	resp, err := srv.Client().PostForm(srv.URL+"/api/v1/token", form)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	return tok.AccessToken
}

// getShipment reads the seeded shipment through the gateway API and
// returns the status and the request ID of the answer.
func getShipment(srv *parcelgatetest.Server, token string) (int, string) {
	req, _ := http.NewRequest("GET", srv.URL+"/2025-04/shipments/"+srv.Tenant.Shipment, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := srv.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Request-ID")
}

// A test starts a server, points the code under test at its URL with the
// seeded tenant's credentials, and calls it. In a test, NewServer(t) does
// the same and stops the server when the test ends.
func Example() {
	srv, err := parcelgatetest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	status, _ := getShipment(srv, gatewayToken(srv))
	fmt.Println("tenant", srv.Tenant.BusinessID, "in", srv.Tenant.Environment, "- shipment:", status)
	// Output: tenant 1234567-1 in test - shipment: 200
}

// Injecting a fault shows the code under test getting the 503 the
// provider's clients retry, and then the real answer.
func ExampleAdmin_InjectFault() {
	srv, err := parcelgatetest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	token := gatewayToken(srv)

	if _, err := srv.Admin.InjectFault(parcelgatetest.Fault{Route: "/{version}/shipments/{trackingNumber}", Status: 503, Count: 1}); err != nil {
		log.Fatal(err)
	}
	first, _ := getShipment(srv, token)
	second, _ := getShipment(srv, token)
	fmt.Println(first, second)
	// Output: 503 200
}

// Moving the clock makes the tenant's tokens expire without waiting an
// hour.
func ExampleAdmin_AdvanceClock() {
	srv, err := parcelgatetest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	token := gatewayToken(srv)

	if err := srv.Admin.AdvanceClock(61 * time.Minute); err != nil {
		log.Fatal(err)
	}
	status, _ := getShipment(srv, token)
	fmt.Println(status)
	// Output: 401
}

// The request journal answers "what did my code send?" by the request ID
// of the answer.
func ExampleAdmin_Request() {
	srv, err := parcelgatetest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	_, id := getShipment(srv, gatewayToken(srv))
	call, err := srv.Admin.Request(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.Method, call.Route, call.Status, strings.HasPrefix(call.ResponseBody, "{"))
	// Output: GET /{version}/shipments/{trackingNumber} 200 true
}
