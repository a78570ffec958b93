package fulfillment_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/fulfillment"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/pickup"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// tenant makes a merchant with one warehouse and returns its caller.
func tenant(t *testing.T, db *sqlstore.DB) *parcelgate.Caller {
	t.Helper()
	ctx := context.Background()
	org := &parcelgate.Organization{Environment: parcelgate.Production, BusinessID: "1234567-1", Name: "Shop"}
	if err := sqlstore.NewOrganizationService(db).CreateOrganization(ctx, parcelgate.EnvironmentOperator(org.Environment), org); err != nil {
		t.Fatal(err)
	}
	if err := sqlstore.NewCatalogService(db).CreateCatalog(ctx, parcelgate.OperatorCaller(org), &parcelgate.Catalog{Environment: parcelgate.Production, RetailerID: org.BusinessID, ExternalID: "WH1", SupplierIDs: []string{org.BusinessID}}); err != nil {
		t.Fatal(err)
	}
	c := &parcelgate.Caller{OrgID: org.ID, BusinessID: org.BusinessID, Environment: parcelgate.Production, Kind: parcelgate.KindEcom, Roles: []parcelgate.Role{parcelgate.RoleMerchant}}
	q := int64(stockUnits)
	entries := []parcelgate.InventoryInput{{
		Product: &parcelgate.Product{ExternalID: c.BusinessID + "-P1", Document: []byte(`{"externalId":"` + c.BusinessID + `-P1","descriptions":{"en":{"name":"P1"}}}`)}, Named: true,
		Balances: []parcelgate.BalanceInput{{ProductExternalID: c.BusinessID + "-P1", RetailerID: c.BusinessID, CatalogExternalID: "WH1", Quantity: &q}},
	}}
	if failed, err := sqlstore.NewInventoryService(db).PutInventory(ctx, c, entries); err != nil || len(failed) > 0 {
		t.Fatal(failed, err)
	}
	return c
}

// stockUnits is the merchant's stock of P1 in WH1.
const stockUnits = 1000

// balanceOfP1 returns quantity and allocated of P1 in WH1.
func balanceOfP1(t *testing.T, db *sqlstore.DB, c *parcelgate.Caller) (int64, int64) {
	t.Helper()
	page, err := sqlstore.NewCatalogService(db).ListCatalogBalances(context.Background(), c, "WH1", parcelgate.BalanceFilter{}, parcelgate.PageRequest{Size: 10})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("balance: %+v %v", page, err)
	}
	return page.Items[0].Quantity, page.Items[0].Allocated
}

func placeOrders(t *testing.T, db *sqlstore.DB, c *parcelgate.Caller, n int) []*parcelgate.Order {
	t.Helper()
	var out []*parcelgate.Order
	for i := range n {
		req := &parcelgate.OrderRequest{ExternalID: fmt.Sprintf("%s-E%d", c.BusinessID, i), DeliveryAddress: parcelgate.Address{Name: "N", Email: "n@example.com"},
			ServiceCode: "2104", Rows: []parcelgate.OrderRowRequest{{ExternalProductID: c.BusinessID + "-P1", Quantity: 1}}, AutoSubmit: true}
		if err := req.Validate(c.BusinessID, pickup.Network{}); err != nil {
			t.Fatal(err)
		}
		o, err := sqlstore.NewOrderService(db).CreateOrder(context.Background(), c, req)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// decisions §7, §10: several instances running the engine on one database move
// each order exactly once per step: one Submitted and one Delivered entry in
// its history, whoever got there first.
func TestEngineExactlyOnceAcrossInstances(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			clock := new(parcelgate.OffsetClock)
			db := testdb.Open(t, engine, clock)
			c := tenant(t, db)
			orders := placeOrders(t, db, c, 40)
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			const instances = 4
			var engines []*fulfillment.Engine
			for range instances {
				// The engines share nothing in process but the pool, whose
				// connections run their transactions concurrently: what makes
				// each move happen once is the store's conditional update.
				engines = append(engines, fulfillment.New(sqlstore.NewOrderService(db), clock, log, fulfillment.Config{SubmitAfter: time.Second, DeliverAfter: time.Second, Batch: 7}))
			}
			ctx := context.Background()
			step := func() int {
				var mu sync.Mutex
				var wg sync.WaitGroup
				total := 0
				for _, e := range engines {
					wg.Go(func() {
						n, err := e.Step(ctx)
						if err != nil {
							t.Error(err)
						}
						mu.Lock()
						total += n
						mu.Unlock()
					})
				}
				wg.Wait()
				return total
			}
			clock.Advance(2 * time.Second)
			if n := step(); n != len(orders) {
				t.Fatalf("submitted %d moves for %d orders", n, len(orders))
			}
			clock.Advance(2 * time.Second)
			if n := step(); n != len(orders) {
				t.Fatalf("delivered %d moves for %d orders", n, len(orders))
			}
			if n := step(); n != 0 {
				t.Fatalf("%d moves of delivered orders", n)
			}
			for _, o := range orders {
				h, err := sqlstore.NewOrderService(db).OrderHistory(ctx, c, o.ExternalID)
				if err != nil {
					t.Fatal(err)
				}
				var got []parcelgate.OrderStatus
				for _, ev := range h {
					got = append(got, ev.Status)
				}
				if fmt.Sprint(got) != "[Created Submitted Delivered]" {
					t.Fatalf("order %s history %v", o.ExternalID, got)
				}
				final, err := sqlstore.NewOrderService(db).FindOrder(ctx, c, o.ID)
				if err != nil || final.Status.Value != parcelgate.OrderDelivered || len(final.TrackingCodes) != 1 {
					t.Fatalf("final %+v %v", final, err)
				}
				// Shipment data is read as the organization's gateway
				// client reads it (interface §5.1).
				gw := &parcelgate.Caller{OrgID: c.OrgID, BusinessID: c.BusinessID, Environment: c.Environment, Kind: parcelgate.KindGateway}
				if _, err := sqlstore.NewShipmentService(db, pickup.Network{}).FindShipment(ctx, gw, final.TrackingCodes[0]); err != nil {
					t.Fatalf("shipment data of %s: %v", final.TrackingCodes[0], err)
				}
			}
			// The stock moved once per order: allocated at create, taken
			// out of allocated once at delivery.
			if q, a := balanceOfP1(t, db, c); q != stockUnits-int64(len(orders)) || a != 0 {
				t.Fatalf("balance %d/%d", q, a)
			}
		})
	}
}

// decisions §7: the engine leaves alone what is not due: orders held with
// autoSubmit false, and orders whose delay has not passed.
func TestEngineRespectsDelaysAndHolds(t *testing.T) {
	clock := new(parcelgate.OffsetClock)
	db := testdb.Open(t, "sqlite", clock)
	c := tenant(t, db)
	ctx := context.Background()
	req := &parcelgate.OrderRequest{ExternalID: "1234567-1-H", AutoSubmit: false, DeliveryAddress: parcelgate.Address{Name: "N", Telephone: "0401234567"},
		ServiceCode: "2104", Rows: []parcelgate.OrderRowRequest{{ExternalProductID: "1234567-1-P1", Quantity: 1}}}
	if err := req.Validate(c.BusinessID, pickup.Network{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, req); err != nil {
		t.Fatal(err)
	}
	placeOrders(t, db, c, 1)
	e := fulfillment.New(sqlstore.NewOrderService(db), clock, slog.New(slog.NewTextHandler(io.Discard, nil)), fulfillment.Config{SubmitAfter: time.Minute, DeliverAfter: time.Hour})
	if n, _ := e.Step(ctx); n != 0 {
		t.Fatalf("moved %d before the delay", n)
	}
	clock.Advance(time.Minute)
	if n, _ := e.Step(ctx); n != 1 {
		t.Fatalf("moved %d, want only the order not held", n)
	}
	clock.Advance(59 * time.Minute)
	if n, _ := e.Step(ctx); n != 0 {
		t.Fatalf("delivered %d before its delay", n)
	}
	clock.Advance(time.Minute)
	if n, _ := e.Step(ctx); n != 1 {
		t.Fatalf("delivered %d", n)
	}
}

// watched is the engine's store as the tests see it: looks receives one
// value per look, once the look has asked when the next order is due in
// every environment; with elsewhere, the store's writes wake nobody, as
// another instance's writes do not.
type watched struct {
	fulfillment.Store
	looks     chan struct{}
	elsewhere bool
}

func watch(s fulfillment.Store, elsewhere bool) *watched {
	return &watched{Store: s, looks: make(chan struct{}, 100), elsewhere: elsewhere}
}

func (w *watched) NextReady(ctx context.Context, env parcelgate.Environment, dues []parcelgate.WarehouseDue) ([]time.Time, error) {
	r, err := w.Store.NextReady(ctx, env, dues)
	if env == parcelgate.Environments[len(parcelgate.Environments)-1] {
		select {
		case w.looks <- struct{}{}:
		default:
		}
	}
	return r, err
}

func (w *watched) Wake() <-chan struct{} {
	if w.elsewhere {
		return nil
	}
	return w.Store.Wake()
}

// runEngine runs an engine over store until the test ends, and returns
// once its first look is done: from then on it sleeps until something
// wakes it.
func runEngine(t *testing.T, store *watched, clock parcelgate.Clock, cfg fulfillment.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		fulfillment.New(store, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), cfg).Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-store.looks
}

// awaitStatus waits until order o of c has status want; the engine moves
// it on its own, so the test waits for the outcome (failing after 30 s,
// far beyond any wake-up, far below the sleep that a missed wake-up
// would take).
func awaitStatus(t *testing.T, db *sqlstore.DB, c *parcelgate.Caller, o *parcelgate.Order, want parcelgate.OrderStatus) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, err := sqlstore.NewOrderService(db).FindOrder(context.Background(), c, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Value == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s still %s, want %s", o.ExternalID, got.Status.Value, want)
		}
	}
}

// decisions §70: the engine sleeps until the next order is due, and an
// order this instance writes wakes it: with a re-check of an hour, an
// order placed while the engine sleeps is submitted once its (short)
// delay passes, and delivered after its own.
func TestEngineWokenByItsInstancesWrite(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			clock := new(parcelgate.OffsetClock)
			db := testdb.Open(t, engine, clock)
			c := tenant(t, db)
			store := watch(sqlstore.NewOrderService(db), false)
			runEngine(t, store, clock, fulfillment.Config{SubmitAfter: 20 * time.Millisecond, DeliverAfter: 50 * time.Millisecond, Interval: 10 * time.Millisecond, Recheck: time.Hour})
			o := placeOrders(t, db, c, 1)[0]
			awaitStatus(t, db, c, o, parcelgate.OrderDelivered)
		})
	}
}

// decisions §70: a move of the environment's clock wakes the engine: an
// order due an hour from now is submitted as soon as the clock moves an
// hour, though the engine slept until then (and its re-check is longer).
func TestEngineWokenByAClockMove(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			clock := new(parcelgate.OffsetClock)
			db := testdb.Open(t, engine, clock)
			c := tenant(t, db)
			o := placeOrders(t, db, c, 1)[0]
			store := watch(sqlstore.NewOrderService(db), false)
			runEngine(t, store, clock, fulfillment.Config{SubmitAfter: time.Hour, DeliverAfter: time.Hour, Interval: 10 * time.Millisecond, Recheck: 10 * time.Hour})
			clock.Advance(time.Hour)
			awaitStatus(t, db, c, o, parcelgate.OrderSubmitted)
		})
	}
}

// decisions §70: what another instance writes wakes no engine here; the
// re-check finds it. The store's writes here wake nobody, as another
// instance's would not: the order is still submitted, by the re-check.
func TestEngineRecheckFindsOtherInstancesWrites(t *testing.T) {
	for _, engine := range testdb.Engines {
		t.Run(engine, func(t *testing.T) {
			clock := new(parcelgate.OffsetClock)
			db := testdb.Open(t, engine, clock)
			c := tenant(t, db)
			store := watch(sqlstore.NewOrderService(db), true)
			runEngine(t, store, clock, fulfillment.Config{SubmitAfter: time.Millisecond, DeliverAfter: time.Hour, Interval: 10 * time.Millisecond, Recheck: 50 * time.Millisecond})
			o := placeOrders(t, db, c, 1)[0]
			awaitStatus(t, db, c, o, parcelgate.OrderSubmitted)
		})
	}
}
