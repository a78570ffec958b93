package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// --db-max-conns bounds the PostgreSQL pool (four connections per
// CPU by default), and one connection is enough for an order's whole path:
// no store method holds a connection while it waits for another, which a
// small pool would turn into a wait until the request's deadline.
func TestPostgresPoolBound(t *testing.T) {
	dsn := testdb.PostgresSchema(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	open := func(opts ...sqlstore.Option) *sqlstore.DB {
		db, err := sqlstore.Open(ctx, dsn, nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	if got := open().PoolStatsForTest().MaxOpenConnections; got != sqlstore.DefaultMaxConns() {
		t.Errorf("default pool: %d connections, want %d", got, sqlstore.DefaultMaxConns())
	}
	db := open(sqlstore.MaxConns(1))
	if got := db.PoolStatsForTest().MaxOpenConnections; got != 1 {
		t.Fatalf("MaxConns(1): %d connections", got)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	req := testOrderRequest(t, c, "A1")
	o, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, req)
	if err != nil {
		t.Fatalf("create on one connection: %v", err)
	}
	if again, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, req); err != nil || again.ID != o.ID {
		t.Fatalf("re-send on one connection: %+v, %v", again, err)
	}
	if _, err := sqlstore.NewOrderService(db).UpdateOrder(ctx, c, o.ID, req); err != nil {
		t.Fatalf("update on one connection: %v", err)
	}
	if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, "A1", encoding("id", func(o *parcelgate.Order) ([]byte, error) { return []byte(o.ID), nil })); err != nil {
		t.Fatalf("read on one connection: %v", err)
	}
	if page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageRequest{Size: 10}); err != nil || page.Total != 1 {
		t.Fatalf("list on one connection: %+v, %v", page, err)
	}
}
