package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The sandbox controls of the overview. Today: the server's clock, shown
// to everyone and advanced by an operator when the server runs with
// --sandbox-clock. This file is where the other sandbox controls (reset,
// snapshots, faults, the request journal) join the console, each calling
// the store's own operation as the operator API does.

// serverNow is the server's time as the overview shows it.
func (c *Console) serverNow() time.Time { return c.cfg.Clock.Now() }

// advance moves the sandbox clock forward by d.
func (c *Console) advance(d time.Duration) error {
	_, err := c.cfg.SandboxClock.Advance(d)
	return err
}

// advanceClock moves the sandbox clock forward: the operator API's
// POST /admin/v1/clock from the overview.
func (c *Console) advanceClock(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.may(w, r, s, parcelgate.ActionOperate) {
		return
	}
	if c.cfg.SandboxClock == nil {
		c.errorPage(w, r, s, http.StatusForbidden, "The clock can only be moved on a server started with --sandbox-clock.")
		return
	}
	in := strings.TrimSpace(r.PostFormValue("advance"))
	d, err := time.ParseDuration(in)
	if err != nil || d <= 0 {
		c.renderOverview(w, r, s, http.StatusBadRequest, "Enter a positive duration such as 90m, 24h or 336h.", in)
		return
	}
	if err := c.advance(d); err != nil {
		c.renderOverview(w, r, s, http.StatusBadRequest, parcelgate.ErrorMessage(err), in)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=clock", http.StatusSeeOther)
}
