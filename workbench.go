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
