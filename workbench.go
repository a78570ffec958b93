package parcelgate

import "strings"

// The console's workbench: integrators and operators create
// and drive test data from the browser through the same services and
// rules as the API. What is decided here is only who may do so where.

const (
	// ControlData creates or edits an organization's orders, products and
	// stock from the console.
	ControlData Control = "console edit"
	// ControlMove moves an order through the warehouse's statuses from the
	// console, as the operator's POST /admin/v1/orders/status does.
	ControlMove Control = "warehouse move"
)

// DecideWorkbench decides whether c may use the console's workbench
// control (ControlData, ControlMove or ControlClock) on the environment c
// acts in, on a server whose sandbox mode is sandbox (decisions §23):
//
//   - the operator wherever DecideControl lets a control act: the
//     test environment on any server, production on a --sandbox server;
//   - an integrator (a service account) only in the test environment:
//     production's data comes from its integration, through the API;
//   - an integrator moves the test clock only on a --sandbox server,
//     because one clock serves every organization of the environment;
//   - nobody else.
//
// A refusal is EFORBIDDEN saying why.
func DecideWorkbench(sandbox bool, c *Caller, control Control) error {
	if c == nil {
		return Errorf(EUNAUTHORIZED, "No credentials were given.")
	}
	switch c.Kind {
	case KindOperator:
		_, err := DecideControl(sandbox, string(c.Environment), control)
		return err
	case KindEcom:
		if c.Environment != Test {
			return Errorf(EFORBIDDEN, "A %s from the console is for the test environment only: production's data comes from your integration, through the API.", control)
		}
		if control == ControlClock && !sandbox {
			return Errorf(EFORBIDDEN, "The test clock is shared by every organization of the environment: an integrator moves it only on a server started with --sandbox.")
		}
		return nil
	}
	return Errorf(EFORBIDDEN, "A %s from the console needs a console session.", control)
}

// ConfirmDangerous checks the confirmation of a console action that
// throws data away (a reset, a restore): the person typed the business ID
// of the organization it acts on, as well-known consoles ask for the name
// of what is about to be deleted (decisions §23). Spaces around it and
// the case of the letters do not matter; anything else is EINVALID naming
// the field "confirm", and nothing may be changed.
func ConfirmDangerous(businessID, typed string) error {
	typed = strings.TrimSpace(typed)
	if typed != "" && strings.EqualFold(typed, businessID) {
		return nil
	}
	msg := "type the organization's business ID, " + businessID + ", to confirm"
	if typed != "" {
		msg = "is " + clip(typed) + ", not the organization's business ID " + businessID
	}
	return &Error{Code: EINVALID, Message: "Not confirmed: type the organization's business ID to confirm; nothing was changed.",
		Fields: []FieldError{{Field: "confirm", Message: msg}}}
}

// The console's forms and moves on the workbench are decided here, each
// by one function the form's page, its action and the buttons that lead
// to it all ask (decisions §65): the root's table of who may act first,
// then the workbench's rule, so a role that may not act is refused in the
// table's words wherever the workbench would also refuse it. The services
// the forms then call ask the table again; what they cannot ask is the
// workbench's rule, which is the console's, nor which page a session is
// shown before it sends anything.

// DecideOrderForm decides whether c may create a test order from the
// console: a role that places orders (ActionPlaceOrders), where
// DecideWorkbench allows ControlData.
func DecideOrderForm(sandbox bool, c *Caller) error {
	if err := c.May(ActionPlaceOrders); err != nil {
		return err
	}
	return DecideWorkbench(sandbox, c, ControlData)
}

// DecideProductForm decides whether c may create or edit a product and
// its stock from the console: a role that manages products and publishes
// balances, where DecideWorkbench allows ControlData.
func DecideProductForm(sandbox bool, c *Caller) error {
	if err := c.May(ActionManageProducts); err != nil {
		return err
	}
	return DecideStockForm(sandbox, c)
}

// DecideStockForm decides whether c may set a balance's quantity from the
// console: a role that publishes balances, where DecideWorkbench allows
// ControlData.
func DecideStockForm(sandbox bool, c *Caller) error {
	if err := c.May(ActionPublishBalances); err != nil {
		return err
	}
	return DecideWorkbench(sandbox, c, ControlData)
}

// DecideOrderMove decides whether c may move an order as the warehouse
// from the console (the service is then handed the warehouse,
// OperatorCaller, not c): the operator where the warehouse is run by hand
// (manual: --fulfillment manual), and anyone that places orders where
// DecideWorkbench allows ControlMove (decisions §23). Refused, an
// integrator is told the operator's table; the operator, the workbench's
// rule.
func DecideOrderMove(sandbox, manual bool, c *Caller) error {
	if manual && c.May(ActionOperate) == nil {
		return nil
	}
	if c.May(ActionPlaceOrders) == nil && DecideWorkbench(sandbox, c, ControlMove) == nil {
		return nil
	}
	if err := c.May(ActionOperate); err != nil {
		return err
	}
	return DecideWorkbench(sandbox, c, ControlMove)
}

// DecideParcelMove decides whether c may set a parcel's tracking status
// from the console (the service is then handed the warehouse): the
// operator, as POST /admin/v1/parcels/status, and anyone of the
// organization where DecideWorkbench allows ControlMove (a parcel is no
// order: no role is needed, decisions §40). Refused, the operator's table
// says why.
func DecideParcelMove(sandbox bool, c *Caller) error {
	if DecideWorkbench(sandbox, c, ControlMove) == nil {
		return nil
	}
	return c.May(ActionOperate)
}
