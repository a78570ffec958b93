package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The operator's services ask Caller.May(ActionOperate) themselves, so a
// caller that is not the operator is refused by the service whatever front
// end (or none) it came through, and an environment operator acts on its
// own environment only. These tests call the services directly, with the
// callers the API's tokens make.

// sameBusinessID is the business ID of one organization in each
// environment: two unrelated tenants that share it (decisions §3).
const sameBusinessID = "1234567-1"

// operatorFixture is an organization with sameBusinessID in each
// environment, each with a gateway client and a service account named
// after its environment.
type operatorFixture struct {
	orgs map[parcelgate.Environment]*parcelgate.Organization
}

func newOperatorFixture(t *testing.T, db *sqlstore.DB) operatorFixture {
	t.Helper()
	ctx := context.Background()
	f := operatorFixture{orgs: map[parcelgate.Environment]*parcelgate.Organization{}}
	for _, env := range []parcelgate.Environment{parcelgate.Production, parcelgate.Test} {
		op := parcelgate.EnvironmentOperator(env)
		o := &parcelgate.Organization{Environment: env, BusinessID: sameBusinessID, Name: "Org " + string(env)}
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, op, o); err != nil {
			t.Fatal(err)
		}
		f.orgs[env] = o
		creds := sqlstore.NewCredentialService(db)
		if err := creds.CreateGatewayClient(ctx, op, &parcelgate.GatewayClient{ClientID: "client-" + string(env), Environment: env, BusinessID: sameBusinessID,
			Versions: []parcelgate.VersionGrant{{Version: parcelgate.DefaultVersions[0], Tier: 1}}}, auth.HashSecret("secret")); err != nil {
			t.Fatal(err)
		}
		if err := creds.CreateServiceAccount(ctx, op, &parcelgate.ServiceAccount{Username: "user-" + string(env), Environment: env, BusinessID: sameBusinessID,
			Roles: parcelgate.Roles}, "not-a-real-hash"); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// tenants are the callers a tenant's tokens make for org: a gateway
// client's, and a service account's holding every role. Neither is the
// operator (access.go: ActionOperate is the operator's only).
func tenants(org *parcelgate.Organization) []*parcelgate.Caller {
	return []*parcelgate.Caller{gatewayClientOf(org), accountOf(org, parcelgate.Roles...)}
}

func businessIDs(orgs []*parcelgate.Organization) []string {
	var out []string
	for _, o := range orgs {
		out = append(out, string(o.Environment)+"/"+o.BusinessID)
	}
	return out
}

// decisions §3, §4: organizations are the operator's, and an environment's
// operator sees and creates only its environment's.
func TestOrganizationServiceIsTheOperators(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		f := newOperatorFixture(t, db)
		orgs := sqlstore.NewOrganizationService(db)
		prod := f.orgs[parcelgate.Production]
		testOp := parcelgate.EnvironmentOperator(parcelgate.Test)
		org := func(o *parcelgate.Organization, err error) (string, error) {
			if err != nil {
				return "", err
			}
			return string(o.Environment) + "/" + o.BusinessID, nil
		}
		list := func(c *parcelgate.Caller, _ string) (string, error) {
			all, err := orgs.ListOrganizations(ctx, c, parcelgate.OrganizationQuery{}, parcelgate.PageRequest{})
			return strings.Join(businessIDs(all.Items), ","), err
		}
		// A's object is the production organization 7777777-4, which the
		// production operator creates first; 0737546-2 is no one's.
		checkAccess(t, writtenIn(t, db), "7777777-4", "0737546-2", []accessCase{
			// The test environment's operator may not create in production.
			{name: "CreateOrganization", denied: append(tenants(prod), testOp), owner: parcelgate.EnvironmentOperator(parcelgate.Production),
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", orgs.CreateOrganization(ctx, c, &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: id, Name: "Elsewhere Oy"})
				}},
			// An operator on one organization sees no other one, nor does
			// another environment's operator.
			{name: "FindOrganization", denied: tenants(prod), other: parcelgate.OperatorCaller(prod), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.EnvironmentOperator(parcelgate.Production), ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return org(orgs.FindOrganization(ctx, c, id)) }},
			{name: "FindOrganization/other environment's organization", denied: tenants(prod), other: parcelgate.OperatorCaller(f.orgs[parcelgate.Test]), crossCode: parcelgate.ENOTFOUND, owner: parcelgate.EnvironmentOperator(parcelgate.Production), ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return org(orgs.FindOrganization(ctx, c, id)) }},
			{name: "FindOrganization/test environment", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: parcelgate.EnvironmentOperator(parcelgate.Production), ownerSees: true,
				call: func(c *parcelgate.Caller, id string) (string, error) { return org(orgs.FindOrganization(ctx, c, id)) }},
			{name: "ListOrganizations", denied: tenants(prod), other: testOp, listing: true, crossSum: "test/" + sameBusinessID, owner: parcelgate.AllOperator(), ownerSees: true, call: list},
		})
		found, err := orgs.FindOrganization(ctx, testOp, sameBusinessID)
		if err != nil || found.ID != f.orgs[parcelgate.Test].ID {
			t.Fatalf("the test environment's operator finds %+v, %v", found, err)
		}
		if prodOrgs, _ := orgs.ListOrganizations(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.OrganizationQuery{}, parcelgate.PageRequest{}); !slices.Equal(businessIDs(prodOrgs.Items), []string{"production/" + sameBusinessID, "production/7777777-4"}) {
			t.Fatalf("production holds %v", businessIDs(prodOrgs.Items))
		}
	})
}

// decisions §4: credentials are the operator's to make, list, revoke and
// unlock, and an environment's operator reaches only its environment's.
func TestCredentialServiceIsTheOperators(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		f := newOperatorFixture(t, db)
		creds := sqlstore.NewCredentialService(db)
		prod := f.orgs[parcelgate.Production]
		everyone, prodOp, testOp := parcelgate.AllOperator(), parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.EnvironmentOperator(parcelgate.Test)
		clientIDs := func(c *parcelgate.Caller, _ string) (string, error) {
			cs, err := creds.ListGatewayClients(ctx, c, parcelgate.PageRequest{})
			var out []string
			for _, gc := range cs.Items {
				out = append(out, gc.ClientID)
			}
			return strings.Join(out, ","), err
		}
		usernames := func(c *parcelgate.Caller, _ string) (string, error) {
			as, err := creds.ListServiceAccounts(ctx, c, parcelgate.PageRequest{})
			var out []string
			for _, a := range as.Items {
				out = append(out, a.Username)
			}
			return strings.Join(out, ","), err
		}
		// Production's credentials are not the test operator's: they
		// answer as missing ones, and stay as they were.
		checkAccess(t, writtenIn(t, db), sameBusinessID, "7777777-4", []accessCase{
			{name: "CreateGatewayClient", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", creds.CreateGatewayClient(ctx, c, &parcelgate.GatewayClient{ClientID: "client-elsewhere", Environment: parcelgate.Production, BusinessID: id,
						Versions: []parcelgate.VersionGrant{{Version: parcelgate.DefaultVersions[0], Tier: 1}}}, auth.HashSecret("x"))
				}},
			{name: "CreateServiceAccount", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", creds.CreateServiceAccount(ctx, c, &parcelgate.ServiceAccount{Username: "user-elsewhere", Environment: parcelgate.Production, BusinessID: id, Roles: parcelgate.Roles}, "x")
				}},
		})
		checkAccess(t, writtenIn(t, db), "client-production", "client-nope", []accessCase{
			{name: "ListGatewayClients", denied: tenants(prod), other: testOp, listing: true, crossSum: "client-test", owner: prodOp, ownerSees: true, call: clientIDs},
			{name: "RevokeGatewayClient", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", creds.RevokeGatewayClient(ctx, c, id)
				}},
		})
		checkAccess(t, writtenIn(t, db), "user-production", "user-nope", []accessCase{
			{name: "ListServiceAccounts", denied: tenants(prod), other: testOp, listing: true, crossSum: "user-test", owner: prodOp, ownerSees: true, call: usernames},
			{name: "UnlockServiceAccount", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", creds.UnlockServiceAccount(ctx, c, id)
				}},
			{name: "RevokeServiceAccount", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) {
					return "", creds.RevokeServiceAccount(ctx, c, id)
				}},
		})
		// What the owners did, and only that: production's first
		// credentials revoked, the new ones made; the test environment's
		// untouched.
		if got, err := clientIDs(everyone, ""); err != nil || got != "client-elsewhere,client-test" {
			t.Fatalf("the gateway clients are %q, %v", got, err)
		}
		if got, err := usernames(everyone, ""); err != nil || got != "user-elsewhere,user-test" {
			t.Fatalf("the service accounts are %q, %v", got, err)
		}
		// Its own the test operator revokes.
		if err := creds.RevokeGatewayClient(ctx, testOp, "client-test"); err != nil {
			t.Fatal(err)
		}
		if got, _ := clientIDs(everyone, ""); got != "client-elsewhere" {
			t.Fatalf("after revoking client-test: %v", got)
		}
	})
}

// decisions §9, §21: the clock, an environment's reset and the demo's
// restore are the operator's, on the environment its caller names.
func TestControlServiceIsTheOperators(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			clock := new(parcelgate.OffsetClock)
			db := testdb.Open(t, engine, clock)
			if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
				t.Fatal(err)
			}
			orgs, controls := sqlstore.NewOrganizationService(db), sqlstore.NewControlService(db)
			prodOp, testOp := parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.EnvironmentOperator(parcelgate.Test)
			prod, err := orgs.FindOrganization(ctx, prodOp, demo.Tenants[0].BusinessID)
			if err != nil {
				t.Fatal(err)
			}
			objects := func() int64 {
				t.Helper()
				s, err := controls.TakeSnapshot(ctx, parcelgate.OperatorCaller(prod), "count")
				if err != nil {
					t.Fatal(err)
				}
				return s.Objects
			}
			before := objects()
			if before == 0 {
				t.Fatal("the demo left production empty")
			}
			// Every table and both clocks: a refused control moves, resets
			// or restores nothing.
			tables := writtenIn(t, db)
			written := func() string {
				return fmt.Sprint(clock.Offset(parcelgate.Production), clock.Offset(parcelgate.Test), "\n", tables())
			}
			// The test environment's operator moves, resets and restores
			// the test environment only (checked after).
			checkAccess(t, written, "", "", []accessCase{
				{name: "AdvanceClock", denied: tenants(prod), owner: testOp,
					call: func(c *parcelgate.Caller, _ string) (string, error) {
						_, err := controls.AdvanceClock(ctx, c, time.Hour)
						return "", err
					}},
				{name: "ResetEnvironment", denied: tenants(prod), owner: testOp,
					call: func(c *parcelgate.Caller, _ string) (string, error) {
						_, err := controls.ResetEnvironment(ctx, c, parcelgate.ResetOptions{Catalogs: true})
						return "", err
					}},
				{name: "RestoreEverywhere", denied: tenants(prod), owner: testOp,
					call: func(c *parcelgate.Caller, _ string) (string, error) {
						_, err := controls.RestoreEverywhere(ctx, c, demo.SnapshotName)
						return "", err
					}},
			})
			if clock.Offset(parcelgate.Test) != time.Hour || clock.Offset(parcelgate.Production) != 0 {
				t.Fatalf("after moving test's clock: test %v, production %v", clock.Offset(parcelgate.Test), clock.Offset(parcelgate.Production))
			}
			if objects() != before {
				t.Fatalf("test's controls changed production: %d objects, was %d", objects(), before)
			}
			res, err := controls.ResetEnvironment(ctx, testOp, parcelgate.ResetOptions{})
			if err != nil || res.Environment != parcelgate.Test || res.Organizations != 3 {
				t.Fatalf("test's reset: %+v, %v", res, err)
			}
			if objects() != before {
				t.Fatalf("test's reset changed production: %d objects, was %d", objects(), before)
			}
			restored, err := controls.RestoreEverywhere(ctx, testOp, demo.SnapshotName)
			if err != nil || len(restored) != 3 {
				t.Fatalf("test's restore: %d, %v", len(restored), err)
			}
			for _, r := range restored {
				if r.Environment != parcelgate.Test {
					t.Errorf("the test operator restored %s %s", r.Environment, r.BusinessID)
				}
			}
			// A control names its environment: none is acted on by
			// default (decisions §21).
			if _, err := controls.ResetEnvironment(ctx, parcelgate.AllOperator(), parcelgate.ResetOptions{}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
				t.Fatalf("a reset of no environment: %v", err)
			}
			if objects() != before {
				t.Fatalf("production changed: %d objects, was %d", objects(), before)
			}
		})
	}
}

// decisions §21: faults are the operator's to set, list and remove, and
// an environment's operator reaches only its environment's.
func TestFaultServiceIsTheOperators(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		f := newOperatorFixture(t, db)
		faults := sqlstore.NewFaultService(db)
		everyone := parcelgate.AllOperator()
		prodFault := &parcelgate.Fault{Environment: parcelgate.Production, BusinessID: sameBusinessID, Status: 503, Remaining: -1}
		if err := faults.CreateFault(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), prodFault); err != nil {
			t.Fatal(err)
		}
		testFault := &parcelgate.Fault{Environment: parcelgate.Test, Status: 500, Remaining: -1}
		if err := faults.CreateFault(ctx, everyone, testFault); err != nil {
			t.Fatal(err)
		}
		prodOp, testOp := parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.EnvironmentOperator(parcelgate.Test)
		prod := f.orgs[parcelgate.Production]
		ids := func(c *parcelgate.Caller, _ string) (string, error) {
			fs, err := faults.Faults(ctx, c)
			var out []string
			for _, f := range fs {
				out = append(out, f.ID)
			}
			return strings.Join(out, ","), err
		}
		if got, err := ids(parcelgate.OperatorCaller(prod), ""); err != nil || got != prodFault.ID {
			t.Fatalf("production's organization operator lists %v, %v", got, err)
		}
		checkAccess(t, writtenIn(t, db), prodFault.ID, "Fnotafault000", []accessCase{
			// An operator on one organization sees that organization's
			// only; the test environment's operator the test's only.
			{name: "Faults", denied: tenants(prod), other: testOp, listing: true, crossSum: testFault.ID, owner: parcelgate.OperatorCaller(prod), ownerSees: true, call: ids},
			{name: "Faults/organization", denied: tenants(prod), other: parcelgate.OperatorCaller(f.orgs[parcelgate.Test]), listing: true, owner: everyone, ownerSees: true, call: ids},
			// The test operator sets no production fault.
			{name: "CreateFault", denied: append(tenants(prod), testOp), owner: prodOp,
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					return "", faults.CreateFault(ctx, c, &parcelgate.Fault{Environment: parcelgate.Production, Status: 500, Remaining: -1})
				}},
			{name: "DeleteFault", denied: tenants(prod), other: testOp, crossCode: parcelgate.ENOTFOUND, owner: prodOp,
				call: func(c *parcelgate.Caller, id string) (string, error) { return "", faults.DeleteFault(ctx, c, id) }},
		})
		// What the owners did, and only that: production's first fault
		// deleted, one made; the test environment's untouched.
		if got, err := faults.Faults(ctx, everyone); err != nil || len(got) != 2 || got[0].ID == prodFault.ID || got[1].ID == prodFault.ID || !slices.ContainsFunc(got, func(f *parcelgate.Fault) bool { return f.ID == testFault.ID }) {
			t.Fatalf("the faults are %v, %v", got, err)
		}
	})
}

// Token keys seal every environment's tokens: only the operator of the
// whole server rotates them (decisions §9).
func TestRotateTokenKeyIsTheServersOperators(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		f := newOperatorFixture(t, db)
		keys := sqlstore.NewTokenKeyService(db)
		before, err := keys.TokenKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkAccess(t, writtenIn(t, db), "", "", []accessCase{
			{name: "RotateTokenKey", denied: append(tenants(f.orgs[parcelgate.Production]), parcelgate.EnvironmentOperator(parcelgate.Test)), owner: parcelgate.AllOperator(),
				call: func(c *parcelgate.Caller, _ string) (string, error) {
					_, err := keys.RotateTokenKey(ctx, c)
					return "", err
				}},
		})
		after, err := keys.TokenKeys(ctx)
		if err != nil || len(after) != len(before)+1 {
			t.Fatalf("one rotation: %d keys, were %d; %v", len(after), len(before), err)
		}
	})
}

// decisions §47: the console pages a chosen organization's credentials
// through the operator API's own lists. Walking Next by one meets each of
// the organization's accounts once, in username order, and never another
// organization's (the test environment's twin has one too); a whole
// environment's list is one answer, not paged.
func TestCredentialListsPageOneOrganization(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		f := newOperatorFixture(t, db)
		creds := sqlstore.NewCredentialService(db)
		prod := f.orgs[parcelgate.Production]
		op := parcelgate.OperatorCaller(prod)
		for _, name := range []string{"user-b", "user-a"} {
			if err := creds.CreateServiceAccount(ctx, op, &parcelgate.ServiceAccount{Username: name, Environment: prod.Environment, BusinessID: prod.BusinessID,
				Roles: parcelgate.Roles}, "not-a-real-hash"); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		after := ""
		for range 10 {
			page, err := creds.ListServiceAccounts(ctx, op, parcelgate.PageRequest{After: after, Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range page.Items {
				got = append(got, a.Username)
			}
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		if want := []string{"user-a", "user-b", "user-production"}; !slices.Equal(got, want) {
			t.Fatalf("walked %v, want %v", got, want)
		}
		clients, err := creds.ListGatewayClients(ctx, op, parcelgate.PageRequest{After: "client-a", Size: 1})
		if err != nil || len(clients.Items) != 1 || clients.Items[0].ClientID != "client-production" || clients.Next != "" {
			t.Fatalf("the production organization's clients after client-a: %+v %v", clients, err)
		}
		// decisions §58: one environment's list is paged too (the
		// operator API's), by username, that environment's only; every
		// environment's is not.
		env, err := creds.ListServiceAccounts(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.PageRequest{Size: 1})
		if err != nil || len(env.Items) != 1 || env.Items[0].Environment != parcelgate.Production || env.Next == "" {
			t.Fatalf("a page of production's accounts: %+v %v", env, err)
		}
		// decisions §64: Next is the one cursor encoding; the bare
		// username a client got before it reads the same next page.
		byNext, err1 := creds.ListServiceAccounts(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.PageRequest{After: env.Next, Size: 1})
		byOld, err2 := creds.ListServiceAccounts(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), parcelgate.PageRequest{After: env.Items[0].Username, Size: 1})
		if err1 != nil || err2 != nil || len(byNext.Items) != 1 || len(byOld.Items) != 1 || byNext.Items[0].Username != byOld.Items[0].Username || byNext.Items[0].Username == env.Items[0].Username {
			t.Fatalf("the next page by Next %q: %+v %v; by the old cursor: %+v %v", env.Next, byNext, err1, byOld, err2)
		}
		if _, err := creds.ListServiceAccounts(ctx, parcelgate.AllOperator(), parcelgate.PageRequest{Size: 1}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Fatalf("every environment's list paged: %v, want EINVALID", err)
		}
		whole, err := creds.ListServiceAccounts(ctx, parcelgate.AllOperator(), parcelgate.PageRequest{})
		if err != nil || len(whole.Items) != 4 || whole.Next != "" {
			t.Fatalf("every environment's accounts: %d %v", len(whole.Items), err)
		}
	})
}
