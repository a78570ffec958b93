package parcelgate

import (
	"context"
	"testing"
)

type subject struct{ got *Caller }

func (s *subject) JournalAs(c *Caller) { s.got = c }

// decisions §26: the caller and the journal's subject are plain context
// values: CallerFrom reads the caller NewContext added (the nearest one),
// and JournalUnder reaches the subject WithJournalSubject added, through
// contexts derived from it.
func TestRequestContextValues(t *testing.T) {
	var j subject
	ctx := WithJournalSubject(context.Background(), &j)
	if CallerFrom(ctx) != nil {
		t.Fatal("a caller before one is added")
	}
	a, b := &Caller{Subject: "a"}, &Caller{Subject: "b"}
	ctx = NewContext(ctx, a)
	if CallerFrom(ctx) != a {
		t.Fatal("the added caller is not the context's")
	}
	nearer := NewContext(ctx, b)
	if CallerFrom(nearer) != b || CallerFrom(ctx) != a {
		t.Fatal("NewContext's later caller is not the nearer one")
	}
	JournalUnder(nearer, b)
	if j.got != b {
		t.Fatal("JournalUnder did not reach the request's subject")
	}
	JournalUnder(nearer, nil) // no one named: the subject keeps b
	if j.got != b {
		t.Fatal("JournalUnder(nil) replaced the subject's caller")
	}
	JournalUnder(context.Background(), a) // not journaled: nothing, no panic
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if ctx.Err() == nil || CallerFrom(ctx) != a {
		t.Fatal("a context derived from it lost the caller or its cancellation")
	}
}

// decisions §3, §50: a caller reaches its own organization, the operator
// of an environment every organization there, and the operator of the
// whole server every organization of every environment; nothing else.
func TestCallerScopeCovers(t *testing.T) {
	org := &Organization{ID: 7, BusinessID: "1234567-1", Environment: Production}
	tenant := &Caller{OrgID: 7, Environment: Production, Kind: KindEcom}
	cases := []struct {
		name  string
		c     *Caller
		scope Scope
		// covers of (production, 7), (production, 8), (test, 7)
		want [3]bool
		// reaches production, test
		reaches [2]bool
	}{
		{"tenant", tenant, ScopeOrganization, [3]bool{true, false, false}, [2]bool{true, false}},
		{"operator on an organization", OperatorCaller(org), ScopeOrganization, [3]bool{true, false, false}, [2]bool{true, false}},
		{"operator of production", EnvironmentOperator(Production), ScopeEnvironment, [3]bool{true, true, false}, [2]bool{true, false}},
		{"operator of every environment", AllOperator(), ScopeAll, [3]bool{true, true, true}, [2]bool{true, true}},
		{"optional environment given", OperatorOver(Test), ScopeEnvironment, [3]bool{false, false, true}, [2]bool{false, true}},
		{"optional environment left out", OperatorOver(""), ScopeAll, [3]bool{true, true, true}, [2]bool{true, true}},
		// No sentinel: an environment operator of no environment reaches
		// none, where EnvironmentOperator("") once meant every one.
		{"environment operator of none", EnvironmentOperator(""), ScopeEnvironment, [3]bool{false, false, false}, [2]bool{false, false}},
		{"tenant of no organization", &Caller{Environment: Production, Kind: KindEcom}, ScopeOrganization, [3]bool{false, false, false}, [2]bool{true, false}},
	}
	for _, tc := range cases {
		if tc.c.Scope != tc.scope {
			t.Errorf("%s: scope %v, want %v", tc.name, tc.c.Scope, tc.scope)
		}
		got := [3]bool{tc.c.Covers(Production, 7), tc.c.Covers(Production, 8), tc.c.Covers(Test, 7)}
		if got != tc.want {
			t.Errorf("%s: covers %v, want %v", tc.name, got, tc.want)
		}
		if r := [2]bool{tc.c.Reaches(Production), tc.c.Reaches(Test)}; r != tc.reaches {
			t.Errorf("%s: reaches %v, want %v", tc.name, r, tc.reaches)
		}
	}
}

// decisions §65: ScopeOf is the one reading of a choice that leaves its
// organization or environment out; Organization names the one
// organization of a caller's scope, and none of a wider one or of an
// organization's scope that names none; ActsIn defaults a write's
// environment to the caller's and refuses one outside its reach.
func TestScopeOfOrganizationActsIn(t *testing.T) {
	for _, tc := range []struct {
		env  Environment
		org  int64
		want Scope
	}{{Production, 7, ScopeOrganization}, {Test, 0, ScopeEnvironment}, {"", 0, ScopeAll}} {
		if got := ScopeOf(tc.env, tc.org); got != tc.want {
			t.Errorf("ScopeOf(%q, %d) = %s, want %s", tc.env, tc.org, got, tc.want)
		}
	}
	org := OperatorCaller(&Organization{ID: 7, Environment: Production})
	if id, ok := org.Organization(); !ok || id != 7 {
		t.Errorf("an organization's operator: Organization() = %d, %v", id, ok)
	}
	for _, c := range []*Caller{EnvironmentOperator(Production), AllOperator(), {Environment: Production, Kind: KindEcom}} {
		if id, ok := c.Organization(); ok {
			t.Errorf("%s scope (org %d): Organization() = %d, true", c.Scope, c.OrgID, id)
		}
	}
	if env, ok := org.ActsIn(""); !ok || env != Production {
		t.Errorf(`ActsIn("") = %q, %v`, env, ok)
	}
	if _, ok := org.ActsIn(Test); ok {
		t.Error("an organization's operator acts in the other environment")
	}
	if env, ok := AllOperator().ActsIn(Test); !ok || env != Test {
		t.Errorf("AllOperator ActsIn(test) = %q, %v", env, ok)
	}
}
