package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// listMode measures the list pages an integrator polls: a supplier's
// GET /inventory, a retailer's catalog page and its catalogs, and a
// merchant's orders, each a page of -list-size entries over -c
// connections, c.repeat runs of c.duration each.
func listMode(ctx context.Context, c config, e *env) error {
	const products, orders = 1000, 300
	mtok, err := e.merchant(merchantBID, products)
	if err != nil {
		return err
	}
	stok, err := e.ecomToken(merchantBID, parcelgate.RoleSupplier)
	if err != nil {
		return err
	}
	rtok, err := e.ecomToken(merchantBID, parcelgate.RoleRetailer)
	if err != nil {
		return err
	}
	for i := range orders {
		if err := e.call("PUT", "/ecommerce/v3/order", mtok, rawJSON(orderBody(merchantBID, fmt.Sprintf("LIST%d", i), 1+i%products)), http.StatusOK, nil); err != nil {
			return err
		}
	}
	if _, err := e.caughtUp(); err != nil {
		return err
	}
	size := c.listSize
	pages := []struct{ name, path, tok string }{
		{"supplier's products", fmt.Sprintf("/ecommerce/v3/inventory?size=%d", size), stok},
		{"retailer's catalog page", fmt.Sprintf("/ecommerce/v3/catalogs/WH1/balances?size=%d", size), rtok},
		{"retailer's catalogs", "/ecommerce/v3/catalogs", rtok},
		{"merchant's orders", fmt.Sprintf("/ecommerce/v3/orders?size=%d", size), mtok},
	}
	fmt.Printf("%s list: %d products, %d orders, pages of %d, %d connections, %s per run\n", e.engine, products, orders, size, c.conns, c.duration)
	for _, p := range pages {
		if err := e.call("GET", p.path, p.tok, nil, http.StatusOK, nil); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		header := http.Header{"Authorization": {"Bearer " + p.tok}}
		goGetLoad(e.url+p.path, header, c.conns, time.Second)
		for run := range c.repeat {
			served := e.replicaReads()
			p0, r0 := e.backendCPU()
			cpu0 := processCPU()
			var rps float64
			profile := ""
			if run == 0 && c.cpuProfile != "" {
				profile = fmt.Sprintf("%s.list.%s.%d", c.cpuProfile, e.engine, len(p.path))
			}
			var tool string
			err := profileDuring(profile, func() error {
				var err error
				rps, tool, err = getLoad(ctx, e.url+p.path, header, c.conns, c.duration, c.useWrk)
				return err
			})
			if err != nil {
				return fmt.Errorf("%s: %w", p.path, err)
			}
			cpu1 := processCPU()
			p1, r1 := e.backendCPU()
			fmt.Printf("  %s, GET %s, run %d (%s): %.0f req/s; CPU per request: this process %.0f µs", p.name, p.path, run+1, tool, rps, perRequest(cpu1-cpu0, rps, c.duration))
			if e.primary != nil {
				fmt.Printf(", database primary %.0f µs, replica %.0f µs, replica reads %d", perRequest(p1-p0, rps, c.duration), perRequest(r1-r0, rps, c.duration), e.replicaReads()-served)
			}
			fmt.Printf("; %s\n", loadAverage())
		}
	}
	return nil
}
