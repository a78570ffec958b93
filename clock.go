package parcelgate

import (
	"sync/atomic"
	"time"
)

// SystemClock is the wall clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// SandboxClock is the wall clock plus an offset that only moves forward. A
// sandbox started with --sandbox-clock uses it so that an integrator can see
// a token expire or an EOS product leave a catalog without waiting 14 days.
type SandboxClock struct {
	offset atomic.Int64 // nanoseconds
}

func (c *SandboxClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Advance moves the clock forward by d and returns the new time. Time never
// goes back: tokens, stamps and lockouts assume it.
func (c *SandboxClock) Advance(d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, Errorf(EINVALID, "advance must not be negative")
	}
	c.offset.Add(int64(d))
	return c.Now(), nil
}
