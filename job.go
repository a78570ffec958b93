package parcelgate

import (
	"fmt"
	"time"
)

// An operator job is a reset, snapshot or restore that may outlast a
// request (decisions §54): its state is a row every instance reads, its
// work is done in batches of bounded size, each committed with the job's
// progress, and an instance that stops midway leaves it to another, which
// resumes it when its lease runs out. A tenant's job is seen and acted on
// only by an operator in the tenant's scope (another organization's or
// environment's job is a missing one).

// JobKind names what a job does.
type JobKind string

const (
	// JobReset empties one organization's data.
	JobReset JobKind = "reset"
	// JobResetEnvironment empties every organization of an environment.
	JobResetEnvironment JobKind = "reset-environment"
	// JobSnapshot saves one organization's data under a name.
	JobSnapshot JobKind = "snapshot"
	// JobRestore puts one organization's data back as a snapshot saved it.
	JobRestore JobKind = "restore"
)

// JobState is where a job is.
type JobState string

const (
	// JobQueued: accepted, no instance has taken it yet.
	JobQueued JobState = "queued"
	// JobRunning: an instance holds it (or held it, and another will take
	// it over when its lease runs out).
	JobRunning JobState = "running"
	// JobDone: finished; its result is set.
	JobDone JobState = "done"
	// JobFailed: stopped for an error, which it names. A failed reset or
	// restore leaves the tenant fenced no longer, with its data partly
	// removed (the batches done stay done): run it again.
	JobFailed JobState = "failed"
	// JobCancelled: stopped by the operator (ControlService.CancelJob).
	// Like a failed one, a cancelled reset or restore leaves the tenant
	// fenced no longer with the batches it did done: run it again to
	// finish (decisions §60).
	JobCancelled JobState = "cancelled"
)

// Finished reports whether the job will change no more.
func (s JobState) Finished() bool { return s == JobDone || s == JobFailed || s == JobCancelled }

// JobTable is a job's progress over one table: rows done of the total.
// Total is nil where it is not counted (an environment's reset).
type JobTable struct {
	Name  string `json:"name"`
	Done  int64  `json:"done"`
	Total *int64 `json:"total,omitempty"`
}

// Job is an operator job and its progress.
type Job struct {
	ID          string      `json:"id"`
	Kind        JobKind     `json:"kind"`
	Environment Environment `json:"environment"`
	// BusinessID is the organization's; empty for an environment's reset.
	BusinessID string   `json:"businessId,omitempty"`
	Snapshot   string   `json:"snapshot,omitempty"`
	Catalogs   bool     `json:"catalogs,omitempty"`
	State      JobState `json:"state"`
	// Phase is the part of the work under way: "count", "reset", "read",
	// "write", "finish".
	Phase string `json:"phase,omitempty"`
	// Fenced reports whether the tenant's (the environment's) API answers
	// 503 while the job runs: a reset or restore too big for one
	// transaction.
	Fenced bool `json:"fenced"`
	// Batches counts the transactions the job committed.
	Batches int64 `json:"batches"`
	// Tables is the progress by table, in the order the job takes them.
	Tables []JobTable `json:"tables"`
	// Organizations counts an environment reset's organizations done of
	// the total.
	Organizations *JobTable `json:"organizations,omitempty"`
	// Note tells the operator what a job that ended without finishing
	// left and what to do: "failed at table X, N rows done; run the reset
	// again to finish" (decisions §60).
	Note       string     `json:"note,omitempty"`
	ErrorCode  string     `json:"errorCode,omitempty"`
	Error      string     `json:"error,omitempty"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
	// The result of a finished job, by kind.
	Reset    *ResetResult   `json:"reset,omitempty"`
	Saved    *Snapshot      `json:"saved,omitempty"`
	Restored *RestoreResult `json:"restored,omitempty"`
}

// Err is the error a failed job ended with, nil otherwise.
func (j *Job) Err() error {
	if j.State != JobFailed {
		return nil
	}
	code := j.ErrorCode
	if code == "" {
		code = EINTERNAL
	}
	return &Error{Code: code, Message: j.Error}
}

// ValidJobID checks a job ID as the operator API takes it: 1-64 of
// A-Z a-z 0-9 and '-'.
func ValidJobID(id string) error {
	ok := len(id) > 0 && len(id) <= 64
	for _, r := range id {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return &Error{Code: EINVALID, Message: fmt.Sprintf("Job ID %q is not valid.", id),
			Fields: []FieldError{{Field: "id", Message: "must be 1-64 characters of A-Z, a-z, 0-9 and '-'"}}}
	}
	return nil
}
