package sqlstore_test

import (
	"context"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// A small organization's reset is one transaction (decisions §54); one
// that fails after emptying some tables leaves every table as it was.
func TestFailedResetChangesNothing(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		t0 := demo.Tenants[1]
		org, err := sqlstore.NewOrganizationService(db).FindOrganization(ctx, parcelgate.EnvironmentOperator(t0.Environment), t0.BusinessID)
		if err != nil {
			t.Fatal(err)
		}
		op := parcelgate.OperatorCaller(org)
		before, err := sqlstore.NewControlService(db).TakeSnapshot(ctx, op, "before")
		if err != nil {
			t.Fatal(err)
		}
		// The broken step is the last, after every other table's.
		undo := sqlstore.BreakResetForTest()
		_, err = sqlstore.NewControlService(db).ResetOrganization(ctx, op, parcelgate.ResetOptions{})
		undo()
		if err == nil {
			t.Fatal("the broken reset succeeded")
		}
		after, err := sqlstore.NewControlService(db).TakeSnapshot(ctx, op, "after")
		if err != nil {
			t.Fatal(err)
		}
		if before.Objects == 0 || after.Objects != before.Objects {
			t.Fatalf("a failed reset changed the data: %v objects before, %v after", before.Tables, after.Tables)
		}
		if after.Tables["orders"] != 1 || after.Tables["balances"] == 0 {
			t.Fatalf("after a failed reset: %v", after.Tables)
		}
	})
}
