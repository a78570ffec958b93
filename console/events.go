package console

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/parcelgate/parcelgate"
)

// events streams live updates as server-sent events: an event "change"
// whenever the tenant's orders or stock change (the newest modification
// stamp of its orders and balances moves), or, for an operator without a
// tenant, anything in either environment. The page's script then reloads
// what it shows. The stream polls the stamps, so a change made through
// any instance is seen; a comment line every 15 s keeps proxies from
// closing an idle stream.
func (c *Console) events(w http.ResponseWriter, r *http.Request, s *session) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	// Compressing middleware would hold small events back.
	h.Set("No-Gzip-Compression", "1")
	ctx := r.Context()
	stamp := func() (string, error) {
		if s.HasTenant() {
			n, err := c.reads.ConsoleChangeStamp(ctx, s.caller)
			return strconv.FormatInt(n, 10), err
		}
		var out string
		for _, env := range parcelgate.Environments {
			n, err := c.operator.ConsoleEnvironmentStamp(ctx, parcelgate.EnvironmentOperator(env))
			if err != nil {
				return "", err
			}
			out += strconv.FormatInt(n, 10) + "."
		}
		return out, nil
	}
	last, err := stamp()
	if err != nil {
		c.cfg.Log.WarnContext(ctx, "console events", "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
	// Tell the browser to reconnect after 5 s if the stream drops.
	fmt.Fprintf(w, "retry: 5000\n\n")
	rc.Flush()
	poll := time.NewTicker(c.cfg.PollInterval)
	defer poll.Stop()
	beat := time.NewTicker(15 * time.Second)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			rc.Flush()
		case <-poll.C:
			// A stream ends with its session: signed out elsewhere, or expired.
			if live, err := c.sessions.ConsoleSessionLive(ctx, s.idHash, c.cfg.SessionNow()); err == nil && !live {
				fmt.Fprint(w, "event: signed-out\ndata: \n\n")
				rc.Flush()
				return
			}
			now, err := stamp()
			if err != nil {
				if ctx.Err() == nil {
					c.cfg.Log.WarnContext(ctx, "console events", "err", err)
				}
				continue
			}
			if now == last {
				continue
			}
			last = now
			rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", now); err != nil {
				return
			}
			rc.Flush()
		}
	}
}
