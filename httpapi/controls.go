package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// sandboxRoutes are the operator API's operator controls.
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
	s.handle("GET /admin/v1/jobs", s.admin(s.listJobs))
	s.handle("GET /admin/v1/jobs/{id}", s.admin(s.getJob))
	s.handle("DELETE /admin/v1/jobs/{id}", s.admin(s.cancelJob))
	s.handle("POST /admin/v1/jobs/{id}/cancel", s.admin(s.cancelJob))
	s.faultRoutes()
	s.journalRoutes()
}

// operatorIn is the operator acting in the organization of env the path
// names ({businessId}); ENOTFOUND when env has none.
func (s *Server) operatorIn(r *http.Request, env parcelgate.Environment) (*parcelgate.Caller, error) {
	org, err := s.orgs.FindOrganization(r.Context(), parcelgate.EnvironmentOperator(env), r.PathValue("businessId"))
	if err != nil {
		return nil, err
	}
	return parcelgate.OperatorCaller(org), nil
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
	// Sandbox reports whether this environment's clock may be moved.
	Sandbox bool `json:"sandbox"`
	// Mode is the server's: "sandbox" (serve --sandbox: every
	// environment's data is disposable) or "production" (only the test
	// environment's is), decisions §21.
	Mode string `json:"mode"`
	// Offset is a Go duration ("336h0m0s"); "0s" for the wall clock.
	Offset string `json:"offset"`
}

// Mode names the server's sandbox mode as the clock answer shows it.
func (s *Server) mode() string {
	if s.cfg.Sandbox {
		return "sandbox"
	}
	return "production"
}

// sandboxControl decides whether control may act on env on this server
// (decisions §21).
func (s *Server) sandboxControl(env string, control parcelgate.Control) (parcelgate.Environment, error) {
	return parcelgate.DecideControl(s.cfg.Sandbox, env, control)
}

func (s *Server) clockState(env parcelgate.Environment) ClockState {
	_, refused := s.sandboxControl(string(env), parcelgate.ControlClock)
	st := ClockState{Environment: env, Now: parcelgate.FormatStamp(s.clock.Now(env)), Sandbox: s.cfg.OffsetClock != nil && refused == nil,
		Mode: s.mode(), Offset: "0s"}
	if s.cfg.OffsetClock != nil {
		st.Offset = s.cfg.OffsetClock.Offset(env).String()
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

// advanceClock moves an environment's environment clock forward, for every
// instance. The call names its environment, and production's clock moves
// only on a server started with --sandbox (decisions §21), so production
// time can never be moved on a real deployment.
func (s *Server) advanceClock(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.OffsetClock == nil {
		return parcelgate.Errorf(parcelgate.EFORBIDDEN, "This server's clock cannot be moved.")
	}
	var req advanceClockRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	env, err := s.sandboxControl(req.Environment, parcelgate.ControlClock)
	if err != nil {
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
	if err := p.Err(); err != nil {
		return err
	}
	if _, err := s.controls.AdvanceClock(r.Context(), parcelgate.EnvironmentOperator(env), d); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.clockState(env))
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

// resetControl reads a reset's environment, which must be one the server
// may reset (decisions §21), and its options.
func (s *Server) resetControl(r *http.Request) (parcelgate.Environment, parcelgate.ResetOptions, error) {
	env, err := s.sandboxControl(r.URL.Query().Get("environment"), parcelgate.ControlReset)
	if err != nil {
		return "", parcelgate.ResetOptions{}, err
	}
	opt, err := resetOptions(r)
	return env, opt, err
}

// resetOrganization empties one organization's data, so an
// integrator's CI run starts from a known state without touching anyone
// else's tenant.
func (s *Server) resetOrganization(w http.ResponseWriter, r *http.Request) error {
	env, opt, err := s.resetControl(r)
	if err != nil {
		return err
	}
	wait, err := s.jobWait(r)
	if err != nil {
		return err
	}
	op, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	job, err := s.controls.StartReset(r.Context(), op, opt)
	if err != nil {
		return err
	}
	return s.answerJob(w, r, op, job, wait, http.StatusOK)
}

// resetEnvironment empties the data of every organization of one
// environment.
func (s *Server) resetEnvironment(w http.ResponseWriter, r *http.Request) error {
	env, opt, err := s.resetControl(r)
	if err != nil {
		return err
	}
	wait, err := s.jobWait(r)
	if err != nil {
		return err
	}
	op := parcelgate.EnvironmentOperator(env)
	job, err := s.controls.StartReset(r.Context(), op, opt)
	if err != nil {
		return err
	}
	return s.answerJob(w, r, op, job, wait, http.StatusOK)
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
	wait, err := s.jobWait(r)
	if err != nil {
		return err
	}
	op, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	job, err := s.controls.StartSnapshot(r.Context(), op, req.Name)
	if err != nil {
		return err
	}
	return s.answerJob(w, r, op, job, wait, http.StatusCreated)
}

// snapshots lists the snapshots of the organization and environment the
// request names.
func (s *Server) snapshots(r *http.Request) ([]*parcelgate.Snapshot, error) {
	env, err := envParam(r)
	if err != nil {
		return nil, err
	}
	op, err := s.operatorIn(r, env)
	if err != nil {
		return nil, err
	}
	return s.controls.ListSnapshots(r.Context(), op)
}

func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) error {
	snaps, err := s.snapshots(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, List[*parcelgate.Snapshot]{snaps})
	return nil
}

// getSnapshot answers one snapshot: its name, when it was taken, its
// environment and its object counts; 404 as a missing one when
// the organization has none of that name.
func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request) error {
	snaps, err := s.snapshots(r)
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
	env, err := s.sandboxControl(r.URL.Query().Get("environment"), parcelgate.ControlRestore)
	if err != nil {
		return err
	}
	wait, err := s.jobWait(r)
	if err != nil {
		return err
	}
	op, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	job, err := s.controls.StartRestore(r.Context(), op, r.PathValue("name"))
	if err != nil {
		return err
	}
	return s.answerJob(w, r, op, job, wait, http.StatusOK)
}

func (s *Server) dropSnapshot(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	op, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	if err := s.controls.DropSnapshot(r.Context(), op, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// resetDemo puts the --demo data back in its seeded state: every
// organization's snapshot "demo", taken when it was seeded, is restored.
func (s *Server) resetDemo(w http.ResponseWriter, r *http.Request) error {
	// The demo snapshots are in both environments; --demo implies
	// --sandbox, so a server without it has no demo data to put back.
	if _, err := s.sandboxControl(string(parcelgate.Production), parcelgate.ControlRestore); err != nil {
		return err
	}
	res, err := s.controls.RestoreEverywhere(r.Context(), parcelgate.AllOperator(), demoSnapshot)
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

// The long controls (reset, snapshot, restore) run as operator jobs
// (decisions §54): the request starts the job and waits for it up to its
// wait parameter (default: the database deadline, --db-timeout, less a
// margin). A job done by then is answered as before jobs (200 or 201 with
// its result); a failed one with its error; one still running 202
// Accepted with the job, its URL in Location, to be followed with GET
// /admin/v1/jobs/{id}.

// jobWait reads the wait parameter: a Go duration, 0 (answer 202 at once)
// up to the database deadline.
func (s *Server) jobWait(r *http.Request) (time.Duration, error) {
	limit := s.cfg.DBTimeout
	if limit <= 0 {
		limit = 5 * time.Second
	}
	def := max(limit-limit/10, 0)
	v := r.URL.Query().Get("wait")
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > limit {
		return 0, &parcelgate.Error{Code: parcelgate.EINVALID, Message: fmt.Sprintf("wait must be a Go duration from 0s to %s, not %q.", limit, v),
			Fields: []parcelgate.FieldError{{Field: "wait", Message: "must be a duration from 0s to " + limit.String()}}}
	}
	return d, nil
}

// answerJob waits for job up to wait and answers it: its result with
// status when done, its error when failed, else 202 with the job. A
// wait of 0 is always 202 with the job as it stands, even one a small
// tenant's work already ended: the client asked to follow the job, and
// the answer must not depend on how fast the job ran.
func (s *Server) answerJob(w http.ResponseWriter, r *http.Request, c *parcelgate.Caller, job *parcelgate.Job, wait time.Duration, status int) error {
	atOnce := wait == 0
	if atOnce {
		wait = time.Nanosecond // AwaitJob takes 0 as "no limit"
	}
	j, err := s.controls.AwaitJob(r.Context(), c, job.ID, wait)
	if err != nil {
		return err
	}
	switch {
	case atOnce:
	case j.State == parcelgate.JobDone:
		switch {
		case j.Reset != nil:
			writeJSON(w, status, j.Reset)
		case j.Saved != nil:
			writeJSON(w, status, j.Saved)
		default:
			writeJSON(w, status, j.Restored)
		}
		return nil
	case j.State == parcelgate.JobFailed:
		return j.Err()
	}
	w.Header().Set("Location", jobURL(j))
	writeJSON(w, http.StatusAccepted, j)
	return nil
}

// jobURL is where a job is followed.
func jobURL(j *parcelgate.Job) string {
	u := "/admin/v1/jobs/" + j.ID + "?environment=" + string(j.Environment)
	if j.BusinessID != "" {
		u += "&businessId=" + j.BusinessID
	}
	return u
}

// jobCaller is the operator a jobs call acts as: of the organization
// businessId names, else of the environment.
func (s *Server) jobCaller(r *http.Request) (*parcelgate.Caller, error) {
	env, err := envParam(r)
	if err != nil {
		return nil, err
	}
	if id := r.URL.Query().Get("businessId"); id != "" {
		org, err := s.orgs.FindOrganization(r.Context(), parcelgate.EnvironmentOperator(env), id)
		if err != nil {
			return nil, err
		}
		return parcelgate.OperatorCaller(org), nil
	}
	return parcelgate.EnvironmentOperator(env), nil
}

// listJobs lists the newest operator jobs of an environment, or of one
// organization (businessId), newest first.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) error {
	c, err := s.jobCaller(r)
	if err != nil {
		return err
	}
	jobs, err := s.controls.Jobs(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, List[*parcelgate.Job]{jobs})
	return nil
}

// getJob answers one job with its progress; 404 as a missing one for a
// job of another environment or organization.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) error {
	if err := parcelgate.ValidJobID(r.PathValue("id")); err != nil {
		return err
	}
	c, err := s.jobCaller(r)
	if err != nil {
		return err
	}
	j, err := s.controls.AwaitJob(r.Context(), c, r.PathValue("id"), time.Nanosecond)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// cancelJob stops a job that has not ended (invented, decisions §60) and
// answers it cancelled: 404 as a missing one for another environment's or
// organization's job, 409 once it has ended. The batches it committed stay
// done; its tenant is unfenced.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) error {
	if err := parcelgate.ValidJobID(r.PathValue("id")); err != nil {
		return err
	}
	c, err := s.jobCaller(r)
	if err != nil {
		return err
	}
	j, err := s.controls.CancelJob(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}
