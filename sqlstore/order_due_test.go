package sqlstore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// issue 39, decisions §7: the warehouse engine's sweep (DueOrders, twice
// a second per status and environment) reads the due orders through the
// partial index of its status, in its order — never every order of the
// database with a sort — on both engines, before and after the planner
// has statistics, and PostgreSQL's generic plan too. It finds exactly the
// due orders: Created ones only with autoSubmit, none of another
// environment.
func TestDueOrdersSweepUsesItsPartialIndex(t *testing.T) {
	// Whole orders' statement and mixed orders' warehouse parts' (decisions
	// §38), each on its partial index.
	indexes := map[parcelgate.OrderStatus][]string{
		parcelgate.OrderCreated:   {"orders_due_created", "orders_part_due_created"},
		parcelgate.OrderSubmitted: {"orders_due_submitted", "orders_part_due_submitted"},
	}
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Open(t, engine, nil)
			c := testOrg(t, db, parcelgate.Production, "1234567-1")
			base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			checkPlans := func(stage string) {
				t.Helper()
				for from, names := range indexes {
					for _, generic := range []bool{false, true} {
						if generic && engine != "postgres" {
							continue
						}
						plan, err := db.ExplainDueOrdersForTest(ctx, parcelgate.Production, from, base.Add(time.Hour), 100, generic)
						if err != nil {
							t.Fatal(err)
						}
						for _, index := range names {
							if !strings.Contains(plan, index) {
								t.Errorf("%s, out of %s (generic %v): the sweep does not use %s:\n%s", stage, from, generic, index, plan)
							}
						}
						for _, bad := range []string{"SCAN orders", "TEMP B-TREE", "Seq Scan on orders", "Sort"} {
							if strings.Contains(plan, bad) {
								t.Errorf("%s, out of %s (generic %v): the sweep reads orders past its index (%s):\n%s", stage, from, generic, bad, plan)
							}
						}
						// decisions §70: the question of when the next
						// order is due probes the same indexes.
						plan, err = db.ExplainNextReadyForTest(ctx, parcelgate.Production, from, base.Add(time.Hour), generic)
						if err != nil {
							t.Fatal(err)
						}
						for _, index := range names {
							if !strings.Contains(plan, index) {
								t.Errorf("%s, out of %s (generic %v): the next-due probe does not use %s:\n%s", stage, from, generic, index, plan)
							}
						}
						for _, bad := range []string{"SCAN orders", "TEMP B-TREE", "Seq Scan on orders", "Sort"} {
							if strings.Contains(plan, bad) {
								t.Errorf("%s, out of %s (generic %v): the next-due probe reads orders past its index (%s):\n%s", stage, from, generic, bad, plan)
							}
						}
					}
				}
			}
			checkPlans("no orders, no statistics")

			doc, _ := json.Marshal(sampleOrder())
			// 20,000 Created orders without autoSubmit (never due), ready
			// 1 µs apart from base; every tenth Submitted; every
			// hundredth Created with autoSubmit.
			if err := db.SeedOrdersForTest(ctx, c.Environment, c.OrgID, c.BusinessID, 20_000, base, string(doc)); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				`UPDATE orders SET status = 'Submitted' WHERE order_id LIKE 'SEED%0' AND order_id NOT LIKE 'SEED%00'`,
				`UPDATE orders SET auto_submit = 1 WHERE order_id LIKE 'SEED%00'`,
				`ANALYZE`,
			} {
				if err := db.ExecForTest(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			checkPlans("20,000 orders, analyzed")

			// What the sweep finds, up to 1,000 µs after base: orders 10..990
			// not divisible by 100 are Submitted (90), 100..1000 are
			// Created with autoSubmit (10).
			orders := sqlstore.NewOrderService(db)
			cut := base.Add(1000 * time.Microsecond)
			for from, want := range map[parcelgate.OrderStatus]int{parcelgate.OrderCreated: 10, parcelgate.OrderSubmitted: 90} {
				due, err := orders.DueOrders(ctx, parcelgate.Production, from, cut, 1000)
				if err != nil {
					t.Fatal(err)
				}
				if len(due) != want || !slices.IsSorted(due) {
					t.Errorf("due out of %s: %d orders (sorted: %v), want %d", from, len(due), slices.IsSorted(due), want)
				}
				if other, err := orders.DueOrders(ctx, parcelgate.Test, from, cut, 1000); err != nil || len(other) != 0 {
					t.Errorf("due out of %s in another environment: %v, %v", from, other, err)
				}
			}
			if _, err := orders.DueOrders(ctx, parcelgate.Production, parcelgate.OrderDelivered, cut, 10); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
				t.Errorf("a sweep out of Delivered: %v", err)
			}

			// decisions §70: the first order waiting past the cut, per
			// step: Submitted 1,010 µs after base, Created with
			// autoSubmit 1,100 µs; none in another environment, nor past
			// the last order.
			dues := []parcelgate.WarehouseDue{parcelgate.DueForWarehouse(parcelgate.OrderCreated, cut), parcelgate.DueForWarehouse(parcelgate.OrderSubmitted, cut)}
			next, err := orders.NextReady(ctx, parcelgate.Production, dues)
			if err != nil {
				t.Fatal(err)
			}
			if want := []time.Time{base.Add(1100 * time.Microsecond), base.Add(1010 * time.Microsecond)}; len(next) != 2 || !next[0].Equal(want[0]) || !next[1].Equal(want[1]) {
				t.Errorf("next ready %v, want %v", next, want)
			}
			if other, err := orders.NextReady(ctx, parcelgate.Test, dues); err != nil || len(other) != 2 || !other[0].IsZero() || !other[1].IsZero() {
				t.Errorf("next ready in another environment: %v, %v", other, err)
			}
			late := base.Add(time.Hour)
			if past, err := orders.NextReady(ctx, parcelgate.Production, []parcelgate.WarehouseDue{parcelgate.DueForWarehouse(parcelgate.OrderSubmitted, late)}); err != nil || len(past) != 1 || !past[0].IsZero() {
				t.Errorf("next ready past every order: %v, %v", past, err)
			}
		})
	}
}
