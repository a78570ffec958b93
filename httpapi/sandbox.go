package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// SandboxStore is what the sandbox controls of the operator API need from
// storage: the shared clock, and (below) resets, snapshots, faults and the
// request journal.
type SandboxStore interface {
	AdvanceClock(ctx context.Context, env parcelgate.Environment, d time.Duration) (time.Time, error)

	ResetOrganization(ctx context.Context, env parcelgate.Environment, businessID string, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error)
	ResetEnvironment(ctx context.Context, env parcelgate.Environment, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error)
	TakeSnapshot(ctx context.Context, env parcelgate.Environment, businessID, name string) (*parcelgate.Snapshot, error)
	ListSnapshots(ctx context.Context, env parcelgate.Environment, businessID string) ([]*parcelgate.Snapshot, error)
	RestoreSnapshot(ctx context.Context, env parcelgate.Environment, businessID, name string) (*parcelgate.RestoreResult, error)
	DropSnapshot(ctx context.Context, env parcelgate.Environment, businessID, name string) error
	RestoreEverywhere(ctx context.Context, name string) ([]*parcelgate.RestoreResult, error)

	FaultStore
	JournalStore
}

// sandboxRoutes are the operator API's sandbox controls (issue 13).
func (s *Server) sandboxRoutes() {
	s.handle("GET /admin/v1/clock", s.admin(s.getClock))
	s.handle("POST /admin/v1/clock", s.admin(s.advanceClock))

	const org = "/admin/v1/organizations/{businessId}"
	s.handle("POST "+org+"/reset", s.admin(s.resetOrganization))
	s.handle("POST /admin/v1/reset", s.admin(s.resetEnvironment))
	s.handle("POST "+org+"/snapshots", s.admin(s.takeSnapshot))
	s.handle("GET "+org+"/snapshots", s.admin(s.listSnapshots))
	s.handle("POST "+org+"/snapshots/{name}/restore", s.admin(s.restoreSnapshot))
	s.handle("GET "+org+"/snapshots/{name}", s.admin(s.getSnapshot))
	s.handle("DELETE "+org+"/snapshots/{name}", s.admin(s.dropSnapshot))
	s.handle("POST /admin/v1/demo/reset", s.admin(s.resetDemo))
	s.faultRoutes()
	s.journalRoutes()
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
	if err := decodeStrict(r, &req); err != nil {
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

// resetOptions reads the catalogs query parameter of a reset.
func resetOptions(r *http.Request) (parcelgate.ResetOptions, error) {
	var opt parcelgate.ResetOptions
	switch v := r.URL.Query().Get("catalogs"); v {
	case "", "false":
	case "true":
		opt.Catalogs = true
	default:
		return opt, &parcelgate.Error{Code: parcelgate.EINVALID, Message: fmt.Sprintf("catalogs must be true or false, not %q.", v),
			Fields: []parcelgate.FieldError{{Field: "catalogs", Message: "must be true or false"}}}
	}
	return opt, nil
}

// resetOrganization empties one organization's data (issue 13), so an
// integrator's CI run starts from a known state without touching anyone
// else's tenant.
func (s *Server) resetOrganization(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	opt, err := resetOptions(r)
	if err != nil {
		return err
	}
	res, err := s.store.ResetOrganization(r.Context(), env, r.PathValue("businessId"), opt)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// resetEnvironment empties the data of every organization of one
// environment.
func (s *Server) resetEnvironment(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	opt, err := resetOptions(r)
	if err != nil {
		return err
	}
	res, err := s.store.ResetEnvironment(r.Context(), env, opt)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

type takeSnapshotRequest struct {
	Name string `json:"name"`
}

func (s *Server) takeSnapshot(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	var req takeSnapshotRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	if err := parcelgate.ValidSnapshotName(req.Name); err != nil {
		return err
	}
	snap, err := s.store.TakeSnapshot(r.Context(), env, r.PathValue("businessId"), req.Name)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, snap)
	return nil
}

func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	snaps, err := s.store.ListSnapshots(r.Context(), env, r.PathValue("businessId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, List[*parcelgate.Snapshot]{snaps})
	return nil
}

// getSnapshot answers one snapshot: its name, when it was taken, its
// environment and its object counts (issue 25); 404 as a missing one when
// the organization has none of that name.
func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	snaps, err := s.store.ListSnapshots(r.Context(), env, r.PathValue("businessId"))
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	for _, snap := range snaps {
		if snap.Name == name {
			writeJSON(w, http.StatusOK, snap)
			return nil
		}
	}
	return parcelgate.Errorf(parcelgate.ENOTFOUND, "snapshot %s of %s not found", name, r.PathValue("businessId"))
}

func (s *Server) restoreSnapshot(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	res, err := s.store.RestoreSnapshot(r.Context(), env, r.PathValue("businessId"), r.PathValue("name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

func (s *Server) dropSnapshot(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	if err := s.store.DropSnapshot(r.Context(), env, r.PathValue("businessId"), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// resetDemo puts the --demo data back in its seeded state: every
// organization's snapshot "demo", taken when it was seeded, is restored.
func (s *Server) resetDemo(w http.ResponseWriter, r *http.Request) error {
	res, err := s.store.RestoreEverywhere(r.Context(), demoSnapshot)
	if err != nil {
		return err
	}
	if len(res) == 0 {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "No demo data: the server was not started with --demo on this database.")
	}
	writeJSON(w, http.StatusOK, List[*parcelgate.RestoreResult]{res})
	return nil
}

// demoSnapshot is demo.SnapshotName (the demo package seeds through the
// store and is not a dependency of the HTTP layer).
const demoSnapshot = "demo"
