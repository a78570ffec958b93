// Package fulfillment is the warehouse engine of --fulfillment auto (decisions
// §7): it moves sales orders Created → Submitted after one delay and
// Submitted → Delivered after another, as the provider's warehouse would.
//
// Any number of instances may run it on one database. Each move is a
// conditional update in the store (the order must still be in the status
// it was found in), so when two instances reach for the same order, one
// moves it and the other finds nothing to do: every order moves exactly
// once per step, and its stock and shipment side effects happen once.
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
}

// Config sets the pace of the warehouse.
type Config struct {
	// SubmitAfter is how long an order stays Created before the warehouse
	// takes it (Submitted).
	SubmitAfter time.Duration
	// DeliverAfter is how long a Submitted order takes to be picked and
	// packed (Delivered).
	DeliverAfter time.Duration
	// Interval is how often the engine looks for due orders; zero derives
	// it from the delays (a quarter of the shorter, from 50 ms to 1 s).
	Interval time.Duration
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

// Run moves due orders every interval until ctx ends.
func (e *Engine) Run(ctx context.Context) {
	t := time.NewTicker(e.cfg.Interval)
	defer t.Stop()
	for {
		if _, err := e.Step(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("warehouse engine", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Step moves every order that is due now, submissions first, and returns
// how many this call moved. A move that fails is logged and retried on a
// later step; it does not stop the others.
func (e *Engine) Step(ctx context.Context) (int, error) {
	total := 0
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
		for i := 1; i < len(path); i++ {
			from, to := path[i-1], path[i]
			n, err := e.advance(ctx, env, from, to, now.Add(-after[to]))
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// advance moves the orders of one step in batches until none is due, or a
// batch moves nothing (what is left failed, or other instances are moving
// it).
func (e *Engine) advance(ctx context.Context, env parcelgate.Environment, from, to parcelgate.OrderStatus, readyBefore time.Time) (int, error) {
	total := 0
	for ctx.Err() == nil {
		due, err := e.store.DueOrders(ctx, env, from, readyBefore, e.cfg.Batch)
		if err != nil {
			return total, err
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
				e.log.Error("warehouse engine: moving an order", "order_pk", pk, "to", to, "err", err)
			case ok:
				moved++
				e.moved.WithLabelValues(string(to)).Inc()
			}
		}
		total += moved
		if len(due) < e.cfg.Batch || moved == 0 {
			break
		}
	}
	return total, ctx.Err()
}
