package sqlstore_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// BenchmarkOrderPagesAtSize reads pages of orders by number, at size=10,
// on a database the generator filled (loadtest -mode seed), named by
// PARCELGATE_SIZE_DB (sqlite:PATH or a postgres:// URL; migrated first,
// so give it a copy): the big merchant's cold deep page (each iteration a
// page number no iteration before it asked, in the second quarter of its
// orders), its last page, and the small tenant's pages, each rendered as
// JSON (decisions §68, §74). Skipped without the variable.
//
//	PARCELGATE_SIZE_DB=sqlite:/work/data/copy.sqlite go test ./sqlstore -run '^$' -bench OrderPagesAtSize -cpuprofile cpu.out
func BenchmarkOrderPagesAtSize(b *testing.B) {
	dsn := os.Getenv("PARCELGATE_SIZE_DB")
	if dsn == "" {
		b.Skip("PARCELGATE_SIZE_DB names no database")
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dsn, parcelgate.SystemClock{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	tenant := func(user string) (*parcelgate.Caller, int) {
		var bid string
		var n int
		if err := db.QueryRowForTest(ctx, `SELECT o.business_id, (SELECT COUNT(*) FROM orders WHERE org_id = o.id) FROM service_accounts a JOIN organizations o ON o.id = a.org_id WHERE a.username = '`+user+`'`).Scan(&bid, &n); err != nil {
			b.Fatal(err)
		}
		org, err := sqlstore.NewOrganizationService(db).FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Production), bid)
		if err != nil {
			b.Fatal(err)
		}
		return accountOf(org, parcelgate.RoleMerchant), n
	}
	big, bigN := tenant("seed-big")
	small, smallN := tenant("seed-small")
	orders := sqlstore.NewOrderService(db)
	enc := encoding("json", func(o *parcelgate.Order) ([]byte, error) { return json.Marshal(o) })
	read := func(b *testing.B, c *parcelgate.Caller, q parcelgate.OrderQuery, page func(i int) int) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p, err := orders.ListOrderAnswers(ctx, c, q, parcelgate.PageAt(page(i), 10), enc)
			if err != nil {
				b.Fatal(err)
			}
			if len(p.Items) == 0 {
				b.Fatalf("page %d: empty", page(i))
			}
		}
	}
	// The same pages read with ListOrders, which decodes every row it
	// reads (no kept answer): what a page of rows no one read costs any
	// tenant, apart from finding where the page starts.
	decoded := func(b *testing.B, c *parcelgate.Caller, page func(i int) int) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p, err := orders.ListOrders(ctx, c, parcelgate.OrderQuery{}, parcelgate.PageAt(page(i), 10))
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range p.Items {
				if _, err := json.Marshal(o); err != nil {
					b.Fatal(err)
				}
			}
			if len(p.Items) == 0 {
				b.Fatalf("page %d: empty", page(i))
			}
		}
	}
	mid := bigN / 10 / 2
	// Pages asked from the middle down, as loadtest's cold deep page:
	// reading a page records where the page after it starts, never a
	// position before the next one asked, so each page's start is found
	// through the seek (no boundary within seekAfter before it).
	cold := func(i int) int { return mid - i%(mid/2) }
	b.Run("big/deep-cold", func(b *testing.B) { read(b, big, parcelgate.OrderQuery{}, cold) })
	b.Run("big/deep-cold-delivered", func(b *testing.B) {
		read(b, big, parcelgate.OrderQuery{Statuses: []parcelgate.OrderStatus{parcelgate.OrderDelivered}}, func(i int) int { return mid/4 - i%(mid/8) })
	})
	b.Run("big/last", func(b *testing.B) { read(b, big, parcelgate.OrderQuery{}, func(int) int { return (bigN - 1) / 10 }) })
	b.Run("big/first", func(b *testing.B) { read(b, big, parcelgate.OrderQuery{}, func(int) int { return 0 }) })
	b.Run("small/first", func(b *testing.B) { read(b, small, parcelgate.OrderQuery{}, func(int) int { return 0 }) })
	b.Run("big/deep-cold/decoded", func(b *testing.B) { decoded(b, big, func(i int) int { return mid + mid/2 - i%(mid/2-200) }) })
	b.Run("small/first/decoded", func(b *testing.B) { decoded(b, small, func(int) int { return 0 }) })
	b.Run("small/last/decoded", func(b *testing.B) { decoded(b, small, func(int) int { return (smallN - 1) / 10 }) })
	b.Run("small/last", func(b *testing.B) {
		read(b, small, parcelgate.OrderQuery{}, func(int) int { return (smallN - 1) / 10 })
	})
}
