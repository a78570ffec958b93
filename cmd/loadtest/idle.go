package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// idleMode measures what a server with nothing to do costs: -idle-orders
// warehouse orders of one merchant, none of them due (mostly Delivered and
// Cancelled, a twentieth Created without autoSubmit, which the warehouse
// never takes by itself), with the warehouse engine and the automatic
// supplier running at serve's defaults. It reports the CPU this process
// (the server) used over -d, and on PostgreSQL the database's processes
// serving it. SQLite is left without statistics, as a server's database
// is (nothing analyzes it); PostgreSQL is analyzed, as autovacuum would.
func idleMode(ctx context.Context, c config, e *env) error {
	if err := e.organization(merchantBID); err != nil {
		return err
	}
	t0 := time.Now()
	n, err := fillOrders(ctx, e, c.idleOrders)
	if err != nil {
		return err
	}
	fmt.Printf("%s idle: %d orders of one merchant, none due (filled in %s)\n", e.engine, n, time.Since(t0).Round(100*time.Millisecond))

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	clock := parcelgate.SystemClock{}
	// serve's defaults: --submit-after 30s, --deliver-after 2m.
	eng := fulfillment.New(sqlstore.NewOrderService(e.db), clock, log, fulfillment.Config{SubmitAfter: 30 * time.Second, DeliverAfter: 2 * time.Minute})
	// One step timed alone: what each sweep of the engine costs.
	for range 3 {
		s := time.Now()
		if _, err := eng.Step(ctx); err != nil {
			return err
		}
		fmt.Printf("  one engine step (every status and environment): %s\n", time.Since(s).Round(10*time.Microsecond))
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go eng.Run(runCtx)
	go fulfillment.NewSuppliers(sqlstore.NewDropshipService(e.db), clock, log, 0).Run(runCtx)
	time.Sleep(2 * time.Second)
	cpu0, db0 := processCPU(), dbCPU(e)
	time.Sleep(c.duration)
	cpu, dbc := processCPU()-cpu0, dbCPU(e)-db0
	fmt.Printf("  over %s: server process %.2f s of CPU (%.1f%% of a core)", c.duration, cpu.Seconds(), 100*cpu.Seconds()/c.duration.Seconds())
	if e.engine == "postgres" {
		fmt.Printf(", database processes %.2f s (%.1f%%)", dbc.Seconds(), 100*dbc.Seconds()/c.duration.Seconds())
	}
	fmt.Printf(", %s\n", loadAverage())
	return nil
}

func dbCPU(e *env) time.Duration {
	p, _ := e.backendCPU()
	return p
}

// fillOrders writes n orders of merchantBID with one set-based statement:
// 90% Delivered, 5% Cancelled, 5% Created without autoSubmit, spread over
// the last 90 days. It returns how many orders the database holds.
func fillOrders(ctx context.Context, e *env, n int) (int, error) {
	driver, dsn := "pgx", e.dsn
	if e.engine == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	// Stamps and waits spread evenly over the last 90 days.
	span := int64(90 * 24 * time.Hour / time.Microsecond)
	start := time.Now().UnixMicro() - span
	at := fmt.Sprintf("%d + CAST(s.i AS BIGINT) * %d", start, span/int64(max(n, 1)))
	stmts := []string{fmt.Sprintf(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
		WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d)
		SELECT 'IDLE' || s.i, 'production', o.id, o.business_id || '-I' || s.i, 'I' || s.i,
			CASE WHEN s.i %% 20 = 0 THEN 'Created' WHEN s.i %% 20 = 1 THEN 'Cancelled' ELSE 'Delivered' END,
			%s, 0, 'idle', '{"externalId":"I' || s.i || '"}', %s, %s, %s
		FROM s, organizations o WHERE o.environment = 'production' AND o.business_id = '%s'`,
		n, at, at, at, at, merchantBID)}
	if e.engine == "postgres" {
		stmts = append(stmts, `VACUUM ANALYZE orders`)
	}
	for _, s := range stmts {
		if _, err := raw.ExecContext(ctx, s); err != nil {
			return 0, fmt.Errorf("fill: %w", err)
		}
	}
	var count int
	err = raw.QueryRowContext(ctx, `SELECT count(*) FROM orders`).Scan(&count)
	return count, err
}
