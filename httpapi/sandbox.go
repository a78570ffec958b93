package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// SandboxStore is what the sandbox controls of the operator API need from
// storage: the shared clock, and (below) resets, snapshots, faults and the
// request journal.
type SandboxStore interface {
	AdvanceClock(ctx context.Context, env parcelgate.Environment, d time.Duration) (time.Time, error)
}

// sandboxRoutes are the operator API's sandbox controls (issue 13).
func (s *Server) sandboxRoutes() {
	s.handle("GET /admin/v1/clock", s.admin(s.getClock))
	s.handle("POST /admin/v1/clock", s.admin(s.advanceClock))
}

// now is the time of the environment r acts in: the caller's, else
// production's.
func (s *Server) now(r *http.Request) time.Time {
	if c := parcelgate.CallerFrom(r.Context()); c != nil {
		return s.clock.Now(c.Environment)
	}
	return s.clock.Now(parcelgate.Production)
}

// ClockState is the answer of the clock calls: one environment's time, and
// how far it runs ahead of the wall clock.
type ClockState struct {
	Environment parcelgate.Environment `json:"environment"`
	Now         string                 `json:"now"`
	Sandbox     bool                   `json:"sandbox"`
	// Offset is a Go duration ("336h0m0s"); "0s" for the wall clock.
	Offset string `json:"offset"`
}

func (s *Server) clockState(env parcelgate.Environment) ClockState {
	st := ClockState{Environment: env, Now: parcelgate.FormatStamp(s.clock.Now(env)), Sandbox: s.cfg.SandboxClock != nil, Offset: "0s"}
	if s.cfg.SandboxClock != nil {
		st.Offset = s.cfg.SandboxClock.Offset(env).String()
	}
	return st
}

func (s *Server) getClock(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.clockState(env))
	return nil
}

type advanceClockRequest struct {
	Advance     string `json:"advance"`
	Environment string `json:"environment"`
}

// advanceClock moves a sandbox clock forward, for every instance; only a
// server started with --sandbox-clock has one, so production time can never
// be moved on a real deployment. Without an environment both move, as the
// single clock of earlier versions did; the answer is then production's.
func (s *Server) advanceClock(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.SandboxClock == nil {
		return parcelgate.Errorf(parcelgate.EFORBIDDEN, "The clock can only be moved on a server started with --sandbox-clock.")
	}
	var req advanceClockRequest
	if err := decodeJSON(r, &req, true); err != nil {
		return err
	}
	var p parcelgate.Problems
	d, err := time.ParseDuration(req.Advance)
	if err == nil {
		err = parcelgate.ValidAdvance(d)
	}
	if err != nil {
		p.Add("advance", "must be a positive Go duration such as 90m or 336h, at most %s, not %q", parcelgate.MaxAdvance, req.Advance)
	}
	envs := parcelgate.Environments
	if req.Environment != "" {
		envs = []parcelgate.Environment{parseEnvField(req.Environment, &p)}
	}
	if err := p.Err(); err != nil {
		return err
	}
	for _, env := range envs {
		if _, err := s.store.AdvanceClock(r.Context(), env, d); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, s.clockState(envs[0]))
	return nil
}
