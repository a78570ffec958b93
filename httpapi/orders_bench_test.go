package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// orderBench is a merchant with plenty of stock of P1 and P2, and a body
// maker for 2-row orders with fresh externalIds.
func orderBench(b *testing.B, engine string) (*apitest.Env, *merchant, func() []byte) {
	e := apitest.New(b, engine)
	m := &merchant{Env: e, env: parcelgate.Production, bid: merchantBID}
	e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": "production", "businessId": merchantBID, "name": "Shop"}).Expect(http.StatusCreated)
	e.Catalog(parcelgate.Production, merchantBID, "WH1", parcelgate.CatalogWarehouse, merchantBID)
	m.token = e.EcomToken(parcelgate.Production, merchantBID, parcelgate.RoleMerchant)
	m.stock("P1", "WH1", 1_000_000_000, "2.50")
	m.stock("P2", "WH1", 1_000_000_000, "1.25")
	var n atomic.Int64
	next := func() []byte {
		body := m.orderBody(fmt.Sprintf("B%d", n.Add(1)), 1)
		addRow(body, merchantBID+"-P2", 2)
		raw, _ := json.Marshal(body)
		return raw
	}
	return e, m, next
}

func putOrder(b *testing.B, e *apitest.Env, token string, body []byte) {
	req, _ := http.NewRequest("PUT", e.URL+"/ecommerce/v3/order", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.HTTP.Client().Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
	}
}

// BenchmarkOrderCreate is PUT /ecommerce/v3/order end to end with 2-row
// orders, one client: parsing, the re-send lookup, allocation of both rows
// and the stamped write.
func BenchmarkOrderCreate(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e, m, next := orderBench(b, engine)
			b.ReportAllocs()
			for b.Loop() {
				putOrder(b, e, m.token, next())
			}
		})
	}
}

// BenchmarkOrderCreateContention is 32 clients at once ordering the same
// two products: every order's allocation updates the same two balance
// rows.
func BenchmarkOrderCreateContention(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e, m, next := orderBench(b, engine)
			b.SetParallelism(max(1, 32/testingProcs()))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					putOrder(b, e, m.token, next())
				}
			})
		})
	}
}

// testingProcs is GOMAXPROCS, which RunParallel multiplies the
// parallelism by.
func testingProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkOrderGet is GET /ecommerce/v3/orders/{id} through the server's
// handler, no network: the middleware, the token check, the store's read
// and the answer, in parallel as requests are. cmd/loadtest's read mode
// measures the same over loopback against a bare handler.
func BenchmarkOrderGet(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e, m, next := orderBench(b, engine)
			putOrder(b, e, m.token, next())
			path := "/ecommerce/v3/orders/" + merchantBID + "-B1"
			h := e.HTTP.Config.Handler
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("GET", path, nil)
					req.Header.Set("Authorization", "Bearer "+m.token)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Errorf("status %d", w.Code)
						return
					}
				}
			})
		})
	}
}
