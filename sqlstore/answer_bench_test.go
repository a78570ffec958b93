package sqlstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// BenchmarkFindOrderAnswer is the store's share of the hottest read, GET
// one order: one indexed SELECT of the order's row and, while
// the row is unchanged, the answer rendered for an earlier read. Run in
// parallel, as requests are, with and without the deadline every request's
// context carries (--db-timeout): on SQLite the two cost the same
// (pointReadContext); on PostgreSQL the deadline is kept.
//
//	go test ./sqlstore -run '^$' -bench FindOrderAnswer -benchmem
func BenchmarkFindOrderAnswer(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			db := testdb.Open(b, engine, nil)
			c := testOrg(b, db, parcelgate.Production, "1234567-1")
			req := testOrderRequest(b, c, "A1")
			if _, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, req); err != nil {
				b.Fatal(err)
			}
			render := func(o *parcelgate.Order) ([]byte, error) { return []byte(o.ID), nil }
			// A request's context carries the --db-timeout deadline.
			deadline, cancel := context.WithTimeout(ctx, time.Hour)
			defer cancel()
			for name, ctx := range map[string]context.Context{"no-deadline": ctx, "deadline": deadline} {
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, "A1", encoding("render", render)); err != nil {
								b.Error(err)
								return
							}
						}
					})
				})
			}
		})
	}
}

// BenchmarkFindOrderAnswerTogether is BenchmarkFindOrderAnswer on
// PostgreSQL from 32 goroutines at once, with the reads coalesced into
// shared statements (decisions §24) and each alone, of one order (every
// statement one key) and of 64 orders (each goroutine its own few).
//
//	go test ./sqlstore -run '^$' -bench FindOrderAnswerTogether -benchmem
func BenchmarkFindOrderAnswerTogether(b *testing.B) {
	for _, orders := range []int{1, 64} {
		for _, coalesce := range []bool{true, false} {
			name := fmt.Sprintf("orders=%d/alone", orders)
			if coalesce {
				name = fmt.Sprintf("orders=%d/together", orders)
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				db := testdb.Open(b, "postgres", nil)
				db.CoalescePointReadsForTest(coalesce)
				c := testOrg(b, db, parcelgate.Production, "1234567-1")
				for i := range orders {
					if _, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, testOrderRequest(b, c, fmt.Sprintf("A%d", i))); err != nil {
						b.Fatal(err)
					}
				}
				render := func(o *parcelgate.Order) ([]byte, error) { return []byte(o.ID), nil }
				var next atomic.Int64
				b.SetParallelism(16)
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					id := fmt.Sprintf("A%d", next.Add(1)%int64(orders))
					for pb.Next() {
						if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, id, encoding("render", render)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
