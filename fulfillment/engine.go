// Package fulfillment is the warehouse engine of --fulfillment auto (decisions
// §7): it moves sales orders Created → Submitted after one delay and
// Submitted → Delivered after another, as the provider's warehouse would.
//
// Any number of instances may run it on one database. Each move is a
// conditional update in the store (the order must still be in the status
// it was found in), so when two instances reach for the same order, one
// moves it and the other finds nothing to do: every order moves exactly
// once per step, and its stock and shipment side effects happen once.
//
// Neither engine asks the store every fraction of a second whether
// anything is due (decisions §70): after each look it asks when the next
// thing will be, and sleeps until then, woken sooner by its instance's
// own writes and by moves of the clock, and never longer than a bounded
// re-check for other instances' writes. An idle server's engines cost
// nothing while nothing is due.
package fulfillment

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// Store is what the engine needs from storage.
type Store interface {
	// DueOrders returns up to limit orders of env in status from whose wait
	// began at or before readyBefore (for Created, only those with
	// autoSubmit).
	DueOrders(ctx context.Context, env parcelgate.Environment, from parcelgate.OrderStatus, readyBefore time.Time, limit int) ([]int64, error)
	// AdvanceOrder moves one order if it is still due, and reports whether
	// this call moved it.
	AdvanceOrder(ctx context.Context, pk int64, from, to parcelgate.OrderStatus, readyBefore time.Time) (bool, error)
	// NextReady returns, for each of dues, the earliest time after its
	// ReadyBefore at which an order of env in its From began its wait
	// (env's time), the zero time when none did.
	NextReady(ctx context.Context, env parcelgate.Environment, dues []parcelgate.WarehouseDue) ([]time.Time, error)
	// Wake returns a channel closed at this instance's next write that
	// may make an order due sooner than NextReady said.
	Wake() <-chan struct{}
}

// Config sets the pace of the warehouse.
type Config struct {
	// SubmitAfter is how long an order stays Created before the warehouse
	// takes it (Submitted).
	SubmitAfter time.Duration
	// DeliverAfter is how long a Submitted order takes to be picked and
	// packed (Delivered).
	DeliverAfter time.Duration
	// Interval is the least time between two looks for due orders: the
	// writes that wake the engine meanwhile are taken together, and a move
	// that failed is tried again after it. Zero derives it from the delays
	// (a quarter of the shorter, from 50 ms to 1 s).
	Interval time.Duration
	// Recheck is the most time between two looks when the engine knows of
	// no order due sooner: the bound on finding an order another instance
	// wrote and did not move itself. Zero is DefaultRecheck.
	Recheck time.Duration
	// Batch is how many due orders one look takes at most; zero means 100.
	Batch int
}

// Engine moves due orders on. Build it with New.
type Engine struct {
	store Store
	clock parcelgate.Clock
	log   *slog.Logger
	cfg   Config

	moved  *prometheus.CounterVec
	failed prometheus.Counter
}

// New returns an engine over store that reads time from clock.
func New(store Store, clock parcelgate.Clock, log *slog.Logger, cfg Config) *Engine {
	if cfg.Batch <= 0 {
		cfg.Batch = 100
	}
	if cfg.Interval <= 0 {
		cfg.Interval = min(max(min(cfg.SubmitAfter, cfg.DeliverAfter)/4, 50*time.Millisecond), time.Second)
	}
	if cfg.Recheck <= 0 {
		cfg.Recheck = DefaultRecheck
	}
	return &Engine{
		store: store, clock: clock, log: log, cfg: cfg,
		moved: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parcelgate_orders_moved_total",
			Help: "Orders the warehouse engine of this instance moved, by the status reached.",
		}, []string{"status"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "parcelgate_order_moves_failed_total",
			Help: "Order moves of the warehouse engine that failed and will be retried.",
		}),
	}
}

// Collectors are the engine's metrics, for the server's registry.
func (e *Engine) Collectors() []prometheus.Collector {
	return []prometheus.Collector{e.moved, e.failed}
}

// Run moves due orders until ctx ends: a look (Step) whenever the next
// order is due, when this instance wrote something that may make one due
// sooner or its clock moved (at most once per Interval), and at least
// every Recheck (decisions §70).
func (e *Engine) Run(ctx context.Context) {
	p := pace{min: e.cfg.Interval, recheck: e.cfg.Recheck}
	for {
		// Taken before the look: a write or a move during it wakes the
		// wait after it.
		wake, moved := e.store.Wake(), clockMoves(e.clock)
		start := time.Now()
		_, next, err := e.look(ctx)
		if err != nil && ctx.Err() == nil {
			e.log.Warn("warehouse engine", "err", err)
			next = start // tried again after Interval
		}
		if !p.wait(ctx, start, next, wake, moved) {
			return
		}
	}
}

// Step moves every order that is due now, submissions first, and returns
// how many this call moved. A move that fails is logged and retried on a
// later step; it does not stop the others.
func (e *Engine) Step(ctx context.Context) (int, error) {
	n, _, err := e.look(ctx)
	return n, err
}

// look is one Step that also says when the next look is due (wall time):
// when the first order still waiting becomes due, now when a failed or
// contended move left due orders behind, zero when no order waits.
func (e *Engine) look(ctx context.Context) (int, time.Time, error) {
	total := 0
	var next time.Time
	// The warehouse's path, one step at a time: Created → Submitted after
	// SubmitAfter, Submitted → Delivered after DeliverAfter. Each
	// environment has its own clock (a sandbox may have moved one).
	after := map[parcelgate.OrderStatus]time.Duration{
		parcelgate.OrderSubmitted: e.cfg.SubmitAfter,
		parcelgate.OrderDelivered: e.cfg.DeliverAfter,
	}
	path := parcelgate.WarehousePath
	for _, env := range parcelgate.Environments {
		now := e.clock.Now(env)
		// How far env's time runs ahead of the wall clock, to sleep until
		// an environment's time by the wall clock's.
		ahead := now.Sub(time.Now())
		dues := make([]parcelgate.WarehouseDue, 0, len(path)-1)
		for i := 1; i < len(path); i++ {
			from, to := path[i-1], path[i]
			readyBefore := now.Add(-after[to])
			n, left, err := e.advance(ctx, env, from, to, readyBefore)
			total += n
			if err != nil {
				return total, next, err
			}
			if left {
				next = earliest(next, time.Now())
			}
			dues = append(dues, parcelgate.DueForWarehouse(from, readyBefore))
		}
		ready, err := e.store.NextReady(ctx, env, dues)
		if err != nil {
			return total, next, err
		}
		for i, r := range ready {
			if !r.IsZero() && i+1 < len(path) {
				next = earliest(next, r.Add(after[path[i+1]]).Add(-ahead))
			}
		}
	}
	return total, next, nil
}

// advance moves the orders of one step in batches until none is due, or a
// batch moves nothing (what is left failed, or other instances are moving
// it). left reports that due orders may be left: a move failed, or a full
// batch moved nothing here.
func (e *Engine) advance(ctx context.Context, env parcelgate.Environment, from, to parcelgate.OrderStatus, readyBefore time.Time) (total int, left bool, err error) {
	for ctx.Err() == nil {
		due, err := e.store.DueOrders(ctx, env, from, readyBefore, e.cfg.Batch)
		if err != nil {
			return total, left, err
		}
		// Instances that find the same batch start at different places,
		// so they mostly move different orders instead of racing for one.
		rand.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
		moved := 0
		for _, pk := range due {
			ok, err := e.store.AdvanceOrder(ctx, pk, from, to, readyBefore)
			switch {
			case err != nil && ctx.Err() == nil:
				e.failed.Inc()
				left = true
				e.log.Error("warehouse engine: moving an order", "order_pk", pk, "to", to, "err", err)
			case ok:
				moved++
				e.moved.WithLabelValues(string(to)).Inc()
			}
		}
		total += moved
		if len(due) < e.cfg.Batch || moved == 0 {
			left = left || len(due) == e.cfg.Batch
			break
		}
	}
	return total, left, ctx.Err()
}
