package seedgen_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/inproc"
	"github.com/parcelgate/parcelgate/internal/tools/seedgen"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

const adminToken = "seedgen-test-admin-token"

// tiny is a fill small enough for a test and still holding every kind of
// object: several organizations, dropshipping, every order status.
var tiny = seedgen.Sizes{Orgs: 30, Products: 400, PerShop: 20, Orders: 800, Shipments: 2000, Journal: 300}

// TestSeededDatabaseIsServed fills a database of each engine with the
// generator and starts the server over it: the API's lists, a single order,
// tracking by number and the operator's lists answer 200 with the
// generated data, and the small tenant never sees the big one's objects
// (another tenant's object answers like a missing one, interface §4.3 rule 4
// and the tenancy rule of decisions §4).
func TestSeededDatabaseIsServed(t *testing.T) {
	for _, engine := range testdb.Engines {
		if engine == "memory" {
			continue
		}
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "seed.db")
			if engine == "postgres" {
				dsn = testdb.PostgresSchema(t)
			}
			rep, err := seedgen.Run(ctx, seedgen.Config{DSN: dsn, Sizes: tiny, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Big.Orders < tiny.Orders/3 || rep.Small.Orders == 0 || rep.Small.Orders*10 > rep.Big.Orders {
				t.Fatalf("tenants' orders: big %d, small %d of %d", rep.Big.Orders, rep.Small.Orders, tiny.Orders)
			}
			if _, err := seedgen.Run(ctx, seedgen.Config{DSN: dsn, Sizes: tiny, Seed: 1}); err == nil || !strings.Contains(err.Error(), "already") {
				t.Fatalf("a second fill of the same database: %v, want refused", err)
			}
			// Change stamps (decisions §22): no two stamped rows of the
			// environment share a stamp, all are below the change clock, and
			// the server's first write stamps past them.
			raw := openRaw(t, engine, dsn)
			var rows, stamps, newest, clock int64
			if err := raw.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT s), MAX(s) FROM (SELECT updated_at AS s FROM orders UNION ALL SELECT modified_at FROM balances UNION ALL SELECT updated_at FROM supplier_shipments) AS x`).Scan(&rows, &stamps, &newest); err != nil {
				t.Fatal(err)
			}
			if err := raw.QueryRow(`SELECT last_us FROM change_clock WHERE environment = 'production'`).Scan(&clock); err != nil {
				t.Fatal(err)
			}
			if rows == 0 || stamps != rows || newest >= clock {
				t.Fatalf("stamps: %d rows, %d distinct, newest %d, clock %d", rows, stamps, newest, clock)
			}

			// The warehouse engine runs as serve --fulfillment auto does, with
			// a delivery delay short enough to deliver the seeded Submitted
			// orders at once: it must find their stock held in balances.
			srv, err := inproc.Start(ctx, inproc.Config{DSN: dsn, HTTP: httpapi.Config{AdminToken: adminToken},
				Warehouse: &fulfillment.Config{SubmitAfter: time.Hour, DeliverAfter: time.Millisecond, Interval: 50 * time.Millisecond}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			// The web console, mounted as serve mounts it.
			srv.Handler.Mount(console.Prefix, console.New(wiring.Console(srv.DB), console.Config{AdminToken: adminToken, AdminGuard: srv.Handler.AdminGuard(), Clock: srv.Clock}))
			c := &client{t: t, base: srv.URL}

			big, small := c.ecomToken(rep.Big), c.ecomToken(rep.Small)
			c.gatewayToken(rep.Big) // the gateway clients log in with the known secrets
			c.gatewayToken(rep.Small)

			// The engine delivers every Submitted order of the seed, and the
			// warehouse part of each that mixes warehouse and supplier rows
			// (decisions §38), which is then "Partially delivered" (its
			// supplier's shipment is still open, Progress). Totals are read
			// once it is done: on PostgreSQL a list holds back rows newer
			// than a stamping writer still running (stamp.go).
			for deadline := time.Now().Add(30 * time.Second); ; {
				var submitted struct {
					Content []struct{ ExternalID string }
				}
				c.get("/ecommerce/v3/orders?status=Submitted&size=2000", big, 200, &submitted)
				left := ""
				if len(submitted.Content) > 0 {
					left = submitted.Content[0].ExternalID
				}
				if left == "" {
					var delivered, partly struct{ Page struct{ TotalElements int } }
					c.get("/ecommerce/v3/orders?status=Delivered&size=1", big, 200, &delivered)
					c.get("/ecommerce/v3/orders?status="+url.QueryEscape("Partially delivered")+"&size=1", big, 200, &partly)
					want := rep.Big.Statuses["Delivered"] + rep.Big.Statuses["Submitted"]
					if rep.Big.Statuses["Submitted"] == 0 || delivered.Page.TotalElements+partly.Page.TotalElements != want || delivered.Page.TotalElements <= rep.Big.Statuses["Delivered"] {
						t.Fatalf("delivered orders: %d and %d partially, want %d in all (seeded %v)", delivered.Page.TotalElements, partly.Page.TotalElements, want, rep.Big.Statuses)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the warehouse engine left the seeded order %s Submitted", left)
				}
				time.Sleep(100 * time.Millisecond)
			}

			// The big merchant's lists, each with the generated data.
			var orders struct {
				Content []struct {
					ID, ExternalID string
					Status         struct{ Value string }
					TrackingCodes  []string
				}
				Page struct{ TotalElements int }
			}
			c.get("/ecommerce/v3/orders?size=200", big, 200, &orders)
			if orders.Page.TotalElements != rep.Big.Orders || len(orders.Content) == 0 {
				t.Fatalf("big merchant's orders: total %d, want %d", orders.Page.TotalElements, rep.Big.Orders)
			}
			// The provider's from/to filter the order date (decisions §37),
			// which the store keeps in its own column: every seeded order
			// has one, within the history.
			c.get("/ecommerce/v3/orders?size=1&from=2000-01-01T00:00:00Z", big, 200, &orders)
			if orders.Page.TotalElements != rep.Big.Orders {
				t.Fatalf("big merchant's orders from 2000: total %d, want %d", orders.Page.TotalElements, rep.Big.Orders)
			}
			c.get("/ecommerce/v3/orders?size=1&to=2000-01-01T00:00:00Z", big, 200, &orders)
			if orders.Page.TotalElements != 0 {
				t.Fatalf("big merchant's orders until 2000: total %d, want none", orders.Page.TotalElements)
			}
			c.get("/ecommerce/v3/orders?status=Delivered&size=50", big, 200, &orders)
			var delivered, parcel string
			for _, o := range orders.Content {
				if o.Status.Value != "Delivered" {
					t.Fatalf("status=Delivered answered an order in %s", o.Status.Value)
				}
				if len(o.TrackingCodes) > 0 {
					delivered, parcel = o.ID, o.TrackingCodes[0]
				}
			}
			if delivered == "" {
				t.Fatal("no delivered order with tracking codes on the first page")
			}
			var one struct{ ExternalID string }
			c.get("/ecommerce/v3/orders/"+delivered, big, 200, &one)
			var list struct{ Page struct{ TotalElements int } }
			c.get("/ecommerce/v3/inventory?size=100", big, 200, &list)
			if list.Page.TotalElements == 0 {
				t.Fatal("big merchant's inventory is empty")
			}
			c.get("/ecommerce/v3/catalogs/WH1/balances?size=100", big, 200, &list)
			if list.Page.TotalElements == 0 {
				t.Fatal("big merchant's warehouse balances are empty")
			}
			c.get("/ecommerce/v3/catalogs/SHOP/balances?size=100", big, 200, &list)
			c.get("/ecommerce/v3/shipments?size=20", big, 200, &list)
			if list.Page.TotalElements == 0 {
				t.Fatal("big supplier has no dropshipping shipments")
			}
			c.get("/ecommerce/v3/shipments?status=Created&size=20", big, 200, nil)
			// Tracking: the delivered order's parcel, its own tenant's.
			var full map[string]any
			c.get("/tracking/7/shipments/trackingnumber/"+parcel, big, 200, &full)
			if !strings.Contains(fmt.Sprint(full), "receiver") {
				t.Fatalf("the big merchant's own parcel without its receiver: %v", full)
			}
			var found struct{ ParcelShipments []any }
			c.get("/tracking/7/shipments/senderreference/"+url.PathEscape(one.ExternalID), big, 200, &found)
			if len(found.ParcelShipments) == 0 {
				t.Fatalf("the big merchant's search by its order's reference %s found nothing", one.ExternalID)
			}
			// The operator's lists.
			c.get("/admin/v1/organizations", adminToken, 200, nil)
			c.get("/admin/v1/requests?status=404&limit=20", adminToken, 200, nil)

			// The console's pages of the big merchant, as the operator who
			// chose it sees them; and the small one's, where the big one's
			// order and shipment are missing ones.
			bigConsole, smallConsole := c.consoleAs(rep.Big), c.consoleAs(rep.Small)
			for _, page := range []string{"/", "/orders", "/orders?status=Delivered", "/orders/" + delivered, "/shipments", "/shipments/" + parcel,
				"/supplier-shipments", "/products", "/requests", "/credentials"} {
				c.page(console.Prefix+page, bigConsole, 200)
			}
			for _, page := range []string{"/", "/orders", "/shipments", "/products", "/supplier-shipments"} {
				c.page(console.Prefix+page, smallConsole, 200)
			}
			c.page(console.Prefix+"/orders/"+delivered, smallConsole, 404)
			c.page(console.Prefix+"/shipments/"+parcel, smallConsole, 404)

			// A new order of the small merchant is stamped past the seed.
			body := `{"externalId":"NEW-1","deliveryAddress":{"name":"Maija","streetAddress":"Kotikatu 1","postalCode":"00100","postOffice":"Helsinki","country":"FI","email":"maija@example.com"},` +
				`"serviceCode":"2103","rows":[{"externalProductId":"P000000","externalWarehouseId":"WH1","quantity":1}]}`
			req, _ := http.NewRequest("PUT", srv.URL+"/ecommerce/v3/order", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+small)
			req.Header.Set("Content-Type", "application/json")
			var created struct{ Status struct{ Value string } }
			c.do(req, 200, &created)
			if created.Status.Value != "Created" {
				t.Fatalf("a new order of the small merchant: %s, want Created", created.Status.Value)
			}
			var stamp int64
			if err := raw.QueryRow(`SELECT updated_at FROM orders WHERE own_id = 'NEW-1'`).Scan(&stamp); err != nil {
				t.Fatal(err)
			}
			if stamp <= newest {
				t.Fatalf("the new order's stamp %d is not past the seed's newest %d", stamp, newest)
			}

			// Isolation: the small tenant sees its own orders only, and the
			// big one's order and parcel answer as missing ones.
			c.get("/ecommerce/v3/orders?size=200", small, 200, &orders)
			if orders.Page.TotalElements != rep.Small.Orders+1 { // and the new one
				t.Fatalf("small merchant's orders: total %d, want %d", orders.Page.TotalElements, rep.Small.Orders+1)
			}
			for _, o := range orders.Content {
				if !strings.HasPrefix(o.ExternalID, rep.Small.BusinessID+"-") && o.ExternalID != "NEW-1" {
					t.Fatalf("small merchant sees order %s", o.ExternalID)
				}
			}
			c.get("/ecommerce/v3/orders/"+delivered, small, 404, nil)
			// Tracking by number is public (decisions §30): another
			// organization's parcel in the public view, without its parties;
			// a search by reference finds the caller's own parcels only.
			var public map[string]any
			c.get("/tracking/7/shipments/trackingnumber/"+parcel, small, 200, &public)
			if s := fmt.Sprint(public); strings.Contains(s, "receiver") || strings.Contains(s, "sender") {
				t.Fatalf("the small tenant sees the big one's parties: %v", public)
			}
			c.get("/tracking/7/shipments/senderreference/"+url.PathEscape(one.ExternalID), small, 200, &found)
			if len(found.ParcelShipments) != 0 {
				t.Fatalf("the small tenant's search finds the big one's parcels: %v", found)
			}
			// The small merchant is a supplier too (decisions §75): its
			// list holds its own shipments, none of the big one's.
			supplied := 0
			for _, n := range rep.Small.Supplied {
				supplied += n
			}
			var stored int
			if err := raw.QueryRow(`SELECT COUNT(*) FROM supplier_shipments s JOIN organizations o ON o.id = s.supplier_org_id WHERE o.business_id = '` + rep.Small.BusinessID + `'`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			c.get("/ecommerce/v3/shipments?size=20", small, 200, &list)
			if list.Page.TotalElements != supplied || stored != supplied {
				t.Fatalf("small merchant lists %d dropshipping shipments, holds %d, was given %d (%v)", list.Page.TotalElements, stored, supplied, rep.Small.Supplied)
			}
		})
	}
}

// openRaw opens the database beside the store, to read what the API does
// not show.
func openRaw(t *testing.T, engine, dsn string) *sql.DB {
	t.Helper()
	driver, name := "pgx", dsn
	if engine == "sqlite" {
		driver, name = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

type client struct {
	t    *testing.T
	base string
}

func (c *client) do(req *http.Request, want int, out any) {
	c.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		c.t.Fatalf("%s %s: %d, want %d: %.400s", req.Method, req.URL.RequestURI(), resp.StatusCode, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s: %v: %.200s", req.URL.RequestURI(), err, raw)
		}
	}
}

func (c *client) get(path, bearer string, want int, out any) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	c.do(req, want, out)
}

// consoleAs signs the operator in to the console and chooses t's
// organization; it returns the session cookie.
func (c *client) consoleAs(t seedgen.Tenant) *http.Cookie {
	c.t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(c.base+"/console/sign-in", url.Values{"kind": {"operator"}, "token": {adminToken}})
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "parcelgate_console" {
			session = ck
		}
	}
	if session == nil {
		c.t.Fatalf("console sign-in: %d, no session", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", c.base+"/console/tenant", strings.NewReader(url.Values{"environment": {"production"}, "businessId": {t.BusinessID}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(session)
	if resp, err = noRedirect.Do(req); err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		c.t.Fatalf("console: choosing %s: %d", t.BusinessID, resp.StatusCode)
	}
	return session
}

func (c *client) page(path string, session *http.Cookie, want int) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.AddCookie(session)
	c.do(req, want, nil)
}

func (c *client) ecomToken(t seedgen.Tenant) string {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+"/auth/token", nil)
	req.SetBasicAuth(t.Username, t.Password)
	var tok httpapi.EcomToken
	c.do(req, 200, &tok)
	return tok.AccessToken
}

func (c *client) gatewayToken(t seedgen.Tenant) string {
	c.t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {t.ClientID}, "client_secret": {t.ClientSecret}}
	req, _ := http.NewRequest("POST", c.base+"/api/v1/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	c.do(req, 200, &tok)
	if tok.AccessToken == "" {
		c.t.Fatal(fmt.Sprintf("no gateway token for %s", t.ClientID))
	}
	return tok.AccessToken
}
