package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/pickup"
)

// sizeRoute is one measured route: the request n of worker w.
type sizeRoute struct {
	name   string
	method string // GET when empty
	path   func(w, n int) string
	// body, when set, is the request's JSON body.
	body func(w, n int) []byte
	// auth sets the request's credentials.
	auth func(*http.Request)
	// env: a route of the environment (the operator's lists), measured
	// once, not per tenant.
	env bool
	// limit bounds the requests below -size-max (the creates: the stock
	// the tenant's products have).
	limit int
	// skip, when set, says why the route is not measured for this tenant.
	skip string
	// rows, when set, counts the rows of a 2xx answer (the first one's
	// are printed with the route's figures).
	rows func(body []byte) string
	// prime, when set, is how many requests of worker 0 are sent once,
	// one at a time and untimed, before the route is measured: the
	// label-less codes are made, so every tenant's measured requests are
	// the lookups issue 39 lists, whatever number of shipments it has
	// codes made for (decisions §75).
	prime int
}

// equalSize is the page size of the lists' equal-content variants: small
// enough that the small tenant of the generated data fills the page on
// most lists (it has 13 orders), so the big tenant's cost is compared
// with a small one's for the same answer, not for twenty times as many
// rows (decisions §61). The demo seed has too few rows to fill it.
const equalSize = 10

// listRows counts the content of a list envelope (interface §2.6).
func listRows(body []byte) string {
	var page struct {
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(body, &page) != nil {
		return ""
	}
	return fmt.Sprintf("%d rows", len(page.Content))
}

// inventoryRows counts an inventory page's products and their balances.
func inventoryRows(body []byte) string {
	var page struct {
		Content []struct {
			Balances []json.RawMessage `json:"balances"`
		} `json:"content"`
	}
	if json.Unmarshal(body, &page) != nil {
		return ""
	}
	n := 0
	for _, it := range page.Content {
		n += len(it.Balances)
	}
	return fmt.Sprintf("%d products, %d balances", len(page.Content), n)
}

// sizeTenant is a measured organization: its credentials and the keys its
// routes look up.
type sizeTenant struct {
	label      string // big, small, demo
	businessID string
	clientID   string // gateway client
	secret     string
	username   string // service account with every role
	password   string
	warehouse  string // its warehouse catalog
	keys       *tenantSamples
}

// tenantSamples are up to 500 of an organization's newest order IDs,
// parcel numbers, shipment references, undelivered shipments' tracking
// numbers and its warehouse products with the stock they have free.
type tenantSamples struct {
	orders, numbers, refs, open []string
	products                    []string
	free                        int // units free over products, each order takes one
	orderCount                  int
	// productsCursor: the console products list's cursor leaving
	// consoleEqualRows products (consoleProductsCursor).
	productsCursor int64
}

// readSamples reads bid's samples from the database at dsn, over a
// connection of its own that is closed before the server opens the
// database (a second handle on a live SQLite file is what issue 39 found
// can disturb the server's).
func readSamples(ctx context.Context, engine, dsn, bid, warehouse string) (*tenantSamples, error) {
	driver := "pgx"
	if engine == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	var org int64
	if err := raw.QueryRowContext(ctx, `SELECT id FROM organizations WHERE environment = 'production' AND business_id = '`+bid+`'`).Scan(&org); err != nil {
		return nil, fmt.Errorf("organization %s: %w", bid, err)
	}
	read := func(q string, args ...any) ([]string, error) {
		rows, err := raw.QueryContext(ctx, fmt.Sprintf(q, org), args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	}
	var k tenantSamples
	for _, q := range []struct {
		to  *[]string
		sql string
	}{
		{&k.orders, `SELECT order_id FROM orders WHERE org_id = %d ORDER BY id DESC LIMIT 500`},
		{&k.numbers, `SELECT parcel_id FROM parcels WHERE org_id = %d ORDER BY shipment_id DESC LIMIT 500`},
		{&k.refs, `SELECT reference FROM shipments WHERE org_id = %d AND reference <> '' ORDER BY id DESC LIMIT 500`},
		{&k.open, `SELECT tracking_number FROM shipments WHERE org_id = %d AND status = 'Created' ORDER BY id DESC LIMIT 500`},
	} {
		if *q.to, err = read(q.sql); err != nil {
			return nil, err
		}
	}
	// The warehouse's products with the most stock free, each order of the
	// create route takes one unit of one of them.
	rows, err := raw.QueryContext(ctx, fmt.Sprintf(`SELECT b.product_external_id, b.quantity - b.allocated FROM balances b JOIN catalogs c ON c.id = b.catalog_id
		WHERE c.retailer_org_id = %d AND c.external_id = '%s' AND b.supplier_org_id = %d AND b.quantity > b.allocated ORDER BY b.quantity - b.allocated DESC LIMIT 500`,
		org, strings.ReplaceAll(warehouse, "'", "''"), org))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var free int
		if err := rows.Scan(&p, &free); err != nil {
			return nil, err
		}
		k.products = append(k.products, p)
		k.free += free
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := raw.QueryRowContext(ctx, fmt.Sprintf(`SELECT COUNT(*) FROM orders WHERE org_id = %d`, org)).Scan(&k.orderCount); err != nil {
		return nil, err
	}
	if k.productsCursor, err = consoleProductsCursor(ctx, raw, org); err != nil {
		return nil, err
	}
	return &k, nil
}

// sizeRoutes are the routes of issue 39's table for tenant t, with
// numbers, references and order IDs of t's own; the environment's routes
// (env) are measured with the first tenant only.
func (e *env) sizeRoutes(t *sizeTenant, since time.Time) ([]sizeRoute, error) {
	tok, err := e.login(t.username, t.password)
	if err != nil {
		return nil, fmt.Errorf("ecom token of %s: %w", t.businessID, err)
	}
	gw, err := e.clientToken(t.clientID, t.secret)
	if err != nil {
		return nil, fmt.Errorf("gateway token of %s: %w", t.businessID, err)
	}
	cookie, err := e.consoleSession(t.businessID)
	if err != nil {
		return nil, err
	}
	k := t.keys
	bearer := func(tok string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }
	}
	ecom, gateway, admin := bearer(tok), bearer(gw), bearer(adminToken)
	session := func(r *http.Request) { r.AddCookie(cookie) }
	fixed := func(p string) func(int, int) string { return func(int, int) string { return p } }
	pick := func(prefix string, keys []string) func(int, int) string {
		return func(w, n int) string { return prefix + url.PathEscape(keys[(w*7919+n)%len(keys)]) }
	}
	none := func(what string, keys []string) string {
		if len(keys) == 0 {
			return "the tenant has no " + what
		}
		return ""
	}
	// A deep page, cold: each request a page size no request before it
	// used, so no page boundary of its query is known, at about the
	// middle of the merchant's orders.
	deep := func(w, n int) string {
		size := 20 + (w*1000+n)%180
		return fmt.Sprintf("/ecommerce/v3/orders?size=%d&page=%d", size, max(0, k.orderCount/size/2))
	}
	// The same at equalSize rows, cold the same way: a page position no
	// request before it asked, in the second quarter of the orders.
	deepEqual := func(w, n int) string {
		mid := k.orderCount / equalSize / 2
		return fmt.Sprintf("/ecommerce/v3/orders?size=%d&page=%d", equalSize, max(0, mid-(w*1000+n)%max(1, mid/2)))
	}
	eq := fmt.Sprintf("size=%d", equalSize)
	// The last page at equalSize rows: the deepest page of any tenant's
	// list, where the sums of every bucket are read (decisions §74). The
	// small tenant of the generated data has two pages at this size, so
	// deepEqual's "second quarter" is its first page, read from the start
	// with no position to find; this one is its end, found as the big
	// merchant's is. Its page is cold for one request only: a list of 13
	// orders has no page a later request has not asked, and the rows of
	// every page of it are kept answers after the first (decisions §74
	// says what that leaves of the comparison).
	last := fixed(fmt.Sprintf("/ecommerce/v3/orders?size=%d&page=%d", equalSize, max(0, k.orderCount-1)/equalSize))
	// The filtered lists' equal-content variants (issue 39: their pages
	// were 200 orders against the small tenant's few).
	warehouse := "/ecommerce/v3/orders?warehouseExternalId=" + url.QueryEscape(t.warehouse)
	dates := "/ecommerce/v3/orders?from=" + url.QueryEscape(since.AddDate(0, 0, -90).UTC().Format(time.RFC3339)) + "&to=" + url.QueryEscape(since.AddDate(0, 0, -60).UTC().Format(time.RFC3339))
	// A change poll from "now": what a client polling every few seconds
	// asks once it has caught up.
	poll := fixed("/ecommerce/v3/orders?updatedFrom=" + url.QueryEscape(since.UTC().Format(time.RFC3339)))
	// Points with a postal code of the Finnish form, as the estimate's
	// path asks.
	var pts []parcelgate.PickupPoint
	for _, p := range pickup.AllPickupPoints() {
		if len(p.PostalCode) == 5 {
			pts = append(pts, p)
		}
	}
	pickupBody := func(w, n int) []byte {
		return fmt.Appendf(nil, `{"searchCriteria":{"location":{"postcode":%q,"countryCode":"FI"},"serviceFilters":{}},"limit":10}`, pts[(w*100003+n)*7919%len(pts)].PostalCode)
	}
	estimate := func(w, n int) string {
		return fmt.Sprintf("/estimation/v1/00100/FI/%s/FI/2103", pts[(w*100003+n)*7919%len(pts)].PostalCode)
	}
	// A label-less code for one of the tenant's undelivered shipments:
	// made by the route's priming (worker 0's requests visit each
	// shipment once), answered by every measured request. Unprimed, the
	// big merchant's run made 500 codes and the small tenant's 10, so
	// the two measured different requests: writes, serialized on SQLite,
	// for a quarter to all of the big merchant's, few of the small one's.
	labelless := func(w, n int) []byte {
		return fmt.Appendf(nil, `{"searchCriteria":{"trackingNumber":%q}}`, k.open[(w*7919+n)%len(k.open)])
	}
	// An order of one unit of one of the tenant's products with stock.
	createBody := func(w, n int) []byte {
		raw, _ := json.Marshal(map[string]any{
			// At most 20 characters: the business ID, the run's second, the worker, the request.
			"externalId": fmt.Sprintf("%s-Z%03d%d%04d", t.businessID, since.Unix()%1000, w%10, n%10000),
			"references": []any{map[string]any{"name": "SO", "value": fmt.Sprintf("SO-Z%d-%d-%d", since.Unix(), w, n)}},
			"deliveryAddress": map[string]any{"name": "Maija Meikäläinen", "streetAddress": "Kotikatu 2", "postalCode": "00200",
				"postOffice": "Helsinki", "country": "FI", "telephone": "+358401234567", "email": "maija@example.com"},
			"serviceCode": "2103",
			"rows":        []any{map[string]any{"externalProductId": k.products[(w*7919+n)%len(k.products)], "externalWarehouseId": t.warehouse, "quantity": 1}},
		})
		return raw
	}
	env := "environment=production"
	return []sizeRoute{
		{name: "API orders, first page", path: fixed("/ecommerce/v3/orders"), auth: ecom, rows: listRows},
		{name: "API orders, first page, " + eq, path: fixed("/ecommerce/v3/orders?" + eq), auth: ecom, rows: listRows},
		{name: "API orders, status=Delivered", path: fixed("/ecommerce/v3/orders?status=Delivered"), auth: ecom, rows: listRows},
		{name: "API orders, status=Delivered, " + eq, path: fixed("/ecommerce/v3/orders?status=Delivered&" + eq), auth: ecom, rows: listRows},
		{name: "API orders, a deep page, cold", path: deep, auth: ecom, rows: listRows},
		{name: "API orders, a deep page, cold, " + eq, path: deepEqual, auth: ecom, rows: listRows},
		{name: "API orders, change poll from now", path: poll, auth: ecom},
		{name: "API orders, the last page, " + eq, path: last, auth: ecom, rows: listRows},
		{name: "API orders, warehouseExternalId", path: fixed(warehouse), auth: ecom},
		{name: "API orders, warehouseExternalId, " + eq, path: fixed(warehouse + "&" + eq), auth: ecom, rows: listRows},
		{name: "API orders, a month of order dates", path: fixed(dates), auth: ecom},
		{name: "API orders, a month of order dates, " + eq, path: fixed(dates + "&" + eq), auth: ecom, rows: listRows},
		{name: "API GET one order", path: pick("/ecommerce/v3/orders/", k.orders), auth: ecom, skip: none("orders", k.orders)},
		{name: "API inventory", path: fixed("/ecommerce/v3/inventory"), auth: ecom, rows: inventoryRows},
		{name: "API inventory, " + eq, path: fixed("/ecommerce/v3/inventory?" + eq), auth: ecom, rows: inventoryRows},
		// Equal in balances too: a product of the big supplier is in
		// several retailers' catalogs, the small tenant's only in its
		// warehouse's.
		{name: "API inventory, " + eq + ", warehouse's only", path: fixed("/ecommerce/v3/inventory?" + eq + "&catalogExternalId=" + url.QueryEscape(t.warehouse)), auth: ecom, rows: inventoryRows},
		{name: "API catalog balances (WH1)", path: fixed("/ecommerce/v3/catalogs/" + t.warehouse + "/balances"), auth: ecom, rows: listRows},
		{name: "API catalog balances (WH1), " + eq, path: fixed("/ecommerce/v3/catalogs/" + t.warehouse + "/balances?" + eq), auth: ecom, rows: listRows},
		{name: "API catalogs", path: fixed("/ecommerce/v3/catalogs"), auth: ecom},
		{name: "API supplier shipments, status=Created", path: fixed("/ecommerce/v3/shipments?status=Created"), auth: ecom, rows: listRows},
		{name: "API supplier shipments, status=Created, " + eq, path: fixed("/ecommerce/v3/shipments?status=Created&" + eq), auth: ecom, rows: listRows},
		{name: "Tracking by number", path: pick("/tracking/7/shipments/trackingnumber/", k.numbers), auth: ecom, skip: none("parcels", k.numbers)},
		{name: "Tracking senderreference", path: pick("/tracking/7/shipments/senderreference/", k.refs), auth: ecom, skip: none("shipment references", k.refs)},
		{name: "Tracking find", path: pick("/tracking/7/shipments/find/", k.refs), auth: ecom, skip: none("shipment references", k.refs)},
		{name: "Gateway pick-up search (postcode)", method: "POST", path: fixed("/2025-04/pickuppoints"), body: pickupBody, auth: gateway},
		{name: "Gateway estimate", path: estimate, auth: gateway},
		{name: "Gateway label-less code", method: "POST", path: fixed("/2025-04/labelless"), body: labelless, auth: gateway, skip: none("undelivered shipments", k.open), prime: len(k.open)},
		{name: "Console overview", path: fixed("/console/"), auth: session},
		{name: "Console shipments", path: fixed("/console/shipments"), auth: session},
		{name: "Console orders", path: fixed("/console/orders"), auth: session},
		{name: "Console products", path: fixed("/console/products"), auth: session, rows: consoleProductRows},
		// Equal rows: the last 5 of the list, what the small tenant's
		// first page shows (decisions §76).
		{name: fmt.Sprintf("Console products, the last %d", consoleEqualRows), path: fixed(consoleProductsEqual(k.productsCursor)), auth: session, rows: consoleProductRows},
		{name: "Console catalogs", path: fixed("/console/catalogs"), auth: session},
		{name: "Console credentials", path: fixed("/console/credentials"), auth: session},
		{name: "Console journal", path: fixed("/console/requests"), auth: session},
		{name: "Console organizations (operator)", path: fixed("/console/organizations"), auth: session, env: true},
		{name: "operator organizations", path: fixed("/admin/v1/organizations?" + env), auth: admin, env: true},
		{name: "operator gateway clients", path: fixed("/admin/v1/gateway-clients?" + env), auth: admin, env: true},
		{name: "operator service accounts", path: fixed("/admin/v1/service-accounts?" + env), auth: admin, env: true},
		{name: "operator journal, status=503", path: fixed("/admin/v1/requests?" + env + "&status=503"), auth: admin, env: true},
		{name: "operator journal of the tenant, status=404", path: fixed("/admin/v1/requests?businessId=" + t.businessID + "&status=404"), auth: admin},
		{name: "/metrics scrape", path: fixed("/metrics"), auth: func(*http.Request) {}, env: true},
		// Last: the orders it makes would be in every list above (the
		// small and the demo tenants' orders grow several times over).
		{name: "API create order (8 clients)", method: "PUT", path: fixed("/ecommerce/v3/order"), body: createBody, auth: ecom, limit: k.free, skip: none("products with stock", k.products)},
	}, nil
}

// login is the ecom token of service account user.
func (e *env) login(user, password string) (string, error) {
	req, _ := http.NewRequest("GET", e.url+"/auth/token", nil)
	req.SetBasicAuth(user, password)
	resp, err := e.client.Do(req)
	if err != nil {
		return "", err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := decodeJSON(resp, &tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// clientToken is the gateway token of client id.
func (e *env) clientToken(id, secret string) (string, error) {
	resp, err := e.client.PostForm(e.url+"/api/v1/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})
	if err != nil {
		return "", err
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := decodeJSON(resp, &tok); err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// consoleSession signs the operator in to the console with the admin
// token and chooses bid's organization, as an operator looking into a
// tenant does (the console shows shipments to the operator and to gateway
// clients, not to service accounts), and returns the session's cookie.
func (e *env) consoleSession(bid string) (*http.Cookie, error) {
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(e.url+"/console/sign-in", url.Values{"kind": {"operator"}, "token": {adminToken}})
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "parcelgate_console" && ck.Value != "" {
			session = ck
		}
	}
	if session == nil {
		return nil, fmt.Errorf("console sign-in of the operator: %d, no session", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", e.url+"/console/tenant", strings.NewReader(url.Values{"environment": {"production"}, "businessId": {bid}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(session)
	if resp, err = noRedirect.Do(req); err != nil {
		return nil, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("console: choosing %s: %d", bid, resp.StatusCode)
	}
	return session, nil
}
