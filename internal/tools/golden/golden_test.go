package golden

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/inproc"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files from this run's answers")
	// seed is the seed of crypto/rand in the run. The files are written
	// with the default; another seed proves the normalizer takes out
	// every value made at random (only list orders that tie on a random
	// ID may then differ).
	seed = flag.Uint64("seed", 38, "seed of the run's crypto/rand")
)

const adminToken = "golden-admin-token"

// TestGolden sends the recorded requests to a server on each engine and
// compares the answers with testdata/<engine>.golden.
func TestGolden(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			got := run(t, engine)
			file := filepath.Join("testdata", engine+".golden")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (write it with go test ./internal/tools/golden -update)", err)
			}
			if !bytes.Equal(got, want) {
				// The whole answer, for diff(1).
				out := filepath.Join(os.TempDir(), "parcelgate-golden-"+engine+".got")
				os.WriteFile(out, got, 0o644)
				t.Errorf("answers differ from %s (this run's are in %s; go test ./internal/tools/golden -update rewrites the file once the change is meant):\n%s", file, out, firstDiffs(want, got, 3))
			}
		})
	}
}

// run starts the server on engine, sends the script and returns the file.
func run(t *testing.T, engine string) []byte {
	clock := &stepClock{now: clockStart}
	// The database first, on the real random source: its schema's name
	// must differ from that of any other run of this test at the same
	// time. Without PostgreSQL the run is skipped (failed under CI).
	db, _ := testdb.OpenDSN(t, engine, clock)
	// From here on crypto/rand is seeded: the demo seed and every call
	// draw the same values on every run.
	cryptotest.SetGlobalRandom(t, *seed)
	log := slog.New(slog.DiscardHandler)
	// The offset clock is handed to the front ends only, so they offer the
	// sandbox's clock as serve --sandbox does; the store runs on the fixed
	// clock, which cannot be moved.
	offsets := new(parcelgate.OffsetClock)
	s, err := inproc.Start(context.Background(), inproc.Config{DB: db, Clock: clock, Seed: true, Log: log,
		HTTP: httpapi.Config{AdminToken: adminToken, OffsetClock: offsets, Sandbox: true, PublicURL: "http://parcelgate.test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.Handler.Mount(console.Prefix, console.New(wiring.Console(s.DB), console.Config{
		AdminToken: adminToken, AdminGuard: s.Handler.AdminGuard(), Clock: clock, OffsetClock: offsets, Sandbox: true, SessionNow: clock.wall,
		ManualFulfillment: true, PollInterval: time.Hour, Log: log,
	}))
	r := &recorder{t: t, base: s.URL, clock: clock, seed: *seed, norm: newNormalizer(), client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	r.norm.learn("server", s.URL)
	r.norm.learn("server", strings.TrimPrefix(s.URL, "http://"))
	script(r)
	return r.out.Bytes()
}

// firstDiffs shows the first n differing exchanges of the two files, with
// the lines around each difference.
func firstDiffs(want, got []byte, n int) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < n; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		// The exchange the line belongs to.
		head := ""
		for j := min(i, len(w)-1); j >= 0; j-- {
			if strings.HasPrefix(w[j], "### ") {
				head = w[j]
				break
			}
		}
		fmt.Fprintf(&b, "--- line %d, in %s\n", i+1, head)
		for j := max(0, i-2); j < min(i+4, max(len(w), len(g))); j++ {
			if j < len(w) {
				fmt.Fprintf(&b, "  want %s\n", w[j])
			}
			if j < len(g) {
				fmt.Fprintf(&b, "  got  %s\n", g[j])
			}
		}
		shown++
		// Skip to the next exchange.
		for i+1 < len(w) && i+1 < len(g) && !strings.HasPrefix(w[i+1], "### ") {
			i++
		}
	}
	if len(w) != len(g) {
		fmt.Fprintf(&b, "(want %d lines, got %d)\n", len(w), len(g))
	}
	return b.String()
}

// script is the recorded set of requests: every surface, in an order that
// builds the data the later calls read. The clock moves one second before
// each call.
func script(r *recorder) {
	prod, test := demo.Tenants[0], demo.Tenants[1]
	admin := bearer(adminToken)

	// Front door, health, documents (not /metrics: its values are the
	// process's).
	r.call("GET", "/", none, nil, "Accept: application/json")
	r.call("GET", "/healthz", none, nil)
	r.call("GET", "/readyz", none, nil)
	r.call("GET", "/nowhere", none, nil)

	// Gateway token (interface §1): both environments, refusals.
	form := func(id, secret string) string {
		return "grant_type=client_credentials&client_id=" + url.QueryEscape(id) + "&client_secret=" + url.QueryEscape(secret)
	}
	gwTok := func(id, secret string) string {
		return r.call("POST", "/api/v1/token", none, rawForm(form(id, secret))).get("access_token")
	}
	gw := bearer(gwTok(prod.ClientID, prod.ClientSecret))
	gwTest := bearer(gwTok(test.ClientID, test.ClientSecret))
	r.call("POST", "/api/v1/token", none, rawForm(form(prod.ClientID, "wrong")))
	r.call("POST", "/api/v1/token", none, rawForm("grant_type=password"))
	r.call("GET", "/2025-04/probe", gw, nil)

	// Ecom tokens: /auth/token (GET and POST), /oauth/token,
	// /tracking/oauth/token; refusals.
	ecomTok := func(u, p string) string {
		return r.call("GET", "/auth/token", basic(u, p), nil).get("access_token")
	}
	ecom := bearer(ecomTok(prod.Username, prod.Password))
	ecomTest := bearer(ecomTok(test.Username, test.Password))
	retailer := bearer(ecomTok(prod.RetailerUsername, prod.RetailerPassword))
	supplier := bearer(ecomTok(prod.SupplierUsername, prod.SupplierPassword))
	r.call("POST", "/auth/token", basic(prod.Username, prod.Password), nil)
	r.call("POST", "/oauth/token", none, rawForm("grant_type=client_credentials&client_id="+prod.Username+"&client_secret="+prod.Password))
	r.call("POST", "/oauth/token", basic(prod.Username, prod.Password), rawForm("grant_type=client_credentials"))
	r.call("POST", "/tracking/oauth/token", basic(prod.Username, prod.Password), nil)
	r.call("GET", "/auth/token", basic(prod.Username, "wrong"), nil)
	r.call("GET", "/ecommerce/v3/probe", ecom, nil)

	// Shipment data and sending codes (interface §4).
	shipment := func(tn, parcel, extra string) string {
		return `{"trackingNumber":"` + tn + `","serviceCode":"2103"` + extra + `,
 "sender":{"name":"Shop Oy","streetAddress":"Katu 1","postalCode":"00100","postOffice":"Helsinki","country":"FI"},
 "receiver":{"name":"Maija Meikäläinen","streetAddress":"Tie 2","postalCode":"33100","postOffice":"Tampere","country":"fi","email":"maija@example.com","telephone":"+358401111111"},
 "parcels":[{"parcelId":"` + parcel + `","packageCode":"M2"}]}`
	}
	r.call("POST", "/2025-04/shipments", gw, shipment("JJFI30000000000000001", "PARCEL000001", ""))
	r.call("POST", "/2025-04/shipments", gw, shipment("JJFI30000000000000001", "PARCEL000001", ""))
	r.call("POST", "/2025-04/shipments", gw, `{"serviceCode":"9999"}`)
	r.call("GET", "/2025-04/shipments/JJFI30000000000000001", gw, nil)
	r.call("GET", "/2025-04/shipments/JJFI39999999999999999", gw, nil)
	sc := r.call("POST", "/2025-04/labelless", gw, `{"searchCriteria":{"trackingNumber":"JJFI30000000000000001"}}`)
	code := sc.get("shipments.0.sendingCode")
	r.call("POST", "/2025-04/labelless", gw, `{"searchCriteria":{"trackingNumber":"JJFI30000000000000001"}}`)
	r.call("POST", "/2025-04/labelless", gw, `{"searchCriteria":{"trackingNumber":"JJFI39999999999999999"},"validation":{"noEdiCheck":true}}`)
	r.call("POST", "/2025-04/labelless", gw, `{"searchCriteria":{}}`)
	r.call("GET", "/2025-04/labelless/JJFI30000000000000001", gw, nil)
	r.call("GET", "/2025-04/labelless/shipment/"+code, gw, nil)
	r.call("GET", "/2025-04/labelless/shipment/ZZZZZZ", gw, nil)
	r.call("POST", "/2025-04/shipments", gwTest, shipment("JJFI40000000000000001", "PARCEL000009", ""))

	// Errand codes, both environments.
	errand := r.call("GET", "/parcel/v1/errandCodes/PARCEL000001", gw, nil)
	r.call("GET", "/parcel/v1/errandCodes/PARCEL000001", gw, nil)
	r.call("GET", "/parcel/v1/errandCodes?id=PARCEL000001,PARCEL000002", gw, nil)
	r.call("GET", "/parcel/v1/errandCodes/NOSUCHPARCEL", gw, nil)
	r.call("GET", "/parcel-uat/v1/errandCodes/PARCEL000009", gwTest, nil)
	r.call("GET", "/parcel-uat/v1/errandCodes/PARCEL000001", gwTest, nil)

	// Pick-up points, releases 2025-04 and 2026-04 (decisions §32, §36).
	for _, v := range []string{"2025-04", "2026-04"} {
		r.call("POST", "/"+v+"/pickuppoints", gw, `{"searchCriteria":{"location":{"postcode":"00100","countryCode":"FI","street":"Mannerheimintie 1","city":"Helsinki"},"serviceFilters":{}},"limit":3}`)
		r.call("POST", "/"+v+"/pickuppoints", gw, `{"searchCriteria":{"location":{"coordinates":{"latitude":60.17,"longitude":24.93},"radius":{"unit":"m","value":450}}},"limit":4}`)
		r.call("POST", "/"+v+"/pickuppoints", gw, `{"searchCriteria":{"freeText":"Tampere"},"limit":2}`)
		r.call("POST", "/"+v+"/pickuppoints", gw, `{"searchCriteria":{"location":{"postcode":"00100"}},"limit":500}`)
		r.call("GET", "/"+v+"/pickuppoints/001003200", gw, nil)
		r.call("GET", "/"+v+"/pickuppoints/FI/001003200", gw, nil)
		r.call("GET", "/"+v+"/pickuppoints/FI/999999999", gw, nil)
	}
	page := r.call("GET", "/2025-04/pickuppoints/FI01", gw, nil)
	if next := page.get("pagingContinuationToken"); next != "" {
		r.call("GET", "/2025-04/pickuppoints/FI01?pagingContinuationToken="+url.QueryEscape(next), gw, nil)
	}
	r.call("GET", "/ecommerce/v3/pickup-points?postalCode=00100&countryCode=FI&limit=3", ecom, nil)
	r.call("GET", "/ecommerce/v3/services", ecom, nil)

	// Estimates (interface §10.2).
	r.call("POST", "/2025-04/estimate", gw, `{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","postcode":"20100"},"destination":{"countryCode":"FI","postcode":"00100"},"product":{"code":"2103"}}}`)
	r.call("POST", "/2026-04/estimate", gw, `{"estimate":{"time":"2026-03-13T10:00:00Z","origin":{"countryCode":"FI","pupCode":"001003200"},"destination":{"countryCode":"FI","postcode":"33100"},"product":{"code":"2103","additionalServicesCodes":[]}}}`)
	r.call("POST", "/2025-04/estimate", gw, `{"estimate":{"origin":{"countryCode":"XX"}}}`)
	r.call("GET", "/estimation/v1/00100/FI/99710/FI/2103?time=2014-10-03T09:00:00.000%2B0300", gw, nil)
	r.call("GET", "/estimation/v1/00100/FI/33100/FI/2102?time=2014-10-03T13:30:00.000%2B0300&logisticPhase=PICKED_UP&service=3106", gw, nil)

	// Shipping API v2 and v1 with labels (interface §3 of the shipping API).
	shipping := func(media, extra string) string {
		return `{"printConfig":{"target1Media":"` + media + `"},
 "shipment":{` + extra + `"senderPartners":[{"id":"POSTI","custNo":"677503"}],
  "sender":{"name":"Demo Shop Oy","address1":"Demokatu 1","zipcode":"00100","city":"Helsinki","country":"FI","phone":"+358401234567","email":"shop@example.com"},
  "receiver":{"name":"Maija Meikäläinen","address1":"Hämeenkatu 5","zipcode":"33100","city":"Tampere","country":"FI","email":"maija@example.com","phone":"+358402222222"},
  "agent":{"quickId":"001003200"},"service":{"id":"PO2103"},
  "parcels":[{"copies":1,"weight":5,"packageCode":"PKT","contents":"Goods","valuePerParcel":true}]}}`
	}
	secret := "X-Gateway-Secret: demo"
	v2 := r.call("POST", "/shippingapi/api/v2/shipping/order?returnFile=true", gw, shipping("laser-a5", `"orderNo":"ORDER-4711","senderReference":"SREF-2","receiverReference":"RREF-2",`), secret)
	parcelNo := v2.get("0.parcels.0.parcelNo")
	for _, media := range []string{"thermo-225", "laser-a4"} {
		a := r.call("POST", "/shippingapi/api/v2/shipping/order", gw, shipping(media, ""), secret)
		if href := a.get("0.prints.0.href"); href != "" {
			if u, err := url.Parse(href); err == nil {
				pdfCall(r, "GET", u.RequestURI(), gw, secret)
			}
		}
	}
	r.call("POST", "/shippingapi/api/v2/shipping/order?returnFile=true", gw, strings.Replace(shipping("laser-a5", ""), "001003200", "999999999", 1), secret)
	r.call("POST", "/shippingapi/api/v2/shipping/order", gw, `{"shipment":{}}`, secret)
	r.call("GET", "/shippingapi/api/v2/shipping/label/NOSUCH", gw, nil, secret)
	v1 := strings.Replace(shipping("laser-a5", ""), `"printConfig"`, `"pdfConfig"`, 1)
	r.call("POST", "/shippingapi/api/v1/shipping/order?returnFile=true", raw(strings.TrimPrefix(gw.header, "Bearer ")), v1)

	// Tracking API v7: every key route, find, event/date, reservations.
	errandCode := errand.get("ErrandCodeResult.0.ErrandCode")
	track := "/tracking/7/shipments/"
	for _, p := range []string{
		"trackingnumber/" + prod.Shipment,
		"trackingnumber/" + parcelNo + "?lastModified=2020-01-01T00:00:00Z&type=PARCEL&order=DESC&start=0&limit=100",
		"trackingnumbers/" + prod.Shipment + "," + parcelNo + ",JJFI30000000000000001",
		"trackingnumber/JJFI39999999999999999",
		"waybillnumber/JJFI30000000000000001",
		"consignmentnumber/JJFI30000000000000001",
		"goodsitemid/PARCEL000001",
		"senderreference/SREF-2",
		"ordernumber/ORDER-4711",
		"receiverreference/RREF-2",
		"errandcode/" + errandCode,
		"phonenumber/0401111111",
		"find?keywords=" + parcelNo + ",JJFI30000000000000001",
		"find/ORDER-4711",
		"find/AB",
		"find?keywords=",
		"event/date?from=2026-03-10T06:00:00Z&to=2026-03-10T08:00:00Z",
		"event/date?from=2026-03-10T06:00:00Z",
	} {
		r.call("GET", track+p, ecom, nil)
	}
	r.call("GET", track+"trackingnumber/"+prod.Shipment, ecom, nil, "Accept: application/vnd.tracking.api.v1+json", "Accept-Language: fi")
	r.call("GET", track+"trackingnumber/"+prod.Shipment, retailer, nil)
	r.call("GET", "/tracking/7/reservations/status?from=2026-03-10T06:00:00Z&to=2026-03-14T00:00:00Z&country=FI&postcode=33100", ecom, nil)
	r.call("GET", "/tracking/7/reservations/status?from=x", ecom, nil)

	// Inventory and balances (interface §4.4), paged.
	inv := func(id, ean string, qty int) string {
		return fmt.Sprintf(`{"product":{"externalId":"%s-%s","eanCode":"%s","descriptions":{"en":{"name":"Product %s"}}},"balances":[{"retailerId":"%s","catalogExternalId":"WH1","quantity":%d,"wholesalePrice":2.50,"currency":"EUR"}]}`,
			prod.BusinessID, id, ean, id, prod.BusinessID, qty)
	}
	r.call("PUT", "/ecommerce/v3/inventory", ecom, "["+inv("G1", "6400000000062", 10)+","+inv("G2", "6400000000079", 5)+","+inv("G3", "6400000000086", 0)+"]")
	r.call("PUT", "/ecommerce/v3/inventory", ecom, `[{"product":{"externalId":"x"}}]`)
	r.call("GET", "/ecommerce/v3/inventory?size=2", ecom, nil)
	pageWalk(r, "/ecommerce/v3/inventory?size=3", ecom)
	r.call("GET", "/ecommerce/v3/inventory/"+prod.BusinessID+"-G1", ecom, nil)
	r.call("GET", "/ecommerce/v3/inventory/"+prod.BusinessID+"-NONE", ecom, nil)
	r.call("GET", "/ecommerce/v3/inventory?productExternalId="+prod.BusinessID+"-G1,"+prod.BusinessID+"-MUG", ecom, nil)
	r.call("PUT", "/ecommerce/v3/inventory/balances", ecom, `[{"productExternalId":"`+prod.BusinessID+`-G2","catalogExternalId":"WH1","quantity":7}]`)
	r.call("PUT", "/ecommerce/v3/inventory/balances", ecom, `[{"productExternalId":"`+prod.BusinessID+`-G2","catalogExternalId":"WH1","quantity":2.5}]`)
	pageWalk(r, "/ecommerce/v3/inventory/balances?size=4", ecom)
	r.call("GET", "/ecommerce/v3/inventory/balances?eanCode=6400000000079", ecom, nil)
	r.call("DELETE", "/ecommerce/v3/inventory/balances?productExternalId="+prod.BusinessID+"-G3&catalogExternalId=WH1", ecom, nil)
	r.call("DELETE", "/ecommerce/v3/inventory", ecom, `[{"product":{"externalId":"`+prod.BusinessID+`-G3","status":"EOS"}}]`)
	r.call("GET", "/ecommerce/v3/inventory/"+prod.BusinessID+"-G3", ecom, nil)

	// Catalogs (interface §4.4 GET), paged.
	r.call("GET", "/ecommerce/v3/catalogs", ecom, nil)
	r.call("GET", "/ecommerce/v3/catalogs", retailer, nil)
	pageWalk(r, "/ecommerce/v3/catalogs/WH1/balances?size=3", ecom)
	r.call("GET", "/ecommerce/v3/catalogs/balances?size=2", ecom, nil)
	pageWalk(r, "/ecommerce/v3/catalogs/WH1/products?size=3", ecom)
	r.call("GET", "/ecommerce/v3/catalogs/"+prod.RetailCatalogID+"/products", retailer, nil)
	r.call("GET", "/ecommerce/v3/catalogs/NOSUCH/products", ecom, nil)

	// Orders (interface §4.3): create, list with filters and paging, read,
	// update, cancel, reopen, preferences, comments.
	order := func(ext, product string, qty int) string {
		e := ""
		if ext != "" {
			e = `"externalId":"` + prod.BusinessID + "-" + ext + `",`
		}
		return `{` + e + `"references":[{"name":"SO","value":"SO-` + ext + `"}],
 "deliveryAddress":{"name":"Maija Meikäläinen","streetAddress":"Kotikatu 2","postalCode":"00200","postOffice":"Helsinki","country":"FI","telephone":"+358401234567","email":"maija@example.com"},
 "serviceCode":"2103","rows":[{"externalProductId":"` + prod.BusinessID + "-" + product + `","externalWarehouseId":"WH1","quantity":` + fmt.Sprint(qty) + `}]}`
	}
	o1 := r.call("PUT", "/ecommerce/v3/order", ecom, order("G-O1", "G1", 1)).get("id")
	r.call("POST", "/ecommerce/v3/orders", ecom, order("G-O2", "MUG", 2))
	r.call("POST", "/ecommerce/v3/orders", ecom, order("", "POSTER", 1))
	r.call("POST", "/ecommerce/v3/orders", ecom, order("G-O3", "LAMP", 1000))
	r.call("POST", "/ecommerce/v3/orders", ecom, order("G-O4", "NOSUCH", 1))
	r.call("POST", "/ecommerce/v3/orders", ecom, `{"rows":[]}`)
	r.call("PUT", "/ecommerce/v3/order", ecom, order("G-O1", "G1", 1))
	pageWalk(r, "/ecommerce/v3/orders?size=2", ecom)
	for _, q := range []string{"refName=SO&refValue=SO-G-O2", "status=Error", "warehouseExternalId=WH1&size=1&page=1", "updatedFrom=2026-03-10T07:00:00Z&updatedTo=2026-03-10T08:00:00Z", "status=Bogus", "size=0"} {
		r.call("GET", "/ecommerce/v3/orders?"+q, ecom, nil)
	}
	r.call("GET", "/ecommerce/v3/orders/"+o1, ecom, nil)
	r.call("GET", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, nil)
	r.call("GET", "/ecommerce/v3/orders/"+o1, retailer, nil)
	r.call("PUT", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, order("G-O2", "MUG", 3))
	r.call("PATCH", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2/preferences", ecom, `{"autoSubmit":false}`)
	cm := r.call("POST", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2/comments", ecom, `{"externalId":"412","author":"shop@example.com","value":"Gift wrap, please","type":"passThrough","createdDate":"2026-03-10T09:00:00+00:00","origin":"WOOCOMMERCE"}`)
	if id := cm.get("id"); id != "" {
		r.call("DELETE", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2/comments/"+id, ecom, nil)
	}
	r.call("GET", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, nil)
	r.call("DELETE", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, nil)
	r.call("POST", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, nil)
	r.call("POST", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O2", ecom, order("G-O2", "MUG", 1))
	r.call("POST", "/admin/v1/orders/status", admin, `{"environment":"production","businessId":"`+prod.BusinessID+`","externalId":"`+prod.BusinessID+`-G-O1","value":"Submitted"}`)
	r.call("POST", "/admin/v1/orders/status", admin, `{"environment":"production","businessId":"`+prod.BusinessID+`","externalId":"`+prod.BusinessID+`-G-O1","value":"Delivered"}`)
	r.call("GET", "/ecommerce/v3/orders/"+prod.BusinessID+"-G-O1", ecom, nil)
	r.call("POST", "/ecommerce/v3/orders", ecomTest, strings.ReplaceAll(order("G-T1", "MUG", 1), "WH1", test.WarehouseID))

	// Dropshipping: the retailer's order split per supplier; the supplier's
	// shipments (decisions §34, §38): poll, PATCH, options, events, PUT
	// split+confirm, delivered, label, note.
	drop := `{"externalId":"` + prod.RetailerID + `-G-D1","serviceCode":"2104","references":[{"name":"SO","value":"WEB-1"}],
 "deliveryAddress":{"name":"Matti Meikäläinen","streetAddress":"Kotikatu 4","postalCode":"00200","postOffice":"Helsinki","country":"FI","email":"matti@example.com"},
 "rows":[{"externalProductId":"` + prod.BusinessID + `-MUG","externalWarehouseId":"` + prod.RetailCatalogID + `","quantity":5},
         {"externalProductId":"` + prod.SupplierID + `-CANDLE","externalWarehouseId":"` + prod.RetailCatalogID + `","quantity":1}]}`
	r.call("POST", "/ecommerce/v3/orders", retailer, drop)
	pageWalk(r, "/ecommerce/v3/orders?size=1", retailer)
	r.call("GET", "/ecommerce/v3/orders/"+prod.RetailerID+"-G-D1/shipments", retailer, nil)
	poll := r.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed&size=1&page=0", ecom, nil)
	r.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed&size=1&page=1", ecom, nil)
	r.call("GET", "/ecommerce/v3/shipments?status=Bogus", ecom, nil)
	first := poll.get("content.0.shipmentId")
	all := r.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z&status=Created,Viewed", ecom, nil)
	var mine string
	for i := 0; i < 10; i++ {
		if all.get(fmt.Sprintf("content.%d.consignment.reference", i)) == prod.RetailerID+"-G-D1" {
			mine = all.get(fmt.Sprintf("content.%d.shipmentId", i))
		}
	}
	sp := "/ecommerce/v3/shipments/" + mine
	r.call("GET", sp, ecom, nil)
	r.call("GET", sp, retailer, nil)
	r.call("PATCH", sp, ecom, `{"status":{"value":"Viewed"}}`)
	r.call("PATCH", sp, ecom, `{"status":{"value":"viewed"}}`)
	r.call("GET", sp+"/options", ecom, nil)
	r.call("POST", sp+"/events", ecom, `{"code":"PICKED","description":"Picked in the warehouse"}`)
	r.call("PUT", sp, ecom, `{"status":{"value":"Delivered"},"consignment":{"parcels":[{"parcelId":"1","packageType":"PC","ready":true,"rows":[{"externalWarehouseId":"`+prod.RetailCatalogID+`","itemId":"`+prod.BusinessID+`-MUG","deliveredQuantity":2,"quantity":5.0}]},{"parcelId":"2","packageType":"PC","serviceCode":"2103","pickupPointId":"002303200","routingServiceCode":"3200","ready":true,"rows":[{"externalWarehouseId":"`+prod.RetailCatalogID+`","itemId":"`+prod.BusinessID+`-MUG","deliveredQuantity":3,"quantity":5.0}]}]}}`)
	pdfCall(r, "GET", sp+"/parcels/1/label", ecom)
	pdfCall(r, "GET", sp+"/parcels/2/note", ecom)
	r.call("GET", sp+"/parcels/9/label", ecom, nil)
	r.call("PATCH", sp, ecom, `{"status":{"value":"Viewed"}}`)
	if first != "" && first != mine {
		r.call("POST", "/ecommerce/v3/shipments/"+first+"/delivered", ecom, nil)
	}
	r.call("GET", "/ecommerce/v3/shipments?from=2024-01-01T00:00:00Z", supplier, nil)
	r.call("GET", "/ecommerce/v3/orders/"+prod.RetailerID+"-G-D1", retailer, nil)
	r.call("GET", "/ecommerce/v3/orders/"+demo.SampleDropshipOrder, retailer, nil)
	r.call("GET", "/ecommerce/v3/shipments/NOSUCH", ecom, nil)

	// The operator API.
	r.call("GET", "/admin/v1/organizations", admin, nil)
	r.call("GET", "/admin/v1/organizations?environment=test", admin, nil)
	r.call("POST", "/admin/v1/organizations", admin, `{"environment":"test","businessId":"7654321-2","name":"Golden Oy"}`)
	r.call("POST", "/admin/v1/organizations", admin, `{"environment":"test","businessId":"7654321-2","name":"Golden Oy"}`)
	r.call("POST", "/admin/v1/organizations", admin, `{"environment":"nowhere"}`)
	r.call("GET", "/admin/v1/organizations", none, nil)
	r.call("GET", "/admin/v1/organizations", bearer("wrong-token"), nil)
	gc := r.call("POST", "/admin/v1/gateway-clients", admin, `{"environment":"test","businessId":"7654321-2"}`)
	r.call("GET", "/admin/v1/gateway-clients?environment=test", admin, nil)
	if id := gc.get("clientId"); id != "" {
		r.call("POST", "/api/v1/token", none, rawForm(form(id, gc.get("clientSecret"))))
		r.call("DELETE", "/admin/v1/gateway-clients/"+id+"?environment=test&businessId=7654321-2", admin, nil)
		r.call("POST", "/api/v1/token", none, rawForm(form(id, gc.get("clientSecret"))))
	}
	r.call("POST", "/admin/v1/service-accounts", admin, `{"environment":"test","businessId":"7654321-2","username":"golden-user","roles":["merchant"]}`)
	r.call("GET", "/admin/v1/service-accounts?environment=test", admin, nil)
	r.call("POST", "/admin/v1/service-accounts/golden-user/unlock?environment=test", admin, nil)
	r.call("DELETE", "/admin/v1/service-accounts/golden-user?environment=test", admin, nil)
	r.call("POST", "/admin/v1/catalogs", admin, `{"environment":"test","retailerId":"7654321-2","catalogExternalId":"GOLD","catalogType":"Catalog","supplierIds":["`+test.BusinessID+`"]}`)
	r.call("GET", "/admin/v1/catalogs?environment=test", admin, nil)
	r.call("GET", "/admin/v1/clock", admin, nil)
	r.call("GET", "/admin/v1/clock?environment=test", admin, nil)
	r.call("POST", "/admin/v1/clock", admin, `{"environment":"test","advance":"1h"}`)
	r.call("POST", "/admin/v1/clock", admin, `{"environment":"test","advance":"-1h"}`)
	fault := r.call("POST", "/admin/v1/faults", admin, `{"environment":"test","businessId":"`+test.BusinessID+`","route":"/ecommerce/v3/orders","status":503,"count":1}`)
	r.call("GET", "/admin/v1/faults", admin, nil)
	r.call("GET", "/ecommerce/v3/orders", ecomTest, nil)
	r.call("GET", "/ecommerce/v3/orders", ecomTest, nil)
	if id := fault.get("id"); id != "" {
		r.call("DELETE", "/admin/v1/faults/"+id, admin, nil)
	}
	r.call("POST", "/admin/v1/faults", admin, `{"environment":"test","status":999}`)
	org := "/admin/v1/organizations/" + test.BusinessID
	r.call("POST", org+"/snapshots?environment=test", admin, `{"name":"golden"}`)
	r.call("GET", org+"/snapshots?environment=test", admin, nil)
	r.call("GET", org+"/snapshots/golden?environment=test", admin, nil)
	r.call("POST", "/ecommerce/v3/orders", ecomTest, strings.ReplaceAll(order("G-T2", "MUG", 1), "WH1", test.WarehouseID))
	r.call("POST", org+"/snapshots/golden/restore?environment=test", admin, nil)
	r.call("GET", "/ecommerce/v3/orders?size=5", ecomTest, nil)
	r.call("DELETE", org+"/snapshots/golden?environment=test", admin, nil)
	r.call("GET", org+"/auto-supplier?environment=production", admin, nil)
	r.call("PUT", "/admin/v1/organizations/"+prod.SupplierID+"/auto-supplier?environment=production", admin, `{"enabled":true,"delaySeconds":60}`)
	r.call("POST", "/admin/v1/parcels/status", admin, `{"environment":"production","businessId":"`+prod.BusinessID+`","trackingNumber":"`+parcelNo+`","value":"DELIVERED"}`)
	r.call("POST", "/admin/v1/parcels/status", admin, `{"environment":"production","businessId":"`+prod.BusinessID+`","trackingNumber":"`+parcelNo+`","value":"NOPE"}`)
	r.call("POST", "/admin/v1/shipments/status", admin, `{"environment":"production","businessId":"`+prod.BusinessID+`","trackingNumber":"JJFI30000000000000001","value":"Delivered"}`)
	r.call("GET", "/2025-04/labelless/JJFI30000000000000001", gw, nil)
	lastTenantCall := r.call("GET", track+"trackingnumber/"+parcelNo, ecom, nil)
	r.call("POST", "/admin/v1/organizations/7654321-2/reset?environment=test", admin, nil)
	r.call("POST", "/admin/v1/reset", admin, nil)
	r.call("POST", "/admin/v1/organizations/7654321-2/reset", admin, `{"environment":"test"}`)

	// The journal, once the calls above are written (the journal writes
	// in the background): filters, one entry by its request ID.
	waitJournal(r, lastTenantCall)
	journal := "/admin/v1/requests?environment=production&businessId=" + prod.BusinessID
	r.call("GET", journal, admin, nil)
	j := r.call("GET", journal+"&limit=5", admin, nil)
	for i := 0; i < 2 && j.get("next") != ""; i++ {
		j = r.call("GET", journal+"&limit=5&before="+url.QueryEscape(j.get("next")), admin, nil)
	}
	// from and to compare the journal's stamps, which are the wall
	// clock's: a window of the environment clock's day holds none.
	for _, q := range []string{"route=/ecommerce/v3/orders&limit=3", "status=4xx&limit=3", "status=404&limit=3", "from=2026-03-10T07:00:00Z&to=2026-03-10T07:01:00Z&limit=3", "status=bogus", "limit=501"} {
		r.call("GET", "/admin/v1/requests?environment=production&businessId="+prod.BusinessID+"&"+q, admin, nil)
	}
	if id := j.get("content.0.requestId"); id != "" {
		r.call("GET", "/admin/v1/requests/"+id, admin, nil)
	}
	r.call("GET", "/admin/v1/requests/NOSUCH", admin, nil)

	// The console, as a tenant and as the operator.
	pages := func(b auth, journaled *answer, tn, order string) {
		product := ""
		if m := consoleProduct.FindStringSubmatch(string(r.call("GET", "/console/products", b, nil).Body)); m != nil {
			product = m[1]
		}
		for _, p := range []string{"/console/", "/console/orders", "/console/orders?status=Error", "/console/orders/" + order,
			"/console/products/" + product, "/console/shipments", "/console/shipments/" + tn, "/console/pickup-points?q=00100",
			"/console/pickup-points/001003200", "/console/supplier-shipments", "/console/credentials", "/console/requests", "/console/orders/new"} {
			if p == "/console/requests" {
				waitJournal(r, journaled)
			}
			r.call("GET", p, b, nil)
		}
	}
	r.call("GET", "/console/orders", browser(), nil)
	tenant := browser()
	r.call("GET", "/console/sign-in", tenant, nil)
	r.call("POST", "/console/sign-in", tenant, url.Values{"kind": {"account"}, "username": {prod.Username}, "password": {"wrong"}})
	signIn := r.call("POST", "/console/sign-in", tenant, url.Values{"kind": {"account"}, "username": {prod.Username}, "password": {prod.Password}})
	pages(tenant, signIn, prod.Shipment, o1)
	op := browser()
	r.call("POST", "/console/sign-in", op, url.Values{"kind": {"operator"}, "token": {adminToken}})
	chosen := r.call("POST", "/console/tenant", op, url.Values{"environment": {"production"}, "businessId": {prod.BusinessID}})
	pages(op, chosen, prod.Shipment, o1)
	r.call("POST", "/console/sign-out", op, nil)
	r.call("GET", "/console/", op, nil)
}

var consoleProduct = regexp.MustCompile(`href="/console/products/([0-9]+)"`)

// rawForm is a form body sent as it is written.
type rawForm string

// pageWalk reads a list page by page from page 0, following the answer's
// next link, as far as 10 pages.
func pageWalk(r *recorder, path string, a auth) {
	r.t.Helper()
	for i := 0; i < 10 && path != ""; i++ {
		ans := r.call("GET", path, a, nil)
		next := ans.get("links.next")
		if next == "" {
			next = ans.get("links.next.href")
		}
		path = ""
		if u, err := url.Parse(next); err == nil && next != "" {
			path = u.RequestURI()
		}
	}
}

// waitJournal waits, without recording, until the journal holds the
// call last (the journal is written in the background, a batch at a time,
// in the order of the calls, so every call before it is there too). A
// call the journal does not keep is waited for 3 s.
func waitJournal(r *recorder, last *answer) {
	id := last.Header.Get("X-Request-Id")
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		if r.quiet("GET", "/admin/v1/requests/"+url.PathEscape(id), bearer(adminToken)).Status == http.StatusOK {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pdfCall makes a call that answers a PDF with the journal settled before
// and after it. On PostgreSQL the journal cannot store a PDF's bytes (a
// NUL is refused) and the whole batch holding the call is lost; settled
// around the call, that batch is the call alone on every run.
func pdfCall(r *recorder, method, path string, a auth, hdr ...string) *answer {
	r.t.Helper()
	settle(r)
	ans := r.call(method, path, a, nil, hdr...)
	settle(r)
	return ans
}

// journalCounters matches the journal writer's counters in /metrics.
var journalCounters = regexp.MustCompile(`(?m)^parcelgate_journal_(?:written|failed|dropped)_total [0-9.e+]+$`)

// settle waits, without recording, until the journal writer has taken
// everything: its counters unchanged for 600 ms, longer than it gathers a
// batch (250 ms).
func settle(r *recorder) {
	last, since := "", time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		counters := journalCounters.FindAllString(string(r.quiet("GET", "/metrics", none).Body), -1)
		if len(counters) == 0 {
			r.t.Fatal("golden: /metrics shows no parcelgate_journal_*_total counters; settle waits on them")
		}
		got := strings.Join(counters, ",")
		if got != last {
			last, since = got, time.Now()
		} else if time.Since(since) > 600*time.Millisecond {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
