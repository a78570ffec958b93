package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// bulkMode loads a catalog of c.balances products, each with one balance,
// as a supplier publishing its catalog does: PUT /inventory of 2000
// entries at a time into a catalog that grows with each request (or, with
// balancesOnly, PUT /inventory/balances over products already stored). It
// prints each request's time at every tenth of the load, and the whole,
// then sends the first requests again, replacing what they wrote, into the
// full catalog.
func bulkMode(ctx context.Context, c config, e *env, balancesOnly bool) error {
	if err := e.bigCatalog(); err != nil {
		return err
	}
	tok, err := e.ecomToken(supplierA, parcelgate.RoleSupplier)
	if err != nil {
		return err
	}
	const batch = parcelgate.DefaultPageSize
	requests := (c.balances + batch - 1) / batch
	name := "bulk"
	path := "/ecommerce/v3/inventory"
	if balancesOnly {
		name, path = "bulk-balances", "/ecommerce/v3/inventory/balances"
		// The products come first, without balances, in the same batches.
		for r := range requests {
			var items []any
			for i := r * batch; i < min((r+1)*batch, c.balances); i++ {
				items = append(items, map[string]any{"product": bulkProduct(i)})
			}
			if err := e.call("PUT", "/ecommerce/v3/inventory", tok, items, http.StatusOK, nil); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%s %s: %d products with a balance each, %d requests of %d, %s\n", e.engine, name, c.balances, requests, batch, loadAverage())
	start := time.Now()
	var slowest time.Duration
	report := max(1, requests/10)
	body := func(r int) []any {
		var items []any
		for i := r * batch; i < min((r+1)*batch, c.balances); i++ {
			bal := map[string]any{"retailerId": retailerR, "catalogExternalId": "BIG", "quantity": i % 100, "wholesalePrice": json.Number("9.90"), "currency": "EUR"}
			if balancesOnly {
				bal["productExternalId"] = fmt.Sprintf("B%d", i)
				items = append(items, bal)
			} else {
				items = append(items, map[string]any{"product": bulkProduct(i), "balances": []any{bal}})
			}
		}
		return items
	}
	for r := range requests {
		t := time.Now()
		if err := e.call("PUT", path, tok, body(r), http.StatusOK, nil); err != nil {
			return fmt.Errorf("request %d (%d stored): %w", r, r*batch, err)
		}
		d := time.Since(t)
		slowest = max(slowest, d)
		if r%report == 0 || r == requests-1 {
			fmt.Printf("  request %d at %d stored: %s\n", r, r*batch, ms(d))
		}
	}
	fmt.Printf("  %d products in %s (slowest request %s), %s\n", c.balances, time.Since(start).Round(10*time.Millisecond), ms(slowest), loadAverage())
	// A supplier publishes its catalog again: the same entries, now
	// replacing what is stored, into the full catalog.
	for r := range min(3, requests) {
		t := time.Now()
		if err := e.call("PUT", path, tok, body(r), http.StatusOK, nil); err != nil {
			return fmt.Errorf("again, request %d: %w", r, err)
		}
		fmt.Printf("  again, request %d, replacing %d entries: %s\n", r, len(body(r)), ms(time.Since(t)))
	}
	return nil
}

// bulkProduct is product i of the bulk load.
func bulkProduct(i int) map[string]any {
	return map[string]any{"externalId": fmt.Sprintf("B%d", i), "eanCode": fmt.Sprintf("64%d", i), "descriptions": map[string]any{"en": map[string]any{"name": fmt.Sprintf("Bulk product %d", i)}}}
}
