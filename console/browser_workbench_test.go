package console_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
)

// typeInto clears a field and types text into it, key by key, as a person
// does.
func (tb *tab) typeInto(id, text string) {
	tb.c.t.Helper()
	tb.do("type into #"+id, chromedp.Click(chromedp.ID(id)), chromedp.Clear(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), text))
}

// The workbench in real Chromium: an integrator of the test environment creates
// an order with the form, moves it to Delivered itself, sees its tracking
// code and the stock it took, sets stock from the keyboard and copies an
// API call as curl; the operator's reset without the typed business ID
// changes nothing, and "Back to the demo data" brings the demo back.
func TestBrowserWorkbench(t *testing.T) {
	e, c := newBrowserEnv(t)
	tshirt := testTenant.BusinessID + "-TSHIRT-M"
	before := e.balance(parcelgate.Test, tshirt, "WH1")

	// The front door: the server's root points the way, and
	// the icon a browser asks for is there (loaded as the page's CSP
	// allows: an image of the same site).
	in := c.person()
	in.navigate("open the server's root", chromedp.Navigate(e.url+"/"))
	in.waitText("h1", "parcelgate")
	status, err := chromedp.Run(in.ctx, chromedp.Evaluate[int](`new Promise(done => { const i = new Image(); i.onload = () => done(200); i.onerror = () => done(404); i.src = document.querySelector('link[rel=icon]').href; })`, chromedp.EvalAwaitPromise))
	if err != nil || status != 200 {
		t.Fatalf("favicon: %d %v", status, err)
	}
	in.shot("27-front-door")
	in.navigate("follow the console link", chromedp.Click(chromedp.CSS(`a[href="/console/"]`)))
	in.signIn(testTenant.Username, testTenant.Password)
	in.waitText("h1", "Overview")
	in.navigate("open Orders", chromedp.Click(chromedp.CSS(`nav a[href="/console/orders"]`)))
	in.navigate("open the new-order form", chromedp.Click(chromedp.ID("new-order")))
	in.waitText("h1", "New order")

	// A form without a recipient is refused next to the field.
	in.do("choose the product", chromedp.SetValue(chromedp.ID("product0"), tshirt))
	in.navigate("submit an incomplete order", chromedp.Click(chromedp.ID("create-order")))
	in.waitText("#name-error", "is required")
	in.shot("16-order-new-refused")

	in.typeInto("quantity0", "3")
	in.do("choose home delivery", chromedp.SetValue(chromedp.ID("serviceCode"), "2104"))
	in.typeInto("name", "Testi Asiakas")
	in.typeInto("streetAddress", "Testikatu 1")
	in.typeInto("postalCode", "00100")
	in.typeInto("postOffice", "Helsinki")
	in.typeInto("telephone", "+358401111111")
	in.typeInto("email", "testi@example.com")
	in.typeInto("so", "BROWSER-1")
	in.shot("17-order-new")
	in.navigate("create the order", chromedp.Click(chromedp.ID("create-order")))
	in.waitText("#order-status", "Created")
	in.waitText(".notice", "as the API would have created it")
	in.shot("18-order-created-by-integrator")

	// The integrator drives its test order.
	in.navigate("move to Submitted", chromedp.Click(chromedp.ID("move-Submitted")))
	in.waitText("#order-status", "Submitted")
	in.navigate("move to Delivered", chromedp.Click(chromedp.ID("move-Delivered")))
	in.waitText("#order-status", "Delivered")
	id := strings.TrimPrefix(in.location(), e.url+"/console/orders/")
	id, _, _ = strings.Cut(id, "?")
	o := e.order(parcelgate.Test, testTenant.BusinessID, id)
	if o.Status.Value != parcelgate.OrderDelivered || len(o.Rows[0].TrackingCodes) != 1 {
		t.Fatalf("order after the browser's moves: %s %v", o.Status.Value, o.Rows[0].TrackingCodes)
	}
	in.waitText("#rows", o.Rows[0].TrackingCodes[0])
	in.shotPhone("19-order-delivered-by-integrator")

	// The stock it took, on the products list.
	after := e.balance(parcelgate.Test, tshirt, "WH1")
	if after.Quantity != before.Quantity-3 {
		t.Fatalf("stock %d after delivering 3 of %d", after.Quantity, before.Quantity)
	}
	in.navigate("open Products", chromedp.Click(chromedp.CSS(`nav a[href="/console/products"]`)))
	// One total a product, over its catalogs (decisions §58).
	total := productTotal(t, e, tshirt)
	if total.Allocated != after.Allocated {
		t.Fatalf("total %+v, WH1 %+v: WH1 holds the allocations", total, after)
	}
	in.waitText(`[data-stock="`+tshirt+`"]`, strconv.FormatInt(total.Quantity, 10)+" / "+strconv.FormatInt(total.Allocated, 10))
	in.shotPhone("20-products-stock")

	// Set stock from the keyboard: type the count, press Enter.
	in.navigate("open the T-shirt", chromedp.Click(chromedp.CSS(`a[href^="/console/products/"]:not(#new-product)`+`[href$="`+itoa(productID(t, e, tshirt))+`"]`)))
	field := "stock-" + testTenant.BusinessID + "-WH1"
	in.typeInto(field, "200")
	in.navigate("press Enter", chromedp.KeyEvent(kb.Enter))
	in.waitText(`[data-quantity="WH1"]`, "200")
	in.shot("21-product-stock-set")
	in.navigate("edit the product", chromedp.Click(chromedp.ID("edit-product")))
	in.waitText("h1", "Edit "+tshirt)
	in.shot("22-product-edit")

	// A new product, refused then saved.
	in.navigate("open a new product", chromedp.Navigate(e.url+"/console/products/new"))
	in.typeInto("externalId", "BROWSER-P1")
	in.typeInto("quantity0", "2.5")
	in.navigate("save an incomplete product", chromedp.Click(chromedp.ID("save-product")))
	in.waitText("#product-form", "whole number")
	in.shot("23-product-new-refused")
	in.typeInto("name", "Browser product")
	in.typeInto("quantity0", "12")
	in.navigate("save the product", chromedp.Click(chromedp.ID("save-product")))
	in.waitText(".notice", "as the API would have saved it")
	in.waitText(`[data-quantity="WH1"]`, "12")

	// An API call of the tenant, copied as curl.
	if st := e.apiCall(testTenant.Username, testTenant.Password, "/ecommerce/v3/orders/"+id, "browser-curl-1"); st != 200 {
		t.Fatalf("API call: %d", st)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		in.navigate("open the journaled call", chromedp.Navigate(e.url+"/console/requests/browser-curl-1"))
		if strings.Contains(in.text("h1"), "GET") || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	in.waitText("#curl-command", "Authorization: Bearer <access_token>")
	in.waitText("#curl-command", "curl '"+e.url+"/ecommerce/v3/orders/"+id+"'")
	in.shot("24-request-as-curl")

	// The operator's reset needs the business ID typed.
	op := c.person()
	op.navigate("open the console", chromedp.Navigate(e.url+"/console/sign-in"))
	op.do("fill the admin token", chromedp.SendKeys(chromedp.ID("token"), adminToken))
	op.navigate("sign in as operator", chromedp.Click(chromedp.ID("sign-in-operator")))
	op.navigate("show the test environment", chromedp.Navigate(e.url+"/console/?environment=test"))
	op.navigate("open the test demo organization", chromedp.Click(chromedp.CSS(`button[aria-label^="Open Demo Shop Oy (1234567-1, test)"]`)))
	op.waitText(".notice", "looking at this organization")
	op.navigate("reset without typing the business ID", chromedp.Click(chromedp.ID("reset-tenant")))
	op.waitText("#confirm-reset-error", "Type "+testTenant.BusinessID+" to confirm")
	op.shot("25-reset-refused-without-confirmation")
	if _, err := e.store.Orders.FindOrder(t.Context(), e.caller(parcelgate.Test), id); err != nil {
		t.Fatalf("the unconfirmed reset removed the order: %v", err)
	}
	op.typeInto("confirm-demo", testTenant.BusinessID)
	op.navigate("back to the demo data", chromedp.Click(chromedp.ID("restore-demo")))
	op.waitText(".notice", "demo data is back")
	op.shot("26-back-to-the-demo")
	if _, err := e.store.Orders.FindOrder(t.Context(), e.caller(parcelgate.Test), id); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
		t.Fatalf("the browser's order survived the demo restore: %v", err)
	}
	if o := e.order(parcelgate.Test, testTenant.BusinessID, demo.SampleOrder); o.Status.Value != parcelgate.OrderCreated {
		t.Fatalf("the demo order after the restore: %s", o.Status.Value)
	}
}

// location is the tab's current URL.
func (tb *tab) location() string {
	tb.c.t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Location())
	if err != nil {
		tb.c.t.Fatal(err)
	}
	return s
}

// productID is the store's id of the test tenant's product.
func productID(t *testing.T, e *env, externalID string) int64 {
	t.Helper()
	return testProduct(t, e, externalID).Product.ID
}

// productTotal is the stock total of the test tenant's product.
func productTotal(t *testing.T, e *env, externalID string) parcelgate.StockTotal {
	t.Helper()
	return testProduct(t, e, externalID).Total
}

func testProduct(t *testing.T, e *env, externalID string) *parcelgate.ScopedProduct {
	t.Helper()
	page, err := e.store.Inventory.ListProducts(t.Context(), e.caller(parcelgate.Test), parcelgate.ProductQuery{Search: externalID}, parcelgate.PageRequest{Size: 10})
	if err != nil || len(page.Items) == 0 || page.Items[0].Product.ExternalID != externalID {
		t.Fatalf("product %s: %v", externalID, err)
	}
	return page.Items[0]
}
