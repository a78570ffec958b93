package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
)

// trackMode measures the Tracking API (decisions §30): -track-shipments
// shipments of two parcels are made over the shipping API, each with its
// own order number as reference, then -clients clients look up parcels
// for -d, per route: by number (GET trackingnumber/{n}, each parcel's
// journey decided as of the clock), and the two searches of the tenant's
// parcels by reference (GET senderreference/{ref} and find/{keyword}):
// lookups/s, p50, p99.
func trackMode(ctx context.Context, c config, e *env) error {
	if err := e.organization(merchantBID); err != nil {
		return err
	}
	var client struct{ ClientID, ClientSecret string }
	if err := e.admin("POST", "/admin/v1/gateway-clients", map[string]any{"environment": "production", "businessId": merchantBID}, &client); err != nil {
		return err
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {client.ClientID}, "client_secret": {client.ClientSecret}}
	resp, err := e.client.Post(e.url+"/api/v1/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	var gw httpapi.GatewayToken
	err = decodeJSON(resp, &gw)
	if err != nil {
		return err
	}
	body := map[string]any{"shipment": map[string]any{
		"sender":   map[string]any{"name": "Load Oy", "address1": "Katu 1", "zipcode": "00100", "city": "Helsinki", "country": "FI"},
		"receiver": map[string]any{"name": "Receiver", "address1": "Tie 2", "zipcode": "33100", "city": "Tampere", "country": "FI"},
		"service":  map[string]any{"id": "PO2103"},
		"parcels":  []any{map[string]any{"copies": 2, "weight": 1.5, "packageCode": "PKT"}},
	}}
	var numbers, refs []string
	t0 := time.Now()
	shipment := body["shipment"].(map[string]any)
	for i := range c.trackShipments {
		ref := fmt.Sprintf("LOAD-%d", i)
		shipment["orderNo"] = ref
		refs = append(refs, ref)
		var ans []httpapi.ShippingOrderAnswer
		if err := e.call("POST", "/shippingapi/api/v2/shipping/order", gw.AccessToken, body, http.StatusOK, &ans); err != nil {
			return err
		}
		for _, p := range ans[0].Parcels {
			numbers = append(numbers, p.ParcelNo)
		}
	}
	fmt.Printf("%s track: %d shipments (%d parcels) made in %s; %d clients, %s per run and route\n",
		e.engine, c.trackShipments, len(numbers), time.Since(t0).Round(time.Millisecond), c.clients, c.duration)
	if e.engine == "postgres" {
		// Autovacuum analyzes tables this much bigger within a minute;
		// without it the planner sizes the new tables by their first rows
		// and hash-joins every shipment into a number lookup. SQLite is
		// measured as it runs: parcelgate runs no ANALYZE there.
		raw, err := sql.Open("pgx", e.dsn)
		if err != nil {
			return err
		}
		for _, table := range []string{"shipments", "parcels"} {
			if err == nil {
				_, err = raw.ExecContext(ctx, "ANALYZE "+table)
			}
		}
		raw.Close()
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
	}
	tok, err := e.ecomToken(merchantBID, parcelgate.RoleMerchant)
	if err != nil {
		return err
	}
	routes := []struct {
		name string
		keys []string
	}{{"trackingnumber", numbers}, {"senderreference", refs}, {"find", refs}}
	for run := range c.repeat {
		for _, rt := range routes {
			lat, err := getLoadLatencies(e, tok, c.clients, c.duration, func(w, n int) string {
				return "/tracking/7/shipments/" + rt.name + "/" + rt.keys[(w*7919+n)%len(rt.keys)]
			})
			if err != nil {
				return err
			}
			fmt.Printf("  run %d %-15s %.0f lookups/s, p50 %s, p99 %s (%d lookups), %s\n", run+1, rt.name, float64(len(lat))/c.duration.Seconds(), ms(lat.quantile(0.5)), ms(lat.quantile(0.99)), len(lat), loadAverage())
		}
	}
	return nil
}

func decodeJSON(resp *http.Response, out any) error {
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %.300s", resp.Request.URL.Path, resp.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// getLoadLatencies runs clients workers for d, each GETting path(worker,
// n) with bearer, and returns the latencies of the answered requests; any
// status but 200 is an error.
func getLoadLatencies(e *env, bearer string, clients int, d time.Duration, path func(worker, n int) string) (latencies, error) {
	return runLoad(clients, d, func(w, n int) *http.Request {
		req, _ := http.NewRequest("GET", e.url+path(w, n), nil)
		req.Header.Set("Authorization", "Bearer "+bearer)
		return req
	})
}
