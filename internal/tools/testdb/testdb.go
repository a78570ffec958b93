// Package testdb gives tests a migrated, empty database on each engine:
// SQLite in a temporary directory, and PostgreSQL in a schema of its own
// (DSN from PARCELGATE_TEST_POSTGRES, else the local server). PostgreSQL
// that cannot be reached skips its half of a test, except under CI, where it
// fails: a green CI must mean both engines ran. With
// PARCELGATE_TEST_PGBOUNCER (a postgres:// URL of a PgBouncer in front of
// that server, passing database names through) every PostgreSQL test gets a
// database of its own reached through the pooler, in the store's pooler
// mode.
package testdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// DefaultPostgres is the PostgreSQL these machines run.
const DefaultPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresDSN returns the DSN tests use for PostgreSQL.
func PostgresDSN() string {
	if dsn := os.Getenv("PARCELGATE_TEST_POSTGRES"); dsn != "" {
		return dsn
	}
	return DefaultPostgres
}

// Engines are the names Each runs a test under: sqlite and postgres, or the
// comma-separated list in PARCELGATE_TEST_ENGINES (which may also name
// memory, the in-memory SQLite of --db memory).
var Engines = engines()

func engines() []string {
	if s := os.Getenv("PARCELGATE_TEST_ENGINES"); s != "" {
		return strings.Split(s, ",")
	}
	return []string{"sqlite", "postgres"}
}

// DB is the store a test opens. Tests of a front end (the console) hold it
// under this name: they set up and inspect data through the store, while
// the front end itself only ever gets the root's interfaces.
type DB = sqlstore.DB

// Each runs fn once per engine as a subtest, each with its own new database.
func Each(t *testing.T, clock parcelgate.Clock, fn func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			fn(t, Open(t, engine, clock))
		})
	}
}

// Open returns a migrated empty database of engine, closed and removed when
// t ends.
func Open(t testing.TB, engine string, clock parcelgate.Clock) *sqlstore.DB {
	t.Helper()
	db, _ := OpenDSN(t, engine, clock)
	return db
}

// OpenDSN is Open that also returns the DSN, for a benchmark that fills the
// database with set-based SQL of its own.
func OpenDSN(t testing.TB, engine string, clock parcelgate.Clock) (*sqlstore.DB, string) {
	t.Helper()
	ctx := context.Background()
	var dsn string
	switch engine {
	case "sqlite":
		dsn = "sqlite:" + filepath.Join(t.TempDir(), "test.db")
	case "postgres":
		dsn = PostgresSchema(t)
	case "memory":
		dsn = "memory"
	default:
		t.Fatalf("testdb: unknown engine %q", engine)
	}
	db, err := sqlstore.Open(ctx, dsn, clock)
	if err != nil {
		t.Fatalf("testdb: open %s: %v", engine, err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("testdb: migrate %s: %v", engine, err)
	}
	return db, dsn
}

var (
	pgOnce  sync.Once
	pgAdmin *sql.DB
	pgErr   error
)

// PostgresSchema creates a fresh schema, dropped when t ends, and returns a
// DSN that uses it. It skips t, or fails it under CI, when PostgreSQL cannot
// be reached.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	pgOnce.Do(func() {
		pgAdmin, pgErr = sql.Open("pgx", PostgresDSN())
		if pgErr == nil {
			pgErr = pgAdmin.PingContext(context.Background())
		}
	})
	if pgErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("testdb: PostgreSQL unreachable at %s under CI: %v", PostgresDSN(), pgErr)
		}
		noticeSkipped(pgErr)
		t.Skipf("testdb: PostgreSQL unreachable at %s, skipping (set CI to fail instead): %v", PostgresDSN(), pgErr)
	}
	if pooler := os.Getenv("PARCELGATE_TEST_PGBOUNCER"); pooler != "" {
		return poolerDatabase(t, pooler)
	}
	schema := strings.ToLower("t_" + rand.Text()[:16])
	if _, err := pgAdmin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("testdb: create schema: %v", err)
	}
	t.Cleanup(func() { pgAdmin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`) })
	dsn, err := sqlstore.WithSearchPath(PostgresDSN(), schema)
	if err != nil {
		t.Fatalf("testdb: %v", err)
	}
	return dsn
}

// poolerDatabase creates a database of its own for t, dropped when t ends,
// and returns a DSN that reaches it through the PgBouncer at pooler (a
// postgres:// URL; its "*" entry passes database names through), in the
// store's pooler mode. A pooler in transaction mode cannot carry a
// schema per connection (PgBouncer refuses search_path as a start-up
// parameter, and a session SET would not stay with the client), so each
// test gets a database instead of a schema.
func poolerDatabase(t testing.TB, pooler string) string {
	t.Helper()
	name := strings.ToLower("t_" + rand.Text()[:16])
	if _, err := pgAdmin.Exec(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("testdb: create database: %v", err)
	}
	// FORCE: the pooler still holds server connections to it.
	t.Cleanup(func() { pgAdmin.Exec(`DROP DATABASE ` + name + ` WITH (FORCE)`) })
	u, err := url.Parse(pooler)
	if err != nil {
		t.Fatalf("testdb: PARCELGATE_TEST_PGBOUNCER: %v", err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Set("default_query_exec_mode", "cache_describe") // sqlstore.Pooler's mode
	u.RawQuery = q.Encode()
	return u.String()
}

// Name is a short unique name for test fixtures.
func Name(prefix string) string { return fmt.Sprintf("%s%s", prefix, rand.Text()[:8]) }

// EachDSN runs fn once per engine with the DSN of a new migrated database,
// for tests that open several stores over it (instances).
func EachDSN(t *testing.T, fn func(t *testing.T, dsn, engine string)) {
	t.Helper()
	for _, engine := range Engines {
		t.Run(engine, func(t *testing.T) {
			if engine == "memory" {
				t.Skip("a memory database belongs to the one store that opened it")
			}
			_, dsn := OpenDSN(t, engine, nil)
			fn(t, dsn, engine)
		})
	}
}

// OpenAt opens one more store over the database at dsn with clock, closed
// when t ends: another instance.
func OpenAt(t testing.TB, dsn string, clock parcelgate.Clock) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), dsn, clock)
	if err != nil {
		t.Fatalf("testdb: open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("testdb: migrate: %v", err)
	}
	return db
}
