package parcelgate

import (
	"sync"
	"sync/atomic"
	"time"
)

// SystemClock is the wall clock, the same in every environment.
type SystemClock struct{}

func (SystemClock) Now(Environment) time.Time { return time.Now() }

// OffsetClock is the wall clock plus an offset per environment that only
// moves forward. A sandbox started with --sandbox-clock uses it so that an
// integrator can see a token expire or an EOS product leave a catalog
// without waiting 14 days, in the test environment without moving
// production's time (or the other way round).
//
// The offsets are stored in the database (sqlstore keeps this value in
// step with it), so every instance shows the same time and a restart keeps
// it; this type only holds the copy one process reads from.
type OffsetClock struct {
	offsets [2]atomic.Int64 // nanoseconds, by envIndex

	// moved is closed at the next move of either environment's time and
	// replaced by the next waiter (Moved); nil while nobody waits.
	mu    sync.Mutex
	moved chan struct{}
}

func envIndex(env Environment) int {
	if env == Test {
		return 1
	}
	return 0
}

func (c *OffsetClock) Now(env Environment) time.Time {
	return time.Now().Add(c.Offset(env))
}

// Offset is how far env's time is ahead of the wall clock.
func (c *OffsetClock) Offset(env Environment) time.Duration {
	return time.Duration(c.offsets[envIndex(env)].Load())
}

// Observe takes env's offset as stored; an offset behind the one held is
// ignored, so time never goes back: tokens, stamps and lockouts assume it.
func (c *OffsetClock) Observe(env Environment, offset time.Duration) {
	o := &c.offsets[envIndex(env)]
	for {
		cur := o.Load()
		if int64(offset) <= cur {
			return
		}
		if o.CompareAndSwap(cur, int64(offset)) {
			c.signalMove()
			return
		}
	}
}

// Moved returns a channel that is closed at the next move of either
// environment's time, on this instance (AdvanceClock) or read from the
// store (another instance's move): whoever sleeps until something is due
// by an environment's time — the warehouse engine, the automatic supplier
// (decisions §70) — wakes to look again, since a move forward can only
// bring what is due nearer. Take it before reading the time it depends on,
// so that a move in between is not missed.
func (c *OffsetClock) Moved() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.moved == nil {
		c.moved = make(chan struct{})
	}
	return c.moved
}

func (c *OffsetClock) signalMove() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.moved != nil {
		close(c.moved)
		c.moved = nil
	}
}

// ValidAdvance checks a requested move of the clock: forward only, and no
// further than 100 years in one step (an offset must stay far from the
// int64-nanosecond limit of time.Duration).
func ValidAdvance(d time.Duration) error {
	if d <= 0 {
		return Errorf(EINVALID, "advance must be a positive duration such as 90m or 336h")
	}
	if d > MaxAdvance {
		return Errorf(EINVALID, "advance must be at most %s", MaxAdvance)
	}
	return nil
}

// DecideAdvance decides a move of env's clock by d from its stored offset:
// the move must be valid (ValidAdvance), and the clock may run at most
// MaxAdvance ahead of the wall clock in all, so an offset stays far from
// time.Duration's limit however many moves are made. It returns the new
// offset.
func DecideAdvance(env Environment, offset, d time.Duration) (time.Duration, error) {
	if err := ValidAdvance(d); err != nil {
		return 0, err
	}
	if offset > MaxAdvance-d {
		return 0, Errorf(EINVALID, "The %s clock may run at most %s ahead of the wall clock.", env, MaxAdvance)
	}
	return offset + d, nil
}

// MaxAdvance bounds one move of the environment clock.
const MaxAdvance = 100 * 365 * 24 * time.Hour

// Advance moves this process's copy of every environment's clock forward by
// d, for tests that run a store without a shared clock row. A server moves
// its clock through the store (sqlstore's AdvanceClock), which every
// instance then observes.
func (c *OffsetClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	for i := range c.offsets {
		c.offsets[i].Add(int64(d))
	}
	c.signalMove()
}
