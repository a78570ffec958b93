package httpapi

import (
	"math"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter is the optional per-credential rate limit (decisions §8): a token
// bucket per credential, refilled at perSecond with room for a burst of
// twice that. Buckets live in this instance's memory, so behind a load
// balancer of n instances a credential may reach up to n times the rate;
// the limit protects each instance, it is not a billing quota.
type limiter struct {
	perSecond rate.Limit
	burst     int

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(perSecond float64) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{perSecond: rate.Limit(perSecond), burst: max(1, int(math.Ceil(2*perSecond))), buckets: map[string]*bucket{}}
}

// allow takes one request from key's bucket. When the bucket is empty it
// returns false and how long until a request would be allowed.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		// Idle buckets are full again; forgetting them changes nothing.
		for k, b := range l.buckets {
			if now.Sub(b.seen) > time.Minute {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.perSecond, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// retryAfter is the Retry-After value for a wait: whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}
