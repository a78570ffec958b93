package sqlstore

import "sync"

// The background engines (package fulfillment: the warehouse engine and
// the automatic supplier) sleep until the store says something is due
// (OrderService.NextReady, DropshipService.NextDue), instead of asking
// every fraction of a second whether anything is (decisions §70). A write
// of this instance that may make an order or a supplier shipment due
// sooner than they were told — a new order or shipment, a status reached,
// an automatic supplier switched on, a snapshot restored — wakes them
// once it commits, so they look again; other instances' writes are found
// by their bounded re-check.

// wakeSignal is a broadcast without payload: a waiter takes the channel,
// a notification closes it. Waking is coalesced: any number of
// notifications before the waiter takes the next channel wake it once.
type wakeSignal struct {
	mu sync.Mutex
	ch chan struct{} // nil while nobody waits
}

// wait returns the channel the next notification closes.
func (s *wakeSignal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// notify wakes whoever waits; with nobody waiting it costs a lock.
func (s *wakeSignal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// wakesEngines marks tx as a write that may make an order or a supplier
// shipment due sooner: its commit wakes the engines (see tryTx). A
// rolled-back transaction wakes nobody.
func (tx *Tx) wakesEngines() { tx.wake = true }

// Wake returns a channel closed at this instance's next committed write
// that may make an order due sooner than NextReady last said
// (fulfillment.Store).
func (s *OrderService) Wake() <-chan struct{} { return s.db.due.wait() }

// Wake returns a channel closed at this instance's next committed write
// that may make a supplier shipment due sooner than NextDue last said
// (fulfillment.SupplierStore).
func (s *DropshipService) Wake() <-chan struct{} { return s.db.due.wait() }
