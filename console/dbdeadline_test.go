package console_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// consoleDBTimeout is the server's --db-timeout in these tests.
const consoleDBTimeout = 300 * time.Millisecond

// holdDatabase makes the database late for the store from a connection
// of the test's own, until release is called: on SQLite it holds the
// write lock (a write waits for it; readers never wait under WAL), on
// PostgreSQL it locks the orders table (reads and writes of it wait).
func (e *env) holdDatabase(engine string) (release func()) {
	e.t.Helper()
	driver, dsn, stmt := "pgx", e.dsn, `LOCK TABLE orders IN ACCESS EXCLUSIVE MODE`
	if engine == "sqlite" {
		driver, dsn, stmt = "sqlite", strings.TrimPrefix(e.dsn, "sqlite:"), ``
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := raw.Conn(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	begin := `BEGIN`
	if engine == "sqlite" {
		begin = `BEGIN IMMEDIATE`
	}
	for _, q := range []string{begin, stmt} {
		if q == "" {
			continue
		}
		if _, err := conn.ExecContext(ctx, q); err != nil {
			e.t.Fatalf("%s: %v", q, err)
		}
	}
	return func() {
		conn.ExecContext(ctx, `ROLLBACK`)
		conn.Close()
		raw.Close()
	}
}

// issue 39: when the database does not answer within the request's
// database deadline (--db-timeout), the console answers as the API does —
// 503 with Retry-After, its error page saying the database is not
// answering — never a 500 page; and once the database answers again, so
// does the console.
func TestConsoleAnswers503WhenTheDatabaseIsLate(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			e := newEnvConfig(t, engine, true, func(c *httpapi.Config) { c.DBTimeout = consoleDBTimeout })
			op := e.operator(parcelgate.Test)
			late := func(what string, p page) {
				t.Helper()
				if p.status != http.StatusServiceUnavailable || p.header.Get("Retry-After") != "1" || !strings.Contains(p.body, "The database is not answering") {
					t.Errorf("%s while the database is late: %d, Retry-After %q: %.300s", what, p.status, p.header.Get("Retry-After"), p.body)
				}
			}

			release := e.holdDatabase(engine)
			// A write: the operator's snapshot of the tenant. On SQLite
			// the held write lock keeps its job from being recorded: 503.
			// On PostgreSQL only the orders table is locked: the job is
			// recorded and its work waits for the table, so the console
			// follows the job (decisions §54: a snapshot is a job, not
			// bound by the request's deadline) -- never a 500.
			p := op.post("/console/sandbox/snapshots", url.Values{"name": {"late"}})
			if engine == "postgres" && p.status == http.StatusSeeOther {
				if loc := p.header.Get("Location"); !strings.HasPrefix(loc, "/console/jobs") {
					t.Errorf("a snapshot accepted while the orders table is locked goes to %q, not its job", loc)
				}
			} else {
				late("a snapshot", p)
			}
			if engine == "postgres" {
				// A read: the tenant's orders.
				late("the orders page", op.get("/console/orders"))
			}
			release()

			// Once the database answers, a snapshot is taken (after the
			// job above, if any, has ended: one job a tenant at a time).
			deadline := time.Now().Add(30 * time.Second)
			for {
				p := op.post("/console/sandbox/snapshots", url.Values{"name": {"answered"}})
				if p.status == http.StatusConflict && time.Now().Before(deadline) {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				if p.status != http.StatusSeeOther {
					t.Errorf("a snapshot once the database answers: %d %.300s", p.status, p.body)
				}
				break
			}
			if p := op.get("/console/orders"); p.status != http.StatusOK {
				t.Errorf("the orders page once the database answers: %d", p.status)
			}
		})
	}
}
