package fulfillment

import (
	"context"
	"log/slog"
	"time"

	"github.com/parcelgate/parcelgate"
)

// SupplierStore is what the automatic supplier needs from storage.
type SupplierStore interface {
	// DueShipments returns up to limit open shipments of env whose
	// supplier has the automatic supplier on and whose delay has passed
	// at now.
	DueShipments(ctx context.Context, env parcelgate.Environment, now time.Time, limit int) ([]int64, error)
	// AutoConfirm handles one shipment if it is still due, and reports
	// whether this call moved it.
	AutoConfirm(ctx context.Context, pk int64, now time.Time) (bool, error)
	// NextDue returns when the next open shipment of env whose supplier
	// has the automatic supplier on becomes due after now (env's time),
	// the zero time when none waits.
	NextDue(ctx context.Context, env parcelgate.Environment, now time.Time) (time.Time, error)
	// Wake returns a channel closed at this instance's next write that
	// may make a shipment due sooner than NextDue said.
	Wake() <-chan struct{}
}

// Suppliers is the automatic supplier (decisions §34): the warehouse
// engine's counterpart for dropshipping. For the organizations that
// switched it on (POST /admin/v1/organizations/{businessId}/auto-supplier)
// it confirms each shipment the organization's delay after its last move
// (parcelgate.AutoSupply, with the test scenarios). Like the engine, any
// number of instances may run it: each move is conditional in the store.
type Suppliers struct {
	store SupplierStore
	clock parcelgate.Clock
	log   *slog.Logger
	pace  pace
}

// NewSuppliers returns the automatic supplier over store, looking for due
// shipments at most every interval (250 ms when zero) and at least every
// DefaultRecheck; in between when the next is due, or when this instance
// wrote something that may make one due sooner (decisions §70).
func NewSuppliers(store SupplierStore, clock parcelgate.Clock, log *slog.Logger, interval time.Duration) *Suppliers {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	return &Suppliers{store: store, clock: clock, log: log, pace: pace{min: interval, recheck: DefaultRecheck}}
}

// WithRecheck sets the most time between two looks when nothing is due
// sooner (DefaultRecheck when zero), and returns s.
func (s *Suppliers) WithRecheck(d time.Duration) *Suppliers {
	if d <= 0 {
		d = DefaultRecheck
	}
	s.pace.recheck = d
	return s
}

// Run handles due shipments until ctx ends, looking as Engine.Run does.
func (s *Suppliers) Run(ctx context.Context) {
	for {
		wake, moved := s.store.Wake(), clockMoves(s.clock)
		start := time.Now()
		_, next, err := s.look(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("automatic supplier", "err", err)
			next = start // tried again after the interval
		}
		if !s.pace.wait(ctx, start, next, wake, moved) {
			return
		}
	}
}

// Step handles every shipment due now in each environment (each has its
// own clock) and returns how many this call moved. A move that fails is
// logged and retried on a later step.
func (s *Suppliers) Step(ctx context.Context) (int, error) {
	n, _, err := s.look(ctx)
	return n, err
}

// look is one Step that also says when the next look is due (wall time),
// as Engine.look does.
func (s *Suppliers) look(ctx context.Context) (int, time.Time, error) {
	total := 0
	var next time.Time
	for _, env := range parcelgate.Environments {
		now := s.clock.Now(env)
		ahead := now.Sub(time.Now())
		for ctx.Err() == nil {
			due, err := s.store.DueShipments(ctx, env, now, 100)
			if err != nil {
				return total, next, err
			}
			moved, failed := 0, false
			for _, pk := range due {
				ok, err := s.store.AutoConfirm(ctx, pk, now)
				if err != nil {
					s.log.Warn("automatic supplier: shipment", "pk", pk, "err", err)
					failed = true
					continue
				}
				if ok {
					moved++
				}
			}
			total += moved
			if failed || len(due) == 100 && moved == 0 {
				// Due shipments are left: tried again after the interval.
				next = earliest(next, time.Now())
			}
			if len(due) < 100 || moved == 0 {
				break
			}
		}
		at, err := s.store.NextDue(ctx, env, now)
		if err != nil {
			return total, next, err
		}
		if !at.IsZero() {
			next = earliest(next, at.Add(-ahead))
		}
	}
	return total, next, nil
}
