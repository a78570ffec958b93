package fastpath

import (
	"context"
	"sync"
)

// Turns make write transactions wait for a connection in the order they
// asked.
//
// database/sql hands a connection freed by one request to a waiting
// request chosen at random, not the one that has waited longest. Under a
// queue of writers (64 clients ordering one product; every order on
// SQLite's one writer connection) the unlucky ones waited many turns: the
// hot product's p99 was 3–5 times its mean. A write transaction first
// takes a turn here, a slot of a channel with as many slots as the
// writer pool has connections; Go queues goroutines blocked on a full
// channel in the order they blocked, so turns go first come, first
// served, and the pool has a connection free for each turn.
type Turns struct {
	once  sync.Once
	slots chan struct{} // nil: the pool has no bound, no turns are taken
}

// Take waits for the caller's turn and returns its release; ctx's end
// gives up waiting. size is the writer pool's number of connections
// (0: unbounded), asked once.
func (t *Turns) Take(ctx context.Context, size func() int) (release func(), err error) {
	t.once.Do(func() {
		if n := size(); n > 0 {
			t.slots = make(chan struct{}, n)
		}
	})
	if t.slots == nil {
		return func() {}, nil
	}
	select {
	case t.slots <- struct{}{}:
		return func() { <-t.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
