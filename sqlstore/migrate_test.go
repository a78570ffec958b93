package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/parcelgate/parcelgate/internal/tools/pgcluster"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// gate makes an index build wait for as long as the test wants: the
// index's expression calls mig_gate, which waits for a share of the
// advisory lock key the test holds. While the test holds it, the build is
// in progress, whatever the table's size or the machine's speed.
func gate(t *testing.T, admin *sql.DB, key int64) (release func()) {
	t.Helper()
	ctx := context.Background()
	if _, err := admin.Exec(fmt.Sprintf(`CREATE FUNCTION mig_gate(x int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
		BEGIN PERFORM pg_advisory_xact_lock_shared(%d); RETURN x; END $$`, key)); err != nil {
		t.Fatal(err)
	}
	holder, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, key); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			holder.ExecContext(ctx, `SELECT pg_advisory_unlock($1)`, key)
			holder.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// waitForGate returns once a backend waits at the gate: an index build is
// under way.
func waitForGate(t *testing.T, admin *sql.DB, key int64, migrated <-chan error) {
	t.Helper()
	for {
		var n int
		if err := admin.QueryRow(`SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1`, key&0xffffffff).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		select {
		case err := <-migrated:
			t.Fatalf("the migration ended before its index build reached the gate: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// postgresStore is a migrated store on a PostgreSQL database of its own:
// a concurrent index build waits for every older transaction of its
// database, and the tests' shared database has other tests' (and load
// runs') in flight.
func postgresStore(t *testing.T) (*sqlstore.DB, *sql.DB, string) {
	t.Helper()
	testdb.PostgresSchema(t) // skips, or fails under CI, without PostgreSQL
	base, err := url.Parse(testdb.PostgresDSN())
	if err != nil {
		t.Fatal(err)
	}
	root, err := sql.Open("pgx", base.String())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	name := strings.ToLower(testdb.Name("t_mig_"))
	if _, err := root.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatal(err)
	}
	// The server's own database, taken before base is pointed at the new
	// one below: a database cannot be dropped from a connection to it.
	rootDSN := base.String()
	t.Cleanup(func() {
		root, err := sql.Open("pgx", rootDSN)
		if err == nil {
			if _, err := root.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
				t.Errorf("drop the test database %s: %v", name, err)
			}
			root.Close()
		}
	})
	base.Path = "/" + name
	dsn := base.String()
	db := testdb.OpenAt(t, dsn, nil)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	return db, admin, dsn
}

// decisions §55: on a populated PostgreSQL a migration's CREATE INDEX is
// built CONCURRENTLY, so writers of the table go on while it builds. The
// write below would wait for the whole build under a plain CREATE INDEX
// (its SHARE lock holds every INSERT), and the build cannot end while the
// test holds the gate: lock_timeout turns that wait into the failure.
func TestMigrationIndexBuildLetsWritersWrite(t *testing.T) {
	db, admin, _ := postgresStore(t)
	ctx := context.Background()
	if _, err := admin.Exec(`CREATE TABLE mig_t (id BIGSERIAL PRIMARY KEY, x INT NOT NULL); INSERT INTO mig_t (x) SELECT g FROM generate_series(1, 1000) g`); err != nil {
		t.Fatal(err)
	}
	const key = 0x6d6967001
	release := gate(t, admin, key)
	migrated := make(chan error, 1)
	go func() {
		migrated <- db.MigrateForTest(ctx, sqlstore.TestMigration{Version: 9001, Name: "9001_gate.sql",
			SQL: "-- written as a plain CREATE INDEX, as authors write it\nCREATE INDEX mig_t_gate ON mig_t ((mig_gate(x)));\n"})
	}()
	waitForGate(t, admin, key, migrated)

	tx, err := admin.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SET LOCAL lock_timeout = '3s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO mig_t (x) VALUES (1001)`); err != nil {
		tx.Rollback()
		t.Fatalf("a write waited for the index build: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("a write did not commit while the index built: %v", err)
	}
	select {
	case err := <-migrated:
		t.Fatalf("the migration ended while its build was held: %v", err)
	default:
	}
	release()
	if err := <-migrated; err != nil {
		t.Fatal(err)
	}
	var valid bool
	if err := admin.QueryRow(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'mig_t_gate'::regclass`).Scan(&valid); err != nil || !valid {
		t.Fatalf("index after the migration: valid %v, %v", valid, err)
	}
	var n int
	admin.QueryRow(`SELECT COUNT(*) FROM schema_migrations WHERE version = 9001`).Scan(&n)
	if n != 1 {
		t.Fatalf("migration 9001 recorded %d times", n)
	}
}

// decisions §55: a concurrent build that fails leaves an INVALID index of
// its name; the retried migration drops it and builds it again, where IF
// NOT EXISTS alone would keep the broken one.
func TestMigrationRebuildsAnInvalidIndex(t *testing.T) {
	db, admin, _ := postgresStore(t)
	if _, err := admin.Exec(`CREATE TABLE mig_u (x INT NOT NULL); INSERT INTO mig_u SELECT g FROM generate_series(1, 100) g; INSERT INTO mig_u VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	m := sqlstore.TestMigration{Version: 9002, Name: "9002_unique.sql", SQL: "CREATE UNIQUE INDEX mig_u_x ON mig_u (x);\n"}
	if err := db.MigrateForTest(context.Background(), m); err == nil {
		t.Fatal("a unique index over a duplicate was built")
	}
	var valid bool
	if err := admin.QueryRow(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'mig_u_x'::regclass`).Scan(&valid); err != nil || valid {
		t.Fatalf("the failed build left no invalid index (valid %v, %v): the test proves nothing", valid, err)
	}
	if _, err := admin.Exec(`DELETE FROM mig_u WHERE ctid = (SELECT max(ctid) FROM mig_u WHERE x = 7)`); err != nil {
		t.Fatal(err)
	}
	if err := db.MigrateForTest(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'mig_u_x'::regclass`).Scan(&valid); err != nil || !valid {
		t.Fatalf("the retried migration left the index invalid (%v, %v)", valid, err)
	}
}

// decisions §55: instances that start together apply each migration once,
// its index build included, taking turns through the lease.
func TestInstancesMigratingTogetherApplyEachMigrationOnce(t *testing.T) {
	first, admin, dsn := postgresStore(t)
	second := testdb.OpenAt(t, dsn, nil)
	const key = 0x6d6967002
	release := gate(t, admin, key)
	ms := []sqlstore.TestMigration{
		{Version: 9003, Name: "9003_once.sql", SQL: "CREATE TABLE mig_once (n INT NOT NULL);\nINSERT INTO mig_once VALUES (1);\nCREATE INDEX mig_once_n ON mig_once ((mig_gate(n)));\nINSERT INTO mig_once VALUES (2);\n"},
		{Version: 9004, Name: "9004_once.sql", SQL: "INSERT INTO mig_once VALUES (3);\n"},
	}
	migrated := make(chan error, 2)
	for _, db := range []*sqlstore.DB{first, second} {
		go func() { migrated <- db.MigrateForTest(context.Background(), ms...) }()
	}
	waitForGate(t, admin, key, migrated)
	var building int
	admin.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE 'CREATE INDEX CONCURRENTLY%mig_once_n%'`).Scan(&building)
	if building != 1 {
		t.Errorf("%d instances build the index at once", building)
	}
	release()
	for range 2 {
		if err := <-migrated; err != nil {
			t.Fatal(err)
		}
	}
	var rows string
	if err := admin.QueryRow(`SELECT string_agg(n::text, ',' ORDER BY n) FROM mig_once`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != "1,2,3" {
		t.Fatalf("statements applied %s times, want each once (1,2,3)", rows)
	}
	var lease, steps int
	admin.QueryRow(`SELECT COUNT(*) FROM schema_migration_lease`).Scan(&lease)
	admin.QueryRow(`SELECT COUNT(*) FROM schema_migration_steps`).Scan(&steps)
	if lease != 0 || steps != 0 {
		t.Fatalf("after migrating: %d leases held, %d steps left", lease, steps)
	}
}

// decisions §55: a migration's backfill runs a bounded batch a
// transaction, and an interrupted one resumes after its last committed
// batch: every row is filled exactly once.
func TestMigrationBackfillResumesInBatches(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if err := db.MigrateForTest(ctx, sqlstore.TestMigration{Version: 9005, Name: "9005_table.sql",
			SQL: "CREATE TABLE mig_fill (id {{serial}}, v BIGINT NOT NULL, w BIGINT NOT NULL DEFAULT 0);\n"}); err != nil {
			t.Fatal(err)
		}
		for i := range 23 {
			if err := db.ExecForTest(ctx, `INSERT INTO mig_fill (v) VALUES (?)`, i); err != nil {
				t.Fatal(err)
			}
		}
		const batch = 5
		var batches int
		failAfter := 2
		fill := func(ctx context.Context, tx *sqlstore.Tx, cursor int64, limit int) (int64, bool, error) {
			if failAfter == 0 {
				return 0, false, errors.New("interrupted")
			}
			failAfter--
			batches++
			var next sql.NullInt64
			if err := tx.QueryRow(ctx, `SELECT MAX(id) FROM (SELECT id FROM mig_fill WHERE id > ? ORDER BY id LIMIT ?) b`, cursor, min(limit, batch)).Scan(&next); err != nil {
				return 0, false, err
			}
			if !next.Valid {
				return cursor, true, nil
			}
			_, err := tx.Exec(ctx, `UPDATE mig_fill SET w = w + v + 1 WHERE id > ? AND id <= ?`, cursor, next.Int64)
			return next.Int64, false, err
		}
		m := sqlstore.TestMigration{Version: 9006, Name: "9006_fill.sql", SQL: "UPDATE mig_fill SET w = 0;\n", Backfill: fill}
		if err := db.MigrateForTest(ctx, m); err == nil {
			t.Fatal("the interrupted backfill was recorded as done")
		}
		failAfter = 100
		if err := db.MigrateForTest(ctx, m); err != nil {
			t.Fatal(err)
		}
		var wrong, recorded int
		db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM mig_fill WHERE w <> v + 1`).Scan(&wrong)
		db.QueryRowForTest(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = 9006`).Scan(&recorded)
		if wrong != 0 || recorded != 1 {
			t.Fatalf("%d rows filled not exactly once, migration recorded %d times", wrong, recorded)
		}
		// 23 rows in batches of 5: two before the interruption, three
		// more and the one that finds none after it.
		if batches != 6 {
			t.Fatalf("%d batches, want 6: the backfill did not resume where it stopped", batches)
		}
	})
}

// decisions §55: the lease works through a pooler in transaction mode,
// where a session lock would not: three instances migrating at once
// through PgBouncer apply an online migration once.
func TestInstancesMigrateOnceThroughPgBouncer(t *testing.T) {
	_, admin, dsn := postgresStore(t)
	bouncer, err := pgcluster.StartPgBouncer(dsn)
	if err != nil {
		var missing *pgcluster.Missing
		if errors.As(err, &missing) && os.Getenv("CI") == "" {
			t.Skipf("%v (%s)", err, missing.Enable)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { bouncer.Stop() })
	pooled, err := bouncer.DSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE TABLE mig_b (n INT NOT NULL); INSERT INTO mig_b SELECT g FROM generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	ms := []sqlstore.TestMigration{
		{Version: 9007, Name: "9007_pooled.sql", SQL: "INSERT INTO mig_b VALUES (-1);\nCREATE INDEX mig_b_n ON mig_b (n);\nINSERT INTO mig_b VALUES (-2);\n"},
	}
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := sqlstore.Open(context.Background(), pooled, nil, sqlstore.Pooler(), sqlstore.MaxConns(4))
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			errs <- db.MigrateForTest(context.Background(), ms...)
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var marks int
	var valid bool
	admin.QueryRow(`SELECT COUNT(*) FROM mig_b WHERE n < 0`).Scan(&marks)
	admin.QueryRow(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'mig_b_n'::regclass`).Scan(&valid)
	if marks != 2 || !valid {
		t.Fatalf("through the pooler: %d of the 2 marks (each once), index valid %v", marks, valid)
	}
}
