package console

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The operator controls of the overview. Today: the server's clock, shown
// to everyone and advanced by an operator when the server runs with
// --sandbox-clock. This file is where the other operator controls (reset,
// snapshots, faults, the request journal) join the console, each calling
// the store's own operation as the operator API does.

// serverNow is the server's time in the environment the page looks at
// (production before a tenant is chosen), as the overview shows it.
func (c *Console) serverNow(s *session) time.Time {
	env := parcelgate.Production
	if s != nil && s.Session != nil && s.Environment.Valid() {
		env = s.Environment
	}
	return c.cfg.Clock.Now(env)
}

// advance moves the environment clock forward by d in the environment the
// operator looks at, or the one the form names before a tenant is chosen,
// through the store, so that every instance follows (as POST
// /admin/v1/clock does). The environment is always named, and production's
// clock moves only on a --sandbox server (decisions §21).
func (c *Console) advance(r *http.Request, s *session, d time.Duration) error {
	env := r.PostFormValue("environment")
	if s.Environment.Valid() {
		env = string(s.Environment)
	}
	e, err := parcelgate.DecideControl(c.cfg.Sandbox, env, parcelgate.ControlClock)
	if err != nil {
		return err
	}
	// The store moves the clock as the operator of e: an operator's
	// session may (asked above), and an integrator's only as far as
	// DecideWorkbench allowed it (decisions §23), acting for the
	// warehouse as the workbench does.
	_, err = c.controls.AdvanceClock(r.Context(), parcelgate.EnvironmentOperator(e), d)
	return err
}

// mode names the server's sandbox mode, as the overview shows it.
func (c *Console) mode() string {
	if c.cfg.Sandbox {
		return "sandbox"
	}
	return "production"
}

// sandboxControl checks that the caller is an operator looking at one
// tenant whose environment control may act on (decisions §21): on a
// server without --sandbox, production refuses it with 403.
func (c *Console) sandboxControl(w http.ResponseWriter, r *http.Request, s *session, control parcelgate.Control) bool {
	if !c.sandboxTenant(w, r, s) {
		return false
	}
	if _, err := parcelgate.DecideControl(c.cfg.Sandbox, string(s.Environment), control); err != nil {
		c.fail(w, r, s, err)
		return false
	}
	return true
}

// advanceClock moves the environment clock forward: the operator API's
// POST /admin/v1/clock from the overview.
func (c *Console) advanceClock(w http.ResponseWriter, r *http.Request, s *session) {
	// An integrator moves its (test) environment's clock as the
	// workbench allows (decisions §23); the operator as before (the
	// operator may do every action: the clock service decides the rest).
	if !s.Operator() && !c.workbench(w, r, s, parcelgate.ControlClock) {
		return
	}
	if c.cfg.OffsetClock == nil {
		c.errorPage(w, r, s, http.StatusForbidden, "This server's clock cannot be moved.")
		return
	}
	in := strings.TrimSpace(r.PostFormValue("advance"))
	d, err := time.ParseDuration(in)
	if err != nil || d <= 0 {
		c.renderOverview(w, r, s, http.StatusBadRequest, "Enter a positive duration such as 90m, 24h or 336h.", in)
		return
	}
	if err := c.advance(r, s, d); err != nil {
		status := http.StatusBadRequest
		if parcelgate.ErrorCode(err) == parcelgate.EFORBIDDEN {
			status = http.StatusForbidden
		}
		c.renderOverview(w, r, s, status, parcelgate.ErrorMessage(err), in)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=clock", http.StatusSeeOther)
}

// sandboxTenant checks that the caller is an operator looking at one
// tenant: the reset and snapshot controls act on the picked tenant only.
func (c *Console) sandboxTenant(w http.ResponseWriter, r *http.Request, s *session) bool {
	if !c.may(w, r, s, parcelgate.ActionOperate) {
		return false
	}
	if !s.HasTenant() {
		c.errorPage(w, r, s, http.StatusBadRequest, "Open an organization on the overview first.")
		return false
	}
	return true
}

// resetTenant empties the picked tenant's data, and its catalogs when
// asked: the operator API's POST .../organizations/{businessId}/reset.
func (c *Console) resetTenant(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxControl(w, r, s, parcelgate.ControlReset) {
		return
	}
	if !c.confirmed(w, r, s, "reset") {
		return
	}
	opt := parcelgate.ResetOptions{Catalogs: r.PostFormValue("catalogs") == "true"}
	job, err := c.controls.StartReset(r.Context(), s.caller, opt)
	c.followJob(w, r, s, job, err, "reset")
}

// takeSnapshot saves the picked tenant's state under a name; a refused
// name is shown next to the field.
func (c *Console) takeSnapshot(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxTenant(w, r, s) {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	err := parcelgate.ValidSnapshotName(name)
	var job *parcelgate.Job
	if err == nil {
		job, err = c.controls.StartSnapshot(r.Context(), s.caller, name)
	}
	if err != nil {
		status := http.StatusBadRequest
		switch parcelgate.ErrorCode(err) {
		case parcelgate.EINVALID:
		case parcelgate.ECONFLICT:
			status = http.StatusConflict
		default:
			c.fail(w, r, s, err)
			return
		}
		c.renderOverviewWith(w, r, s, status, func(d *overviewData) { d.SnapshotError, d.SnapshotName = parcelgate.ErrorMessage(err), name })
		return
	}
	c.followJob(w, r, s, job, nil, "snapshot")
}

// restoreSnapshot puts the picked tenant back to a saved state.
func (c *Console) restoreSnapshot(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxControl(w, r, s, parcelgate.ControlRestore) || !c.confirmed(w, r, s, "restore-"+r.PathValue("name")) {
		return
	}
	job, err := c.controls.StartRestore(r.Context(), s.caller, r.PathValue("name"))
	c.followJob(w, r, s, job, err, "restored")
}

// dropSnapshot deletes one of the picked tenant's saved states.
func (c *Console) dropSnapshot(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxTenant(w, r, s) {
		return
	}
	if err := c.controls.DropSnapshot(r.Context(), s.caller, r.PathValue("name")); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=snapshot-deleted", http.StatusSeeOther)
}

// faultForm is the fault form as entered, with its problems by field.
type faultForm struct {
	Status, Probability, Count, Route, Method string
	Errors                                    map[string]string
}

// tenantFaults lists the faults of the picked tenant that may still fire:
// the console adds faults for one organization only, so it shows those.
func (c *Console) tenantFaults(r *http.Request, s *session) ([]*parcelgate.Fault, error) {
	all, err := c.faults.Faults(r.Context(), s.caller)
	if err != nil {
		return nil, err
	}
	var mine []*parcelgate.Fault
	for _, f := range all {
		if f.OrgID == s.OrgID {
			mine = append(mine, f)
		}
	}
	return mine, nil
}

// createFault makes the picked tenant's API calls fail: the operator
// API's POST /admin/v1/faults for one organization. Every instance reads
// the stored faults again within httpapi.FaultRefresh.
func (c *Console) createFault(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxControl(w, r, s, parcelgate.ControlFault) {
		return
	}
	in := faultForm{Status: strings.TrimSpace(r.PostFormValue("status")), Probability: strings.TrimSpace(r.PostFormValue("probability")),
		Count: strings.TrimSpace(r.PostFormValue("count")), Route: strings.TrimSpace(r.PostFormValue("route")),
		Method: strings.TrimSpace(r.PostFormValue("method")), Errors: map[string]string{}}
	f := &parcelgate.Fault{Environment: s.Environment, BusinessID: s.BusinessID, Method: in.Method, Route: in.Route, Remaining: -1}
	if n, err := strconv.Atoi(in.Status); err != nil || !slices.Contains(parcelgate.FaultStatuses, n) {
		in.Errors["status"] = "Choose one of 429, 500, 502, 503 or 504."
	} else {
		f.Status = n
	}
	switch {
	case in.Probability != "" && in.Count != "":
		in.Errors["count"] = "Give a probability or a count, not both."
	case in.Probability != "":
		p, err := strconv.ParseFloat(in.Probability, 64)
		if err != nil || !(p > 0 && p <= 1) {
			in.Errors["probability"] = "Enter a number more than 0 and at most 1, such as 0.25."
		} else {
			f.Probability = p
		}
	case in.Count != "":
		n, err := strconv.ParseInt(in.Count, 10, 64)
		if err != nil || n < 1 || n > 1_000_000 {
			in.Errors["count"] = "Enter a whole number from 1 to 1000000."
		} else {
			f.Remaining = n
		}
	}
	if len(in.Errors) == 0 {
		err := c.faults.CreateFault(r.Context(), s.caller, f)
		if err == nil {
			http.Redirect(w, r, Prefix+"/?done=fault", http.StatusSeeOther)
			return
		}
		var pe *parcelgate.Error
		if !errors.As(err, &pe) || pe.Code != parcelgate.EINVALID {
			c.fail(w, r, s, err)
			return
		}
		for _, fe := range pe.Fields {
			in.Errors[fe.Field] = "This " + fe.Field + " " + fe.Message + "."
		}
		if len(in.Errors) == 0 {
			in.Errors["status"] = parcelgate.ErrorMessage(err)
		}
	}
	c.renderOverviewWith(w, r, s, http.StatusBadRequest, func(d *overviewData) { d.Fault = in })
}

// deleteFault removes one of the picked tenant's faults; another
// tenant's fault answers like a missing one.
func (c *Console) deleteFault(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxTenant(w, r, s) {
		return
	}
	fs, err := c.tenantFaults(r, s)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	id := r.PathValue("id")
	if !slices.ContainsFunc(fs, func(f *parcelgate.Fault) bool { return f.ID == id }) {
		c.fail(w, r, s, &parcelgate.Error{Code: parcelgate.ENOTFOUND, Message: "No such fault."})
		return
	}
	if err := c.faults.DeleteFault(r.Context(), s.caller, id); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=fault-deleted", http.StatusSeeOther)
}

// confirmed checks the typed confirmation of a reset or restore
// (ConfirmDangerous, decisions §23); without it the overview shows the
// refusal next to the form's confirm field, keyed by form, and nothing is
// changed.
func (c *Console) confirmed(w http.ResponseWriter, r *http.Request, s *session, form string) bool {
	err := parcelgate.ConfirmDangerous(s.BusinessID, r.PostFormValue("confirm"))
	if err == nil {
		return true
	}
	msg := "Type " + s.BusinessID + " to confirm; nothing was changed."
	c.renderOverviewWith(w, r, s, http.StatusBadRequest, func(d *overviewData) { d.ConfirmForm, d.ConfirmError = form, msg })
	return false
}

// demoSnapshot is the snapshot --demo takes of each demo organization as
// it seeds it (the demo package's SnapshotName).
const demoSnapshot = "demo"

// restoreDemo puts the picked tenant back to its seeded demo data: the
// snapshot --demo saved, restored as POST /admin/v1/demo/reset does for
// one organization.
func (c *Console) restoreDemo(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxControl(w, r, s, parcelgate.ControlRestore) || !c.confirmed(w, r, s, "demo") {
		return
	}
	if _, err := c.controls.RestoreSnapshot(r.Context(), s.caller, demoSnapshot); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/?done=demo", http.StatusSeeOther)
}

// jobWait is how long a control's page waits for its operator job before
// it shows the job's progress instead (decisions §54).
const jobWait = 3 * time.Second

// followJob waits for a reset, snapshot or restore the session started:
// done, back to the overview with the notice done; failed, its error;
// still running, to the jobs page, which follows its progress.
func (c *Console) followJob(w http.ResponseWriter, r *http.Request, s *session, job *parcelgate.Job, err error, done string) {
	if err == nil {
		job, err = c.controls.AwaitJob(r.Context(), s.caller, job.ID, jobWait)
	}
	if err == nil {
		err = job.Err()
	}
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if job.State == parcelgate.JobDone {
		http.Redirect(w, r, Prefix+"/?done="+done, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Prefix+"/jobs?done=job-started", http.StatusSeeOther)
}

// jobsData is the jobs page: the picked tenant's operator jobs.
type jobsData struct {
	Jobs    []*parcelgate.Job
	Running bool
}

// jobsPage lists the picked tenant's operator jobs, newest first, with
// their progress by table; it reloads itself while one runs.
func (c *Console) jobsPage(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxTenant(w, r, s) {
		return
	}
	jobs, err := c.controls.Jobs(r.Context(), s.caller)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d := &jobsData{Jobs: jobs}
	for _, j := range jobs {
		if !j.State.Finished() {
			d.Running = true
			w.Header().Set("Refresh", "2")
		}
	}
	c.renderView(w, r, http.StatusOK, "jobs", &view{Title: "Operator jobs", Session: s, Data: d})
}

// fenceExempt are the console's pages a session may use while its tenant
// is fenced (decisions §60): the jobs page and its cancel button, choosing
// another organization, signing out.
func fenceExempt(r *http.Request) bool {
	switch p := r.URL.Path; {
	case p == Prefix+"/jobs", p == Prefix+"/tenant", p == Prefix+"/sign-out":
		return true
	case strings.HasPrefix(p, Prefix+"/jobs/") && strings.HasSuffix(p, "/cancel"):
		return true
	}
	return false
}

// busyPage answers a page of a tenant that an operator job is resetting
// or restoring in batches (decisions §54, §60) as the API answers its
// calls: 503 with Retry-After, never the half-removed data. An operator's
// session is told how far the job is and where to follow (or cancel) it.
func (c *Console) busyPage(w http.ResponseWriter, r *http.Request, s *session) {
	msg := "The operator is resetting or restoring this organization's data; its pages come back when that is done."
	var link string
	if s.Operator() {
		if jobs, err := c.controls.Jobs(r.Context(), s.caller); err == nil {
			for _, j := range jobs {
				if j.State.Finished() {
					continue
				}
				var done, total int64
				for _, t := range j.Tables {
					done += t.Done
					if t.Total != nil {
						total += *t.Total
					}
				}
				pct := 0
				if total > 0 {
					pct = int(min(100, done*100/total))
				}
				msg = fmt.Sprintf("This organization is being %s by job %s: %d%% done (%d of %d rows). Its pages come back when the job ends.", jobVerb(j.Kind), j.ID, pct, done, total)
				link = Prefix + "/jobs#job-" + j.ID
				break
			}
		}
	}
	if r.Header.Get("Accept") == "text/event-stream" {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterBusy))
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterBusy))
	c.render(w, r, http.StatusServiceUnavailable, "error", s, http.StatusText(http.StatusServiceUnavailable),
		&errorData{Status: http.StatusServiceUnavailable, Message: msg, Link: link, LinkText: "Follow the job"})
}

// retryAfterBusy is the Retry-After of a fenced tenant's page, the API's.
const retryAfterBusy = 5

func jobVerb(k parcelgate.JobKind) string {
	if k == parcelgate.JobRestore {
		return "restored"
	}
	return "reset"
}

// cancelJob stops a job of the picked tenant: the operator API's DELETE
// /admin/v1/jobs/{id}. Another organization's job is 404.
func (c *Console) cancelJob(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.sandboxTenant(w, r, s) {
		return
	}
	if _, err := c.controls.CancelJob(r.Context(), s.caller, r.PathValue("id")); err != nil {
		c.fail(w, r, s, err)
		return
	}
	http.Redirect(w, r, Prefix+"/jobs", http.StatusSeeOther)
}
