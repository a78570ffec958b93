package console

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
	views "github.com/parcelgate/parcelgate/console/view"
)

// The workbench: forms that create and edit test data and drive
// test orders, each through the same root rules and store services as the
// API (OrderRequest.Validate and CreateOrder; InventoryInput.Validate and
// PutInventory, which plans with PlanInventory; ParseStockCount and
// PutBalances, which plans with PlanBalances; ParseOrderMove and
// SetOrderStatus), so what a form stores is what the API would have
// stored. Who may use them where is DecideWorkbench's (decisions §23).

// orderFormRows is how many row slots the order form offers.
const orderFormRows = 5

// workbench answers whether s may use control here, after sending the
// refusal page when not.
func (c *Console) workbench(w http.ResponseWriter, r *http.Request, s *session, control parcelgate.Control) bool {
	if err := parcelgate.DecideWorkbench(c.cfg.Sandbox, s.caller, control); err != nil {
		c.fail(w, r, s, err)
		return false
	}
	return true
}

// fieldErrors returns the problems of err by field, as the API names them.
func fieldErrors(err error) map[string]string {
	out := map[string]string{}
	for _, f := range parcelgate.ErrorFields(err) {
		if _, dup := out[f.Field]; !dup {
			out[f.Field] = f.Message
		}
	}
	return out
}

// --- new order --------------------------------------------------------------

// scenarioChoice is a test scenario of the order form's menu: the suffix
// the API's magic values use, so OrderScenario and DeliveryParcels decide
// it exactly as they decide an API order.
type scenarioChoice struct{ Suffix, Label string }

var scenarioChoices = []scenarioChoice{
	{parcelgate.ScenarioOrderError, "The warehouse rejects it (Error)"},
	{parcelgate.ScenarioOrderCancel, "Cancelled for a delivery problem"},
	{parcelgate.ScenarioSplit + "2", "Delivered in 2 parcels per row"},
	{parcelgate.ScenarioSplit + "3", "Delivered in 3 parcels per row"},
	// The tracking scenarios (decisions §30, §40): the order's parcels
	// take its externalId as their reference.
	{parcelgate.ScenarioReturn, "Delivered, then its parcels are refused and returned"},
	{parcelgate.ScenarioUncollected, "Delivered to a pick-up point, never collected"},
}

type orderFormRow struct{ Product, Quantity, Warehouse string }

type orderFormData struct {
	Form       url.Values
	Rows       []orderFormRow
	Errors     map[string]string
	Error      string
	Products   []*views.Product
	Warehouses []views.Catalog
	Services   []parcelgate.DeliveryService
	Points     []parcelgate.PickupPoint
	Scenarios  []scenarioChoice
}

// mayCreateOrder decides the order form's page and its action alike
// (DecideOrderForm): the page reads products, catalogs and points the
// order service is not asked about before the form is sent.
func (c *Console) mayCreateOrder(w http.ResponseWriter, r *http.Request, s *session) bool {
	return c.needTenant(w, r, s) && c.decided(w, r, s, parcelgate.DecideOrderForm(c.cfg.Sandbox, s.caller))
}

func (c *Console) newOrderPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayCreateOrder(w, r, s) {
		return
	}
	// The form comes back here by GET to list the pick-up points near the
	// postal code entered, keeping what was typed.
	form := r.URL.Query()
	if len(form) == 0 {
		form = url.Values{"country": {"FI"}, "serviceCode": {"2103"}, "quantity0": {"1"}}
	}
	c.renderOrderForm(w, r, s, http.StatusOK, form, nil, "")
}

func (c *Console) renderOrderForm(w http.ResponseWriter, r *http.Request, s *session, status int, form url.Values, errs map[string]string, msg string) {
	ctx := r.Context()
	d := &orderFormData{Form: form, Errors: errs, Error: msg}
	if d.Errors == nil {
		d.Errors = map[string]string{}
	}
	for i := range orderFormRows {
		n := strconv.Itoa(i)
		d.Rows = append(d.Rows, orderFormRow{form.Get("product" + n), form.Get("quantity" + n), form.Get("warehouse" + n)})
	}
	page, err := c.listProducts(ctx, s.caller, "", parcelgate.PageRequest{Size: 200})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	for _, p := range page.Items {
		if p.Own && p.Status == parcelgate.ProductActive {
			d.Products = append(d.Products, p)
		}
	}
	cats, err := c.reads.ConsoleCatalogChoices(ctx, s.caller)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	for _, k := range cats {
		if k.Own {
			d.Warehouses = append(d.Warehouses, k)
		}
	}
	d.Services, _ = parcelgate.DeliveryServices("")
	q := parcelgate.PickupQuery{ServiceCodes: []string{parcelgate.ServiceToPickupPoint}, PostalCode: strings.TrimSpace(form.Get("postalCode")), Country: "FI", Limit: 20}
	if q.Validate() != nil {
		q = parcelgate.PickupQuery{ServiceCodes: []string{parcelgate.ServiceToPickupPoint}, PostalCode: "00100", Country: "FI", Limit: 20}
		q.Validate()
	}
	d.Points = c.pickups.QueryPickupPoints(q, c.cfg.Clock.Now(s.Environment))
	if s.Environment == parcelgate.Test {
		d.Scenarios = scenarioChoices
	}
	c.renderView(w, r, status, "order-new", &view{Title: "New order", Session: s, Nav: "orders", Data: d})
}

// newOrderID is the externalId of an order the form names none for but
// gives a scenario: bare (it may be, interface §4.3 rule 2) and short,
// so the scenario's suffix fits the 20 characters.
func newOrderID() string {
	var b [3]byte
	rand.Read(b[:])
	return "C" + strings.ToUpper(hex.EncodeToString(b[:]))
}

// createOrder places the form's order through the API's rules: CreateOrder
// checks the request (OrderRequest.Validate), defaults the warehouse,
// allocates, applies the test scenarios and stores it, as PUT
// /ecommerce/v3/order does.
func (c *Console) createOrder(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayCreateOrder(w, r, s) {
		return
	}
	if err := r.ParseForm(); err != nil {
		c.errorPage(w, r, s, http.StatusBadRequest, "The form could not be read.")
		return
	}
	f := r.PostForm
	req := &parcelgate.OrderRequest{
		ExternalID: strings.TrimSpace(f.Get("externalId")),
		DeliveryAddress: parcelgate.Address{Name: f.Get("name"), StreetAddress: f.Get("streetAddress"), PostalCode: f.Get("postalCode"),
			PostOffice: f.Get("postOffice"), Country: f.Get("country"), Telephone: strings.TrimSpace(f.Get("telephone")), Email: strings.TrimSpace(f.Get("email"))},
		ServiceCode:    f.Get("serviceCode"),
		PickupPointID:  f.Get("pickupPointId"),
		AutoSubmit:     true,
		ClientSoftware: "parcelgate console",
	}
	if so := strings.TrimSpace(f.Get("so")); so != "" {
		req.References = []parcelgate.OrderReference{{Name: parcelgate.RefSO, Value: so}}
	}
	errs := map[string]string{}
	if sc := f.Get("scenario"); sc != "" {
		known := false
		for _, ch := range scenarioChoices {
			known = known || ch.Suffix == sc
		}
		switch {
		case !known || s.Environment != parcelgate.Test:
			errs["scenario"] = "Choose one of the test scenarios of the list (test environment only)."
		case req.ExternalID == "":
			req.ExternalID = newOrderID() + sc
		case !strings.HasSuffix(strings.ToUpper(req.ExternalID), sc):
			req.ExternalID += sc
		}
	}
	// slot maps a row of the request back to the form's row slot.
	var slot []int
	for i := range orderFormRows {
		n := strconv.Itoa(i)
		prod, qty := strings.TrimSpace(f.Get("product"+n)), strings.TrimSpace(f.Get("quantity"+n))
		if prod == "" {
			continue
		}
		q, err := parcelgate.ParseStockCount(qty)
		if err != nil || q < 1 {
			errs["rows["+n+"].quantity"] = "must be a whole number of at least 1"
		}
		req.Rows = append(req.Rows, parcelgate.OrderRowRequest{ExternalID: strconv.Itoa(len(req.Rows) + 1), ExternalProductID: prod, ExternalWarehouseID: strings.TrimSpace(f.Get("warehouse" + n)), Quantity: q})
		slot = append(slot, i)
	}
	if len(req.Rows) == 0 {
		errs["rows[0].externalProductId"] = "choose at least one product"
	}
	// CreateOrder checks the request (OrderRequest.Validate); only a form
	// with problems of its own asks the same check here, so that the page
	// shows every problem at once.
	var o *parcelgate.Order
	var err error
	if len(errs) == 0 {
		o, err = c.orders.CreateOrder(r.Context(), s.caller, req)
	} else {
		err = req.Validate(s.BusinessID, c.pickups)
	}
	if err != nil || len(errs) > 0 {
		code := parcelgate.ErrorCode(err)
		if err != nil && code != parcelgate.EINVALID && code != parcelgate.ECONFLICT && code != parcelgate.ENOTFOUND {
			c.fail(w, r, s, err)
			return
		}
		for k, v := range fieldErrors(err) {
			// rows[i] of the request is the form's slot slot[i].
			if strings.HasPrefix(k, "rows[") {
				if j, rest, ok := strings.Cut(k[len("rows["):], "]"); ok {
					if i, e := strconv.Atoi(j); e == nil && i < len(slot) {
						k = "rows[" + strconv.Itoa(slot[i]) + "]" + rest
					}
				}
			}
			if _, dup := errs[k]; !dup {
				errs[k] = v
			}
		}
		msg := ""
		if err != nil {
			msg = parcelgate.ErrorMessage(err)
		}
		status := http.StatusBadRequest
		if code == parcelgate.ECONFLICT {
			status = http.StatusConflict
		}
		c.renderOrderForm(w, r, s, status, f, errs, msg)
		return
	}
	http.Redirect(w, r, Prefix+"/orders/"+url.PathEscape(o.ID)+"?done=created", http.StatusSeeOther)
}

// --- products -----------------------------------------------------------------

type productFormBalance struct {
	Catalog  views.Catalog
	Quantity string
	Price    string
}

type productFormData struct {
	Edit     bool
	ID       int64
	Form     url.Values
	Balances []productFormBalance
	Errors   map[string]string
	Error    string
}

// mayEditProducts decides the product forms' pages and actions alike
// (DecideProductForm).
func (c *Console) mayEditProducts(w http.ResponseWriter, r *http.Request, s *session) bool {
	return c.needTenant(w, r, s) && c.decided(w, r, s, parcelgate.DecideProductForm(c.cfg.Sandbox, s.caller))
}

// ownProduct loads the caller's own product by the store's id for an
// edit; a product it does not supply answers like a missing one.
func (c *Console) ownProduct(w http.ResponseWriter, r *http.Request, s *session, raw string) (*views.Product, []views.Balance, bool) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		c.errorPage(w, r, s, http.StatusNotFound, "There is no such page, or it is not yours to see.")
		return nil, nil, false
	}
	p, page, err := c.findProduct(r.Context(), s.caller, id, "")
	if err == nil && !p.Own {
		err = parcelgate.Errorf(parcelgate.ENOTFOUND, "Product not found.")
	}
	bals, next := page.Items, page.Next
	// The form has a slot for every catalog the organization supplies:
	// every page of the product's balances (the workbench's test data).
	for err == nil && next != "" {
		var more parcelgate.Page[*parcelgate.CatalogStock]
		if more, err = c.inventory.ProductStock(r.Context(), s.caller, id, parcelgate.PageRequest{After: next, Size: 500}); err == nil {
			for _, st := range more.Items {
				bals = append(bals, balanceView(st))
			}
			next = more.Next
		}
	}
	if err != nil {
		c.fail(w, r, s, err)
		return nil, nil, false
	}
	return p, bals, true
}

func (c *Console) newProductPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayEditProducts(w, r, s) {
		return
	}
	c.renderProductForm(w, r, s, http.StatusOK, &productFormData{Form: url.Values{"unitOfMeasure": {"PCS"}}}, nil)
}

func (c *Console) editProductPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayEditProducts(w, r, s) {
		return
	}
	p, bals, ok := c.ownProduct(w, r, s, r.PathValue("id"))
	if !ok {
		return
	}
	var doc struct {
		UnitOfMeasure string `json:"unitOfMeasure"`
		IsFragile     bool   `json:"isFragile"`
		Descriptions  struct {
			En struct {
				Name string `json:"name"`
			} `json:"en"`
		} `json:"descriptions"`
	}
	json.Unmarshal(p.Document, &doc)
	// The form edits the English name; another language's stays as it is.
	form := url.Values{"externalId": {p.ExternalID}, "name": {doc.Descriptions.En.Name}, "eanCode": {p.EANCode}, "unitOfMeasure": {doc.UnitOfMeasure}}
	if doc.IsFragile {
		form.Set("isFragile", "true")
	}
	d := &productFormData{Edit: true, ID: p.ID, Form: form}
	c.renderProductForm(w, r, s, http.StatusOK, d, bals)
}

// renderProductForm lists a balance slot per catalog the organization
// supplies, filled from bals (an edit's current balances) or the form.
func (c *Console) renderProductForm(w http.ResponseWriter, r *http.Request, s *session, status int, d *productFormData, bals []views.Balance) {
	cats, err := c.reads.ConsoleCatalogChoices(r.Context(), s.caller)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if d.Errors == nil {
		d.Errors = map[string]string{}
	}
	d.Balances = nil
	for i, k := range cats {
		b := productFormBalance{Catalog: k}
		n := strconv.Itoa(i)
		if d.Form.Has("quantity" + n) {
			b.Quantity, b.Price = d.Form.Get("quantity"+n), d.Form.Get("price"+n)
		}
		for _, have := range bals {
			if have.RetailerID == k.RetailerID && have.Catalog == k.ExternalID && !have.Removed {
				b.Quantity, b.Price = strconv.FormatInt(have.Quantity, 10), have.Price
			}
		}
		d.Balances = append(d.Balances, b)
	}
	title := "New product"
	if d.Edit {
		title = "Edit " + d.Form.Get("externalId")
	}
	c.renderView(w, r, status, "product-form", &view{Title: title, Session: s, Nav: "products", Data: d})
}

// saveProduct creates or replaces a product with its balances through PUT
// /ecommerce/v3/inventory's rules: one envelope checked by
// InventoryInput.Validate, applied by PutInventory (PlanInventory). An
// edit starts from the stored document, so fields the form does not show
// are kept.
func (c *Console) saveProduct(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.mayEditProducts(w, r, s) {
		return
	}
	if err := r.ParseForm(); err != nil {
		c.errorPage(w, r, s, http.StatusBadRequest, "The form could not be read.")
		return
	}
	f := r.PostForm
	d := &productFormData{Form: f, Errors: map[string]string{}}
	doc := map[string]any{}
	externalID := strings.TrimSpace(f.Get("externalId"))
	if raw := f.Get("id"); raw != "" {
		p, _, ok := c.ownProduct(w, r, s, raw)
		if !ok {
			return
		}
		d.Edit, d.ID = true, p.ID
		json.Unmarshal(p.Document, &doc)
		externalID = p.ExternalID // an edit never renames
		f.Set("externalId", externalID)
	}
	name := strings.TrimSpace(f.Get("name"))
	ean := strings.TrimSpace(f.Get("eanCode"))
	doc["externalId"] = externalID
	if ean != "" {
		doc["eanCode"] = ean
	} else {
		delete(doc, "eanCode")
	}
	if u := strings.TrimSpace(f.Get("unitOfMeasure")); u != "" {
		doc["unitOfMeasure"] = u
	}
	doc["isFragile"] = f.Get("isFragile") == "true"
	descs, _ := doc["descriptions"].(map[string]any)
	if descs == nil {
		descs = map[string]any{}
	}
	en, _ := descs["en"].(map[string]any)
	if en == nil {
		en = map[string]any{}
	}
	en["name"] = name
	descs["en"] = en
	doc["descriptions"] = descs
	raw, _ := json.Marshal(doc)
	in := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: externalID, EANCode: ean, Document: raw}, Named: name != ""}
	cats, err := c.reads.ConsoleCatalogChoices(r.Context(), s.caller)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	var slot []int // balances[j] of the envelope is the form's slot slot[j]
	eur := "EUR"
	for i, k := range cats {
		n := strconv.Itoa(i)
		qty, price := strings.TrimSpace(f.Get("quantity"+n)), strings.TrimSpace(f.Get("price"+n))
		if qty == "" && price == "" {
			continue
		}
		b := parcelgate.BalanceInput{RetailerID: k.RetailerID, CatalogExternalID: k.ExternalID}
		if qty != "" {
			q, err := parcelgate.ParseStockCount(qty)
			if err != nil {
				d.Errors["quantity"+n] = parcelgate.ErrorMessage(err)
			}
			b.Quantity = &q
		}
		if price != "" {
			b.WholesalePrice, b.Currency = &price, &eur
		}
		in.Balances = append(in.Balances, b)
		slot = append(slot, i)
	}
	err = in.Validate(s.BusinessID)
	if err == nil && len(d.Errors) == 0 {
		var failed parcelgate.InventoryFailures
		failed, err = c.inventory.PutInventory(r.Context(), s.caller, []parcelgate.InventoryInput{in})
		if err == nil && failed[0] != nil {
			err = failed[0]
		}
	}
	if err != nil || len(d.Errors) > 0 {
		if err != nil && parcelgate.ErrorCode(err) != parcelgate.EINVALID && parcelgate.ErrorCode(err) != parcelgate.ECONFLICT {
			c.fail(w, r, s, err)
			return
		}
		for k, v := range fieldErrors(err) {
			switch {
			case k == "product.descriptions":
				k = "name"
			case strings.HasPrefix(k, "product."):
				k = strings.TrimPrefix(k, "product.")
			case strings.HasPrefix(k, "balances["):
				j, rest, _ := strings.Cut(k[len("balances["):], "].")
				if i, e := strconv.Atoi(j); e == nil && i < len(slot) {
					switch rest {
					case "wholesalePrice", "currency":
						k = "price" + strconv.Itoa(slot[i])
					default:
						k = "quantity" + strconv.Itoa(slot[i])
					}
				}
			}
			if _, dup := d.Errors[k]; !dup {
				d.Errors[k] = v
			}
		}
		if err != nil {
			d.Error = parcelgate.ErrorMessage(err)
		}
		c.renderProductForm(w, r, s, http.StatusBadRequest, d, nil)
		return
	}
	id := d.ID // an edit's product keeps its id
	if !d.Edit {
		if id, err = c.productID(r, s, externalID); err != nil {
			c.fail(w, r, s, err)
			return
		}
	}
	http.Redirect(w, r, fmt.Sprintf("%s/products/%d?done=saved", Prefix, id), http.StatusSeeOther)
}

// productID finds the store's id of the caller's product externalID (bare
// or prefixed: the same product, ProductKey). The search matches every
// product whose externalId contains it, so it reads on past the first
// page until it meets the one whose key is externalID's.
func (c *Console) productID(r *http.Request, s *session, externalID string) (int64, error) {
	key := parcelgate.ProductKey(s.BusinessID, externalID)
	cursor := ""
	for {
		page, err := c.listProducts(r.Context(), s.caller, externalID, parcelgate.PageRequest{After: cursor, Size: 50})
		if err != nil {
			return 0, err
		}
		for _, p := range page.Items {
			if p.Own && parcelgate.ProductKey(s.BusinessID, p.ExternalID) == key {
				return p.ID, nil
			}
		}
		if page.Next == "" {
			return 0, parcelgate.Errorf(parcelgate.ENOTFOUND, "Product not found.")
		}
		cursor = page.Next
	}
}

// setStock sets one balance's quantity as PUT /ecommerce/v3/inventory/
// balances does: the count read by ParseStockCount, then PutBalances
// (PlanBalances: a quantity change keeps the allocations).
func (c *Console) setStock(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) || !c.decided(w, r, s, parcelgate.DecideStockForm(c.cfg.Sandbox, s.caller)) {
		return
	}
	p, bals, ok := c.ownProduct(w, r, s, r.PathValue("id"))
	if !ok {
		return
	}
	retailer, catalog := r.PostFormValue("retailerId"), r.PostFormValue("catalog")
	found := false
	for _, b := range bals {
		found = found || (b.RetailerID == retailer && b.Catalog == catalog && !b.Removed)
	}
	if !found {
		c.errorPage(w, r, s, http.StatusNotFound, "There is no such page, or it is not yours to see.")
		return
	}
	text := r.PostFormValue("quantity")
	q, err := parcelgate.ParseStockCount(text)
	if err == nil {
		_, err = c.inventory.PutBalances(r.Context(), s.caller, []parcelgate.BalanceInput{{ProductExternalID: p.ExternalID, RetailerID: retailer, CatalogExternalID: catalog, Quantity: &q}})
	}
	if err != nil {
		if code := parcelgate.ErrorCode(err); code != parcelgate.EINVALID && code != parcelgate.ECONFLICT {
			c.fail(w, r, s, err)
			return
		}
		msg := parcelgate.ErrorMessage(err)
		if fe := parcelgate.ErrorFields(err); len(fe) > 0 {
			msg = fe[0].Message
		}
		c.renderProduct(w, r, s, http.StatusBadRequest, p.ID, func(d *productData) {
			d.StockError, d.StockCatalog, d.StockInput = "Quantity "+msg+".", retailer+"/"+catalog, text
		})
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%s/products/%d?done=stock", Prefix, p.ID), http.StatusSeeOther)
}
