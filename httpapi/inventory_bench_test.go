package httpapi_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// benchBalances is the spec's own example: 207 pages of 2000 (interface §4.4 GET
// rule 1).
const benchBalances = 412638

// BenchmarkCatalogPaging pages a retailer through a catalog of 412,638
// balances over HTTP (decisions §8): the first page, the last page by number
// (boundary cached, as for a client looping page=0..206, and cold, as on
// an instance that never served page 205), the last page by the next
// link's cursor, and the whole walk with its peak heap.
func BenchmarkCatalogPaging(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			clock := new(parcelgate.OffsetClock)
			db, dsn := testdb.OpenDSN(b, engine, clock)
			e := apitest.NewWithDB(b, db, clock)
			e.Catalog(parcelgate.Production, retailerR, "BIG", parcelgate.CatalogDropship, supplierA)
			fillCatalog(b, engine, dsn)
			tok := e.EcomToken(parcelgate.Production, retailerR, parcelgate.RoleRetailer)
			client := e.HTTP.Client()
			get := func(path string) []byte {
				req, _ := http.NewRequest("GET", e.URL+path, nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("%s: %d %s", path, resp.StatusCode, body)
				}
				return body
			}
			const base = "/ecommerce/v3/catalogs/BIG/balances"
			var last struct {
				Content []json.RawMessage
				Page    struct{ TotalPages int }
				Links   []struct{ Rel, Href string }
			}
			json.Unmarshal(get(base+"?page=205"), &last)
			if last.Page.TotalPages != 207 {
				b.Fatalf("%d pages", last.Page.TotalPages)
			}
			var cursor string
			for _, l := range last.Links {
				if l.Rel == "next" {
					u, _ := url.Parse(l.Href)
					cursor = u.RequestURI()
				}
			}
			b.Run("first-page", func(b *testing.B) {
				for b.Loop() {
					get(base + "?page=0")
				}
			})
			b.Run("last-page-by-number", func(b *testing.B) {
				for b.Loop() {
					get(base + "?page=206")
				}
			})
			b.Run("last-page-by-number-cold", func(b *testing.B) {
				// A modifiedFromDate before every stamp keeps all rows but
				// makes each request a list no boundary is cached for.
				n := 0
				for b.Loop() {
					n++
					get(base + "?page=206&modifiedFromDate=" + url.QueryEscape(time.Unix(0, int64(n)*1000).UTC().Format(time.RFC3339Nano)))
				}
			})
			b.Run("last-page-by-cursor", func(b *testing.B) {
				for b.Loop() {
					get(cursor)
				}
			})
			b.Run("walk-207-pages", func(b *testing.B) {
				var peak uint64
				var ms runtime.MemStats
				for b.Loop() {
					for p := range 207 {
						get(fmt.Sprintf("%s?page=%d", base, p))
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
					}
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			})
		})
	}
}

// fillCatalog writes benchBalances products of supplier A, each published
// to retailer R's catalog BIG, with two set-based statements.
func fillCatalog(b testing.TB, engine, dsn string) {
	b.Helper()
	driver := "sqlite"
	if engine == "postgres" {
		driver = "pgx"
	} else {
		dsn = strings.TrimPrefix(dsn, "sqlite:")
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	now := time.Now().UnixMicro()
	stmts := []string{
		fmt.Sprintf(`INSERT INTO products (environment, supplier_org_id, external_id, ean_code, status, document, deleted_at, created_at, modified_at)
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
			SELECT 'production', o.id, 'B' || n.i, '64' || n.i, 'ACTIVE', '{"externalId":"B' || n.i || '","eanCode":"64' || n.i || '","descriptions":{"en":{"name":"Bench product ' || n.i || '"}}}', 0, %d, %d
			FROM n, organizations o WHERE o.environment = 'production' AND o.business_id = '%s'`, benchBalances, now, now, supplierA),
		fmt.Sprintf(`INSERT INTO balances (product_id, catalog_id, supplier_org_id, retailer_org_id, product_external_id, quantity, allocated, wholesale_price, currency, eos_at, modified_at)
			SELECT p.id, c.id, p.supplier_org_id, c.retailer_org_id, p.external_id, p.id %% 100, 0, '9.90', 'EUR', 0, %d + p.id
			FROM products p, catalogs c WHERE c.external_id = 'BIG'`, now),
	}
	if engine == "postgres" {
		stmts = append(stmts, `VACUUM ANALYZE products`, `VACUUM ANALYZE balances`)
	} else {
		stmts = append(stmts, `ANALYZE`)
	}
	for _, s := range stmts {
		if _, err := raw.Exec(s); err != nil {
			b.Fatalf("fill: %v\n%s", err, s)
		}
	}
}

// benchCall makes one call of a benchmark straight over HTTP, as a JSON
// body when body is not nil, and fails b unless it answers 200. It does
// not check the answer against the OpenAPI document as apitest does: that
// check would weigh more than the call measured.
func benchCall(b *testing.B, client *http.Client, method, url, tok string, body []byte) {
	b.Helper()
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("%d", resp.StatusCode)
	}
}

// BenchmarkInventoryBulkPut is one PUT /inventory of 2000 products, each
// with a balance, over HTTP: creates on the first request, full
// replacements after.
func BenchmarkInventoryBulkPut(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e := apitest.New(b, engine)
			e.Catalog(parcelgate.Production, retailerR, "SHOP", parcelgate.CatalogDropship, supplierA)
			tok := e.EcomToken(parcelgate.Production, supplierA, parcelgate.RoleSupplier)
			var body []any
			for i := range 2000 {
				p := product(fmt.Sprintf("BULK-%d", i))
				p["measurements"] = map[string]any{"weight": 1.5, "length": 20, "width": 10, "height": 5}
				body = append(body, map[string]any{"product": p, "balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": i, "wholesalePrice": 9.9, "currency": "EUR"}}})
			}
			raw, _ := json.Marshal(body)
			client := e.HTTP.Client()
			for b.Loop() {
				benchCall(b, client, "PUT", e.URL+"/ecommerce/v3/inventory", tok, raw)
			}
		})
	}
}
