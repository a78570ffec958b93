package sqlstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The services decide who may act themselves (decisions §31, §33,
// interface §5.1, §5.2): whatever front end, CLI or test calls them, a
// call with no caller is EUNAUTHORIZED, a caller without the method's
// action is EFORBIDDEN, and neither writes anything; another tenant's
// object answers exactly like a missing one (decisions §4). Every
// service's access table is run by checkAccess, so each proves all of it.

// accessCase is one method of a service, called on an object of tenant A.
type accessCase struct {
	name string
	// call acts as c on the object id and sums up its answer; the sum
	// names what was found (IDs, counts), so that two answers compare.
	// c may be nil (no caller): call must then still reach the service.
	call func(c *parcelgate.Caller, id string) (string, error)
	// denied are callers whose kind or roles lack the method's action.
	denied []*parcelgate.Caller
	// other is a caller that may call the method but not reach A's
	// object (another tenant, another environment's operator, a role
	// that does not see it); nil when the method names no object of A's
	// (a create of its own). crossCode is the code it gets on A's object
	// and on a missing one alike ("" when both answer).
	other     *parcelgate.Caller
	crossCode string
	// crossSum, when set, is exactly other's sum on A's object: what
	// another tenant's list holds (its own, or nothing).
	crossSum string
	// owner is a caller that may act on A's object: the object is there
	// for it, so the method is not simply refusing everyone. ownerCode
	// is the code its call answers: "" (it succeeds) unless the object's
	// state refuses the act itself (ECONFLICT, EINVALID), past the
	// access checks.
	owner     *parcelgate.Caller
	ownerCode string
	// ownerSees: the owner's answer names the object.
	ownerSees bool
	// listing: the method lists the caller's objects; other's list must
	// not name A's object.
	listing bool
}

// checkAccess runs the cases in order on A's object own, against missing,
// an object of the same shape that no one has. written sums up what the
// refused and cross-tenant calls must leave as it is: the tables the
// service writes, or A's objects as A reads them. The owner's call, last
// in each case, may write; later cases see what it wrote.
func checkAccess(t *testing.T, written func() string, own, missing string, cases []accessCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.owner == nil {
				t.Fatal("no owner: nothing shows the method works for whom it should")
			}
			// A service that skips its check may panic on a nil caller:
			// that is a failure of this case, not of the whole run.
			call := func(c *parcelgate.Caller, id string) (sum string, err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				return tc.call(c, id)
			}
			before := written()
			if _, err := call(nil, own); parcelgate.ErrorCode(err) != parcelgate.EUNAUTHORIZED {
				t.Errorf("no caller: %v, want EUNAUTHORIZED from the service", err)
			}
			if after := written(); after != before {
				t.Errorf("a call with no caller changed the store:\n%s", changes(before, after))
			}
			for _, d := range tc.denied {
				before := written()
				if _, err := call(d, own); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
					t.Errorf("%s caller with roles %v: %v, want EFORBIDDEN from the service", d.Kind, d.Roles, err)
				}
				if after := written(); after != before {
					t.Errorf("%s caller refused, yet the store changed:\n%s", d.Kind, changes(before, after))
				}
			}
			if tc.other != nil {
				before := written()
				gotOther, errOther := call(tc.other, own)
				gotMissing, errMissing := call(tc.other, missing)
				if after := written(); after != before {
					t.Errorf("another tenant's call changed the store:\n%s", changes(before, after))
				}
				if tc.listing && strings.Contains(gotOther, own) {
					t.Errorf("another tenant's list names %s: %s", own, gotOther)
				}
				if tc.crossSum != "" && gotOther != tc.crossSum {
					t.Errorf("another tenant's answer %q, want %q", gotOther, tc.crossSum)
				}
				if parcelgate.ErrorCode(errOther) != tc.crossCode {
					t.Errorf("another tenant's object: %v, want code %q", errOther, tc.crossCode)
				}
				swap := func(s string) string { return strings.ReplaceAll(s, own, missing) }
				if parcelgate.ErrorCode(errOther) != parcelgate.ErrorCode(errMissing) || swap(parcelgate.ErrorMessage(errOther)) != parcelgate.ErrorMessage(errMissing) || swap(gotOther) != gotMissing {
					t.Errorf("another tenant's object answers %q %v; a missing one %q %v", gotOther, errOther, gotMissing, errMissing)
				}
			}
			got, err := call(tc.owner, own)
			if parcelgate.ErrorCode(err) != tc.ownerCode {
				t.Errorf("the owner: %v, want code %q", err, tc.ownerCode)
			}
			if tc.ownerSees && !strings.Contains(got, own) {
				t.Errorf("the owner's answer %q does not name %s", got, own)
			}
		})
	}
}

// writtenIn sums up every row of the tables (of every table when none is
// named), for checkAccess.
func writtenIn(t *testing.T, db *sqlstore.DB, tables ...string) func() string {
	return func() string {
		t.Helper()
		s, err := db.WrittenForTest(t.Context(), tables...)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// changes lists the lines of before that after lacks (-) and the lines
// after added (+): the rows a call wrote.
func changes(before, after string) string {
	count := map[string]int{}
	for _, l := range strings.Split(before, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(after, "\n") {
		count[l]--
	}
	var out []string
	for _, l := range strings.Split(before, "\n") {
		if count[l] > 0 {
			out = append(out, "- "+l)
			count[l]--
		}
	}
	for _, l := range strings.Split(after, "\n") {
		if count[l] < 0 {
			out = append(out, "+ "+l)
			count[l]++
		}
	}
	return strings.Join(out, "\n")
}
