package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/pickup"
)

// pickupSearches are the pickup mode's searches of the national data set,
// each a body for worker w's n-th request: the provider's search modes,
// spread over the country's postal codes and places so no answer is the
// same twice in a row.
var pickupSearches = []struct {
	name string
	body func(n int) string
}{
	{"postcode", func(n int) string {
		pts := pickup.AllPickupPoints()
		return fmt.Sprintf(`{"searchCriteria":{"location":{"postcode":%q,"countryCode":"FI"},"serviceFilters":{}},"limit":10}`, pts[(n*7919)%len(pts)].PostalCode)
	}},
	{"coordinates+radius", func(n int) string {
		p := pickup.AllPickupPoints()[(n*7919)%len(pickup.AllPickupPoints())]
		return fmt.Sprintf(`{"searchCriteria":{"location":{"coordinates":{"latitude":%.4f,"longitude":%.4f},"radius":{"unit":"m","value":5000}}},"limit":20}`, p.Latitude, p.Longitude)
	}},
	{"rectangle", func(n int) string {
		p := pickup.AllPickupPoints()[(n*7919)%len(pickup.AllPickupPoints())]
		return fmt.Sprintf(`{"searchCriteria":{"rectangle":{"swLatitude":%.4f,"swLongitude":%.4f,"neLatitude":%.4f,"neLongitude":%.4f}},"limit":20}`, p.Latitude-0.05, p.Longitude-0.1, p.Latitude+0.05, p.Longitude+0.1)
	}},
	{"freeText", func(n int) string {
		words := []string{"Pakettiautomaatti Tampere", "Kauppakatu", "Posti Oulu", "Market Turku", "Asematie Lahti", "Helsingfors"}
		return fmt.Sprintf(`{"searchCriteria":{"freeText":%q},"limit":10}`, words[n%len(words)])
	}},
	{"lockers+filters+extensions", func(n int) string {
		pts := pickup.AllPickupPoints()
		return fmt.Sprintf(`{"searchCriteria":{"parcelLocker":true,"location":{"postcode":%q},"serviceFilters":{"product":{"code":"2103"},"outdoorLocker":false}},"limit":10,`+
			`"extensions":{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"postcode":"00100","countryCode":"FI"},"product":{"code":"2103"}},"averageLockerOccupancyRate":true}}`, pts[(n*7919)%len(pts)].PostalCode)
	}},
}

// pickupMode measures the gateway's Pick-up Point API over the national
// data set: each search mode from -clients clients for -duration (p50,
// p99), then a walk of the whole country listing by its paging token.
func pickupMode(ctx context.Context, c config, e *env) error {
	tok, err := e.gatewayToken(merchantBID)
	if err != nil {
		return err
	}
	toks := make([]string, c.clients)
	for i := range toks {
		toks[i] = tok
	}
	fmt.Printf("%s pickup: %d points, %d clients, %s per search mode\n", e.engine, len(pickup.AllPickupPoints()), c.clients, c.duration)
	for _, s := range pickupSearches {
		for run := range c.repeat {
			lat, err := postLoad(e, "POST", "/2025-04/pickuppoints", toks, c.clients, c.duration, func(w, n int) []byte {
				return []byte(s.body(w*100003 + n))
			})
			if err != nil {
				return err
			}
			fmt.Printf("  %-27s run %d: %.0f searches/s, p50 %s, p99 %s (%d), %s\n", s.name, run+1, float64(len(lat))/c.duration.Seconds(), ms(lat.quantile(0.5)), ms(lat.quantile(0.99)), len(lat), loadAverage())
		}
	}
	// The whole listing, page by page, as one client pages it.
	var pages latencies
	token := ""
	for {
		path := "/2025-04/pickuppoints/FI"
		if token != "" {
			path += "?pagingContinuationToken=" + url.QueryEscape(token)
		}
		var page httpapi.PickupPointsAnswer
		t0 := time.Now()
		if err := e.call("GET", path, tok, nil, http.StatusOK, &page); err != nil {
			return err
		}
		pages = append(pages, time.Since(t0))
		if token = page.PagingContinuationToken; token == "" {
			break
		}
	}
	var total float64
	for _, d := range pages {
		total += d.Seconds()
	}
	fmt.Printf("  country listing: %d pages of %d, whole walk %.0f ms, p50 page %s, slowest %s\n", len(pages), parcelgate.PickupPageSize, total*1000, ms(pages.quantile(0.5)), ms(pages.quantile(1)))
	return nil
}

// gatewayToken returns a gateway token of a new gateway client of
// businessID (created if needed).
func (e *env) gatewayToken(businessID string) (string, error) {
	if err := e.organization(businessID); err != nil && !strings.Contains(err.Error(), "409") {
		return "", err
	}
	var cl struct{ ClientID, ClientSecret string }
	if err := e.admin("POST", "/admin/v1/gateway-clients", map[string]any{"environment": "production", "businessId": businessID}, &cl); err != nil {
		return "", err
	}
	resp, err := e.client.PostForm(e.url+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {cl.ClientID}, "client_secret": {cl.ClientSecret}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var tok httpapi.GatewayToken
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST /api/v1/token: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}
