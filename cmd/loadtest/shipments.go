package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/parcelgate/parcelgate"
)

// Dropshipping's organizations: a retailer with catalog DROP, and the
// supplier whose shipments are polled.
const (
	dropRetailerBID = "1234567-1"
	dropSupplierBID = "7654321-2"
)

// shipmentsMode measures a supplier's shipment polling (decisions §34):
// -shipments retailer orders from the supplier's dropshipping catalog make
// as many shipments, then -c clients poll GET /ecommerce/v3/shipments for
// -d each way: from the newest updateDate (the steady poll: nothing new),
// from the middle (a page of 20 of half the shipments), and without from
// (the first page of all): req/s, p50 and p99 of each.
func shipmentsMode(ctx context.Context, c config, e *env) error {
	for _, bid := range []string{dropRetailerBID, dropSupplierBID} {
		if err := e.organization(bid); err != nil {
			return err
		}
	}
	if err := e.catalog(dropRetailerBID, "DROP", parcelgate.CatalogDropship, dropSupplierBID); err != nil {
		return err
	}
	stok, err := e.ecomToken(dropSupplierBID, parcelgate.RoleSupplier)
	if err != nil {
		return err
	}
	rtok, err := e.ecomToken(dropRetailerBID, parcelgate.RoleRetailer)
	if err != nil {
		return err
	}
	item := []any{map[string]any{
		"product":  map[string]any{"externalId": dropSupplierBID + "-S1", "descriptions": map[string]any{"en": map[string]any{"name": "S1"}}},
		"balances": []any{map[string]any{"retailerId": dropRetailerBID, "catalogExternalId": "DROP", "quantity": 1_000_000_000, "wholesalePrice": json.Number("2.50"), "currency": "EUR"}},
	}}
	if err := e.call("PUT", "/ecommerce/v3/inventory", stok, item, http.StatusOK, nil); err != nil {
		return err
	}
	n := c.shipments
	t0 := time.Now()
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				body, _ := json.Marshal(map[string]any{
					"externalId": fmt.Sprintf("%s-D%d", dropRetailerBID, i),
					"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
						"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
					"serviceCode": "2104",
					"rows":        []any{map[string]any{"externalProductId": dropSupplierBID + "-S1", "externalWarehouseId": "DROP", "quantity": 1}},
				})
				if err := e.call("PUT", "/ecommerce/v3/order", rtok, rawJSON(body), http.StatusOK, nil); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Printf("%s shipments: %d retailer orders, one shipment each, made in %s\n", e.engine, n, time.Since(t0).Round(time.Millisecond))
	// The stamps to poll from: the newest and the middle one.
	var page struct {
		Content []parcelgate.DropshipShipment
		Page    struct{ TotalElements int64 }
	}
	if err := e.call("GET", fmt.Sprintf("/ecommerce/v3/shipments?size=1&page=%d", n-1), stok, nil, http.StatusOK, &page); err != nil {
		return err
	}
	if page.Page.TotalElements != int64(n) || len(page.Content) != 1 {
		return fmt.Errorf("the supplier has %d shipments, want %d", page.Page.TotalElements, n)
	}
	newest := page.Content[0].Metadata.UpdateDate
	if err := e.call("GET", fmt.Sprintf("/ecommerce/v3/shipments?size=1&page=%d", n/2-1), stok, nil, http.StatusOK, &page); err != nil {
		return err
	}
	middle := page.Content[0].Metadata.UpdateDate
	if _, err := e.caughtUp(); err != nil {
		return err
	}
	stamp := func(t time.Time) string { return url.QueryEscape(t.Format(time.RFC3339Nano)) }
	polls := []struct{ name, path string }{
		{"from the newest (nothing new)", "/ecommerce/v3/shipments?from=" + stamp(newest)},
		{fmt.Sprintf("from the middle (%d newer, page of 20)", n-n/2), "/ecommerce/v3/shipments?from=" + stamp(middle)},
		{fmt.Sprintf("without from (all %d, page of 20)", n), "/ecommerce/v3/shipments"},
		{"status=Created, from the middle", "/ecommerce/v3/shipments?status=Created&from=" + stamp(middle)},
	}
	bearers := make([]string, c.conns)
	for i := range bearers {
		bearers[i] = stok
	}
	for _, p := range polls {
		if _, err := postLoad(e, "GET", p.path, bearers, c.conns, time.Second, func(int, int) []byte { return nil }); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		for run := range c.repeat {
			var lat latencies
			profile := ""
			if run == 0 && c.cpuProfile != "" {
				profile = fmt.Sprintf("%s.shipments.%s.%d", c.cpuProfile, e.engine, len(p.path))
			}
			err := profileDuring(profile, func() error {
				var err error
				lat, err = postLoad(e, "GET", p.path, bearers, c.conns, c.duration, func(int, int) []byte { return nil })
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", p.path, err)
			}
			fmt.Printf("  %s, run %d: %.0f req/s over %d connections, p50 %s, p99 %s; %s\n", p.name, run+1, float64(len(lat))/c.duration.Seconds(), c.conns,
				ms(lat.quantile(0.50)), ms(lat.quantile(0.99)), loadAverage())
		}
	}
	return nil
}
