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

// serverNow is the server's time in the environment the page looks at
// (production before a tenant is chosen), as the overview shows it.
func (c *Console) serverNow(s *session) time.Time {
	env := parcelgate.Production
	if s != nil && s.ConsoleSession != nil && s.Environment.Valid() {
		env = s.Environment
	}
	return c.cfg.Clock.Now(env)
}

// advance moves the sandbox clock forward by d in the environment the
// operator looks at, or in both before a tenant is chosen, through the
// store, so that every instance follows (as POST /admin/v1/clock does).
func (c *Console) advance(r *http.Request, s *session, d time.Duration) error {
	envs := parcelgate.Environments
	if s.Environment.Valid() {
		envs = []parcelgate.Environment{s.Environment}
	}
	for _, env := range envs {
		if _, err := c.db.AdvanceClock(r.Context(), env, d); err != nil {
			return err
		}
	}
	return nil
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
	if err := c.advance(r, s, d); err != nil {
		c.renderOverview(w, r, s, http.StatusBadRequest, parcelgate.ErrorMessage(err), in)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=clock", http.StatusSeeOther)
}
