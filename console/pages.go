package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	views "github.com/parcelgate/parcelgate/console/view"
)

// pageSize is the rows of every console table page.
const pageSize = 50

// needTenant answers false, after sending an operator without a chosen
// organization to the overview to choose one.
func (c *Console) needTenant(w http.ResponseWriter, r *http.Request, s *session) bool {
	if s.HasTenant() {
		return true
	}
	c.errorPage(w, r, s, http.StatusConflict, "Choose an organization on the overview first: this page shows one organization's data.")
	return false
}

// may answers the session's right to do a, from the root's one table of
// who may act; a refusal is the 403 page with the table's reason. It is
// asked only where no service decides (decisions §65).
func (c *Console) may(w http.ResponseWriter, r *http.Request, s *session, a parcelgate.Action) bool {
	return c.decided(w, r, s, s.caller.May(a))
}

// decided answers a root decision of who may act (nil: the session may);
// a refusal is its page, as the service's would be.
func (c *Console) decided(w http.ResponseWriter, r *http.Request, s *session, err error) bool {
	if err != nil {
		c.fail(w, r, s, err)
		return false
	}
	return true
}

// ask hands the service what the page found wrong in what it was sent
// (problem), on the session's caller marked by Caller.Unread (decisions
// §57, §65): call asks the service the page calls, with no input, and
// the service answers at its first check of who may act, with its
// refusal, or with problem when the session may act. So a session that
// may not act is refused in the service's words whatever it sent, as
// when the page read nothing. ask reports whether the page shows
// problem; otherwise it has answered the service's refusal.
func (c *Console) ask(w http.ResponseWriter, r *http.Request, s *session, problem error, call func(*parcelgate.Caller) error) bool {
	err := call(s.caller.Unread(problem))
	if err == problem {
		return true
	}
	c.fail(w, r, s, err)
	return false
}

// --- overview ---------------------------------------------------------

type statusCount struct {
	Status parcelgate.OrderStatus
	Count  int64
}

type envSummary struct {
	Environment parcelgate.Environment
	Orgs        int64
	Orders      int64
	Stamp       int64
}

type overviewData struct {
	Statuses     []statusCount
	TotalOrders  int64
	Counts       views.TenantCounts
	Org          *parcelgate.Organization
	Envs         []envSummary
	ShownEnv     parcelgate.Environment
	Orgs         parcelgate.Page[*views.Organization]
	Sandbox      bool
	Manual       bool
	SubmitAfter  time.Duration
	DeliverAfter time.Duration
	ClockError   string
	// Snapshots are the picked tenant's saved states, for an operator.
	Snapshots     []*parcelgate.Snapshot
	SnapshotError string
	SnapshotName  string
	// Faults are the picked tenant's faults that may still fire; Fault is
	// the refused fault form, with its errors by field.
	Faults        []*parcelgate.Fault
	Fault         faultForm
	FaultStatuses []int
	FaultMethods  []string
	ClockAdvance  string
	CanReadOrders bool
	// ConfirmForm is the reset or restore form ("reset", "demo",
	// "restore-{name}") refused for want of the typed business ID, with
	// ConfirmError; HasDemo is set when the tenant has the demo's
	// snapshot to go back to. IntegratorClock: an integrator may move the
	// test clock here (decisions §23).
	ConfirmForm     string
	ConfirmError    string
	HasDemo         bool
	IntegratorClock bool

	// Mode is the server's sandbox mode (decisions §21); Disposable is
	// set when the picked tenant's environment may be reset, restored and
	// faulted (Sandbox, when its clock may be moved from here).
	Mode       string
	Disposable bool
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderOverview(w, r, s, http.StatusOK, "", "")
}

func (c *Console) renderOverview(w http.ResponseWriter, r *http.Request, s *session, status int, clockErr, clockInput string) {
	c.renderOverviewWith(w, r, s, status, func(d *overviewData) { d.ClockError, d.ClockAdvance = clockErr, clockInput })
}

// renderOverviewWith renders the overview after form sets the state of
// the form that was just refused (its error and input).
func (c *Console) renderOverviewWith(w http.ResponseWriter, r *http.Request, s *session, status int, form func(*overviewData)) {
	ctx := r.Context()
	d := &overviewData{Sandbox: c.cfg.OffsetClock != nil, Mode: c.mode(), Manual: c.cfg.ManualFulfillment, SubmitAfter: c.cfg.SubmitAfter, DeliverAfter: c.cfg.DeliverAfter}
	d.FaultStatuses, d.FaultMethods = parcelgate.FaultStatuses, []string{"GET", "PUT", "POST", "PATCH", "DELETE"}
	form(d)
	if s.HasTenant() {
		org, err := c.orgs.OrganizationByID(ctx, s.OrgID)
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Org = org
		_, refused := parcelgate.DecideControl(c.cfg.Sandbox, string(s.Environment), parcelgate.ControlReset)
		d.Disposable = refused == nil
		d.Sandbox = d.Sandbox && d.Disposable
		d.IntegratorClock = !s.Operator() && c.cfg.OffsetClock != nil && parcelgate.DecideWorkbench(c.cfg.Sandbox, s.caller, parcelgate.ControlClock) == nil
		d.CanReadOrders = s.caller.May(parcelgate.ActionReadOrders) == nil
		if d.CanReadOrders {
			counts, err := c.reads.ConsoleOrderCounts(ctx, s.caller)
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			for _, st := range parcelgate.OrderStatuses {
				d.Statuses = append(d.Statuses, statusCount{st, counts[st]})
				d.TotalOrders += counts[st]
			}
		}
		if d.Counts, err = c.reads.ConsoleCounts(ctx, s.caller); err != nil {
			c.fail(w, r, s, err)
			return
		}
		if s.Operator() {
			if d.Snapshots, err = c.controls.ListSnapshots(ctx, s.caller); err != nil {
				c.fail(w, r, s, err)
				return
			}
			if d.Faults, err = c.tenantFaults(r, s); err != nil {
				c.fail(w, r, s, err)
				return
			}
			for _, sn := range d.Snapshots {
				d.HasDemo = d.HasDemo || sn.Name == demoSnapshot
			}
		}
	}
	if s.Operator() {
		for _, env := range parcelgate.Environments {
			orgs, orders, err := c.operator.ConsoleEnvironmentCounts(ctx, parcelgate.EnvironmentOperator(env))
			if err != nil {
				c.fail(w, r, s, err)
				return
			}
			d.Envs = append(d.Envs, envSummary{Environment: env, Orgs: orgs, Orders: orders})
		}
		env, err := parcelgate.ParseEnvironment(r.URL.Query().Get("environment"))
		if err != nil || r.URL.Query().Get("environment") == "" {
			env = parcelgate.Production
			if s.caller.Scope != parcelgate.ScopeAll {
				env = s.Environment
			}
		}
		d.ShownEnv = env
		// The API's list of organizations, newest first, and the
		// figures the overview shows of each.
		op := parcelgate.EnvironmentOperator(env)
		orgs, err := c.orgs.ListOrganizations(ctx, op, parcelgate.OrganizationQuery{NewestFirst: true}, parcelgate.PageRequest{After: r.URL.Query().Get("page"), Size: pageSize})
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Orgs.Next, d.Orgs.Prev = orgs.Next, orgs.Prev
		if d.Orgs.Items, err = c.operator.ConsoleOrganizationFigures(ctx, op, orgs.Items); err != nil {
			c.fail(w, r, s, err)
			return
		}
	}
	c.renderView(w, r, status, "overview", &view{Title: "Overview", Session: s, Nav: "overview", Data: d, Live: true})
}

// chooseTenant sets the organization an operator looks at.
func (c *Console) chooseTenant(w http.ResponseWriter, r *http.Request, s *session) {
	env, err := parcelgate.ParseEnvironment(r.PostFormValue("environment"))
	if err != nil {
		// The session service decides who may choose (ActionOperate).
		if c.ask(w, r, s, err, func(u *parcelgate.Caller) error { return c.sessions.SetConsoleTenant(r.Context(), u, s.idHash, "", "") }) {
			c.fail(w, r, s, err)
		}
		return
	}
	if err := c.sessions.SetConsoleTenant(r.Context(), s.caller, s.idHash, env, r.PostFormValue("businessId")); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=tenant", http.StatusSeeOther)
}

// --- orders -------------------------------------------------------------

type ordersData struct {
	// CanCreate: the session may create orders here (decisions §23).
	CanCreate bool
	Form      url.Values
	Statuses  []parcelgate.OrderStatus
	Checked   map[parcelgate.OrderStatus]bool
	Errors    map[string]string
	Page      parcelgate.Page[*parcelgate.Order]
	Filtered  bool
}

// errFilter is the problem a list page found in its query, which the
// page shows by its fields once the service has decided the session may
// read the list (Console.ask).
var errFilter = parcelgate.Errorf(parcelgate.EINVALID, "The list's query has problems.")

// sinceLayouts are the forms "updated since" is accepted in: what a
// datetime-local input sends, and RFC 3339.
var sinceLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339Nano, "2006-01-02"}

func (c *Console) ordersPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	q := r.URL.Query()
	d := &ordersData{Form: q, Statuses: parcelgate.OrderStatuses, Checked: map[parcelgate.OrderStatus]bool{}, Errors: map[string]string{}}
	// The button opens the order form: the form's own decision.
	d.CanCreate = s.HasTenant() && parcelgate.DecideOrderForm(c.cfg.Sandbox, s.caller) == nil
	var f views.OrderFilter
	for _, v := range q["status"] {
		st, ok := parcelgate.ParseOrderStatus(v)
		if !ok {
			d.Errors["status"] = "“" + v + "” is not an order status."
			continue
		}
		d.Checked[st] = true
		f.Statuses = append(f.Statuses, st)
	}
	if v := strings.TrimSpace(q.Get("since")); v != "" {
		var t time.Time
		var err error
		for _, layout := range sinceLayouts {
			if t, err = time.Parse(layout, v); err == nil {
				break
			}
		}
		if err != nil {
			d.Errors["since"] = "Enter a date and time such as 2026-01-31T14:00 (UTC)."
		}
		f.UpdatedSince = t
	}
	f.Reference = strings.TrimSpace(q.Get("ref"))
	f.Warehouse = strings.TrimSpace(q.Get("warehouse"))
	for _, fe := range parcelgate.ErrorFields(f.Validate()) {
		d.Errors[fe.Field] = fe.Message
	}
	d.Filtered = len(f.Statuses) > 0 || !f.UpdatedSince.IsZero() || f.Reference != "" || f.Warehouse != ""
	status := http.StatusOK
	if len(d.Errors) > 0 {
		// Who may read orders is the order service's (ActionReadOrders),
		// asked before the filter's problems are shown.
		if !c.ask(w, r, s, errFilter, func(u *parcelgate.Caller) error {
			_, err := c.orders.ListOrders(r.Context(), u, parcelgate.OrderQuery{}, parcelgate.PageRequest{})
			return err
		}) {
			return
		}
		status = http.StatusBadRequest
	} else {
		// The API's list of orders, newest first with the console's
		// filters.
		page, err := c.orders.ListOrders(r.Context(), s.caller, parcelgate.OrderQuery{
			NewestFirst: true, Statuses: f.Statuses, ChangedSince: f.UpdatedSince, Reference: f.Reference, Warehouse: f.Warehouse,
		}, parcelgate.PageRequest{After: q.Get("page"), Size: pageSize})
		if parcelgate.ErrorCode(err) == parcelgate.EINVALID {
			d.Errors["page"] = parcelgate.ErrorMessage(err)
			status = http.StatusBadRequest
		} else if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Page = page
	}
	c.renderView(w, r, status, "orders", &view{Title: "Orders", Session: s, Nav: "orders", Data: d, Live: true})
}

// orderLine is a row of an order with the balance it draws on.
type orderLine struct {
	Row   parcelgate.OrderRow
	Alloc views.Allocation
}

type orderData struct {
	Order     *parcelgate.Order
	History   []parcelgate.OrderEvent
	Lines     []orderLine
	Held      bool
	CanCancel bool
	Moves     []parcelgate.OrderStatus
	Manual    bool
	// Workbench: the moves are offered as the workbench's (decisions §23),
	// not only because the warehouse is manual.
	Workbench   bool
	Error       string
	Reason      string
	ReasonError string
	// Shipments are the suppliers' parts of a dropshipping order
	// (decisions §34).
	Shipments []*parcelgate.DropshipShipment
}

func (c *Console) loadOrder(w http.ResponseWriter, r *http.Request, s *session) (*orderData, bool) {
	// Who may read the order is FindOrder's (decisions §57).
	if !c.needTenant(w, r, s) {
		return nil, false
	}
	ctx := r.Context()
	id := r.PathValue("id")
	o, err := c.orders.FindOrder(ctx, s.caller, id)
	if err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	d := &orderData{Order: o, Manual: c.cfg.ManualFulfillment, Workbench: c.workbenchMoves(s)}
	if d.History, err = c.orders.OrderHistory(ctx, s.caller, o.ID); err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	allocs, held, err := c.reads.ConsoleOrderAllocations(ctx, s.caller, o.ID)
	if err != nil {
		c.fail(w, r, s, err)
		return nil, false
	}
	d.Held = held
	if o.Dropship() && c.supplies != nil {
		if d.Shipments, err = c.supplies.OrderShipments(ctx, s.caller, o.ID); err != nil {
			c.fail(w, r, s, err)
			return nil, false
		}
	}
	for i, row := range o.Rows {
		l := orderLine{Row: row}
		if i < len(allocs) {
			l.Alloc = allocs[i]
		}
		d.Lines = append(d.Lines, l)
	}
	d.CanCancel = s.caller.May(parcelgate.ActionPlaceOrders) == nil && parcelgate.CanMove(o.Status.Value, parcelgate.OrderCancelled)
	if c.decideMove(s) == nil {
		// The warehouse's hand moves the warehouse part of a mixed order
		// (decisions §38).
		for _, to := range []parcelgate.OrderStatus{parcelgate.OrderSubmitted, parcelgate.OrderDelivered, parcelgate.OrderError, parcelgate.OrderCancelled} {
			if parcelgate.CanMove(o.WarehouseStatus(), to) {
				d.Moves = append(d.Moves, to)
			}
		}
	}
	return d, true
}

func (c *Console) order(w http.ResponseWriter, r *http.Request, s *session) {
	d, ok := c.loadOrder(w, r, s)
	if !ok {
		return
	}
	c.renderView(w, r, http.StatusOK, "order", &view{Title: "Order " + d.Order.ExternalID, Session: s, Nav: "orders", Data: d, Live: true})
}

// orderRefused shows the order again with why an action was refused.
func (c *Console) orderRefused(w http.ResponseWriter, r *http.Request, s *session, status int, msg, reason, reasonErr string) {
	d, ok := c.loadOrder(w, r, s)
	if !ok {
		return
	}
	d.Error, d.Reason, d.ReasonError = msg, reason, reasonErr
	c.renderView(w, r, status, "order", &view{Title: "Order " + d.Order.ExternalID, Session: s, Nav: "orders", Data: d})
}

// cancelOrder is the client's cancel (DELETE /orders/{id}): the store's
// CancelOrder, which returns the stock.
func (c *Console) cancelOrder(w http.ResponseWriter, r *http.Request, s *session) {
	// Who may cancel is CancelOrder's (decisions §57).
	if !c.needTenant(w, r, s) {
		return
	}
	o, err := c.orders.CancelOrder(r.Context(), s.caller, r.PathValue("id"))
	if code := parcelgate.ErrorCode(err); code == parcelgate.ECONFLICT {
		c.orderRefused(w, r, s, http.StatusConflict, parcelgate.ErrorMessage(err), "", "")
		return
	} else if err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/orders/"+url.PathEscape(o.ID)+"?done=cancelled", http.StatusSeeOther)
}

// moveOrder is the warehouse's move by an operator (POST
// /admin/v1/orders/status): the form is read by the API's ParseOrderMove,
// then the store's SetOrderStatus.
func (c *Console) moveOrder(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	// The refusal says why: the operator's table, or the workbench's
	// rule (test environment only).
	if !c.decided(w, r, s, c.decideMove(s)) {
		return
	}
	to, reason, err := parcelgate.ParseOrderMove(r.PostFormValue("to"), r.PostFormValue("reason"))
	for _, f := range parcelgate.ErrorFields(err) {
		if f.Field == "value" {
			c.orderRefused(w, r, s, http.StatusBadRequest, "Choose a move: Submitted, Delivered, Error or Cancelled.", reason, "")
			return
		}
	}
	if err != nil {
		c.orderRefused(w, r, s, http.StatusBadRequest, "", reason, fmt.Sprintf("At most %d characters.", parcelgate.MaxMoveReason))
		return
	}
	// The move is the warehouse's: the operator's, or on the workbench an
	// integrator's acting for the warehouse (decideMove decided which).
	warehouse := parcelgate.OperatorCaller(&parcelgate.Organization{ID: s.OrgID, BusinessID: s.BusinessID, Environment: s.Environment})
	o, err := c.orders.SetOrderStatus(r.Context(), warehouse, r.PathValue("id"), to, reason)
	if code := parcelgate.ErrorCode(err); code == parcelgate.ECONFLICT || code == parcelgate.EINVALID {
		// A refused move is shown on the order's page, answered as the
		// API answers it (a move CanMove refuses: 409).
		c.orderRefused(w, r, s, parcelgate.ErrorStatus(err), parcelgate.ErrorMessage(err), reason, "")
		return
	} else if err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/orders/"+url.PathEscape(o.ID)+"?done=moved", http.StatusSeeOther)
}

// decideMove decides whether s may move orders as the warehouse: the
// operator under --fulfillment manual (the operator API's move), or anyone
// the workbench lets move test orders (DecideOrderMove, decisions §23).
func (c *Console) decideMove(s *session) error {
	return parcelgate.DecideOrderMove(c.cfg.Sandbox, c.cfg.ManualFulfillment, s.caller)
}

// workbenchMoves reports whether the workbench alone lets s move orders
// (an integrator also needs the role that places them): DecideOrderMove
// of a warehouse that is not run by hand.
func (c *Console) workbenchMoves(s *session) bool {
	return parcelgate.DecideOrderMove(c.cfg.Sandbox, false, s.caller) == nil
}

// --- products -------------------------------------------------------------

type productsData struct {
	Form   url.Values
	Search string
	Errors map[string]string
	Page   parcelgate.Page[*views.Product]
	// CanCreate: the session may create products here (decisions §23).
	CanCreate bool
}

// products lists the session's products. Who may read them is the
// inventory service's (MayReadConsoleProducts: suppliers and merchants see
// the products they supply, retailers those published to their catalogs),
// asked before a search's problems are shown.
func (c *Console) products(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	q := r.URL.Query()
	d := &productsData{Form: q, Search: strings.TrimSpace(q.Get("q")), Errors: map[string]string{}}
	// The button opens the product form: the form's own decision.
	d.CanCreate = s.HasTenant() && parcelgate.DecideProductForm(c.cfg.Sandbox, s.caller) == nil
	status := http.StatusOK
	if err := parcelgate.ValidConsoleSearch(d.Search); err != nil {
		if !c.ask(w, r, s, err, func(u *parcelgate.Caller) error {
			_, err := c.inventory.ListProducts(r.Context(), u, parcelgate.ProductQuery{}, parcelgate.PageRequest{})
			return err
		}) {
			return
		}
		for _, fe := range parcelgate.ErrorFields(err) {
			d.Errors[fe.Field] = fe.Message
		}
		status = http.StatusBadRequest
	} else {
		page, err := c.listProducts(r.Context(), s.caller, d.Search, parcelgate.PageRequest{After: q.Get("page"), Size: pageSize})
		if parcelgate.ErrorCode(err) == parcelgate.EINVALID {
			d.Errors["q"] = parcelgate.ErrorMessage(err)
			status = http.StatusBadRequest
		} else if err != nil {
			c.fail(w, r, s, err)
			return
		}
		d.Page = page
	}
	c.renderView(w, r, status, "products", &view{Title: "Products and stock", Session: s, Nav: "products", Data: d, Live: true})
}

// listProducts pages the session's products through the inventory
// service (ListProducts), in the console's view of each.
func (c *Console) listProducts(ctx context.Context, caller *parcelgate.Caller, search string, p parcelgate.PageRequest) (parcelgate.Page[*views.Product], error) {
	page, err := c.inventory.ListProducts(ctx, caller, parcelgate.ProductQuery{Search: search}, p)
	out := parcelgate.Page[*views.Product]{Next: page.Next, Prev: page.Prev, Total: page.Total}
	for _, sp := range page.Items {
		out.Items = append(out.Items, productView(sp))
	}
	return out, err
}

// findProduct is the session's product id through the inventory service
// (FindProduct) with a page of its balances (ProductStock, removed ones
// included) from the cursor after.
func (c *Console) findProduct(ctx context.Context, caller *parcelgate.Caller, id int64, after string) (*views.Product, parcelgate.Page[views.Balance], error) {
	var bals parcelgate.Page[views.Balance]
	sp, err := c.inventory.FindProduct(ctx, caller, id)
	if err != nil {
		return nil, bals, err
	}
	page, err := c.inventory.ProductStock(ctx, caller, id, parcelgate.PageRequest{After: after, Size: pageSize})
	if err != nil {
		return nil, bals, err
	}
	bals.Next = page.Next
	for _, st := range page.Items {
		bals.Items = append(bals.Items, balanceView(st))
	}
	return productView(sp), bals, nil
}

// productView is the console's view of a product: its name from its
// descriptions, when an EOS one leaves retailers' lists, and its stock's
// total.
func productView(sp *parcelgate.ScopedProduct) *views.Product {
	p := &views.Product{Product: sp.Product, Name: parcelgate.ReadProductDocument(sp.Product.Document).Name(), Own: sp.Own, Stock: sp.Total}
	if !sp.Product.DeletedAt.IsZero() {
		p.LeavesListsAt = sp.Product.DeletedAt.Add(parcelgate.EOSVisibility)
	}
	return p
}

// balanceView is the console's view of one balance of a product.
func balanceView(st *parcelgate.CatalogStock) views.Balance {
	b := st.Balance
	return views.Balance{Catalog: b.CatalogExternalID, CatalogName: st.CatalogName, CatalogType: st.CatalogType, RetailerID: b.RetailerID,
		Quantity: b.Quantity, Allocated: b.Allocated, Price: string(b.WholesalePrice), Currency: b.Currency, ModifiedAt: b.ModifiedAt, Removed: b.Removed}
}

type description struct {
	Language         string
	Name             string
	ShortDescription string
	Description      string
}

type productData struct {
	Product      *views.Product
	Descriptions []description
	// Balances are a page of the product's balances by catalog; Form
	// the page's query (its cursor: balances).
	Balances parcelgate.Page[views.Balance]
	Form     url.Values
	Document string
	// CanEdit: the session may edit the product and set its stock here
	// (its own product, decisions §23); StockError is the refused stock
	// form's, for the balance StockCatalog ("retailer/catalog").
	CanEdit                              bool
	StockError, StockCatalog, StockInput string
}

func (c *Console) product(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		// No product has this id; who may read one is the inventory
		// service's, asked first.
		if missing := parcelgate.Errorf(parcelgate.ENOTFOUND, "Product not found."); c.ask(w, r, s, missing, func(u *parcelgate.Caller) error {
			_, err := c.inventory.FindProduct(r.Context(), u, 0)
			return err
		}) {
			c.errorPage(w, r, s, http.StatusNotFound, "There is no such page, or it is not yours to see.")
		}
		return
	}
	c.renderProduct(w, r, s, http.StatusOK, id, func(*productData) {})
}

// renderProduct shows product id after form sets the state of a refused
// form.
func (c *Console) renderProduct(w http.ResponseWriter, r *http.Request, s *session, status int, id int64, form func(*productData)) {
	p, bals, err := c.findProduct(r.Context(), s.caller, id, r.URL.Query().Get("balances"))
	if parcelgate.ErrorCode(err) == parcelgate.EINVALID {
		c.errorPage(w, r, s, http.StatusBadRequest, "The page link is not valid; start from the product's first page.")
		return
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := &productData{Product: p, Balances: bals, Form: r.URL.Query(), Descriptions: descriptions(p.Document), Document: indentJSON(p.Document)}
	d.CanEdit = p.Own && p.Status == parcelgate.ProductActive && s.HasTenant() && parcelgate.DecideProductForm(c.cfg.Sandbox, s.caller) == nil
	form(d)
	c.renderView(w, r, status, "product", &view{Title: p.ExternalID, Session: s, Nav: "products", Data: d, Live: status == http.StatusOK})
}
