package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// BenchmarkResetAndRestore measures the sandbox's reset and restore of a
// tenant holding 10,000 objects: 5,000 products, each with a balance.
// docs/performance.md has the figures.
//
//	go test ./httpapi -run '^$' -bench ResetAndRestore -benchtime 5x
func BenchmarkResetAndRestore(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e := apitest.New(b, engine)
			e.Catalog(parcelgate.Test, retailerR, "SHOP", parcelgate.CatalogDropship, supplierA)
			tok := e.EcomToken(parcelgate.Test, supplierA, parcelgate.RoleSupplier)
			for chunk := range 5 {
				var body []any
				for i := range 1000 {
					p := product(fmt.Sprintf("R-%d-%d", chunk, i))
					body = append(body, map[string]any{"product": p, "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": i, "wholesalePrice": 9.9, "currency": "EUR"}}})
				}
				e.Do(apitest.Request{Method: "PUT", Path: "/ecommerce/v3/inventory", Body: body, Bearer: tok}).Expect(http.StatusOK)
			}
			var snap parcelgate.Snapshot
			e.Admin("POST", "/admin/v1/organizations/"+supplierA+"/snapshots?environment=test", map[string]any{"name": "full"}).Expect(http.StatusCreated).JSON(&snap)
			if snap.Objects != 10000 {
				b.Fatalf("snapshot of %d objects", snap.Objects)
			}
			var resetMs, restoreMs float64
			for b.Loop() {
				var res parcelgate.ResetResult
				e.Admin("POST", "/admin/v1/organizations/"+supplierA+"/reset?environment=test", nil).Expect(http.StatusOK).JSON(&res)
				var rr parcelgate.RestoreResult
				e.Admin("POST", "/admin/v1/organizations/"+supplierA+"/snapshots/full/restore?environment=test", nil).Expect(http.StatusOK).JSON(&rr)
				if rr.Restored["balances"] != 5000 {
					b.Fatalf("restored %+v", rr.Restored)
				}
				resetMs += res.ElapsedMs
				restoreMs += rr.ElapsedMs
			}
			b.ReportMetric(resetMs/float64(b.N), "reset-ms")
			b.ReportMetric(restoreMs/float64(b.N), "restore-ms")
		})
	}
}

// BenchmarkJournalCost measures what the request journal adds to a call:
// the same authenticated GET with the journal on and off. The entries are
// written by a background writer; only capture and queueing are on the
// request path.
//
//	go test ./httpapi -run '^$' -bench JournalCost -benchtime 2000x
func BenchmarkJournalCost(b *testing.B) {
	for _, engine := range testdb.Engines {
		for _, on := range []bool{false, true} {
			name := engine + "/journal-off"
			if on {
				name = engine + "/journal-on"
			}
			b.Run(name, func(b *testing.B) {
				e := apitest.New(b, engine, func(c *httpapi.Config) { c.NoJournal = !on })
				tok := e.EcomToken(parcelgate.Test, supplierA, parcelgate.RoleSupplier)
				client := e.HTTP.Client()
				for b.Loop() {
					benchCall(b, client, "GET", e.URL+"/ecommerce/v3/inventory", tok, nil)
				}
			})
		}
	}
}
