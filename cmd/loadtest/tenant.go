package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// tenantMode measures the operator's snapshot, reset and restore of a
// small organization next to a big one: the big one (merchantBID) holds
// -big-rows tracking moves, codes and dropshipping shipments (the tables
// a reset and a snapshot find by organization), the small one
// (retailerR) a few orders. Each is timed -repeat+1 times through the
// store (the operator API adds a request's fixed costs), and the median
// is reported.
func tenantMode(ctx context.Context, c config, e *env) error {
	for _, bid := range []string{merchantBID, retailerR} {
		if err := e.organization(bid); err != nil {
			return err
		}
	}
	t0 := time.Now()
	if err := fillBigTenant(ctx, e, c.bigRows); err != nil {
		return err
	}
	fmt.Printf("%s tenant: %s holds %d tracking moves, codes and supplier shipments each (filled in %s); %s 20 orders\n",
		e.engine, merchantBID, c.bigRows, time.Since(t0).Round(100*time.Millisecond), retailerR)
	org, err := sqlstore.NewOrganizationService(e.db).FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), retailerR)
	if err != nil {
		return err
	}
	op := parcelgate.OperatorCaller(org)
	controls := sqlstore.NewControlService(e.db)
	doc := `{"externalId":"small"}`
	if err := seedSmall(ctx, e, org.ID, doc); err != nil {
		return err
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"snapshot", func() error { _, err := controls.TakeSnapshot(ctx, op, "small"); return err }},
		{"reset", func() error { _, err := controls.ResetOrganization(ctx, op, parcelgate.ResetOptions{}); return err }},
		{"restore", func() error { _, err := controls.RestoreSnapshot(ctx, op, "small"); return err }},
	}
	took := make([][]time.Duration, len(steps))
	for range c.repeat + 1 {
		for i, s := range steps {
			start := time.Now()
			if err := s.run(); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			took[i] = append(took[i], time.Since(start))
		}
	}
	for i, s := range steps {
		slices.Sort(took[i])
		fmt.Printf("  %s of the small tenant: median %s (%d runs)\n", s.name, ms(took[i][len(took[i])/2]), len(took[i]))
	}
	fmt.Printf("  %s\n", loadAverage())
	return nil
}

// seedSmall gives organization orgID 20 Created orders.
func seedSmall(ctx context.Context, e *env, orgID int64, doc string) error {
	raw, err := rawDB(e)
	if err != nil {
		return err
	}
	defer raw.Close()
	now := time.Now().UnixMicro()
	_, err = raw.ExecContext(ctx, fmt.Sprintf(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
		WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20)
		SELECT 'SMALL' || s.i, 'production', %d, '%s-S' || s.i, 'S' || s.i, 'Created', %d, 0, 'small', '%s', %d, %d, %d FROM s`,
		orgID, retailerR, now, doc, now, now, now))
	return err
}

// fillBigTenant writes n tracking moves (of one shipment), n codes (one
// in a hundred still held) and n supplier shipments (of one order) of
// merchantBID, set-based, then has the planner's statistics taken on
// PostgreSQL, as autovacuum would; SQLite is left without, as a server's
// database is.
func fillBigTenant(ctx context.Context, e *env, n int) error {
	raw, err := rawDB(e)
	if err != nil {
		return err
	}
	defer raw.Close()
	now := time.Now().UnixMicro()
	big := fmt.Sprintf(`(SELECT id FROM organizations WHERE environment = 'production' AND business_id = '%s')`, merchantBID)
	series := fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d) `, n)
	stmts := []string{
		fmt.Sprintf(`INSERT INTO shipments (org_id, environment, tracking_number, service_code, sender, receiver, status, created_at)
			VALUES (%s, 'production', 'JJFIBIG', '2103', '{}', '{}', 'Created', %d)`, big, now),
		`INSERT INTO tracking_moves (org_id, environment, shipment_id, parcel_id, status, at) ` + series +
			fmt.Sprintf(`SELECT %s, 'production', (SELECT id FROM shipments WHERE tracking_number = 'JJFIBIG'), 'P' || s.i, 'DELIVERED', %d + s.i FROM s`, big, now),
		`INSERT INTO codes (environment, code, org_id, tracking_number, parcel_id, created_at, expires_at, released_at) ` + series +
			fmt.Sprintf(`SELECT 'production', 'C' || s.i, %s, 'JJFIB' || s.i, '', %d, %d, CASE WHEN s.i %% 100 = 0 THEN 0 ELSE %d END FROM s`, big, now, now+int64(time.Hour/time.Microsecond), now),
		fmt.Sprintf(`INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
			VALUES ('BIG1', 'production', %s, '%s-BIG1', 'BIG1', 'Delivered', %d, 0, 'big', '{}', %d, %d, %d)`, big, merchantBID, now, now, now, now),
		`INSERT INTO supplier_shipments (shipment_id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at) ` + series +
			fmt.Sprintf(`SELECT 'SS' || s.i, 'production', %s, %s, (SELECT id FROM orders WHERE order_id = 'BIG1'), 'Delivered', '{}', %d, %d + s.i, %d FROM s`, big, big, now, now, now),
	}
	if e.engine == "postgres" {
		stmts = append(stmts, `VACUUM ANALYZE tracking_moves`, `VACUUM ANALYZE codes`, `VACUUM ANALYZE supplier_shipments`, `VACUUM ANALYZE orders`)
	}
	for _, s := range stmts {
		if _, err := raw.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("fill: %w\n%s", err, s)
		}
	}
	return nil
}

// rawDB opens the store's database outside the store, for set-based fills.
func rawDB(e *env) (*sql.DB, error) {
	driver, dsn := "pgx", e.dsn
	if e.engine == "sqlite" {
		driver, dsn = "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	}
	return sql.Open(driver, dsn)
}
