package sqlstore

import (
	"fmt"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// decisions §71: the one rule a statement is kept to its caller by. A
// statement that names an environment column reaches every scope as
// decisions §3 and §50 say; one that names only the organization (read by
// an index that leads with it and carries no environment) reaches its
// organization alone, by the organization alone, and nothing for a wider
// scope, as when it was written with the caller's OrgID by hand.
func TestTenantOf(t *testing.T) {
	org := &parcelgate.Caller{OrgID: 7, Environment: parcelgate.Test}
	noOrg := &parcelgate.Caller{Environment: parcelgate.Test}
	env := parcelgate.EnvironmentOperator(parcelgate.Test)
	all := parcelgate.AllOperator()
	unknown := &parcelgate.Caller{OrgID: 7, Environment: parcelgate.Test, Scope: 9}
	for _, tc := range []struct {
		name   string
		c      *parcelgate.Caller
		envCol string
		want   string
	}{
		{"organization", org, "o.environment", "o.environment = ? AND o.org_id = ? [test 7]"},
		{"organization by its key alone", org, "", "o.org_id = ? [7]"},
		{"organization naming none", noOrg, "o.environment", "1 = 0 []"},
		{"organization naming none, by its key alone", noOrg, "", "1 = 0 []"},
		{"environment", env, "o.environment", "o.environment = ? [test]"},
		{"environment, a statement of one organization", env, "", "1 = 0 []"},
		{"all", all, "o.environment", "1=1 []"},
		{"all, a statement of one organization", all, "", "1 = 0 []"},
		{"unknown scope", unknown, "o.environment", "1 = 0 []"},
		{"unknown scope, by the key alone", unknown, "", "1 = 0 []"},
	} {
		cond := tenantOf(tc.c, tc.envCol, "o.org_id")
		if got := fmt.Sprintf("%s %v", cond.sql(), cond.with()); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		var f filterSQL
		f.tenant(tc.c, tc.envCol, "o.org_id")
		if got := fmt.Sprintf("%s %v", f.sql(), f.args); got != tc.want {
			t.Errorf("%s: the filter's %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := tenantOf(org, "", "org_id").with("x", 1); fmt.Sprint(got) != "[7 x 1]" {
		t.Errorf("with: %v", got)
	}
}
