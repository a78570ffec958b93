package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §61: a page of GET /inventory larger than the answer's send
// buffer (256 KiB) is written as the store reads it, a chunk of 500
// products at a time, and is the same answer, plain and gzip-compressed
// (interface §4.4 GET rule 4): each product as small pages answer it,
// which are written whole, in the same order.
func TestInventoryPageWrittenAsRead(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		long := strings.Repeat("A line of description that makes the product's document long. ", 20)
		const n = 600 // more than a chunk; about 1.5 KB each, so past several sends
		for first := 0; first < n; first += 100 {
			var body []any
			for i := first; i < first+100; i++ {
				body = append(body, map[string]any{"product": product(fmt.Sprintf("P-%03d", i), "description", long),
					"balances": []any{map[string]any{"retailerId": retailerR, "catalogExternalId": "SHOP", "quantity": i}}})
			}
			e.put(e.supplier, body).Expect(200)
		}
		type rawPage struct {
			Content []json.RawMessage `json:"content"`
			Page    struct {
				TotalElements int `json:"totalElements"`
			} `json:"page"`
		}
		plain := e.get(e.supplier, "/ecommerce/v3/inventory").Expect(200)
		if len(plain.Body) < 3*256<<10 {
			t.Fatalf("the page is %d bytes: too small to be sent in parts", len(plain.Body))
		}
		zipped := e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory", Bearer: e.supplier, Header: http.Header{"Accept-Encoding": {"gzip"}}}).Expect(200)
		if zipped.Header.Get("Content-Encoding") != "gzip" || !bytes.Equal(zipped.Body, plain.Body) {
			t.Fatalf("gzip: encoding %q, %d bytes against %d plain", zipped.Header.Get("Content-Encoding"), len(zipped.Body), len(plain.Body))
		}
		var whole rawPage
		plain.JSON(&whole)
		var parts []json.RawMessage
		for page := 0; page*50 < n; page++ {
			var p rawPage
			e.get(e.supplier, fmt.Sprintf("/ecommerce/v3/inventory?size=50&page=%d", page)).Expect(200).JSON(&p)
			parts = append(parts, p.Content...)
		}
		if len(whole.Content) != n || whole.Page.TotalElements != n || len(parts) != n {
			t.Fatalf("%d items (total %d), %d in small pages", len(whole.Content), whole.Page.TotalElements, len(parts))
		}
		for i := range parts {
			if !bytes.Equal(whole.Content[i], parts[i]) {
				t.Fatalf("item %d:\nwhole %s\npart  %s", i, whole.Content[i], parts[i])
			}
		}
	})
}
