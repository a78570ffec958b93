package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/parcelgate/parcelgate"
)

// Orders by time bucket (migration 0052, decisions §68). The API lists an
// organization's orders by (updated_at, id), and a client may ask any page
// by number: the row at position P is found by walking the list's index
// from its start (or from a page boundary recorded before it), a walk of P
// entries, 97 ms at the middle of the big merchant's 150,000 orders on
// SQLite. The table kept_order_buckets holds, per organization, bucket
// (updated_at >> orderBucketShift) and status, how many orders there are,
// kept by triggers in the writing transaction whatever wrote (the
// services, an operator's reset or restore, the data generator's COPY,
// psql), so the sums read in a page's snapshot are the rows of that
// snapshot: exact by construction. A page by number then reads the sums
// of the organization's buckets in order until they pass P, and walks
// only inside the bucket that holds it (orderSeek).
//
// Every order write restamps the order, but the triggers fire only when
// the order's bucket or status changes (its organization never does;
// named anyway, so no write can miscount): an order written twice within
// a bucket fires nothing the second time. SQLite: row triggers, stripe 0
// (one writer). PostgreSQL: as kept_counts (kept_counts.go), a statement
// trigger with transition tables for inserts and deletes (a bulk write is
// one grouped upsert) and a row trigger WHEN the bucket or the status
// changed, each share going to the writer's connection's stripe, so one
// merchant's concurrent creates, which all land in the newest bucket, do
// not queue on one row.

// orderBucketShift is the width of a bucket: 2^36 µs, about 19 hours. A
// page's cost is the bucket sums read (one entry per bucket, status and
// stripe of the organization) plus the walk inside one bucket (its orders
// of the list's statuses): about a day balances the two for a merchant
// whose orders spread over months (decisions §68 has the measurement).
const orderBucketShift = 36

// orderBucketUpsert ends every write of the triggers.
const orderBucketUpsert = ` ON CONFLICT (org_id, bucket, status, stripe) DO UPDATE SET n = kept_order_buckets.n + excluded.n`

const orderBucketInsert = `INSERT INTO kept_order_buckets (org_id, bucket, status, stripe, n) `

// bucketOf is the bucket expression of a row named row (NEW, OLD; "" for
// the table's own columns).
func bucketOf(row string) string {
	if row != "" {
		row += "."
	}
	return fmt.Sprintf("(%supdated_at >> %d)", row, orderBucketShift)
}

// orderBucketsChanged is the condition under which an update moves an
// order between counts.
func orderBucketsChanged(distinct string) string {
	return fmt.Sprintf("OLD.org_id %[1]s NEW.org_id OR OLD.status %[1]s NEW.status OR %[2]s %[1]s %[3]s", distinct, bucketOf("OLD"), bucketOf("NEW"))
}

// sqliteKeptOrderBuckets is migration 0052's triggers on SQLite, one a
// line.
var sqliteKeptOrderBuckets = func() string {
	row := func(r string, d int) string {
		return orderBucketInsert + fmt.Sprintf("VALUES (%[1]s.org_id, %[2]s, %[1]s.status, 0, %[3]d)", r, bucketOf(r), d) + orderBucketUpsert + ";"
	}
	return "CREATE TRIGGER kept_order_buckets_insert AFTER INSERT ON orders BEGIN " + row("NEW", 1) + " END;\n" +
		"CREATE TRIGGER kept_order_buckets_delete AFTER DELETE ON orders BEGIN " + row("OLD", -1) + " END;\n" +
		"CREATE TRIGGER kept_order_buckets_update AFTER UPDATE OF org_id, status, updated_at ON orders WHEN " + orderBucketsChanged("IS NOT") + " BEGIN " + row("OLD", -1) + " " + row("NEW", 1) + " END;\n"
}()

// pgKeptOrderBuckets is migration 0052's triggers on PostgreSQL, one a
// line. Rows are written in key order, so two writers that meet on a row
// (connections whose ids share a stripe) lock in one order.
var pgKeptOrderBuckets = func() string {
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	grouped := func(rows, sign string) string {
		return orderBucketInsert + "SELECT org_id, " + bucketOf("") + ", status, " + stripe + ", " + sign + "COUNT(*) FROM " + rows + " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" + orderBucketUpsert + "; "
	}
	move := orderBucketInsert + fmt.Sprintf("SELECT * FROM (VALUES (OLD.org_id, %s, OLD.status, %s, -1), (NEW.org_id, %s, NEW.status, %s, 1)) v ORDER BY 1, 2, 3", bucketOf("OLD"), stripe, bucketOf("NEW"), stripe) + orderBucketUpsert + "; "
	return "CREATE FUNCTION kept_order_buckets() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN " + grouped("new_rows", "") + "ELSE " + grouped("old_rows", "-") + "END IF; RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_order_buckets_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_order_buckets();\n" +
		"CREATE TRIGGER kept_order_buckets_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_order_buckets();\n" +
		"CREATE FUNCTION kept_order_buckets_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + move + "RETURN NULL; END $$;\n" +
		"CREATE TRIGGER kept_order_buckets_update AFTER UPDATE OF org_id, status, updated_at ON orders FOR EACH ROW WHEN (" + orderBucketsChanged("IS DISTINCT FROM") + ") EXECUTE FUNCTION kept_order_buckets_move();\n"
}()

// keptOrderBucketsFill is migration 0052's count of the orders already
// there, read from orders_status_dated (org_id, status, updated_at, …)
// alone.
var keptOrderBucketsFill = orderBucketInsert + "SELECT org_id, " + bucketOf("") + ", status, 0, COUNT(*) FROM orders GROUP BY org_id, status, " + bucketOf("") + ";\n"

// orderSeek is the seek of a list of caller c's orders (its organization's) in
// statuses (none: all) whose walk has no other condition (keysetQuery.seek):
// where the walk to the row at position pos (1: the first) may start, and
// how many rows it skips from there. It reads the organization's bucket
// sums in bucket order until they reach pos, so the walk starts at the
// first stamp of the bucket holding the row: a key that sorts before
// every row of that bucket and after every row of the buckets before it.
// sql.ErrNoRows when the list has fewer than pos rows. Read in the page's
// read transaction: the sums are of the page's snapshot.
func orderSeek(c *parcelgate.Caller, statuses []string) func(ctx context.Context, r reader, pos int64) (pageKey, int64, error) {
	return func(ctx context.Context, r reader, pos int64) (pageKey, int64, error) {
		var f filterSQL
		f.tenant(c, "", "org_id")
		if len(statuses) > 0 {
			f.in("status", anys(statuses))
		}
		rows, err := r.Query(ctx, `SELECT bucket, SUM(n) FROM kept_order_buckets WHERE `+f.sql()+` GROUP BY bucket ORDER BY bucket`, f.args...)
		if err != nil {
			return pageKey{}, 0, err
		}
		defer rows.Close()
		var before int64
		for rows.Next() {
			var bucket, n int64
			if err := rows.Scan(&bucket, &n); err != nil {
				return pageKey{}, 0, err
			}
			if before+n >= pos {
				return pageKey{modified: bucket<<orderBucketShift - 1, id: math.MaxInt64}, pos - before, nil
			}
			before += n
		}
		if err := rows.Err(); err != nil {
			return pageKey{}, 0, err
		}
		return pageKey{}, 0, sql.ErrNoRows
	}
}
