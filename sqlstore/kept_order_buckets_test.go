package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §68: the kept bucket sums of orders follow every write of
// orders, whoever makes it (set-based inserts, status moves, stamps moved
// within a bucket and across buckets, deletes, as psql or a bulk load
// would run them), and a page by number resolved through them starts at
// the key the walk from the list's start finds, at every position, for
// the list unfiltered and by statuses, on both engines; the same for the
// eras above the buckets (decisions §77), over several of them.
func TestKeptOrderBucketsFollowEveryWrite(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		exec := rawExec(t, db)
		orgs := sqlstore.NewOrganizationService(db)
		op := parcelgate.AllOperator()
		big := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Big"}
		if err := orgs.CreateOrganization(ctx, op, big); err != nil {
			t.Fatal(err)
		}
		small := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: "0737546-2", Name: "Small"}
		if err := orgs.CreateOrganization(ctx, op, small); err != nil {
			t.Fatal(err)
		}
		check := func(when string, lists ...[]string) {
			t.Helper()
			requireKeptExact(t, db, when, []*parcelgate.Organization{big, small}, lists...)
		}
		// An hour is 3.6e9 µs; a bucket about 19 hours.
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := db.SeedOrdersForTest(ctx, parcelgate.Production, big.ID, big.BusinessID, 300, base, `{}`); err != nil {
			t.Fatal(err)
		}
		if err := db.SeedOrdersForTest(ctx, parcelgate.Test, small.ID, small.BusinessID, 20, base.Add(time.Hour), `{}`); err != nil {
			t.Fatal(err)
		}
		check("seeded in one bucket", nil)
		// Spread over about twenty buckets, some left empty, by a
		// set-based stamp move.
		exec(`UPDATE orders SET updated_at = updated_at + (id % 23) * 7200000000 * 9 WHERE org_id = ?`, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at + (id % 3) * 7200000000 * 20 WHERE org_id = ?`, small.ID)
		check("stamps spread", nil, []string{"Created"})
		exec(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
			SELECT 'X' || order_id, environment, org_id, 'X' || external_id, 'X' || own_id, CASE WHEN id % 2 = 0 THEN 'Submitted' ELSE 'Error' END, 1, 0, 'x', '{}', 1, updated_at + 150000000000, 1 FROM orders WHERE org_id = ? AND id % 4 = 0`, big.ID)
		exec(`UPDATE orders SET status = 'Delivered' WHERE org_id = ? AND id % 3 = 0`, big.ID)
		exec(`UPDATE orders SET status = 'Cancelled', updated_at = updated_at + 900000000000 WHERE org_id = ? AND id % 7 = 0`, big.ID)
		// Within a bucket mostly, across one for a few.
		exec(`UPDATE orders SET updated_at = updated_at + 1000 WHERE org_id = ?`, big.ID)
		check("inserts, status moves, stamp moves", nil, []string{"Delivered"}, []string{"Created", "Cancelled"}, []string{"Submitted", "Error", "Delivered"})
		// decisions §74: a burst, every order of it in one bucket of its
		// own, 30 seconds of stamps apart in twos (two spans of 2^30 µs,
		// fifty of 2^24), then moved within the burst: statuses, stamps
		// across the finest spans and within one, some back out of it.
		burst := ((base.UnixMicro() >> 36) + 40) << 36
		exec(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
			SELECT 'B' || order_id, environment, org_id, 'B' || external_id, 'B' || own_id, status, 1, 0, 'b', '{}', 1, ? + (id % 50) * 30000000 + id % 2, 1 FROM orders WHERE org_id = ?`, burst, big.ID)
		check("a burst in one bucket", nil, []string{"Delivered"}, []string{"Created", "Cancelled"})
		exec(`UPDATE orders SET status = 'Submitted' WHERE org_id = ? AND order_id LIKE 'B%' AND id % 3 = 1`, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at + 17000000 WHERE org_id = ? AND order_id LIKE 'B%' AND id % 4 = 1`, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at + 5 WHERE org_id = ? AND order_id LIKE 'B%' AND id % 4 = 2`, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at - 9000000000 WHERE org_id = ? AND order_id LIKE 'B%' AND id % 11 = 0`, big.ID)
		check("moves within the burst", nil, []string{"Submitted"}, []string{"Created", "Delivered"})
		// decisions §77: over several eras (2^42 µs, about 51 days, 64
		// buckets each): a set-based move of a third of the orders by
		// whole and part eras, then a delete of some of them and an
		// insert into an era of its own, so the seek finds positions in
		// each era, across their bounds, and in eras with and without a
		// burst.
		const era = int64(1) << 42
		exec(`UPDATE orders SET updated_at = updated_at + (id % 4) * CAST(? AS BIGINT) + (id % 2) * CAST(? AS BIGINT) WHERE org_id = ? AND id % 3 = 2`, era, era/3, big.ID)
		exec(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
			SELECT 'E' || order_id, environment, org_id, 'E' || external_id, 'E' || own_id, status, 1, 0, 'e', '{}', 1, updated_at + 9 * CAST(? AS BIGINT), 1 FROM orders WHERE org_id = ? AND id % 6 = 1`, era, big.ID)
		exec(`UPDATE orders SET updated_at = updated_at + CAST(? AS BIGINT) WHERE org_id = ? AND id % 2 = 0`, era, small.ID)
		check("spread over eras", nil, []string{"Delivered"}, []string{"Created", "Submitted"})
		exec(`DELETE FROM orders WHERE org_id = ? AND id % 5 = 0`, big.ID)
		exec(`DELETE FROM orders WHERE org_id = ?`, small.ID)
		check("deletes", nil, []string{"Delivered"}, []string{"Created", "Cancelled"})
	})
}

// decisions §77: migration 0059 on a populated database that migration
// 0058 left (its triggers writing no era): the orders written before it,
// spread over eras, with moves and deletes, are counted by era in the
// migration's transaction, and every position of the lists resolves
// through the eras as the walk does; writes after it are kept by the new
// triggers. Before the migration the drift check sees the eras missing
// (the check can fail).
func TestMigration0059CountsTheErasOfAPopulatedDatabase(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		exec := rawExec(t, db)
		org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Big"}
		if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.AllOperator(), org); err != nil {
			t.Fatal(err)
		}
		if err := db.UndoOrderErasForTest(ctx); err != nil {
			t.Fatal(err)
		}
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := db.SeedOrdersForTest(ctx, parcelgate.Production, org.ID, org.BusinessID, 400, base, `{}`); err != nil {
			t.Fatal(err)
		}
		// Over about eight eras, a day apart in sevens.
		exec(`UPDATE orders SET updated_at = updated_at + (id % 57) * 86400000000 * 7 WHERE org_id = ?`, org.ID)
		exec(`UPDATE orders SET status = 'Delivered' WHERE org_id = ? AND id % 3 = 0`, org.ID)
		exec(`DELETE FROM orders WHERE org_id = ? AND id % 10 = 0`, org.ID)
		if drift, err := db.KeptCountsDriftForTest(ctx); err != nil || drift == "" {
			t.Fatalf("before migration 0059 the eras are not kept, and the drift check sees none missing: %q %v", drift, err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			requireKeptExact(t, db, when, []*parcelgate.Organization{org}, nil, []string{"Delivered"}, []string{"Created", "Cancelled"})
		}
		check("after migration 0059")
		exec(`UPDATE orders SET updated_at = updated_at + 86400000000 * 30, status = 'Cancelled' WHERE org_id = ? AND id % 4 = 1`, org.ID)
		exec(`DELETE FROM orders WHERE org_id = ? AND id % 7 = 0`, org.ID)
		check("writes after it")
	})
}

// rawExec runs statements straight on db, as psql or a bulk load would,
// failing t on an error.
func rawExec(t *testing.T, db *sqlstore.DB) func(q string, args ...any) {
	return func(q string, args ...any) {
		t.Helper()
		if err := db.ExecForTest(context.Background(), q, args...); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
}

// requireKeptExact fails t (when: the step it checks) unless every kept
// count equals a fresh count of the rows (decisions §52, §68, §74, §77)
// and, for each of lists (statuses; nil: all), every position of each of
// orgs' lists resolves through the sums where the walk from the list's
// start finds it, with something compared.
func requireKeptExact(t *testing.T, db *sqlstore.DB, when string, orgs []*parcelgate.Organization, lists ...[]string) {
	t.Helper()
	ctx := context.Background()
	drift, err := db.KeptCountsDriftForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if drift != "" {
		t.Fatalf("%s: %s", when, drift)
	}
	for _, statuses := range lists {
		for _, org := range orgs {
			drift, n, err := db.OrderSeekDriftForTest(ctx, org, statuses)
			if err != nil {
				t.Fatal(err)
			}
			if drift != "" || n == 0 {
				t.Fatalf("%s: organization %d, statuses %v (%d compared): %s", when, org.ID, statuses, n, drift)
			}
		}
	}
}
