package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

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

// Spans (migration 0058, decisions §74). A bucket holds every order of
// the organization stamped within its 19 hours: the big merchant's 665 at
// most when its 150,000 orders spread over six months, but all of them
// when they come in a burst (an import of 100,000 in a day), and a walk
// inside the bucket is then one of up to 100,000 index entries. The table
// kept_order_spans counts the same orders at finer widths, each level 64
// spans to one of the level above, kept by triggers as the buckets are;
// the seek reads the sums of one span's 64 at each level, so the walk
// that ends it is inside a span of the finest width (about 17 seconds of
// stamps: at a merchant's steady rate a few orders, in a burst what the
// merchant wrote in those seconds). Emptied rows (n = 0) of both tables
// are deleted by the write that empties them, so the sums read hold only
// spans with orders (on PostgreSQL, only rows whose stripe's share came
// back to 0: a row of one stripe can hold a share another stripe's rows
// balance).

// orderSpanShifts are the widths of the levels under a bucket, widest
// first: 2^30 µs (about 18 minutes) and 2^24 µs (about 17 seconds).
var orderSpanShifts = []int{30, 24}

// orderSpanShifts0058 are the levels migration 0058's triggers write,
// frozen: that migration's SQL is generated from them when it runs, and a
// database it migrated must stay what it says (TestMigration0058Frozen).
// Another width is another migration, as 0059's eras are.
var orderSpanShifts0058 = []int{30, 24}

// Eras (migration 0059, decisions §77). The bucket sums read to a
// position are one entry per bucket (19 hours) of the organization's
// history before it: 674 entries for the big merchant's page in the
// middle of six months, thousands after years. The eras count the same
// orders at 2^42 µs (about 51 days, 64 buckets), rows of kept_order_spans
// at their own shift, kept by the spans' triggers (one more level of the
// same upsert); the seek reads the era sums to the position (one entry
// per 51 days of history), then the buckets of that one era (64 at most),
// then the spans as before.
const orderEraShift = 42

// keptSpanShifts are the levels kept_order_spans holds since migration
// 0059, widest first: the eras, then the spans under a bucket.
var keptSpanShifts = append([]int{orderEraShift}, orderSpanShifts...)

// orderSpanUpsert ends every write of the spans' triggers.
const orderSpanUpsert = ` ON CONFLICT (org_id, shift, span, status, stripe) DO UPDATE SET n = kept_order_spans.n + excluded.n`

const orderSpanInsert = `INSERT INTO kept_order_spans (org_id, shift, span, status, stripe, n) `

// spanLevels is the levels shifts as a subquery, l(shift).
func spanLevels(shifts []int) string {
	var parts []string
	for i, s := range shifts {
		if i == 0 {
			parts = append(parts, fmt.Sprintf("SELECT %d AS shift", s))
		} else {
			parts = append(parts, fmt.Sprintf("SELECT %d", s))
		}
	}
	return "(" + strings.Join(parts, " UNION ALL ") + ")"
}

// spanOf is the span at level shift of a row named row (NEW, OLD; "" for
// the table's own columns); shift may be a column (l.shift).
func spanOf(row string, shift any) string {
	if row != "" {
		row += "."
	}
	return fmt.Sprintf("(%supdated_at >> %v)", row, shift)
}

// orderSpanChanged is the condition under which an update moves an
// order between spans of level shift.
func orderSpanChanged(distinct string, shift any) string {
	return fmt.Sprintf("OLD.org_id %[1]s NEW.org_id OR OLD.status %[1]s NEW.status OR %[2]s %[1]s %[3]s", distinct, spanOf("OLD", shift), spanOf("NEW", shift))
}

// sqliteOrderBucketFold deletes the bucket row of OLD when the write
// emptied it (stripe 0: SQLite's one writer).
var sqliteOrderBucketFold = fmt.Sprintf("DELETE FROM kept_order_buckets WHERE org_id = OLD.org_id AND bucket = %s AND status = OLD.status AND stripe = 0 AND n = 0;", bucketOf("OLD"))

// sqliteSpanTriggers is the spans' three triggers on SQLite for the
// levels shifts, one a line.
func sqliteSpanTriggers(shifts []int) string {
	row := func(r string, d, shift int, cond string) string {
		return orderSpanInsert + fmt.Sprintf("SELECT %[1]s.org_id, %[2]d, %[3]s, %[1]s.status, 0, %[4]d WHERE %[5]s", r, shift, spanOf(r, shift), d, cond) + orderSpanUpsert + ";"
	}
	fold := func(shift int) string {
		return fmt.Sprintf("DELETE FROM kept_order_spans WHERE org_id = OLD.org_id AND shift = %d AND span = %s AND status = OLD.status AND stripe = 0 AND n = 0;", shift, spanOf("OLD", shift))
	}
	var ins, del, upd []string
	for _, s := range shifts {
		ins = append(ins, row("NEW", 1, s, "1"))
		del = append(del, row("OLD", -1, s, "1"), fold(s))
		moved := orderSpanChanged("IS NOT", s)
		upd = append(upd, row("OLD", -1, s, moved), row("NEW", 1, s, moved), fold(s))
	}
	// The narrowest level: a move between spans of any level (an era's
	// included) is a move between spans of it.
	finest := shifts[len(shifts)-1]
	return "CREATE TRIGGER kept_order_spans_insert AFTER INSERT ON orders BEGIN " + strings.Join(ins, " ") + " END;\n" +
		"CREATE TRIGGER kept_order_spans_delete AFTER DELETE ON orders BEGIN " + strings.Join(del, " ") + " END;\n" +
		"CREATE TRIGGER kept_order_spans_update AFTER UPDATE OF org_id, status, updated_at ON orders WHEN " + orderSpanChanged("IS NOT", finest) + " BEGIN " + strings.Join(upd, " ") + " END;\n"
}

// sqliteKeptOrderSpans is migration 0058's triggers on SQLite, one a line:
// the spans' own, and the buckets' delete and update triggers of 0052
// made again with the fold of an emptied row.
var sqliteKeptOrderSpans = func() string {
	bucketRow := func(r string, d int) string {
		return orderBucketInsert + fmt.Sprintf("VALUES (%[1]s.org_id, %[2]s, %[1]s.status, 0, %[3]d)", r, bucketOf(r), d) + orderBucketUpsert + ";"
	}
	return sqliteSpanTriggers(orderSpanShifts0058) +
		"DROP TRIGGER kept_order_buckets_delete;\n" +
		"DROP TRIGGER kept_order_buckets_update;\n" +
		"CREATE TRIGGER kept_order_buckets_delete AFTER DELETE ON orders BEGIN " + bucketRow("OLD", -1) + " " + sqliteOrderBucketFold + " END;\n" +
		"CREATE TRIGGER kept_order_buckets_update AFTER UPDATE OF org_id, status, updated_at ON orders WHEN " + orderBucketsChanged("IS NOT") + " BEGIN " + bucketRow("OLD", -1) + " " + bucketRow("NEW", 1) + " " + sqliteOrderBucketFold + " END;\n"
}()

// pgSpanFunctions is the spans' two trigger functions on PostgreSQL for
// the levels shifts, made by create (CREATE FUNCTION, or CREATE OR
// REPLACE FUNCTION), one a line: a statement trigger's with transition
// tables for inserts and deletes (one grouped upsert over every level,
// and the fold), a row trigger's for moves; shares to the connection's
// stripe, rows written in key order.
func pgSpanFunctions(shifts []int, create string) (spans, move string) {
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	levels := spanLevels(shifts)
	grouped := func(rows, sign string) string {
		return orderSpanInsert + "SELECT r.org_id, l.shift, " + spanOf("r", "l.shift") + ", r.status, " + stripe + ", " + sign + "COUNT(*) FROM " + rows + " r CROSS JOIN " + levels + " l GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4" + orderSpanUpsert + "; "
	}
	foldAll := "DELETE FROM kept_order_spans k USING (SELECT DISTINCT r.org_id, l.shift, " + spanOf("r", "l.shift") + " AS span, r.status FROM old_rows r CROSS JOIN " + levels + " l) d " +
		"WHERE k.org_id = d.org_id AND k.shift = d.shift AND k.span = d.span AND k.status = d.status AND k.stripe = " + stripe + " AND k.n = 0; "
	moved := orderSpanChanged("IS DISTINCT FROM", "l.shift")
	moveRows := orderSpanInsert + "SELECT * FROM (SELECT OLD.org_id, l.shift, " + spanOf("OLD", "l.shift") + ", OLD.status, " + stripe + ", -1 FROM " + levels + " l WHERE " + moved +
		" UNION ALL SELECT NEW.org_id, l.shift, " + spanOf("NEW", "l.shift") + ", NEW.status, " + stripe + ", 1 FROM " + levels + " l WHERE " + moved + ") v ORDER BY 1, 2, 3, 4" + orderSpanUpsert + "; "
	foldOld := "DELETE FROM kept_order_spans k USING " + levels + " l WHERE k.org_id = OLD.org_id AND k.shift = l.shift AND k.span = " + spanOf("OLD", "l.shift") + " AND k.status = OLD.status AND k.stripe = " + stripe + " AND k.n = 0; "
	spans = create + " kept_order_spans() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN " + grouped("new_rows", "") + "ELSE " + grouped("old_rows", "-") + foldAll + "END IF; RETURN NULL; END $$;\n"
	move = create + " kept_order_spans_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + moveRows + foldOld + "RETURN NULL; END $$;\n"
	return spans, move
}

// pgKeptOrderSpans is migration 0058's triggers on PostgreSQL, one a line:
// the spans' own, as the buckets' (a statement trigger with transition
// tables for inserts and deletes, a row trigger WHEN the finest span,
// the status or the organization changed; shares to the connection's
// stripe, rows written in key order), and the buckets' two functions
// made again with the fold of a row whose stripe's share came back to 0.
// A fold deletes only rows the same statement has just written, and
// so holds locked: it takes no lock another writer could be waiting on
// first; a writer that meets the deleted row inserts it again (ON
// CONFLICT's own retry).
var pgKeptOrderSpans = func() string {
	stripe := fmt.Sprintf("pg_backend_pid() %% %d", pgStripes)
	spans, move := pgSpanFunctions(orderSpanShifts0058, "CREATE FUNCTION")
	// The buckets' functions of 0052, with their folds.
	bucketGrouped := func(rows, sign string) string {
		return orderBucketInsert + "SELECT org_id, " + bucketOf("") + ", status, " + stripe + ", " + sign + "COUNT(*) FROM " + rows + " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" + orderBucketUpsert + "; "
	}
	bucketFoldAll := "DELETE FROM kept_order_buckets k USING (SELECT DISTINCT org_id, " + bucketOf("") + " AS bucket, status FROM old_rows) d WHERE k.org_id = d.org_id AND k.bucket = d.bucket AND k.status = d.status AND k.stripe = " + stripe + " AND k.n = 0; "
	bucketMove := orderBucketInsert + fmt.Sprintf("SELECT * FROM (VALUES (OLD.org_id, %s, OLD.status, %s, -1), (NEW.org_id, %s, NEW.status, %s, 1)) v ORDER BY 1, 2, 3", bucketOf("OLD"), stripe, bucketOf("NEW"), stripe) + orderBucketUpsert + "; "
	bucketFoldOld := "DELETE FROM kept_order_buckets WHERE org_id = OLD.org_id AND bucket = " + bucketOf("OLD") + " AND status = OLD.status AND stripe = " + stripe + " AND n = 0; "
	return spans +
		"CREATE TRIGGER kept_order_spans_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_order_spans();\n" +
		"CREATE TRIGGER kept_order_spans_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kept_order_spans();\n" +
		move +
		"CREATE TRIGGER kept_order_spans_update AFTER UPDATE OF org_id, status, updated_at ON orders FOR EACH ROW WHEN (" + orderSpanChanged("IS DISTINCT FROM", orderSpanShifts0058[len(orderSpanShifts0058)-1]) + ") EXECUTE FUNCTION kept_order_spans_move();\n" +
		"CREATE OR REPLACE FUNCTION kept_order_buckets() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN " + bucketGrouped("new_rows", "") + "ELSE " + bucketGrouped("old_rows", "-") + bucketFoldAll + "END IF; RETURN NULL; END $$;\n" +
		"CREATE OR REPLACE FUNCTION kept_order_buckets_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN " + bucketMove + bucketFoldOld + "RETURN NULL; END $$;\n"
}()

// keptOrderSpansFill is migration 0058's count of the orders already
// there, and the fold of the bucket rows emptied before it.
var keptOrderSpansFill = orderSpanInsert + "SELECT o.org_id, l.shift, " + spanOf("o", "l.shift") + ", o.status, 0, COUNT(*) FROM orders o CROSS JOIN " + spanLevels(orderSpanShifts0058) + " l GROUP BY o.org_id, l.shift, " + spanOf("o", "l.shift") + ", o.status;\n" +
	"DELETE FROM kept_order_buckets WHERE n = 0;\n"

// sqliteKeptOrderEras is migration 0059's triggers on SQLite: the spans'
// three made again with the eras' level first. The migration is one
// write transaction, and SQLite has one writer: no write is between the
// old triggers and the count.
var sqliteKeptOrderEras = "DROP TRIGGER kept_order_spans_insert;\n" +
	"DROP TRIGGER kept_order_spans_delete;\n" +
	"DROP TRIGGER kept_order_spans_update;\n" +
	sqliteSpanTriggers(keptSpanShifts)

// pgKeptOrderEras is migration 0059's on PostgreSQL: the spans' two
// functions replaced with the eras' level in the same upsert (the
// triggers stay: the row trigger's condition, the finest span moved,
// holds for an era's move). A function replaced does not lock the
// orders, so the migration takes their writers' lock (SHARE ROW
// EXCLUSIVE, what CREATE TRIGGER takes) first and holds it to its
// commit: every order write committed before it is in the buckets the
// count reads, every one after it runs the new functions. Reads go on;
// writers wait for the count, which reads kept_order_buckets, not the
// orders (decisions §77 has its time).
var pgKeptOrderEras = func() string {
	spans, move := pgSpanFunctions(keptSpanShifts, "CREATE OR REPLACE FUNCTION")
	return "LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;\n" + spans + move
}()

// keptOrderErasFill is migration 0059's count of the orders already
// there, by era: the sums of their buckets (an era is 64 whole buckets;
// the buckets are exact in the migration's snapshot, and a table of a
// row per bucket is read rather than the orders), the stripes summed
// into stripe 0, a sum of 0 left out.
var keptOrderErasFill = fmt.Sprintf("INSERT INTO kept_order_spans (org_id, shift, span, status, stripe, n) SELECT org_id, %d, bucket >> %d, status, 0, SUM(n) FROM kept_order_buckets GROUP BY org_id, bucket >> %d, status HAVING SUM(n) <> 0;\n", orderEraShift, orderEraShift-orderBucketShift, orderEraShift-orderBucketShift)

// orderSeek is the seek of a list of caller c's orders (its organization's) in
// statuses (none: all) whose walk has no other condition (keysetQuery.seek):
// where the walk to the row at position pos (1: the first) may start, and
// how many rows it skips from there. It reads the organization's era sums
// (decisions §77) in era order until they reach pos, then, inside the era
// found, the bucket sums (one index range of kept_order_buckets), then
// inside that bucket the sums of each finer level of spans
// (orderSpanShifts), each level only while the era, bucket or span found
// holds more than walkMax rows (orderWalkMax; tests pass 0 to read every
// level), so the walk starts at the first stamp of the era, bucket or
// span holding the row: a key that sorts before every row of it and after
// every row before it. sql.ErrNoRows when the list has fewer than pos
// rows. Read in the page's read transaction: the sums are of the page's
// snapshot.
func orderSeek(c *parcelgate.Caller, statuses []string, walkMax int64) func(ctx context.Context, r reader, pos int64) (pageKey, int64, error) {
	return func(ctx context.Context, r reader, pos int64) (pageKey, int64, error) {
		list := func() *filterSQL {
			f := new(filterSQL)
			f.tenant(c, "", "org_id")
			if len(statuses) > 0 {
				f.in("status", anys(statuses))
			}
			return f
		}
		f := list()
		f.add("shift = ?", orderEraShift)
		span, before, n, err := sumsUntil(ctx, r, `SELECT span, SUM(n) FROM kept_order_spans WHERE `+f.sql()+` GROUP BY span ORDER BY span`, f.args, pos)
		if err != nil {
			return pageKey{}, 0, err
		}
		shift := orderEraShift
		for _, s := range append([]int{orderBucketShift}, orderSpanShifts...) {
			if n <= walkMax {
				break // a walk of its rows costs less than a read of its sums
			}
			// The buckets or spans of level s inside the one found at
			// the level above: one index range.
			f := list()
			q := `SELECT bucket, SUM(n) FROM kept_order_buckets WHERE `
			col := "bucket"
			if s != orderBucketShift {
				f.add("shift = ?", s)
				q, col = `SELECT span, SUM(n) FROM kept_order_spans WHERE `, "span"
			}
			f.add(col+" >= ?", span<<(shift-s))
			f.add(col+" < ?", (span+1)<<(shift-s))
			inner, skipped, in, err := sumsUntil(ctx, r, q+f.sql()+` GROUP BY `+col+` ORDER BY `+col, f.args, pos-before)
			if err != nil {
				return pageKey{}, 0, err
			}
			span, shift, before, n = inner, s, before+skipped, in
		}
		return pageKey{modified: span<<shift - 1, id: math.MaxInt64}, pos - before, nil
	}
}

// orderWalkMax is the most rows of an era, bucket or span the seek walks
// rather than read the sums of the level under it, as seekAfter is for a walk
// from a recorded boundary: reading a level's sums is a statement of up
// to 64 spans per status, and a walk of a thousand index entries costs
// about what a statement does (decisions §74). The big merchant's
// buckets at full size hold 665 orders at most, so its pages are found
// as before; a burst's bucket is read down to its spans.
const orderWalkMax = 1000

// sumsUntil reads the (key, n) rows of q in key order until their running
// sum reaches pos, and returns the key it reached it at, the sum of the
// rows before that key and that key's own n; sql.ErrNoRows when the sum
// stays below pos.
func sumsUntil(ctx context.Context, r reader, q string, args []any, pos int64) (key, before, n int64, err error) {
	rows, err := r.Query(ctx, q, args...)
	if err != nil {
		return 0, 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&key, &n); err != nil {
			return 0, 0, 0, err
		}
		if before+n >= pos {
			return key, before, n, nil
		}
		before += n
	}
	if err := rows.Err(); err != nil {
		return 0, 0, 0, err
	}
	return 0, 0, 0, sql.ErrNoRows
}
