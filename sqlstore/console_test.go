package sqlstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The console's order list pages newest first by key: walking Next (older) links
// meets every order exactly once, Prev (newer) links walk back to the first page,
// filters and tenancy hold on every page.
func TestConsoleOrdersPageByKeyBothWays(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Shop"}
		other := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: "SE5566778899", Name: "Other"}
		for _, o := range []*parcelgate.Organization{org, other} {
			if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
				t.Fatal(err)
			}
		}
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		doc, _ := json.Marshal(sampleOrder())
		if err := db.SeedOrdersForTest(ctx, org.Environment, org.ID, org.BusinessID, 23, base, string(doc)); err != nil {
			t.Fatal(err)
		}
		if err := db.SeedOrdersForTest(ctx, other.Environment, other.ID, other.BusinessID, 5, base, string(doc)); err != nil {
			t.Fatal(err)
		}
		c := accountOf(org, parcelgate.RoleMerchant)
		var pages []parcelgate.Page[*parcelgate.Order]
		seen := map[string]bool{}
		var prev time.Time
		cursor := ""
		for {
			page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{After: cursor, Size: 5})
			if err != nil {
				t.Fatal(err)
			}
			// Seeded orders are told apart by their stamps, 1 µs apart.
			for _, o := range page.Items {
				key := o.Metadata.UpdateDate.String()
				if seen[key] {
					t.Fatalf("%s met twice", key)
				}
				if !prev.IsZero() && !o.Metadata.UpdateDate.Before(prev) {
					t.Fatalf("not newest first: %s after %s", o.Metadata.UpdateDate, prev)
				}
				seen[key], prev = true, o.Metadata.UpdateDate
			}
			if len(pages) == 0 && page.Prev != "" {
				t.Fatal("the first page has a Prev link")
			}
			pages = append(pages, page)
			if page.Next == "" {
				break
			}
			cursor = page.Next
		}
		if len(seen) != 23 || len(pages) != 5 {
			t.Fatalf("%d orders on %d pages, want 23 on 5", len(seen), len(pages))
		}
		// Back from the last page by Prev links: the same pages.
		for i := len(pages) - 1; i > 0; i-- {
			page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{After: pages[i].Prev, Size: 5})
			if err != nil {
				t.Fatal(err)
			}
			want := pages[i-1].Items
			if len(page.Items) != len(want) || !page.Items[0].Metadata.UpdateDate.Equal(want[0].Metadata.UpdateDate) || !page.Items[len(want)-1].Metadata.UpdateDate.Equal(want[len(want)-1].Metadata.UpdateDate) {
				t.Fatalf("Prev from page %d is not page %d", i, i-1)
			}
			if (i-1 == 0) != (page.Prev == "") {
				t.Fatalf("page %d reached backwards: Prev %q", i-1, page.Prev)
			}
		}
		// A filter by reference finds one order by its externalId.
		page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true, Reference: "1234567-1-S7"}, parcelgate.PageRequest{After: "", Size: 5})
		if err != nil || len(page.Items) != 1 || !page.Items[0].Metadata.UpdateDate.Equal(base.Add(7*time.Microsecond)) {
			t.Fatalf("by externalId: %v %v", page.Items, err)
		}
		// Another tenant's externalId is not found (the seeded other tenant
		// is in the test environment, 5 orders, none listed above).
		page, err = sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true, Reference: "SE5566778899-S1"}, parcelgate.PageRequest{After: "", Size: 5})
		if err != nil || len(page.Items) != 0 {
			t.Fatalf("another tenant's order by externalId: %v %v", page.Items, err)
		}
		page, err = sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true, Statuses: []parcelgate.OrderStatus{parcelgate.OrderError}}, parcelgate.PageRequest{Size: 5})
		if err != nil || len(page.Items) != 0 {
			t.Fatalf("status Error: %v %v", page.Items, err)
		}
		if _, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{After: "not-a-cursor", Size: 5}); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Fatalf("bad cursor: %v", err)
		}
	})
}

// BenchmarkConsoleOrders is the console's order list over 100,000 orders
// of one merchant, 50 a page: the first page, a page deep in the list by
// its cursor, and a status filter that matches nothing.
func BenchmarkConsoleOrders(b *testing.B) {
	const orders, size = 100_000, 50
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			ctx := context.Background()
			db := testdb.Open(b, engine, nil)
			org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Shop"}
			if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(org.Environment), org); err != nil {
				b.Fatal(err)
			}
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			doc, _ := json.Marshal(sampleOrder())
			if err := db.SeedOrdersForTest(ctx, org.Environment, org.ID, org.BusinessID, orders, base, string(doc)); err != nil {
				b.Fatal(err)
			}
			c := accountOf(org, parcelgate.RoleMerchant)
			deep := ""
			for range 1000 {
				page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, parcelgate.OrderQuery{NewestFirst: true}, parcelgate.PageRequest{After: deep, Size: size})
				if err != nil {
					b.Fatal(err)
				}
				deep = page.Next
			}
			run := func(name string, f parcelgate.OrderQuery, cursor string, want int) {
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						page, err := sqlstore.NewOrderService(db).ListOrders(ctx, c, f, parcelgate.PageRequest{After: cursor, Size: size})
						if err != nil || len(page.Items) != want {
							b.Fatalf("%d items: %v", len(page.Items), err)
						}
					}
				})
			}
			run("first", parcelgate.OrderQuery{NewestFirst: true}, "", size)
			run("page-1001-by-cursor", parcelgate.OrderQuery{NewestFirst: true}, deep, size)
			run("status-with-no-match", parcelgate.OrderQuery{NewestFirst: true, Statuses: []parcelgate.OrderStatus{parcelgate.OrderError}}, "", 0)
			run("by-externalId", parcelgate.OrderQuery{NewestFirst: true, Reference: "1234567-1-S500"}, "", 1)
		})
	}
}
