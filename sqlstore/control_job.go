package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// Operator jobs (decisions §54). A reset, snapshot or restore is a row of
// operator_jobs and a step machine over it: each step is one batch of
// bounded size, run in a write transaction that also writes the job's
// progress and extends its holder's lease, conditioned on the holder still
// being this instance. A batch is therefore done exactly once: its rows
// and the progress that says it is done commit together. An instance that
// stops midway leaves the row as its last batch left it; when the lease
// runs out any instance's RunJobs takes it over and continues from there.
//
// A tenant small enough (JobLimits.SmallRows) is reset or restored in one
// transaction, as before jobs: nothing partial can be seen, so nothing is
// fenced. A bigger one is fenced first: every instance's API answers the
// tenant 503 (TenantBusy) until the job ends, and the first destructive
// batch waits until every instance has had time to see the fence.

// JobLimits tune the operator jobs. The zero value of a field is its
// default.
type JobLimits struct {
	// BatchRows is a job's first batch: keys deleted or retired per
	// transaction, rows written per transaction; and the rows of a
	// snapshot chunk (default 1000).
	BatchRows int
	// MaxBatchRows bounds a batch as it grows (see BatchTarget): memory
	// stays flat whatever the tenant's size (default 20000; BatchRows when
	// only BatchRows is set, so a test's batches keep the size it chose).
	MaxBatchRows int
	// BatchTarget is how long a batch's transaction should take: a batch
	// that commits well within it makes the next bigger, one slower than
	// it the next smaller (default 150 ms; decisions §60). It is also
	// what another tenant's write waits for at most on SQLite's one
	// writer.
	BatchTarget time.Duration
	// SmallRows: a tenant with at most this many rows to remove and write
	// is reset or restored in one transaction, unfenced (default 20000; -1:
	// never).
	SmallRows int
	// Lease is how long a job's holder may be silent before another
	// instance takes the job over (default 15 s). The holder extends it at
	// every batch and every Lease/3.
	Lease time.Duration
	// FenceRefresh is how often an instance reads the fenced tenants
	// (default 1 s); a fenced job waits twice that before its first
	// destructive batch.
	FenceRefresh time.Duration
	// StopAfter, for tests, makes the runner stop a job after that many
	// committed batches as if its instance had died (lease kept, nothing
	// marked).
	StopAfter int64
	// FailAfter, for tests, makes the batch after that many committed
	// ones fail (rolled back) as a database error would.
	FailAfter int64
	// BatchTimeout bounds one batch's transaction, waiting for the writer
	// included (default twice the database deadline, at least 10 s). A
	// batch past it is rolled back and tried again smaller.
	BatchTimeout time.Duration
	// LateOver, for tests, makes every batch of more than that many keys
	// run past its BatchTimeout, as a batch sized on cheap rows that
	// meets costly ones does on a loaded machine.
	LateOver int
}

func (l JobLimits) batchTimeout(db time.Duration) time.Duration {
	if l.BatchTimeout > 0 {
		return l.BatchTimeout
	}
	return max(db, 5*time.Second) * 2
}

func (l JobLimits) batchRows() int {
	if l.BatchRows > 0 {
		return l.BatchRows
	}
	return 1000
}

func (l JobLimits) maxBatchRows() int {
	switch {
	case l.MaxBatchRows > 0:
		return max(l.MaxBatchRows, l.batchRows())
	case l.BatchRows > 0:
		return l.BatchRows
	}
	return 20000
}

func (l JobLimits) batchTarget() time.Duration {
	if l.BatchTarget > 0 {
		return l.BatchTarget
	}
	return 150 * time.Millisecond
}

// minBatchRows is as small as a batch shrinks: a tenth of the first one.
func (l JobLimits) minBatchRows() int { return max(1, l.batchRows()/10) }

// nextBatchRows sizes the batch after one of n keys that took d (decisions
// §60): twice as big while a batch takes under half the target, a quarter
// bigger under the target, in proportion smaller past it; within
// [minBatchRows, maxBatchRows].
func (l JobLimits) nextBatchRows(n int, d time.Duration) int {
	target := l.batchTarget()
	switch {
	case d < target/2:
		n *= 2
	case d <= target:
		n += max(1, n/4)
	default:
		n = int(int64(n) * int64(target) / int64(d))
	}
	return min(max(n, l.minBatchRows()), l.maxBatchRows())
}

func (l JobLimits) smallRows() int64 {
	switch {
	case l.SmallRows < 0:
		return -1
	case l.SmallRows > 0:
		return int64(l.SmallRows)
	}
	return 20000
}

func (l JobLimits) lease() time.Duration {
	if l.Lease > 0 {
		return l.Lease
	}
	return 15 * time.Second
}

func (l JobLimits) fenceRefresh() time.Duration {
	if l.FenceRefresh > 0 {
		return l.FenceRefresh
	}
	return time.Second
}

// SetJobLimits sets the limits of the jobs this store runs from now on.
func (db *DB) SetJobLimits(l JobLimits) { db.jobs().limits.Store(&l) }

// jobRunner is a store's share of the operator jobs: the jobs it runs, the
// fenced tenants it last read, and its instance's name as a job holder.
type jobRunner struct {
	db     *DB
	owner  string
	limits atomic.Pointer[JobLimits]

	ctx    context.Context // ends at DB.Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	running map[string]chan struct{}      // closed when the local run ends
	stop    map[string]context.CancelFunc // ends a local run (CancelJob)
	local   map[fenceKey]int              // tenants fenced by jobs running here

	fences atomic.Pointer[fenceSet]
	fmu    sync.Mutex // one refresh at a time
	// rewritten is the newest stamp of a reset or restore job the last
	// refresh read (under fmu; -1 before the first), which moves the page
	// boundaries' epoch when it changes (decisions §73).
	rewritten int64
}

type fenceKey struct {
	env parcelgate.Environment
	org int64 // 0: the environment
}

type fenceSet struct {
	at   time.Time
	keys map[fenceKey]bool
}

func (db *DB) jobs() *jobRunner {
	db.jobsOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		db.jobRun = &jobRunner{db: db, owner: fmt.Sprintf("i-%012x", rand.Uint64()>>16), ctx: ctx, cancel: cancel,
			running: map[string]chan struct{}{}, stop: map[string]context.CancelFunc{}, local: map[fenceKey]int{}, rewritten: -1}
		db.jobRun.limits.Store(&JobLimits{})
	})
	return db.jobRun
}

// stopJobs ends the jobs running here and waits for them (DB.Close): they
// keep their lease, and another instance resumes them.
func (db *DB) stopJobs() {
	if db.jobRun != nil {
		db.jobRun.cancel()
		db.jobRun.wg.Wait()
	}
}

func (jr *jobRunner) lim() JobLimits { return *jr.limits.Load() }

// errLeaseLost: another instance holds the job now; this one stops.
var errLeaseLost = errors.New("operator job: lease lost")

// errStopped: the test hook StopAfter, an instance dying midway.
var errStopped = errors.New("operator job: stopped (test)")

// jobProgress is a job's resumable state, kept as JSON in its row.
type jobProgress struct {
	Phase string `json:"phase"`
	Step  int    `json:"step"`
	// Cursor and CursorText are the last key the step's batches took
	// (resetPickSQL).
	Cursor     int64  `json:"cursor,omitempty"`
	CursorText string `json:"cursorText,omitempty"`
	// Chunk is the next snapshot chunk a restore writes of table Step.
	Chunk int `json:"chunk,omitempty"`
	// Org is the organization an environment reset is resetting (0: the
	// next after OrgAfter).
	Org      int64 `json:"org,omitempty"`
	OrgAfter int64 `json:"orgAfter,omitempty"`
	Small    bool  `json:"small,omitempty"`
	Fenced   bool  `json:"fenced,omitempty"`
	FencedAt int64 `json:"fencedAt,omitempty"`
	Batches  int64 `json:"batches"`
	// SnapshotID is the snapshot a restore reads, or the one a snapshot
	// job writes.
	SnapshotID int64 `json:"snapshotId,omitempty"`
	Stamp      int64 `json:"stamp,omitempty"`
	// Removed is the reset's progress (a restore's first phase); Tables
	// the rows saved (snapshot) or written (restore).
	Removed []parcelgate.JobTable `json:"removed,omitempty"`
	Tables  []parcelgate.JobTable `json:"tables,omitempty"`
	Orgs    *parcelgate.JobTable  `json:"orgs,omitempty"`
	Skipped map[string]int64      `json:"skipped,omitempty"`
}

func (p *jobProgress) clone() *jobProgress {
	b, _ := json.Marshal(p)
	var c jobProgress
	_ = json.Unmarshal(b, &c)
	return &c
}

func addDone(ts []parcelgate.JobTable, name string, n int64) []parcelgate.JobTable {
	for i := range ts {
		if ts[i].Name == name {
			ts[i].Done += n
			return ts
		}
	}
	return append(ts, parcelgate.JobTable{Name: name, Done: n})
}

// jobRow is an operator_jobs row.
type jobRow struct {
	ID, Kind, Env        string
	OrgID                int64
	BusinessID, Snapshot string
	Catalogs             bool
	State                string
	Fenced               bool
	Progress             jobProgress
	Result               string
	ErrorCode, Error     string
	CreatedAt, UpdatedAt int64
	FinishedAt           int64
}

const jobColumns = `id, kind, environment, org_id, business_id, snapshot, catalogs, state, fenced, progress, result, error_code, error, created_at, updated_at, finished_at`

func scanJob(s rowScanner) (*jobRow, error) {
	var j jobRow
	var catalogs, fenced int64
	var progress string
	if err := s.Scan(&j.ID, &j.Kind, &j.Env, &j.OrgID, &j.BusinessID, &j.Snapshot, &catalogs, &j.State, &fenced, &progress, &j.Result,
		&j.ErrorCode, &j.Error, &j.CreatedAt, &j.UpdatedAt, &j.FinishedAt); err != nil {
		return nil, err
	}
	j.Catalogs, j.Fenced = catalogs == 1, fenced == 1
	if progress != "" {
		if err := json.Unmarshal([]byte(progress), &j.Progress); err != nil {
			return nil, fmt.Errorf("job %s: progress: %w", j.ID, err)
		}
	}
	return &j, nil
}

// job is the row as the root's Job.
func (j *jobRow) job() *parcelgate.Job {
	p := j.Progress
	out := &parcelgate.Job{ID: j.ID, Kind: parcelgate.JobKind(j.Kind), Environment: parcelgate.Environment(j.Env), BusinessID: j.BusinessID,
		Snapshot: j.Snapshot, Catalogs: j.Catalogs, State: parcelgate.JobState(j.State), Phase: p.Phase, Fenced: j.Fenced, Batches: p.Batches,
		Organizations: p.Orgs, ErrorCode: j.ErrorCode, Error: j.Error, CreatedAt: fromMicros(j.CreatedAt), UpdatedAt: fromMicros(j.UpdatedAt)}
	out.Tables = append(append([]parcelgate.JobTable{}, p.Removed...), p.Tables...)
	if j.Kind == string(parcelgate.JobRestore) {
		// A restore's two phases name the same tables: the reset's are
		// shown as removals.
		// Never null on the wire (openapi: an array), even before the
		// job has counted its tables.
		out.Tables = []parcelgate.JobTable{}
		for _, t := range p.Removed {
			t.Name = "-" + t.Name
			out.Tables = append(out.Tables, t)
		}
		out.Tables = append(out.Tables, p.Tables...)
	}
	if j.FinishedAt != 0 {
		t := fromMicros(j.FinishedAt)
		out.FinishedAt = &t
	}
	out.Note = j.note()
	if j.State == string(parcelgate.JobDone) && j.Result != "" {
		switch parcelgate.JobKind(j.Kind) {
		case parcelgate.JobReset, parcelgate.JobResetEnvironment:
			out.Reset = new(parcelgate.ResetResult)
			_ = json.Unmarshal([]byte(j.Result), out.Reset)
		case parcelgate.JobSnapshot:
			out.Saved = new(parcelgate.Snapshot)
			_ = json.Unmarshal([]byte(j.Result), out.Saved)
		case parcelgate.JobRestore:
			out.Restored = new(parcelgate.RestoreResult)
			_ = json.Unmarshal([]byte(j.Result), out.Restored)
		}
	}
	return out
}

// resetStepTables names the table each reset step works on (the job's
// progress says the step).
var resetStepTables = []string{"supplier_shipments", "orders", "codes", "tracking_moves", "parcels", "shipments", "balances", "products", "catalog_balances", "catalogs"}

// note is what the operator is told of a job that ended without
// finishing: where it stopped, what is done, what to do (decisions §60).
func (j *jobRow) note() string {
	var how string
	switch parcelgate.JobState(j.State) {
	case parcelgate.JobFailed:
		how = "Failed"
	case parcelgate.JobCancelled:
		how = "Cancelled"
	default:
		return ""
	}
	p := j.Progress
	if j.Kind == string(parcelgate.JobSnapshot) {
		return how + " before the snapshot was saved: nothing was changed (a snapshot of that name, if any, is as it was). Take the snapshot again."
	}
	if p.Phase == "" || p.Small {
		return how + " before any batch: nothing was changed."
	}
	table := ""
	switch {
	case p.Phase == "write" && p.Step < len(tenantTables):
		table = tenantTables[p.Step].name + " (writing the saved rows)"
	case p.Phase == "finish":
		table = "the stock held on other organizations' balances"
	case p.Step < len(resetStepTables):
		table = resetStepTables[p.Step] + " (removing)"
	}
	var rows int64
	for _, t := range append(append([]parcelgate.JobTable{}, p.Removed...), p.Tables...) {
		rows += t.Done
	}
	what := "reset"
	switch parcelgate.JobKind(j.Kind) {
	case parcelgate.JobRestore:
		what = "restore of snapshot " + strconv.Quote(j.Snapshot)
	case parcelgate.JobResetEnvironment:
		what = "environment's reset"
	}
	at := ""
	if table != "" {
		at = " at table " + table
	}
	return fmt.Sprintf("%s%s after %d batches, %d rows done. The batches done stay done and the tenant is no longer fenced; its data is partly reset. Run the %s again to finish.",
		how, at, p.Batches, rows, what)
}

func nowMicros() int64 { return time.Now().UnixMicro() }

// startJob stores a new job held by this instance and starts it here. One
// open job per tenant: an organization's job waits for none, and is
// refused (ECONFLICT) while another job of the organization, or a reset
// of its environment, is open; an environment's reset likewise while any
// job of the environment is open.
func (s *ControlService) startJob(ctx context.Context, j *jobRow) (*parcelgate.Job, error) {
	jr := s.db.jobs()
	// Not crypto/rand: a job ID needs to be unique, not secret, and the
	// golden answers fix crypto/rand's stream (every other ID drawn from
	// it would move).
	j.ID = fmt.Sprintf("J%016x", rand.Uint64())
	j.State = string(parcelgate.JobRunning)
	now := nowMicros()
	j.CreatedAt, j.UpdatedAt = now, now
	progress, _ := json.Marshal(j.Progress)
	err := s.db.inTx(ctx, func(tx *Tx) error {
		var busy string
		err := tx.QueryRow(ctx, `SELECT id FROM operator_jobs WHERE environment = ? AND state IN ('queued', 'running') AND (org_id = ? OR org_id = 0 OR ? = 0) LIMIT 1`,
			j.Env, j.OrgID, j.OrgID).Scan(&busy)
		if err == nil {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Job %s is still running on this tenant; wait for it (GET /admin/v1/jobs/%s).", busy, busy)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Finished jobs are kept a week.
		if _, err := tx.Exec(ctx, `DELETE FROM operator_jobs WHERE environment = ? AND org_id = ? AND finished_at <> 0 AND finished_at < ?`,
			j.Env, j.OrgID, now-int64(7*24*time.Hour/time.Microsecond)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO operator_jobs (id, kind, environment, org_id, business_id, snapshot, catalogs, state, progress, owner, lease_until, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			j.ID, j.Kind, j.Env, j.OrgID, j.BusinessID, j.Snapshot, boolInt(j.Catalogs), j.State, string(progress), jr.owner, now+jr.lim().lease().Microseconds(), now, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	jr.launch(j.ID)
	return j.job(), nil
}

// launch runs the job (held by this instance) in the background.
func (jr *jobRunner) launch(id string) {
	done := make(chan struct{})
	jr.mu.Lock()
	jr.running[id] = done
	jr.mu.Unlock()
	jr.wg.Add(1)
	go func() {
		defer jr.wg.Done()
		defer func() {
			jr.mu.Lock()
			delete(jr.running, id)
			jr.mu.Unlock()
			close(done)
		}()
		jr.run(id)
	}()
}

// RunJobs takes over the jobs whose holder went silent (its lease ran
// out) and runs them, until ctx ends. serve runs it on every instance.
// It sleeps until the first lease held by another instance runs out, and
// looks at least every poll for jobs started elsewhere since (decisions
// §70): with a poll shorter than a lease, a job whose holder stopped is
// taken over as its lease ends, and an idle server asks nothing more
// often than every poll.
func (db *DB) RunJobs(ctx context.Context, poll time.Duration) {
	for {
		for {
			ok, err := db.ResumeJob(ctx)
			if err != nil || !ok {
				break
			}
		}
		wait := poll
		var end sql.NullInt64
		if err := db.queryRow(ctx, `SELECT MIN(lease_until) FROM operator_jobs WHERE state IN ('queued', 'running') AND owner <> ?`, db.jobs().owner).Scan(&end); err == nil && end.Valid {
			// Just past the lease's end, and never a busy loop over a
			// lease that another instance renews as it runs out.
			wait = min(wait, max(time.Until(time.UnixMicro(end.Int64)), 0)+jobLeaseSlack)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// jobLeaseSlack is how long after a lease's end RunJobs looks.
const jobLeaseSlack = 100 * time.Millisecond

// ResumeJob takes over one job whose lease ran out and starts it here;
// false when there is none.
func (db *DB) ResumeJob(ctx context.Context) (bool, error) {
	jr := db.jobs()
	now := nowMicros()
	ids, err := scanColumn[string](db.query(ctx, `SELECT id FROM operator_jobs WHERE state IN ('queued', 'running') AND lease_until < ? ORDER BY created_at LIMIT 1`, now))
	if err != nil || len(ids) == 0 {
		return false, err
	}
	n, err := rowsAffected(db.exec(ctx, `UPDATE operator_jobs SET owner = ?, lease_until = ?, state = 'running' WHERE id = ? AND state IN ('queued', 'running') AND lease_until < ?`,
		jr.owner, now+jr.lim().lease().Microseconds(), ids[0], now))
	if err != nil || n == 0 {
		return n == 0 && err == nil, err
	}
	jr.launch(ids[0])
	return true, nil
}

// jobRun is one run of a job on this instance.
type jobRun struct {
	jr  *jobRunner
	row *jobRow
	p   *jobProgress
	lim JobLimits
	// fencedHere: this run holds its instance's fence of the tenant.
	fencedHere bool
	// size is the keys (rows) the next batch takes: sized by time
	// (JobLimits.nextBatchRows).
	size int
	// stamps: one change stamp per transaction (stampOf)
	stampTx *Tx
	stamp   time.Time
}

// run runs the job until it ends, fails, or this instance loses it.
func (jr *jobRunner) run(id string) {
	ctx, cancel := context.WithCancel(jr.ctx)
	defer cancel()
	jr.mu.Lock()
	jr.stop[id] = cancel
	jr.mu.Unlock()
	defer func() {
		jr.mu.Lock()
		delete(jr.stop, id)
		jr.mu.Unlock()
	}()
	row, err := scanJob(jr.db.queryRow(ctx, `SELECT `+jobColumns+` FROM operator_jobs WHERE id = ?`, id))
	if err != nil {
		return
	}
	r := &jobRun{jr: jr, row: row, p: &row.Progress, lim: jr.lim()}
	r.size = r.lim.batchRows()
	// The heartbeat: the lease is extended while the job runs, also through
	// a long read; losing it stops the run.
	go func() {
		t := time.NewTicker(r.lim.lease() / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				n, err := rowsAffected(jr.db.exec(ctx, `UPDATE operator_jobs SET lease_until = ? WHERE id = ? AND owner = ? AND state = 'running'`,
					nowMicros()+r.lim.lease().Microseconds(), id, jr.owner))
				if err == nil && n == 0 {
					cancel()
					return
				}
			}
		}
	}()
	if r.p.Fenced {
		jr.fenceLocal(r.fenceKey(), 1)
		r.fencedHere = true
	}
	switch parcelgate.JobKind(row.Kind) {
	case parcelgate.JobSnapshot:
		err = r.snapshot(ctx)
	default:
		err = r.steps(ctx)
	}
	// This instance's fence goes as soon as the work ends, before the job
	// is marked failed: whoever sees it ended finds the tenant served.
	if r.fencedHere {
		jr.fenceLocal(r.fenceKey(), -1)
		r.fencedHere = false
		// The fenced tenants this instance last read may still hold it:
		// read them again at the next request, as CancelJob does.
		jr.fences.Store(nil)
	}
	if ctx.Err() != nil && jr.ctx.Err() == nil {
		// Ended here by CancelJob, or by the heartbeat finding the job no
		// longer this instance's: as a lost lease.
		err = errLeaseLost
	}
	if errors.Is(err, errLeaseLost) && row.Kind == string(parcelgate.JobSnapshot) && r.p.SnapshotID != 0 {
		// Cancelled (CancelJob), not taken over: its unfinished snapshot
		// goes. (One taken over is purged by the job that took it.)
		var state string
		if jr.db.queryRow(context.WithoutCancel(ctx), `SELECT state FROM operator_jobs WHERE id = ?`, id).Scan(&state) == nil && state == string(parcelgate.JobCancelled) {
			purgeSnapshot(context.WithoutCancel(ctx), jr.db, r.p.SnapshotID)
		}
		return
	}
	if err == nil || errors.Is(err, errLeaseLost) || errors.Is(err, errStopped) || jr.ctx.Err() != nil {
		return
	}
	// The job failed: it is marked so, unfenced, with its error; the
	// batches done stay done.
	code, msg := parcelgate.ErrorCode(err), parcelgate.ErrorMessage(err)
	if _, ok := errors.AsType[*parcelgate.Error](err); !ok {
		// An internal error is kept whole for the operator, who alone
		// reads jobs and must know what to fix before running it again
		// (decisions §62: "Internal error." was all the environment's
		// failed reset said).
		msg = "Internal error: " + err.Error()
	}
	jr.db.exec(context.WithoutCancel(ctx), `UPDATE operator_jobs SET state = 'failed', fenced = 0, error_code = ?, error = ?, updated_at = ?, finished_at = ? WHERE id = ? AND owner = ? AND state = 'running'`,
		code, msg, nowMicros(), nowMicros(), id, jr.owner)
	if row.Kind == string(parcelgate.JobSnapshot) && r.p.SnapshotID != 0 {
		purgeSnapshot(context.WithoutCancel(ctx), jr.db, r.p.SnapshotID)
	}
}

// errInjected is the test hook FailAfter's failure.
var errInjected = errors.New("operator job: batch failed (test)")

func (r *jobRun) fenceKey() fenceKey {
	return fenceKey{env: parcelgate.Environment(r.row.Env), org: r.row.OrgID}
}

// batch runs fn in one write transaction with the job's progress: fn
// works on a copy of the progress, which is written with its rows and
// kept only when they commit. finish, when fn says the job is done, ends
// the job in the same transaction with result.
func (r *jobRun) batch(ctx context.Context, fn func(tx *Tx, p *jobProgress) (done bool, result any, err error)) (bool, error) {
	for {
		done, late, err := r.tryBatch(ctx, fn)
		if !late || r.size <= r.lim.minBatchRows() {
			return done, err
		}
		// Past its own deadline (a batch sized on cheap keys meeting
		// costly ones, a loaded machine): rolled back, nothing of it
		// done, so it is tried again a quarter of the size (decisions
		// §62) rather than failing the job. At the smallest size it fails.
		r.size = max(r.lim.minBatchRows(), r.size/4)
	}
}

// tryBatch is one attempt of batch; late reports that it failed because
// it ran past its own deadline (the job's context still alive).
func (r *jobRun) tryBatch(ctx context.Context, fn func(tx *Tx, p *jobProgress) (done bool, result any, err error)) (done, late bool, err error) {
	var next *jobProgress
	bctx, cancel := context.WithTimeout(context.WithValue(ctx, relaxedCommitKey{}, true), r.lim.batchTimeout(r.jr.db.timeout))
	defer cancel()
	start := time.Now()
	err = r.jr.db.inTx(bctx, func(tx *Tx) error {
		r.stampTx = nil
		// A reset's or restore's batch rewrites the tenant's rows: its
		// commit moves the page boundaries' epoch here (decisions §73).
		// A snapshot's writes its chunks alone.
		tx.rewrites = r.row.Kind != string(parcelgate.JobSnapshot)
		next = r.p.clone()
		if r.lim.LateOver > 0 && r.size > r.lim.LateOver {
			// The test hook: a batch this big runs past its deadline.
			<-bctx.Done()
			return bctx.Err()
		}
		var result any
		var err error
		done, result, err = fn(tx, next)
		if err != nil {
			return err
		}
		if r.lim.FailAfter > 0 && r.p.Batches >= r.lim.FailAfter && !done {
			return errInjected
		}
		next.Batches++
		return r.save(bctx, tx, next, done, result)
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, false, ctx.Err()
		}
		return false, bctx.Err() != nil, err
	}
	r.size = r.lim.nextBatchRows(r.size, time.Since(start))
	r.p = next
	if r.lim.StopAfter > 0 && r.p.Batches >= r.lim.StopAfter && !done {
		return false, false, errStopped
	}
	return done, false, nil
}

// save writes the job's progress (and, done, its end and result) if this
// instance still holds it.
func (r *jobRun) save(ctx context.Context, tx *Tx, p *jobProgress, done bool, result any) error {
	progress, err := json.Marshal(p)
	if err != nil {
		return err
	}
	now := nowMicros()
	var n int64
	if done {
		res, err := json.Marshal(result)
		if err != nil {
			return err
		}
		p.Phase = "done"
		progress, _ = json.Marshal(p)
		n, err = rowsAffected(tx.Exec(ctx, `UPDATE operator_jobs SET state = 'done', fenced = 0, progress = ?, result = ?, updated_at = ?, finished_at = ?, lease_until = 0 WHERE id = ? AND owner = ? AND state = 'running'`,
			string(progress), string(res), now, now, r.row.ID, r.jr.owner))
		if err != nil {
			return err
		}
	} else {
		n, err = rowsAffected(tx.Exec(ctx, `UPDATE operator_jobs SET progress = ?, fenced = ?, updated_at = ?, lease_until = ? WHERE id = ? AND owner = ? AND state = 'running'`,
			string(progress), boolInt(p.Fenced), now, now+r.lim.lease().Microseconds(), r.row.ID, r.jr.owner))
		if err != nil {
			return err
		}
	}
	if n == 0 {
		return errLeaseLost
	}
	return nil
}

// stampOf is the change stamp of tx: taken once per transaction, so a
// batch's rows share one and a later batch's are later (a poller between
// two batches never misses the second).
func (r *jobRun) stampOf(ctx context.Context, tx *Tx) (time.Time, error) {
	if r.stampTx == tx {
		return r.stamp, nil
	}
	st, err := nextStamp(ctx, tx, parcelgate.Environment(r.row.Env))
	if err != nil {
		return time.Time{}, err
	}
	r.stampTx, r.stamp = tx, st
	return st, nil
}

// fence marks the job's tenant fenced (committed with the progress) and
// waits until every instance has read it, so that no instance serves the
// tenant while its data is half-removed.
func (r *jobRun) fence(ctx context.Context) error {
	if r.p.Fenced {
		// Resumed: fenced since the first holder, whose lease ran out
		// since, longer ago than any instance's refresh.
		return nil
	}
	if _, err := r.batch(ctx, func(tx *Tx, p *jobProgress) (bool, any, error) {
		p.Fenced, p.FencedAt = true, nowMicros()
		return false, nil, nil
	}); err != nil {
		return err
	}
	r.jr.fenceLocal(r.fenceKey(), 1)
	r.fencedHere = true
	select {
	case <-time.After(2 * r.lim.fenceRefresh()):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (jr *jobRunner) fenceLocal(k fenceKey, d int) {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	jr.local[k] += d
	if jr.local[k] <= 0 {
		delete(jr.local, k)
	}
}

// TenantBusy reports whether a fenced job is under way on the organization
// orgID of env, or on env. It reads the fenced tenants at most every
// FenceRefresh (one statement over a handful of rows by a partial index);
// between reads it costs a map lookup. A read that fails keeps the last
// set.
func (s *ControlService) TenantBusy(ctx context.Context, env parcelgate.Environment, orgID int64) bool {
	jr := s.db.jobs()
	jr.mu.Lock()
	local := jr.local[fenceKey{env, orgID}] > 0 || jr.local[fenceKey{env, 0}] > 0
	jr.mu.Unlock()
	if local {
		return true
	}
	set := jr.fences.Load()
	if set == nil || time.Since(set.at) > jr.lim().fenceRefresh() {
		set = jr.refreshFences(ctx)
	}
	return set != nil && (set.keys[fenceKey{env, orgID}] || set.keys[fenceKey{env, 0}])
}

func (jr *jobRunner) refreshFences(ctx context.Context) *fenceSet {
	if last := jr.fences.Load(); last != nil {
		// Another request is reading them: this one takes the last set
		// rather than wait.
		if !jr.fmu.TryLock() {
			return last
		}
	} else {
		jr.fmu.Lock()
	}
	defer jr.fmu.Unlock()
	if set := jr.fences.Load(); set != nil && time.Since(set.at) <= jr.lim().fenceRefresh() {
		return set
	}
	set := &fenceSet{at: time.Now(), keys: map[fenceKey]bool{}}
	rows, err := jr.db.query(ctx, `SELECT environment, org_id FROM operator_jobs WHERE state IN ('queued', 'running') AND fenced = 1`)
	if err != nil {
		return jr.fences.Load()
	}
	defer rows.Close()
	for rows.Next() {
		var k fenceKey
		if err := rows.Scan(&k.env, &k.org); err != nil {
			return jr.fences.Load()
		}
		set.keys[k] = true
	}
	if rows.Err() != nil {
		return jr.fences.Load()
	}
	jr.fences.Store(set)
	jr.seeRewrites(ctx)
	return set
}

// seeRewrites moves the page boundaries' epoch when a reset or restore
// has stamped its job since the last refresh (decisions §73): every batch
// of one stamps its job row in the batch's own transaction (jobRun.save),
// so a stamp read here means the batch has committed, wherever it ran,
// and every page read that takes the epoch after the move has a snapshot
// that holds it. This instance's own batches moved it as they committed
// (Tx.rewrites); another instance's are seen within FenceRefresh, read
// with the fences before a tenant's request. Any change of the stamp
// counts, not only a later one: an instance's clock may be behind
// another's. One probe of operator_jobs_updated. With replicas, the
// probe also reads the primary's WAL insert position: read after the
// statement's snapshot, which holds the commit whose stamp it sees, it is
// at or after that commit (reads on a replica, reader.mayShowBeforeMove).
func (jr *jobRunner) seeRewrites(ctx context.Context) {
	var stamp int64
	var pos sql.NullString
	var err error
	if jr.db.replicas != nil {
		// One row even with no job (the first refresh moves too).
		var s sql.NullInt64
		err = jr.db.queryRow(ctx, `SELECT (SELECT updated_at FROM operator_jobs WHERE kind <> 'snapshot' ORDER BY updated_at DESC LIMIT 1), pg_current_wal_insert_lsn()::text`).Scan(&s, &pos)
		stamp = s.Int64
	} else {
		err = jr.db.queryRow(ctx, `SELECT updated_at FROM operator_jobs WHERE kind <> 'snapshot' ORDER BY updated_at DESC LIMIT 1`).Scan(&stamp)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		stamp = 0
	case err != nil:
		return
	}
	if stamp != jr.rewritten {
		jr.rewritten = stamp
		at := fastpath.NoPosition // no replicas: no reader needs it
		if lsn, ok := parseLSN(pos.String); ok && pos.Valid {
			at = lsn
		}
		jr.db.pages.Moved(at)
	}
}

// jobScope is the condition on operator_jobs of c's scope.
func jobScope(c *parcelgate.Caller) (string, []any) {
	switch c.Scope {
	case parcelgate.ScopeOrganization:
		return `environment = ? AND org_id = ?`, []any{string(c.Environment), c.OrgID}
	case parcelgate.ScopeAll:
		return `1 = 1`, nil
	}
	return `environment = ?`, []any{string(c.Environment)}
}

// loadJob reads a job of c's scope; ENOTFOUND outside it.
func (s *ControlService) loadJob(ctx context.Context, c *parcelgate.Caller, id string) (*jobRow, error) {
	if err := parcelgate.ValidJobID(id); err != nil {
		return nil, err
	}
	scope, args := jobScope(c)
	j, err := scanJob(s.db.queryRow(ctx, `SELECT `+jobColumns+` FROM operator_jobs WHERE id = ? AND `+scope, append([]any{id}, args...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "No job %s.", id)
	}
	return j, err
}

// AwaitJob waits up to d (until ctx ends when d is 0) for job id of c's
// scope to end, and returns it as it is then.
func (s *ControlService) AwaitJob(ctx context.Context, c *parcelgate.Caller, id string, d time.Duration) (*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	var deadline <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		deadline = t.C
	}
	jr := s.db.jobs()
	for {
		j, err := s.loadJob(ctx, c, id)
		if err != nil {
			return nil, err
		}
		jr.mu.Lock()
		done := jr.running[id]
		jr.mu.Unlock()
		if parcelgate.JobState(j.State).Finished() {
			// Its last batch committed the end; the run here lifts its
			// fence just after. Whoever sees it ended finds the tenant
			// served (decisions §54), so an ended job still leaving this
			// instance is waited for (microseconds).
			if done != nil {
				select {
				case <-done:
				case <-ctx.Done():
				}
			}
			return j.job(), nil
		}
		wake := time.After(200 * time.Millisecond)
		if done != nil {
			// Running here: woken as it ends (the poll covers a lease
			// taken over by another instance).
			wake = time.After(time.Second)
		}
		select {
		case <-done:
		case <-wake:
		case <-deadline:
			return j.job(), nil
		case <-ctx.Done():
			return j.job(), nil
		}
	}
}

// CancelJob stops a job of c's scope that has not ended (ENOTFOUND
// outside the scope, ECONFLICT once ended): it is marked cancelled and
// unfenced at once, for every instance; its holder's batch under way
// cannot commit (every batch is conditioned on the job running) and is
// rolled back, so the batches done are exactly those its progress counts.
// A cancelled snapshot's chunks are purged; a cancelled reset or restore
// leaves the tenant partly reset (decisions §60): running it again
// finishes it.
func (s *ControlService) CancelJob(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	j, err := s.loadJob(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if parcelgate.JobState(j.State).Finished() {
		return nil, parcelgate.Errorf(parcelgate.ECONFLICT, "Job %s has ended (%s); there is nothing to cancel.", id, j.State)
	}
	now := nowMicros()
	n, err := rowsAffected(s.db.exec(ctx, `UPDATE operator_jobs SET state = 'cancelled', fenced = 0, error_code = '', error = 'Cancelled by the operator.', updated_at = ?, finished_at = ?, lease_until = 0
		WHERE id = ? AND state IN ('queued', 'running')`, now, now, id))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// It ended meanwhile.
		return nil, parcelgate.Errorf(parcelgate.ECONFLICT, "Job %s has ended; there is nothing to cancel.", id)
	}
	jr := s.db.jobs()
	jr.mu.Lock()
	stop, done := jr.stop[id], jr.running[id]
	jr.mu.Unlock()
	if stop != nil {
		// Running here: stopped now rather than at its next batch, and
		// waited for, so that what it left is what the answer shows.
		stop()
		select {
		case <-done:
		case <-ctx.Done():
		}
	}
	// The fence is gone for this instance at once (others within their
	// refresh).
	jr.fences.Store(nil)
	j, err = s.loadJob(ctx, c, id)
	if err != nil {
		return nil, err
	}
	return j.job(), nil
}

// Jobs lists the newest jobs of c's scope, newest first, at most 100.
func (s *ControlService) Jobs(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	scope, args := jobScope(c)
	rows, err := s.db.query(ctx, `SELECT `+jobColumns+` FROM operator_jobs WHERE `+scope+` ORDER BY created_at DESC, id DESC LIMIT 100`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*parcelgate.Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, j.job())
	}
	return out, rows.Err()
}

// await runs a started job to its end for the synchronous methods
// (ResetOrganization, TakeSnapshot, ...): its error, or the job.
func (s *ControlService) await(ctx context.Context, c *parcelgate.Caller, j *parcelgate.Job) (*parcelgate.Job, error) {
	j, err := s.AwaitJob(ctx, c, j.ID, 0)
	if err != nil {
		return nil, err
	}
	if !j.State.Finished() {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("job %s still running: %w", j.ID, ctx.Err())
		}
		return nil, fmt.Errorf("job %s still running", j.ID)
	}
	return j, j.Err()
}
