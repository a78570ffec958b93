package console_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// The workbench (decisions §23): forms that create and drive
// test data through the API's own rules.

var testTenant = demo.Tenants[1] // the test environment's demo tenant

// caller is the demo merchant of env as the API's store calls see it.
func (e *env) caller(environment parcelgate.Environment) *parcelgate.Caller {
	e.t.Helper()
	org, err := e.api.Organizations.FindOrganization(context.Background(), parcelgate.EnvironmentOperator(environment), demo.Tenants[0].BusinessID)
	if err != nil {
		e.t.Fatal(err)
	}
	return &parcelgate.Caller{Subject: "test", OrgID: org.ID, BusinessID: org.BusinessID, Environment: environment, Kind: parcelgate.KindEcom, Roles: parcelgate.Roles}
}

// balance reads a product's balance in a catalog through the store.
func (e *env) balance(environment parcelgate.Environment, product, catalog string) *parcelgate.Balance {
	e.t.Helper()
	item, err := e.api.Inventory.FindInventoryItem(context.Background(), e.caller(environment), product)
	if err != nil {
		e.t.Fatalf("product %s: %v", product, err)
	}
	for _, b := range item.Balances {
		if b.CatalogExternalID == catalog {
			return b
		}
	}
	e.t.Fatalf("product %s has no balance in %s", product, catalog)
	return nil
}

// orderForm is a valid new-order form for the demo merchant.
func orderForm(product, quantity string) url.Values {
	return url.Values{
		"product0": {product}, "quantity0": {quantity},
		"name": {"Testi Asiakas"}, "streetAddress": {"Testikatu 1"}, "postalCode": {"00100"}, "postOffice": {"Helsinki"},
		"country": {"FI"}, "telephone": {"+358401111111"}, "email": {"testi@example.com"}, "serviceCode": {"2104"},
	}
}

var orderLocation = regexp.MustCompile(`^/console/orders/([^/?]+)\?done=created$`)

// createdOrder posts the form and returns the new order's service ID.
func (b *browser) createdOrder(form url.Values) string {
	b.e.t.Helper()
	p := b.post("/console/orders", form)
	m := orderLocation.FindStringSubmatch(p.location)
	if p.status != http.StatusSeeOther || m == nil {
		b.e.t.Fatalf("create order: %d %q\n%s", p.status, p.location, p.body)
	}
	return m[1]
}

// An integrator of the test environment creates an order
// from the browser; it is stored as PUT /ecommerce/v3/order would store
// it (allocated stock, the profile's vendor); it moves it to Delivered and
// gets tracking codes; a bad field is shown next to it, nothing stored.
func TestIntegratorCreatesAndDrivesATestOrder(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		tshirt := testTenant.BusinessID + "-TSHIRT-M"
		before := e.balance(parcelgate.Test, tshirt, "WH1")
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		form := b.get("/console/orders/new")
		if form.status != http.StatusOK {
			t.Fatalf("order form: %d %s", form.status, form.body)
		}
		mustContain(t, form, `<option value="`+tshirt+`"`, `id="serviceCode"`, `id="pickupPointId"`, `id="scenario"`)
		mustContain(t, b.get("/console/orders"), `href="/console/orders/new"`)
		// The pick-up points follow the postal code the form carries back.
		near := b.get("/console/orders/new?postalCode=33100&name=Kept")
		mustContain(t, near, `value="Kept"`, "(33")

		// Bad input: the API's messages, next to their fields.
		bad := orderForm(tshirt, "2.5")
		bad.Del("name")
		bad.Set("serviceCode", "NOUTO")
		bad.Del("email")
		p := b.post("/console/orders", bad)
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad order: %d", p.status)
		}
		mustContain(t, p, `id="name-error"`, "is required", `id="email-error"`, "NOUTO", "whole number")
		if got := e.balance(parcelgate.Test, tshirt, "WH1"); got.Allocated != before.Allocated {
			t.Fatalf("a refused form allocated stock: %d, was %d", got.Allocated, before.Allocated)
		}

		// A pick-up point must exist (PickupPointForOrder), shown by its list.
		badPoint := orderForm(tshirt, "1")
		badPoint.Set("serviceCode", "2103")
		badPoint.Set("pickupPointId", "NOSUCHPOINT")
		if p := b.post("/console/orders", badPoint); p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="pickupPointId" name="pickupPointId" aria-invalid="true"`) {
			t.Fatalf("unknown pick-up point: %d\n%s", p.status, p.body)
		}

		id := b.createdOrder(orderForm(tshirt, "3"))
		o := e.order(parcelgate.Test, testTenant.BusinessID, id)
		if o.Status.Value != parcelgate.OrderCreated || len(o.Rows) != 1 || o.Rows[0].Quantity != 3 || o.ServiceCode != "2104" {
			t.Fatalf("stored order: %+v", o)
		}
		if o.Vendor == nil || o.Vendor.ExternalID != testTenant.BusinessID {
			t.Fatalf("vendor not defaulted to the profile as the API does: %+v", o.Vendor)
		}
		if got := e.balance(parcelgate.Test, tshirt, "WH1"); got.Allocated != before.Allocated+3 {
			t.Fatalf("allocated %d, want %d", got.Allocated, before.Allocated+3)
		}
		// The integrator drives it as the warehouse would.
		page := b.get("/console/orders/" + id)
		mustContain(t, page, `id="move-Submitted"`)
		for _, to := range []string{"Submitted", "Delivered"} {
			if p := b.post("/console/orders/"+id+"/status", url.Values{"to": {to}}); p.status != http.StatusSeeOther {
				t.Fatalf("move to %s: %d %s", to, p.status, p.body)
			}
		}
		o = e.order(parcelgate.Test, testTenant.BusinessID, id)
		if o.Status.Value != parcelgate.OrderDelivered || len(o.Rows[0].TrackingCodes) != 1 {
			t.Fatalf("after the moves: %s %v", o.Status.Value, o.Rows[0].TrackingCodes)
		}
		mustContain(t, b.get("/console/orders/"+id), o.Rows[0].TrackingCodes[0])
		if got := e.balance(parcelgate.Test, tshirt, "WH1"); got.Quantity != before.Quantity-3 || got.Allocated != before.Allocated {
			t.Fatalf("after delivery: quantity %d allocated %d; before %d/%d", got.Quantity, got.Allocated, before.Quantity, before.Allocated)
		}
	})
}

// The scenario menu has the effect of the API's magic
// values, decided by the same OrderScenario and DeliveryParcels.
func TestScenarioMenuActsAsTheMagicValues(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		tshirt := testTenant.BusinessID + "-TSHIRT-M"
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		f := orderForm(tshirt, "1")
		f.Set("scenario", parcelgate.ScenarioOrderError)
		o := e.order(parcelgate.Test, testTenant.BusinessID, b.createdOrder(f))
		if o.Status.Value != parcelgate.OrderError || o.Status.Reason != parcelgate.ScenarioErrorReason || !strings.HasSuffix(o.ExternalID, ".ERROR") {
			t.Fatalf(".ERROR from the menu: %s %q %s", o.Status.Value, o.Status.Reason, o.ExternalID)
		}
		f.Set("scenario", parcelgate.ScenarioOrderCancel)
		f.Set("externalId", "MENU-C1")
		o = e.order(parcelgate.Test, testTenant.BusinessID, b.createdOrder(f))
		if o.Status.Value != parcelgate.OrderCancelled || o.ExternalID != "MENU-C1.CANCEL" {
			t.Fatalf(".CANCEL from the menu: %s %s", o.Status.Value, o.ExternalID)
		}
		f = orderForm(tshirt, "3")
		f.Set("scenario", parcelgate.ScenarioSplit+"3")
		id := b.createdOrder(f)
		for _, to := range []string{"Submitted", "Delivered"} {
			b.post("/console/orders/"+id+"/status", url.Values{"to": {to}})
		}
		if o := e.order(parcelgate.Test, testTenant.BusinessID, id); len(o.Rows[0].TrackingCodes) != 3 {
			t.Fatalf(".SPLIT3 from the menu: %d parcels", len(o.Rows[0].TrackingCodes))
		}
		// A scenario not on the menu is refused next to the field.
		f.Set("scenario", ".BOGUS")
		if p := b.post("/console/orders", f); p.status != http.StatusBadRequest || !strings.Contains(p.body, "test scenarios") {
			t.Fatalf("unknown scenario: %d", p.status)
		}
	})
}

// decisions §23: production's integrator may neither create nor move
// orders nor products from the console; nothing is stored.
func TestProductionIntegratorCannotUseTheWorkbench(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		for _, path := range []string{"/console/orders/new", "/console/products/new"} {
			if p := b.get(path); p.status != http.StatusForbidden {
				t.Fatalf("GET %s in production: %d", path, p.status)
			}
		}
		if strings.Contains(b.get("/console/orders").body, `href="/console/orders/new"`) {
			t.Fatal("the New order link is offered in production")
		}
		if p := b.post("/console/orders", orderForm(prod.BusinessID+"-TSHIRT-M", "1")); p.status != http.StatusForbidden {
			t.Fatalf("POST order in production: %d", p.status)
		}
		if p := b.post("/console/products", url.Values{"externalId": {"P-NEW"}, "name": {"x"}}); p.status != http.StatusForbidden {
			t.Fatalf("POST product in production: %d", p.status)
		}
		page, err := e.store.Orders.ListOrders(context.Background(), e.caller(parcelgate.Production), parcelgate.OrderQuery{}, parcelgate.PageRequest{Size: 100})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("production orders: %d %v", len(page.Items), err)
		}
		if p := b.post("/console/clock", url.Values{"advance": {"1h"}}); p.status != http.StatusForbidden {
			t.Fatalf("clock by a production integrator: %d", p.status)
		}
	})
}

// A product created and edited in the browser is what PUT
// /inventory stores; its stock is set through PUT balances' rules; bad
// counts are refused next to their field (ParseStockCount).
func TestIntegratorCreatesAProductAndSetsStock(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		form := b.get("/console/products/new")
		if form.status != http.StatusOK {
			t.Fatalf("product form: %d %s", form.status, form.body)
		}
		mustContain(t, form, `id="quantity0"`, "WH1")
		// quantity0 is the first catalog the merchant supplies: WH1 (its
		// own business ID sorts before the retailer's).
		p := b.post("/console/products", url.Values{"externalId": {"BENCH-1"}, "quantity0": {"2.5"}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("bad product: %d", p.status)
		}
		mustContain(t, p, "a name is required", "whole number")
		p = b.post("/console/products", url.Values{"externalId": {"BENCH-1"}, "name": {"Bench vice"}, "eanCode": {"6400000000099"}, "quantity0": {"40"}, "price0": {"12.50"}})
		if p.status != http.StatusSeeOther || !strings.Contains(p.location, "done=saved") {
			t.Fatalf("save product: %d %s", p.status, p.body)
		}
		bal := e.balance(parcelgate.Test, "BENCH-1", "WH1")
		if bal.Quantity != 40 || bal.WholesalePrice != "12.50" || bal.Currency != "EUR" {
			t.Fatalf("balance as stored: %+v", bal)
		}
		productPage := b.get(p.location)
		mustContain(t, productPage, "Bench vice", `id="edit-product"`, `action="`+strings.TrimSuffix(strings.Split(p.location, "?")[0], "")+`/stock"`)
		path := strings.Split(p.location, "?")[0]
		// Edit: the name changes, the externalId cannot.
		if p := b.post("/console/products", url.Values{"id": {path[len("/console/products/"):]}, "externalId": {"OTHER"}, "name": {"Bench vice, large"}, "eanCode": {"6400000000099"}}); p.status != http.StatusSeeOther {
			t.Fatalf("edit: %d %s", p.status, p.body)
		}
		item, err := e.api.Inventory.FindInventoryItem(context.Background(), e.caller(parcelgate.Test), "BENCH-1")
		if err != nil || !strings.Contains(string(item.Product.Document), "Bench vice, large") || !strings.Contains(string(item.Product.Document), "6400000000099") {
			t.Fatalf("edited product: %v %s", err, item.Product.Document)
		}
		// Editing a demo product keeps what the form does not show (its
		// Finnish name, measurements) and its balances.
		tshirt := testTenant.BusinessID + "-TSHIRT-M"
		tid := itoa(productID(t, e, tshirt))
		edit := b.get("/console/products/" + tid + "/edit")
		mustContain(t, edit, `value="T-shirt, size M"`, `value="6400000000017"`)
		if p := b.post("/console/products", url.Values{"id": {tid}, "name": {"T-shirt M"}, "eanCode": {"6400000000017"}, "unitOfMeasure": {"PCS"}}); p.status != http.StatusSeeOther {
			t.Fatalf("edit the T-shirt: %d %s", p.status, p.body)
		}
		item, err = e.api.Inventory.FindInventoryItem(context.Background(), e.caller(parcelgate.Test), tshirt)
		if err != nil || !strings.Contains(string(item.Product.Document), "T-paita, koko M") || !strings.Contains(string(item.Product.Document), `"measurements"`) || !strings.Contains(string(item.Product.Document), `"T-shirt M"`) {
			t.Fatalf("edited T-shirt: %v %s", err, item.Product.Document)
		}
		if got := e.balance(parcelgate.Test, tshirt, "WH1"); got.Quantity != 118 || got.Allocated != 2 {
			t.Fatalf("the edit touched the T-shirt's stock: %d/%d", got.Quantity, got.Allocated)
		}
		// Set stock: a whole count, kept allocations.
		stock := path + "/stock"
		p = b.post(stock, url.Values{"retailerId": {testTenant.BusinessID}, "catalog": {"WH1"}, "quantity": {"-1"}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="stock-error"`) || !strings.Contains(p.body, "negative") {
			t.Fatalf("negative stock: %d", p.status)
		}
		if p := b.post(stock, url.Values{"retailerId": {testTenant.BusinessID}, "catalog": {"WH1"}, "quantity": {"75"}}); p.status != http.StatusSeeOther {
			t.Fatalf("set stock: %d %s", p.status, p.body)
		}
		if got := e.balance(parcelgate.Test, "BENCH-1", "WH1"); got.Quantity != 75 {
			t.Fatalf("stock after the form: %d", got.Quantity)
		}
		// The list shows the stock's total (decisions §58), the
		// product's page the catalog.
		list := b.get("/console/products")
		mustContain(t, list, `data-stock="BENCH-1"><strong>75</strong> / 0 <span class="muted small">in 1 catalog</span>`, `id="new-product"`)
	})
}

// decisions §58: the products list shows one total a product, quantity
// and allocated over its catalogs; the product's page shows each catalog:
// the demo order holds 2 T-shirts of WH1.
func TestProductsListShowsStock(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(prod.Username, prod.Password)
		list := b.get("/console/products")
		mustContain(t, list, `data-stock="1234567-1-TSHIRT-M"><strong>238</strong> / 2 <span class="muted small">in 2 catalogs</span>`)
		if strings.Contains(list.body, "SHOP1") {
			t.Fatal("the list names the catalogs")
		}
		m := regexp.MustCompile(`href="/console/products/(\d+)">1234567-1-TSHIRT-M<`).FindStringSubmatch(list.body)
		if m == nil {
			t.Fatal("no link to the T-shirt")
		}
		page := b.get("/console/products/" + m[1])
		mustContain(t, page, `data-quantity="WH1">118<`, `data-quantity="SHOP1">120<`, `id="stock-total"`)
	})
}

// The object-level rule on every new form: another tenant's product or
// order answers exactly like a missing one, and nothing changes.
func TestWorkbenchCrossTenantIsMissing(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		_, foreignOrder := e.foreignOrder()
		// The production tenant's product, seen from the test tenant.
		prodPage, err := e.store.Inventory.ListProducts(ctx, e.caller(parcelgate.Production), parcelgate.ProductQuery{Search: "1234567-1-TSHIRT"}, parcelgate.PageRequest{Size: 10})
		if err != nil || len(prodPage.Items) == 0 {
			t.Fatalf("production product: %v", err)
		}
		foreign := itoa(prodPage.Items[0].Product.ID)
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		missing := b.get("/console/products/999999999/edit")
		if missing.status != http.StatusNotFound {
			t.Fatalf("missing product edit: %d", missing.status)
		}
		if p := b.get("/console/products/" + foreign + "/edit"); p.status != http.StatusNotFound || p.body != missing.body {
			t.Fatalf("another tenant's product edit: %d", p.status)
		}
		if p := b.post("/console/products", url.Values{"id": {foreign}, "name": {"hijack"}}); p.status != http.StatusNotFound || p.body != missing.body {
			t.Fatalf("another tenant's product save: %d", p.status)
		}
		if p := b.post("/console/products/"+foreign+"/stock", url.Values{"retailerId": {prod.BusinessID}, "catalog": {"WH1"}, "quantity": {"0"}}); p.status != http.StatusNotFound || p.body != missing.body {
			t.Fatalf("another tenant's stock: %d", p.status)
		}
		if got := e.balance(parcelgate.Production, prod.BusinessID+"-TSHIRT-M", "WH1"); got.Quantity != 118 {
			t.Fatalf("production stock changed: %d", got.Quantity)
		}
		if p := b.post("/console/orders/"+foreignOrder+"/status", url.Values{"to": {"Cancelled"}}); p.status != http.StatusNotFound {
			t.Fatalf("move of another tenant's order: %d", p.status)
		}
		prodOrder := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder)
		if p := b.post("/console/orders/"+prodOrder.ID+"/status", url.Values{"to": {"Cancelled"}}); p.status != http.StatusNotFound {
			t.Fatalf("move of the production twin's order: %d", p.status)
		}
		if o := e.order(parcelgate.Production, prod.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCreated {
			t.Fatalf("production order moved: %s", o.Status.Value)
		}
		// An order naming another business's product is refused by the
		// API's rule, next to the row.
		p := b.post("/console/orders", orderForm("7777777-4-MUG", "1"))
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "not yours") {
			t.Fatalf("foreign product in an order: %d", p.status)
		}
	})
}

// A reset or restore without the typed business ID changes
// nothing; "Back to the demo data" restores the seeded demo.
func TestResetNeedsTypedConfirmation(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		tenant := demo.Tenants[0].BusinessID
		op := e.operator(parcelgate.Production)
		home := op.get("/console/")
		mustContain(t, home, `id="confirm-reset"`, `id="restore-demo"`, `id="confirm-restore-demo"`)
		for _, typed := range []string{"", "yes", "7777777-4"} {
			p := op.post("/console/sandbox/reset", url.Values{"confirm": {typed}})
			if p.status != http.StatusBadRequest {
				t.Fatalf("reset confirmed by %q: %d", typed, p.status)
			}
			mustContain(t, p, `id="confirm-reset-error"`, "Type "+tenant+" to confirm")
		}
		if p := op.post("/console/sandbox/snapshots/demo/restore", url.Values{}); p.status != http.StatusBadRequest {
			t.Fatalf("unconfirmed restore: %d", p.status)
		}
		if !e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("an unconfirmed reset removed the order")
		}
		if p := op.post("/console/sandbox/reset", url.Values{"confirm": {tenant}}); p.status != http.StatusSeeOther {
			t.Fatalf("confirmed reset: %d", p.status)
		}
		if e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("the confirmed reset kept the order")
		}
		if p := op.post("/console/sandbox/demo", url.Values{}); p.status != http.StatusBadRequest {
			t.Fatalf("unconfirmed demo restore: %d", p.status)
		}
		if p := op.post("/console/sandbox/demo", url.Values{"confirm": {" " + tenant + " "}}); p.status != http.StatusSeeOther {
			t.Fatalf("back to the demo: %d %s", p.status, p.body)
		}
		if !e.hasOrder(tenant, demo.SampleOrder) {
			t.Fatal("the demo order did not come back")
		}
		// An integrator may not do it.
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		if p := b.post("/console/sandbox/demo", url.Values{"confirm": {tenant}}); p.status != http.StatusForbidden {
			t.Fatalf("integrator demo restore: %d", p.status)
		}
	})
}

// decisions §23: on a --sandbox server the test integrator moves the test
// clock from the overview; production's does not move.
func TestIntegratorAdvancesTheTestClock(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		b := e.browser()
		b.signIn(testTenant.Username, testTenant.Password)
		mustContain(t, b.get("/console/"), `id="advance-clock"`)
		if p := b.post("/console/clock", url.Values{"advance": {"2h"}}); p.status != http.StatusSeeOther {
			t.Fatalf("advance: %d %s", p.status, p.body)
		}
		deadline := time.Now().Add(3 * time.Second)
		for e.clock.Offset(parcelgate.Test) < 2*time.Hour && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if e.clock.Offset(parcelgate.Test) < 2*time.Hour || e.clock.Offset(parcelgate.Production) != 0 {
			t.Fatalf("offsets: test %v production %v", e.clock.Offset(parcelgate.Test), e.clock.Offset(parcelgate.Production))
		}
	})
}

// decisions §23: the operator uses the workbench on the tenant it picked,
// in production only on a --sandbox server.
func TestOperatorWorkbenchFollowsTheSandboxMode(t *testing.T) {
	for _, sandbox := range []bool{true, false} {
		eachEngineMode(t, sandbox, func(t *testing.T, e *env) {
			op := e.operator(parcelgate.Production)
			tshirt := prod.BusinessID + "-TSHIRT-M"
			if !sandbox {
				for _, path := range []string{"/console/orders/new", "/console/products/new"} {
					if p := op.get(path); p.status != http.StatusForbidden || !strings.Contains(p.body, "--sandbox") {
						t.Fatalf("GET %s on production without --sandbox: %d", path, p.status)
					}
				}
				if p := op.post("/console/orders", orderForm(tshirt, "1")); p.status != http.StatusForbidden {
					t.Fatalf("POST order: %d", p.status)
				}
				if got := e.balance(parcelgate.Production, tshirt, "WH1"); got.Allocated != 2 {
					t.Fatalf("allocated %d: an order was placed", got.Allocated)
				}
				return
			}
			id := op.createdOrder(orderForm(tshirt, "1"))
			if o := e.order(parcelgate.Production, prod.BusinessID, id); o.Status.Value != parcelgate.OrderCreated {
				t.Fatalf("operator's order: %s", o.Status.Value)
			}
			if p := op.post("/console/products", url.Values{"externalId": {"OP-1"}, "name": {"Operator's"}, "quantity0": {"5"}}); p.status != http.StatusSeeOther {
				t.Fatalf("operator's product: %d %s", p.status, p.body)
			}
			if got := e.balance(parcelgate.Production, "OP-1", "WH1"); got.Quantity != 5 {
				t.Fatalf("operator's product stock: %d", got.Quantity)
			}
		})
	}
}

func eachEngineMode(t *testing.T, sandbox bool, fn func(t *testing.T, e *env)) {
	name := "sandbox"
	if !sandbox {
		name = "not-sandbox"
	}
	t.Run(name, func(t *testing.T) {
		for _, engine := range testdb.Engines {
			t.Run(engine, func(t *testing.T) { fn(t, newEnvMode(t, engine, sandbox)) })
		}
	})
}
