package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// decisions §51, §67: the parcels area's dropshipping list reads a page
// from the index of its side, (supplier_org_id, environment, id + 0) or
// (retailer_org_id, environment, id + 0), in its order: no scan of the
// table, no sort of the organization's shipments, no walk of the primary
// key, on both engines and on PostgreSQL's generic plan too. On
// PostgreSQL the table holds one supplier's and one retailer's 5,000
// shipments: statistics by which an organization's share is the whole
// table, the estimate that made the generic plan of a list ordered by id
// walk the primary key backwards, filtering by organization (every
// page of a small organization then read the table).
func TestDropshipListReadsItsSideIndex(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		ten := demo.Tenants[0]
		c, err := db.OrgIDForTest(ctx, ten.Environment, ten.SupplierID)
		if err != nil {
			t.Fatal(err)
		}
		postgres := db.Dialect() == "postgres"
		if postgres {
			for _, q := range []string{
				`INSERT INTO supplier_shipments (shipment_id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at)
				SELECT 'COPY' || g, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at
				FROM supplier_shipments, generate_series(1, 5000) g WHERE id = (SELECT MIN(id) FROM supplier_shipments WHERE supplier_org_id = ` + fmt.Sprint(c) + `)`,
				`ANALYZE supplier_shipments`,
			} {
				if err := db.ExecForTest(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		retailer, err := db.OrgIDForTest(ctx, ten.Environment, ten.RetailerID)
		if err != nil {
			t.Fatal(err)
		}
		for _, asRetailer := range []bool{false, true} {
			want, org := "supplier_shipments_supplier_page", c
			if asRetailer {
				want, org = "supplier_shipments_retailer_page", retailer
			}
			for _, generic := range []bool{false, true} {
				if generic && !postgres {
					continue
				}
				plans, err := db.ExplainDropshipListForTest(ctx, ten.Environment, org, asRetailer, generic)
				if err != nil {
					t.Fatal(err)
				}
				for _, plan := range plans {
					if !strings.Contains(plan, want) {
						t.Errorf("generic %v: not read from %s:\n%s", generic, want, plan)
					}
					for _, bad := range []string{"Seq Scan", "SCAN supplier_shipments\n", "TEMP B-TREE", "Sort", "pkey"} {
						if strings.Contains(plan+"\n", bad) {
							t.Errorf("generic %v: %s in the plan:\n%s", generic, bad, plan)
						}
					}
				}
			}
		}
	})
}

// decisions §51, §67: the list pages every shipment of the caller's side,
// newest first, each once, whatever the pages' cursors say: a supplier's
// pages never hold another supplier's shipments, though their ids
// interleave, and another supplier's cursor starts the caller's own list
// at that place.
func TestDropshipListPagesOnlyItsOwn(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if _, err := demo.Seed(ctx, wiring.Demo(db), parcelgate.DefaultVersions); err != nil {
			t.Fatal(err)
		}
		ten := demo.Tenants[0]
		account := func(bid string, roles ...parcelgate.Role) *parcelgate.Caller {
			id, err := db.OrgIDForTest(ctx, ten.Environment, bid)
			if err != nil {
				t.Fatal(bid, err)
			}
			return &parcelgate.Caller{Subject: bid, OrgID: id, BusinessID: bid, Environment: ten.Environment, Kind: parcelgate.KindEcom, Roles: roles}
		}
		retailer := account(ten.RetailerID, parcelgate.RoleRetailer)
		a := account(ten.BusinessID, parcelgate.RoleSupplier)
		b := account(ten.SupplierID, parcelgate.RoleSupplier)
		// The demo's order made one shipment of each supplier; six more
		// of each, alternating, copies of that one with their insertion
		// stamp counting up (the list's order is the ids', which count up
		// with it).
		for i := 1; i <= 12; i++ {
			s := a
			if i%2 == 0 {
				s = b
			}
			if err := db.ExecForTest(ctx, `INSERT INTO supplier_shipments (shipment_id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at)
				SELECT ?, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, ?, updated_at, ready_at FROM supplier_shipments WHERE supplier_org_id = ? AND environment = ? ORDER BY id LIMIT 1`,
				fmt.Sprintf("COPY%016d", i), 4_000_000_000_000_000+int64(i), s.OrgID, string(s.Environment)); err != nil {
				t.Fatal(err)
			}
		}
		list := sqlstore.NewDropshipService(db)
		// walk pages c's side from after (a cursor, may be "") in pages
		// of two, onwards to the end, and checks each page is newest
		// first; it returns the shipments' suppliers and the first
		// page's Next.
		walk := func(c *parcelgate.Caller, asRetailer bool, after string) (suppliers []string, firstNext string) {
			t.Helper()
			var last int64
			for n := 0; ; n++ {
				p, err := list.ListDropshipShipments(ctx, c, asRetailer, parcelgate.PageRequest{After: after, Size: 2})
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					firstNext = p.Next
				}
				for _, s := range p.Items {
					at := s.Metadata.InsertDate.UnixMicro()
					if last != 0 && at > last {
						t.Errorf("%s: %v (%d) after %v: not newest first", c.BusinessID, s.Metadata.InsertDate, at, last)
					}
					last = at
					suppliers = append(suppliers, s.ClientID)
				}
				if p.Next == "" || n > 20 {
					return suppliers, firstNext
				}
				after = p.Next
			}
		}
		for _, c := range []*parcelgate.Caller{a, b} {
			got, _ := walk(c, false, "")
			if len(got) != 7 {
				t.Errorf("%s's supplier side: %d shipments, want 7", c.BusinessID, len(got))
			}
			for _, s := range got {
				if s != c.BusinessID {
					t.Errorf("%s's supplier side lists %s's shipment", c.BusinessID, s)
				}
			}
		}
		// Another supplier's cursor (after its first page: its own two
		// newest) starts a's list there: a's older shipments only.
		_, bNext := walk(b, false, "")
		got, _ := walk(a, false, bNext)
		if strings.Join(got, ",") != strings.Repeat(a.BusinessID+",", 5)+a.BusinessID {
			t.Errorf("a's list after b's cursor: %v, want a's six older shipments", got)
		}
		// The retailer side holds both suppliers' shipments of its order.
		if got, _ := walk(retailer, true, ""); len(got) != 14 {
			t.Errorf("the retailer's side: %d shipments, want 14: %v", len(got), got)
		}
		// The supplier's own retailer side holds none of them.
		if got, _ := walk(account(ten.BusinessID, parcelgate.RoleRetailer), true, ""); len(got) != 0 {
			t.Errorf("a supplier's retailer side: %v", got)
		}
	})
}
