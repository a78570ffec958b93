package parcelgate

import "testing"

// decisions §23: integrators use the workbench in the test environment
// only (the clock only on a --sandbox server); the operator wherever
// DecideControl allows.
func TestDecideWorkbench(t *testing.T) {
	op := func(env Environment) *Caller { return &Caller{Kind: KindOperator, Environment: env} }
	acct := func(env Environment) *Caller {
		return &Caller{Kind: KindEcom, Environment: env, Roles: []Role{RoleMerchant}}
	}
	for _, tc := range []struct {
		name    string
		sandbox bool
		c       *Caller
		control Control
		code    string
	}{
		{"integrator, test, data", false, acct(Test), ControlData, ""},
		{"integrator, test, move", false, acct(Test), ControlMove, ""},
		{"integrator, production, data", true, acct(Production), ControlData, EFORBIDDEN},
		{"integrator, production, move", true, acct(Production), ControlMove, EFORBIDDEN},
		{"integrator, test clock, no --sandbox", false, acct(Test), ControlClock, EFORBIDDEN},
		{"integrator, test clock, --sandbox", true, acct(Test), ControlClock, ""},
		{"integrator, production clock, --sandbox", true, acct(Production), ControlClock, EFORBIDDEN},
		{"operator, test", false, op(Test), ControlData, ""},
		{"operator, production, no --sandbox", false, op(Production), ControlData, EFORBIDDEN},
		{"operator, production, --sandbox", true, op(Production), ControlMove, ""},
		{"operator, no tenant", true, op(""), ControlData, EINVALID},
		{"gateway client", true, &Caller{Kind: KindGateway, Environment: Test}, ControlData, EFORBIDDEN},
		{"nobody", true, nil, ControlData, EUNAUTHORIZED},
	} {
		if err := DecideWorkbench(tc.sandbox, tc.c, tc.control); ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want code %q", tc.name, err, tc.code)
		}
	}
}

// decisions §23: a reset or restore in the console needs the business ID
// typed; anything else names the field confirm.
func TestConfirmDangerous(t *testing.T) {
	for _, tc := range []struct {
		typed string
		ok    bool
	}{
		{"1234567-1", true},
		{" 1234567-1 ", true},
		{"se5566778899", true}, // case does not matter
		{"", false},
		{"1234567", false},
		{"1234567-2", false},
		{"yes", false},
	} {
		bid := "1234567-1"
		if tc.typed == "se5566778899" {
			bid = "SE5566778899"
		}
		err := ConfirmDangerous(bid, tc.typed)
		if (err == nil) != tc.ok {
			t.Errorf("ConfirmDangerous(%q, %q) = %v", bid, tc.typed, err)
		}
		if err != nil && (ErrorCode(err) != EINVALID || ErrorFields(err)[0].Field != "confirm") {
			t.Errorf("%q: want EINVALID naming confirm, got %v", tc.typed, err)
		}
	}
}

// decisions §65: the console's forms and moves are decided by one root
// function each, the table first: a role that may not act is refused in
// the table's words even where the workbench would refuse it too; the
// workbench's rule decides for the others.
func TestDecideConsoleForms(t *testing.T) {
	acct := func(env Environment, r Role) *Caller {
		return &Caller{Kind: KindEcom, Environment: env, Roles: []Role{r}}
	}
	op := func(env Environment) *Caller { return &Caller{Kind: KindOperator, Environment: env, OrgID: 1} }
	table := func(c *Caller, a Action) string { return ErrorMessage(c.May(a)) }
	workbench := func(sandbox bool, c *Caller, k Control) string { return ErrorMessage(DecideWorkbench(sandbox, c, k)) }
	for _, tc := range []struct {
		name string
		err  error
		want string // "" allowed
	}{
		{"order form: merchant, test", DecideOrderForm(false, acct(Test, RoleMerchant)), ""},
		{"order form: supplier, production", DecideOrderForm(false, acct(Production, RoleSupplier)), table(acct(Production, RoleSupplier), ActionPlaceOrders)},
		{"order form: retailer, production", DecideOrderForm(false, acct(Production, RoleRetailer)), workbench(false, acct(Production, RoleRetailer), ControlData)},
		{"product form: retailer, test", DecideProductForm(false, acct(Test, RoleRetailer)), table(acct(Test, RoleRetailer), ActionManageProducts)},
		{"product form: supplier, test", DecideProductForm(false, acct(Test, RoleSupplier)), ""},
		{"product form: supplier, production", DecideProductForm(false, acct(Production, RoleSupplier)), workbench(false, acct(Production, RoleSupplier), ControlData)},
		{"stock form: retailer, test", DecideStockForm(false, acct(Test, RoleRetailer)), table(acct(Test, RoleRetailer), ActionPublishBalances)},
		{"stock form: operator, production, --sandbox", DecideStockForm(true, op(Production)), ""},
		{"order move: operator, manual, production", DecideOrderMove(false, true, op(Production)), ""},
		{"order move: operator, not manual, production", DecideOrderMove(false, false, op(Production)), workbench(false, op(Production), ControlMove)},
		{"order move: merchant, test", DecideOrderMove(false, false, acct(Test, RoleMerchant)), ""},
		{"order move: supplier, test", DecideOrderMove(false, true, acct(Test, RoleSupplier)), table(acct(Test, RoleSupplier), ActionOperate)},
		{"parcel move: supplier, test", DecideParcelMove(false, acct(Test, RoleSupplier)), ""},
		{"parcel move: merchant, production", DecideParcelMove(false, acct(Production, RoleMerchant)), table(acct(Production, RoleMerchant), ActionOperate)},
		{"parcel move: operator, production", DecideParcelMove(false, op(Production)), ""},
	} {
		if got := ErrorMessage(tc.err); tc.err != nil && tc.want == "" || got != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}
