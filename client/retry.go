package client

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"
)

// RetryPolicy says how a Client repeats a call that failed for a reason
// that may pass: 429 Too Many Requests, 502, 503 and 504 answers, and
// failures to connect or to get an answer. Only calls that are safe to
// repeat are retried: GET, PUT and DELETE, sending-code creation (one code
// per tracking number) and order creation with an externalId (interface §4.3
// rule 2, option 2). A call that failed to connect at all is safe to repeat
// whatever it is.
//
// The wait before each retry is drawn uniformly between zero and a cap
// that starts at BaseDelay and doubles with each retry up to MaxDelay
// ("full jitter"), so that many clients failing together do not come back
// together. A Retry-After header replaces the drawn wait.
type RetryPolicy struct {
	// MaxAttempts bounds the attempts of one call, the first included;
	// zero means 4, and 1 turns retries off.
	MaxAttempts int
	// BaseDelay caps the wait before the first retry; zero means 250ms.
	BaseDelay time.Duration
	// MaxDelay caps every wait; zero means 15s. When a Retry-After asks
	// for longer, the call is not retried and its *Error carries the wait.
	MaxDelay time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 250 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 15 * time.Second
	}
	return p
}

// backoff is the wait before retry number n (1 for the first).
func (p RetryPolicy) backoff(n int) time.Duration {
	ceiling := p.MaxDelay
	if shift := n - 1; shift < 32 && p.BaseDelay<<shift > 0 && p.BaseDelay<<shift < ceiling {
		ceiling = p.BaseDelay << shift
	}
	return rand.N(ceiling + 1)
}

type idempotentKey struct{}

// withIdempotent marks the requests made with ctx as safe, or not, to
// repeat, whatever their method.
func withIdempotent(ctx context.Context, ok bool) context.Context {
	return context.WithValue(ctx, idempotentKey{}, ok)
}

func isIdempotent(req *http.Request) bool {
	if ok, set := req.Context().Value(idempotentKey{}).(bool); set {
		return ok
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return max(time.Duration(s)*time.Second, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// retryTransport is the Client's http.RoundTripper: it bounds each attempt
// by the timeout and makes the retries of the policy.
type retryTransport struct {
	base    http.RoundTripper // nil means http.DefaultTransport
	policy  RetryPolicy
	timeout time.Duration // per attempt; <= 0 none
	// sleep waits d or until ctx ends; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx := req.Context()
	idempotent := isIdempotent(req)
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 {
			r = req.Clone(ctx)
			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		cancel := context.CancelFunc(func() {})
		if t.timeout > 0 {
			var actx context.Context
			actx, cancel = context.WithTimeout(ctx, t.timeout)
			r = r.WithContext(actx)
		}
		resp, err := base.RoundTrip(r)
		wait, again := t.retry(req, attempt, idempotent, resp, err)
		if !again {
			if err != nil {
				cancel()
				return nil, err
			}
			// The attempt's deadline also bounds reading the body.
			resp.Body = &cancelOnClose{resp.Body, cancel}
			return resp, nil
		}
		if resp != nil {
			drain(resp)
		}
		cancel()
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retry decides whether attempt is to be repeated, and after what wait.
func (t *retryTransport) retry(req *http.Request, attempt int, idempotent bool, resp *http.Response, err error) (time.Duration, bool) {
	ctx := req.Context()
	if attempt >= t.policy.MaxAttempts || ctx.Err() != nil {
		return 0, false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return 0, false
	}
	wait := t.policy.backoff(attempt)
	switch {
	case err != nil:
		if !idempotent && !notSent(err) {
			return 0, false
		}
	case retryableStatus(resp.StatusCode) && idempotent:
		if ra := retryAfter(resp.Header, time.Now()); ra > 0 {
			if ra > t.policy.MaxDelay {
				return 0, false
			}
			wait = ra
		}
	default:
		return 0, false
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
		// Better the failure now than the context's error after the wait.
		return 0, false
	}
	return wait, true
}

// notSent reports whether err means the request never left: a failure to
// connect. Such a request is safe to repeat whatever it is.
func notSent(err error) bool {
	op, ok := errors.AsType[*net.OpError](err)
	return ok && op.Op == "dial"
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
