package demo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §9: --demo seeds an empty database once; a database with real
// organizations in it never gets the demo's public credentials.
func TestSeedOnlyEmptyDatabases(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		seeded, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions)
		if err != nil || !seeded {
			t.Fatalf("empty database: seeded=%v err=%v", seeded, err)
		}
		if _, err := sqlstore.NewCredentialService(db).AuthenticateServiceAccount(ctx, demo.Tenants[0].Username, demo.Tenants[0].Password); err != nil {
			t.Fatalf("demo account: %v", err)
		}
		seeded, err = demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions)
		if err != nil || seeded {
			t.Fatalf("second start: seeded=%v err=%v", seeded, err)
		}
	})
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: "7654321-2", Name: "Real Oy"}); err != nil {
			t.Fatal(err)
		}
		seeded, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions)
		if !errors.Is(err, demo.ErrNotEmpty) || seeded {
			t.Fatalf("database with an organization: seeded=%v err=%v", seeded, err)
		}
		if _, err := sqlstore.NewCredentialService(db).AuthenticateServiceAccount(ctx, demo.Tenants[0].Username, demo.Tenants[0].Password); err == nil {
			t.Fatal("demo credentials work on a database that was not empty")
		}
	})
}
