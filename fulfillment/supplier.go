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
}

// Suppliers is the automatic supplier (decisions §34): the warehouse
// engine's counterpart for dropshipping. For the organizations that
// switched it on (POST /admin/v1/organizations/{businessId}/auto-supplier)
// it confirms each shipment the organization's delay after its last move
// (parcelgate.AutoSupply, with the test scenarios). Like the engine, any
// number of instances may run it: each move is conditional in the store.
type Suppliers struct {
	store    SupplierStore
	clock    parcelgate.Clock
	log      *slog.Logger
	interval time.Duration
}

// NewSuppliers returns the automatic supplier over store, looking for due
// shipments every interval (250 ms when zero).
func NewSuppliers(store SupplierStore, clock parcelgate.Clock, log *slog.Logger, interval time.Duration) *Suppliers {
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	return &Suppliers{store: store, clock: clock, log: log, interval: interval}
}

// Run handles due shipments every interval until ctx ends.
func (s *Suppliers) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		if _, err := s.Step(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("automatic supplier", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Step handles every shipment due now in each environment (each has its
// own clock) and returns how many this call moved. A move that fails is
// logged and retried on a later step.
func (s *Suppliers) Step(ctx context.Context) (int, error) {
	total := 0
	for _, env := range parcelgate.Environments {
		now := s.clock.Now(env)
		for ctx.Err() == nil {
			due, err := s.store.DueShipments(ctx, env, now, 100)
			if err != nil {
				return total, err
			}
			moved := 0
			for _, pk := range due {
				ok, err := s.store.AutoConfirm(ctx, pk, now)
				if err != nil {
					s.log.Warn("automatic supplier: shipment", "pk", pk, "err", err)
					continue
				}
				if ok {
					moved++
				}
			}
			total += moved
			if len(due) < 100 || moved == 0 {
				break
			}
		}
	}
	return total, nil
}
