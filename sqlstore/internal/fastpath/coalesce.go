package fastpath

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Coalescer sends point reads that arrive together as one statement
// (decisions §24). A read of one row by key is one indexed row, yet as a
// statement of its own it cost PostgreSQL as much CPU as the whole
// request cost the server: the round trip, the backend's work per
// statement, the system calls and the switches between processes, not the
// row. So:
//
//   - A read that arrives while no statement is in flight is sent at
//     once, alone, under its request's own context: an idle server adds
//     nothing to a read.
//   - A read that arrives while one is in flight waits for it to return
//     and goes in the next statement with every other read that waited,
//     up to BatchReads of them; the next statement is sent as soon as the
//     previous one returns. A statement is never joined once sent, so
//     every read's statement is sent after the read began and sees every
//     commit acknowledged before it (the guarantee of a statement of its
//     own).
//   - Each read keeps its own key: Fetch reads each distinct key and a
//     read gets the row of its own key or none. Keys carry what scopes
//     them (the caller's organization), so reads of several tenants share
//     a statement and never each other's rows.
//   - A waiter whose request ends stops waiting; the statement goes on for
//     the others under Timeout, not any one request's deadline. A
//     statement that fails fails every read in it.
//   - At most QueueReads reads wait; a read past them runs a statement of
//     its own.
//
// Set Fetch and Timeout before the first Read.
type Coalescer[K comparable, R any] struct {
	// Fetch reads keys, all distinct, in one statement: rows[i] and
	// found[i] are keys[i]'s.
	Fetch func(ctx context.Context, keys []K, rows []R, found []bool) error
	// Timeout bounds a statement sent for waiting reads.
	Timeout time.Duration
	// Hook, when set, is told how many reads each statement carries
	// before it is sent (tests and benchmarks; set before any read).
	Hook func(reads int)

	mu sync.Mutex
	// busy counts the senders: a read sent at once, or a sendLoop. At
	// most Statements; a sender that finds the queue empty stops.
	busy  int
	queue []*pointRead[K, R]

	statements, reads atomic.Uint64
}

const (
	// BatchReads is how many reads one statement carries at most.
	BatchReads = 128
	// QueueReads is how many reads may wait for the next statement.
	QueueReads = 1024
	// Statements is how many statements of point reads may be in flight
	// at once. With 2, a read waits only while two are in flight: GET one
	// order under load (cmd/loadtest -mode read) then cost the database
	// 18-20 µs a request against 12-13 µs with 1, for the same throughput.
	Statements = 1
)

// pointRead is one read waiting for a statement, and its outcome. The
// key, row and found are arrays of one, so a read sent alone hands Fetch
// slices of its own fields, with no allocation of their own.
type pointRead[K comparable, R any] struct {
	key   [1]K
	row   [1]R
	found [1]bool
	err   error
	done  chan struct{} // closed once the outcome is set; nil for a read sent at once
}

// Read reads the row of k, alone or with the reads that wait beside it;
// false when there is none.
func (c *Coalescer[K, R]) Read(ctx context.Context, k K) (R, bool, error) {
	r := &pointRead[K, R]{key: [1]K{k}}
	c.mu.Lock()
	if c.busy < Statements {
		// Fewer than Statements in flight: sent at once, alone.
		c.busy++
		c.mu.Unlock()
		c.send(ctx, []*pointRead[K, R]{r})
		c.sendQueued()
	} else if len(c.queue) >= QueueReads {
		c.mu.Unlock()
		c.send(ctx, []*pointRead[K, R]{r})
	} else {
		r.done = make(chan struct{})
		c.queue = append(c.queue, r)
		c.mu.Unlock()
		select {
		case <-r.done:
		case <-ctx.Done():
			c.drop(r)
			var zero R
			return zero, false, ctx.Err()
		}
	}
	return r.row[0], r.found[0], r.err
}

// Stats reports how many statements were sent and how many reads they
// carried.
func (c *Coalescer[K, R]) Stats() (statements, reads uint64) {
	return c.statements.Load(), c.reads.Load()
}

// Queued is how many reads wait for the next statement.
func (c *Coalescer[K, R]) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// drop takes r out of the queue if it has not been sent yet.
func (c *Coalescer[K, R]) drop(r *pointRead[K, R]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.queue {
		if q == r {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return
		}
	}
}

// sendQueued is called when the statement in flight has returned: the
// reads that waited for it are sent, BatchReads at a time, one statement
// after the other, until none waits.
func (c *Coalescer[K, R]) sendQueued() {
	if batch := c.next(); batch != nil {
		go c.sendLoop(batch)
	}
}

// next takes the next statement's reads out of the queue, or marks the
// queue idle when there are none.
func (c *Coalescer[K, R]) next() []*pointRead[K, R] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.busy--
		return nil
	}
	batch := c.queue
	if len(batch) > BatchReads {
		batch = batch[:BatchReads:BatchReads]
		c.queue = append([]*pointRead[K, R](nil), c.queue[BatchReads:]...)
	} else {
		c.queue = nil
	}
	return batch
}

func (c *Coalescer[K, R]) sendLoop(batch []*pointRead[K, R]) {
	for batch != nil {
		ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
		c.send(ctx, batch)
		cancel()
		for _, r := range batch {
			close(r.done)
		}
		batch = c.next()
	}
}

// send reads every read's key in one statement and sets each read's
// outcome: its own key's row or none, or the statement's error. Reads of
// the same key share it.
func (c *Coalescer[K, R]) send(ctx context.Context, batch []*pointRead[K, R]) {
	c.statements.Add(1)
	c.reads.Add(uint64(len(batch)))
	if h := c.Hook; h != nil {
		h(len(batch))
	}
	if len(batch) == 1 {
		// The common case, a read sent alone: no positions to keep.
		r := batch[0]
		r.err = c.Fetch(ctx, r.key[:], r.row[:], r.found[:])
		return
	}
	keys := make([]K, 0, len(batch))
	slot := make([]int, len(batch)) // the key position of each read
	seen := make(map[K]int, len(batch))
	for i, r := range batch {
		if s, ok := seen[r.key[0]]; ok {
			slot[i] = s
			continue
		}
		slot[i] = len(keys)
		seen[r.key[0]] = len(keys)
		keys = append(keys, r.key[0])
	}
	rows := make([]R, len(keys))
	found := make([]bool, len(keys))
	err := c.Fetch(ctx, keys, rows, found)
	for i, r := range batch {
		if err != nil {
			r.err = err
			continue
		}
		r.row[0], r.found[0] = rows[slot[i]], found[slot[i]]
	}
}
