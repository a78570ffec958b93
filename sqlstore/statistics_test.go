package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §78: a SQLite store's statistics hold no sqlite_stat4 samples,
// whoever analyzed the database, and its reader connections already open
// plan without them. SQLite only: the rule is about SQLite's statistics.
//
// The table skew makes the samples visible in a plan: x is 1 in 99% of
// the rows, y spreads evenly. Planned for x = 1 with samples, SQLite
// reads y's index (it knows x = 1 is most of the table); from
// sqlite_stat1 alone it reads x's (on average a hundred rows a value).
func TestSQLiteStatisticsHoldNoSamples(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "samples.db")
	open := func() *sqlstore.DB {
		db, err := sqlstore.Open(ctx, "sqlite:"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	defer func() { db.Close() }()
	// Another connection without analysis_limit, as the generator's or
	// an operator's sqlite3: its ANALYZE takes samples.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	fullAnalyze := func() {
		t.Helper()
		if _, err := raw.ExecContext(ctx, `ANALYZE`); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`CREATE TABLE skew (x INTEGER, y INTEGER)`,
		`CREATE INDEX skew_x ON skew (x)`,
		`CREATE INDEX skew_y ON skew (y)`,
		`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100000)
			INSERT INTO skew SELECT CASE WHEN n <= 99000 THEN 1 ELSE n END, n % 100 FROM s`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	fullAnalyze()
	samples := func() int {
		t.Helper()
		var n int
		if err := db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'sqlite_stat4'`).Scan(&n); err != nil || n == 0 {
			return 0
		}
		if err := db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM sqlite_stat4`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if samples() == 0 {
		t.Fatal("a full ANALYZE took no samples: the test shows nothing")
	}
	// A reader connection that read the statistics with the samples, held
	// across the store's rule.
	reader, err := db.ReaderConnForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	plan := func() string {
		t.Helper()
		return explainOn(t, reader, `SELECT y FROM skew WHERE x = ? AND y = ?`, 1, 5)
	}
	if p := plan(); !strings.Contains(p, "skew_y") {
		t.Fatalf("with samples the reader does not plan by them (want skew_y):\n%s", p)
	}

	// The hourly tick drops them, and the reader opened before plans
	// without them.
	if err := db.OptimizeForTest(ctx); err != nil {
		t.Fatal(err)
	}
	if n := samples(); n != 0 {
		t.Errorf("after the store's optimize the statistics hold %d samples", n)
	}
	// EXPLAIN starts no transaction, so it is not where a connection
	// notices a changed schema: a read is, as every reader's next one.
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM skew WHERE x = ? AND y = ?`, 2, 5).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if p := plan(); !strings.Contains(p, "skew_x") {
		t.Errorf("the reader opened before the samples were dropped still plans by them (want skew_x):\n%s", p)
	}
	reader.Close()

	// Samples made again by someone else are dropped on the next open,
	// and the store's own ANALYZE (optimize=0x10002 on open analyzes the
	// never-analyzed table) takes none.
	fullAnalyze()
	if _, err := raw.ExecContext(ctx, `CREATE TABLE skew2 AS SELECT * FROM skew`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `CREATE INDEX skew2_x ON skew2 (x)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open()
	var analyzed int
	if err := db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'skew2'`).Scan(&analyzed); err != nil || analyzed == 0 {
		t.Fatalf("the store did not analyze the new table on open (%d rows, %v)", analyzed, err)
	}
	if n := samples(); n != 0 {
		t.Errorf("after the store opened the database its statistics hold %d samples", n)
	}
}

// decisions §78: the reader pool plans from the statistics the store's
// last optimize left, not from those of the moment each connection
// opened. A reader is held across two changes of sqlite_stat1 (written
// directly, as an ANALYZE by another connection would: the store's own
// optimize analyzes nothing here), each followed by the store's hourly
// optimize; after each, the held reader's plan follows the new figures.
// Without reloadStatistics the reader keeps the plan of its open. SQLite
// only: the rule is about SQLite's statistics.
func TestSQLiteReadersPlanByTheNewestStatistics(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "reload.db")
	db, err := sqlstore.Open(ctx, "sqlite:"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE picks (x INTEGER, y INTEGER)`)
	exec(`CREATE INDEX picks_x ON picks (x)`)
	exec(`CREATE INDEX picks_y ON picks (y)`)
	exec(`WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) INSERT INTO picks SELECT n, n FROM s`)
	// stats sets the rows per value of each index: the planner reads the
	// index with fewer.
	stats := func(x, y int) {
		t.Helper()
		exec(`DELETE FROM sqlite_stat1 WHERE tbl = 'picks'`)
		exec(fmt.Sprintf(`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('picks', 'picks_x', '1000 %d'), ('picks', 'picks_y', '1000 %d')`, x, y))
		if err := db.OptimizeForTest(ctx); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := db.ReaderConnForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	plan := func() string {
		t.Helper()
		// A read first: it is where a connection notices a changed
		// schema (EXPLAIN starts no transaction).
		var n int
		if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM picks WHERE x = ? AND y = ?`, 1, 1).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return explainOn(t, reader, `SELECT y FROM picks WHERE x = ? AND y = ?`, 1, 1)
	}
	stats(2, 500)
	if p := plan(); !strings.Contains(p, "picks_x") {
		t.Fatalf("x the more selective index: the reader plans %q, want picks_x", p)
	}
	stats(500, 2)
	if p := plan(); !strings.Contains(p, "picks_y") {
		t.Errorf("after the statistics changed and the store optimized, the held reader still plans %q, want picks_y", p)
	}
}

// explainOn is SQLite's plan of q with args on conn, its lines' details
// one a line.
func explainOn(t *testing.T, conn *sql.Conn, q string, args ...any) string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}
