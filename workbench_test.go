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
