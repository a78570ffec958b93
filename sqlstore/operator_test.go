package sqlstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/testdb"
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
// operator.
func tenants(org *parcelgate.Organization) map[string]*parcelgate.Caller {
	return map[string]*parcelgate.Caller{"gateway": gatewayClientOf(org), "ecom": accountOf(org, parcelgate.Roles...)}
}

// refusedByService runs each call with each tenant caller of org and
// requires the service's own EFORBIDDEN (access.go: ActionOperate is the
// operator's only).
func refusedByService(t *testing.T, org *parcelgate.Organization, calls map[string]func(c *parcelgate.Caller) error) {
	t.Helper()
	for who, c := range tenants(org) {
		for name, call := range calls {
			if err := call(c); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
				t.Errorf("%s as %s: %v, want EFORBIDDEN from the service", name, who, err)
			}
		}
	}
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
		refusedByService(t, prod, map[string]func(c *parcelgate.Caller) error{
			"CreateOrganization": func(c *parcelgate.Caller) error {
				return orgs.CreateOrganization(ctx, c, &parcelgate.Organization{Environment: c.Environment, BusinessID: "7777777-4", Name: "Forged Oy"})
			},
			"FindOrganization": func(c *parcelgate.Caller) error {
				_, err := orgs.FindOrganization(ctx, c, sameBusinessID)
				return err
			},
			"ListOrganizations": func(c *parcelgate.Caller) error {
				_, err := orgs.ListOrganizations(ctx, c)
				return err
			},
		})
		all, err := orgs.ListOrganizations(ctx, parcelgate.EnvironmentOperator(""))
		if err != nil {
			t.Fatal(err)
		}
		if got := businessIDs(all); !slices.Equal(got, []string{"production/" + sameBusinessID, "test/" + sameBusinessID}) {
			t.Fatalf("after refused calls the organizations are %v", got)
		}

		testOp := parcelgate.EnvironmentOperator(parcelgate.Test)
		listed, err := orgs.ListOrganizations(ctx, testOp)
		if err != nil || len(listed) != 1 || listed[0].ID != f.orgs[parcelgate.Test].ID {
			t.Fatalf("the test environment's operator lists %v, %v", businessIDs(listed), err)
		}
		found, err := orgs.FindOrganization(ctx, testOp, sameBusinessID)
		if err != nil || found.ID != f.orgs[parcelgate.Test].ID {
			t.Fatalf("the test environment's operator finds %+v, %v", found, err)
		}
		// An operator on one organization sees no other one.
		if _, err := orgs.FindOrganization(ctx, parcelgate.OperatorCaller(f.orgs[parcelgate.Test]), "7777777-4"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("another organization for an organization's operator: %v", err)
		}
		err = orgs.CreateOrganization(ctx, testOp, &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "7777777-4", Name: "Elsewhere Oy"})
		if parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
			t.Fatalf("the test operator created a production organization: %v", err)
		}
		if prodOrgs, _ := orgs.ListOrganizations(ctx, parcelgate.EnvironmentOperator(parcelgate.Production)); len(prodOrgs) != 1 {
			t.Fatalf("production holds %v", businessIDs(prodOrgs))
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
		refusedByService(t, prod, map[string]func(c *parcelgate.Caller) error{
			"CreateGatewayClient": func(c *parcelgate.Caller) error {
				return creds.CreateGatewayClient(ctx, c, &parcelgate.GatewayClient{ClientID: "forged", Environment: c.Environment, BusinessID: c.BusinessID,
					Versions: []parcelgate.VersionGrant{{Version: parcelgate.DefaultVersions[0], Tier: 1}}}, auth.HashSecret("x"))
			},
			"CreateServiceAccount": func(c *parcelgate.Caller) error {
				return creds.CreateServiceAccount(ctx, c, &parcelgate.ServiceAccount{Username: "forged", Environment: c.Environment, BusinessID: c.BusinessID, Roles: parcelgate.Roles}, "x")
			},
			"ListGatewayClients": func(c *parcelgate.Caller) error {
				_, err := creds.ListGatewayClients(ctx, c)
				return err
			},
			"ListServiceAccounts": func(c *parcelgate.Caller) error {
				_, err := creds.ListServiceAccounts(ctx, c)
				return err
			},
			"RevokeGatewayClient":  func(c *parcelgate.Caller) error { return creds.RevokeGatewayClient(ctx, c, "client-production") },
			"RevokeServiceAccount": func(c *parcelgate.Caller) error { return creds.RevokeServiceAccount(ctx, c, "user-production") },
			"UnlockServiceAccount": func(c *parcelgate.Caller) error { return creds.UnlockServiceAccount(ctx, c, "user-production") },
		})
		everyone := parcelgate.EnvironmentOperator("")
		clientIDs := func(c *parcelgate.Caller) []string {
			t.Helper()
			cs, err := creds.ListGatewayClients(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, gc := range cs {
				out = append(out, gc.ClientID)
			}
			return out
		}
		usernames := func(c *parcelgate.Caller) []string {
			t.Helper()
			as, err := creds.ListServiceAccounts(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, a := range as {
				out = append(out, a.Username)
			}
			return out
		}
		if got := clientIDs(everyone); !slices.Equal(got, []string{"client-production", "client-test"}) {
			t.Fatalf("after refused calls the gateway clients are %v", got)
		}
		if got := usernames(everyone); !slices.Equal(got, []string{"user-production", "user-test"}) {
			t.Fatalf("after refused calls the service accounts are %v", got)
		}

		testOp := parcelgate.EnvironmentOperator(parcelgate.Test)
		if got := clientIDs(testOp); !slices.Equal(got, []string{"client-test"}) {
			t.Fatalf("the test operator lists the gateway clients %v", got)
		}
		if got := usernames(testOp); !slices.Equal(got, []string{"user-test"}) {
			t.Fatalf("the test operator lists the service accounts %v", got)
		}
		// Production's credentials are not the test operator's: they
		// answer as missing ones, and stay as they were.
		for name, err := range map[string]error{
			"RevokeGatewayClient":  creds.RevokeGatewayClient(ctx, testOp, "client-production"),
			"RevokeServiceAccount": creds.RevokeServiceAccount(ctx, testOp, "user-production"),
			"UnlockServiceAccount": creds.UnlockServiceAccount(ctx, testOp, "user-production"),
			"CreateGatewayClient": creds.CreateGatewayClient(ctx, testOp, &parcelgate.GatewayClient{ClientID: "client-elsewhere", Environment: parcelgate.Production, BusinessID: sameBusinessID,
				Versions: []parcelgate.VersionGrant{{Version: parcelgate.DefaultVersions[0], Tier: 1}}}, auth.HashSecret("x")),
			"CreateServiceAccount": creds.CreateServiceAccount(ctx, testOp, &parcelgate.ServiceAccount{Username: "user-elsewhere", Environment: parcelgate.Production, BusinessID: sameBusinessID, Roles: parcelgate.Roles}, "x"),
		} {
			if parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
				t.Errorf("%s of production's by the test operator: %v, want ENOTFOUND", name, err)
			}
		}
		if got := clientIDs(everyone); !slices.Equal(got, []string{"client-production", "client-test"}) {
			t.Fatalf("after the test operator's calls the gateway clients are %v", got)
		}
		if got := usernames(everyone); !slices.Equal(got, []string{"user-production", "user-test"}) {
			t.Fatalf("after the test operator's calls the service accounts are %v", got)
		}
		// Its own it revokes.
		if err := creds.RevokeGatewayClient(ctx, testOp, "client-test"); err != nil {
			t.Fatal(err)
		}
		if got := clientIDs(everyone); !slices.Equal(got, []string{"client-production"}) {
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
			refusedByService(t, prod, map[string]func(c *parcelgate.Caller) error{
				"AdvanceClock": func(c *parcelgate.Caller) error {
					_, err := controls.AdvanceClock(ctx, c, time.Hour)
					return err
				},
				"ResetEnvironment": func(c *parcelgate.Caller) error {
					_, err := controls.ResetEnvironment(ctx, c, parcelgate.ResetOptions{Catalogs: true})
					return err
				},
				"RestoreEverywhere": func(c *parcelgate.Caller) error {
					_, err := controls.RestoreEverywhere(ctx, c, demo.SnapshotName)
					return err
				},
			})
			if clock.Offset(parcelgate.Production) != 0 || objects() != before {
				t.Fatalf("refused calls changed production: offset %v, %d objects (was %d)", clock.Offset(parcelgate.Production), objects(), before)
			}

			// The test environment's operator moves, resets and restores
			// the test environment only.
			if _, err := controls.AdvanceClock(ctx, testOp, time.Hour); err != nil {
				t.Fatal(err)
			}
			if clock.Offset(parcelgate.Test) != time.Hour || clock.Offset(parcelgate.Production) != 0 {
				t.Fatalf("after moving test's clock: test %v, production %v", clock.Offset(parcelgate.Test), clock.Offset(parcelgate.Production))
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
			if _, err := controls.ResetEnvironment(ctx, parcelgate.EnvironmentOperator(""), parcelgate.ResetOptions{}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
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
		everyone := parcelgate.EnvironmentOperator("")
		prodFault := &parcelgate.Fault{Environment: parcelgate.Production, BusinessID: sameBusinessID, Status: 503, Remaining: -1}
		if err := faults.CreateFault(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), prodFault); err != nil {
			t.Fatal(err)
		}
		testFault := &parcelgate.Fault{Environment: parcelgate.Test, Status: 500, Remaining: -1}
		if err := faults.CreateFault(ctx, everyone, testFault); err != nil {
			t.Fatal(err)
		}
		refusedByService(t, f.orgs[parcelgate.Production], map[string]func(c *parcelgate.Caller) error{
			"CreateFault": func(c *parcelgate.Caller) error {
				return faults.CreateFault(ctx, c, &parcelgate.Fault{Environment: c.Environment, Status: 500, Remaining: -1})
			},
			"Faults": func(c *parcelgate.Caller) error {
				_, err := faults.Faults(ctx, c)
				return err
			},
			"DeleteFault": func(c *parcelgate.Caller) error { return faults.DeleteFault(ctx, c, prodFault.ID) },
		})
		ids := func(c *parcelgate.Caller) []string {
			t.Helper()
			fs, err := faults.Faults(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range fs {
				out = append(out, f.ID)
			}
			return out
		}
		if got := ids(everyone); !slices.Equal(got, []string{prodFault.ID, testFault.ID}) {
			t.Fatalf("after refused calls the faults are %v", got)
		}

		testOp := parcelgate.EnvironmentOperator(parcelgate.Test)
		if got := ids(testOp); !slices.Equal(got, []string{testFault.ID}) {
			t.Fatalf("the test operator lists %v", got)
		}
		if err := faults.DeleteFault(ctx, testOp, prodFault.ID); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("the test operator deleting production's fault: %v", err)
		}
		err := faults.CreateFault(ctx, testOp, &parcelgate.Fault{Environment: parcelgate.Production, Status: 500, Remaining: -1})
		if parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
			t.Fatalf("the test operator setting a production fault: %v", err)
		}
		// An operator on one organization sees that organization's only.
		if got := ids(parcelgate.OperatorCaller(f.orgs[parcelgate.Production])); !slices.Equal(got, []string{prodFault.ID}) {
			t.Fatalf("production's organization operator lists %v", got)
		}
		if got := ids(everyone); !slices.Equal(got, []string{prodFault.ID, testFault.ID}) {
			t.Fatalf("after the test operator's calls the faults are %v", got)
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
		callers := tenants(f.orgs[parcelgate.Production])
		callers["test operator"] = parcelgate.EnvironmentOperator(parcelgate.Test)
		for who, c := range callers {
			if _, err := keys.RotateTokenKey(ctx, c); parcelgate.ErrorCode(err) != parcelgate.EFORBIDDEN {
				t.Errorf("RotateTokenKey as %s: %v, want EFORBIDDEN", who, err)
			}
		}
		after, err := keys.TokenKeys(ctx)
		if err != nil || len(after) != len(before) || after[len(after)-1].ID != before[len(before)-1].ID {
			t.Fatalf("refused rotations changed the keys: %v, %v", after, err)
		}
		if _, err := keys.RotateTokenKey(ctx, parcelgate.EnvironmentOperator("")); err != nil {
			t.Fatal(err)
		}
	})
}
