package parcelgate

import (
	"context"
	"strings"
	"time"
)

// ControlService is the operator's operator controls (decisions §9): the
// shared clock, resets and snapshots of a tenant's data. Only the operator
// acts on them: every method asks c.May(ActionOperate) itself, so the CLI,
// the demo and tests are held to the rule as the operator API and the
// console are (they ask first too, to keep their own answers). c's scope
// is what a method acts on: an OperatorCaller's organization, an
// EnvironmentOperator's environment.
type ControlService interface {
	// AdvanceClock moves c's environment's clock forward by d for every
	// instance. Only a caller that may ActionOperate, naming one
	// environment (EnvironmentOperator(env)). Only a store opened with a
	// *OffsetClock may move time (serve opens every store with one);
	// whether the environment's clock may move on this server is
	// DecideControl's, asked before the call.
	AdvanceClock(ctx context.Context, c *Caller, d time.Duration) (time.Time, error)

	// ResetOrganization empties the data of c's organization (its orders,
	// products, balances, shipments and codes; its catalogs when opt says
	// so), keeping the organization and its credentials, as a job (in one
	// transaction when the organization is small, else in batches while
	// its API answers 503); change pollers never see a rewind. Only a caller that
	// may ActionOperate: an OperatorCaller of the organization.
	ResetOrganization(ctx context.Context, c *Caller, opt ResetOptions) (*ResetResult, error)
	// ResetEnvironment resets every organization of c's environment, as a
	// job, one organization after another. Only a caller that may ActionOperate, naming one
	// environment (EnvironmentOperator(env)).
	ResetEnvironment(ctx context.Context, c *Caller, opt ResetOptions) (*ResetResult, error)
	// TakeSnapshot saves the data of c's organization under name,
	// replacing a snapshot of that name. Only a caller that may
	// ActionOperate.
	TakeSnapshot(ctx context.Context, c *Caller, name string) (*Snapshot, error)
	// ListSnapshots lists the snapshots of c's organization, by name. Only
	// a caller that may ActionOperate.
	ListSnapshots(ctx context.Context, c *Caller) ([]*Snapshot, error)
	// RestoreSnapshot puts c's organization back to the snapshot: reset,
	// then the saved rows written back with new change stamps. Only a
	// caller that may ActionOperate.
	RestoreSnapshot(ctx context.Context, c *Caller, name string) (*RestoreResult, error)
	// DropSnapshot deletes a snapshot of c's organization. Only a caller
	// that may ActionOperate.
	DropSnapshot(ctx context.Context, c *Caller, name string) error
	// RestoreEverywhere restores the snapshot called name of every
	// organization in c's scope that has one (the demo's seeded state:
	// AllOperator() restores both environments'). Only a caller
	// that may ActionOperate.
	RestoreEverywhere(ctx context.Context, c *Caller, name string) ([]*RestoreResult, error)

	// The long operations as operator jobs (decisions §54). ResetOrganization,
	// ResetEnvironment, TakeSnapshot and RestoreSnapshot above are each
	// their Start method and AwaitJob until the job ends.

	// StartReset starts the reset of c's organization (an OperatorCaller)
	// or of c's environment (EnvironmentOperator(env)). ECONFLICT while
	// another reset or restore of that tenant (or of its environment)
	// runs. Only a caller that may ActionOperate.
	StartReset(ctx context.Context, c *Caller, opt ResetOptions) (*Job, error)
	// StartSnapshot starts saving c's organization's data under name; the
	// snapshot appears, replacing one of that name, when the job is done.
	// Only a caller that may ActionOperate.
	StartSnapshot(ctx context.Context, c *Caller, name string) (*Job, error)
	// StartRestore starts putting c's organization back to its snapshot
	// name (ENOTFOUND without one). Only a caller that may ActionOperate.
	StartRestore(ctx context.Context, c *Caller, name string) (*Job, error)
	// AwaitJob waits up to d (until ctx ends when d is 0) for the job to
	// finish and returns it as it is then, finished or not. A job outside
	// c's scope is ENOTFOUND. Only a caller that may ActionOperate.
	AwaitJob(ctx context.Context, c *Caller, id string, d time.Duration) (*Job, error)
	// CancelJob stops a queued or running job of c's scope (ENOTFOUND
	// outside it, as a missing one; ECONFLICT once it has ended) and
	// returns it cancelled. The batches it committed stay done and its
	// tenant is unfenced; the batch under way is rolled back. Only a
	// caller that may ActionOperate.
	CancelJob(ctx context.Context, c *Caller, id string) (*Job, error)
	// Jobs lists the newest jobs of c's scope (an organization's, an
	// environment's), newest first, at most 100. Only a caller that may
	// ActionOperate.
	Jobs(ctx context.Context, c *Caller) ([]*Job, error)
	// TenantBusy reports whether a reset or restore too big for one
	// transaction is under way on the organization orgID of env (or on
	// env): its API answers 503 meanwhile. It is the HTTP layer's
	// machinery and takes no caller; it costs no database read on most
	// calls (a set refreshed at most every JobFenceRefresh).
	TenantBusy(ctx context.Context, env Environment, orgID int64) bool
}

// FaultService keeps the injected faults every instance applies to the
// APIs. The operator sets, lists and removes them (ActionOperate, asked by
// each of those methods, within the caller's scope); the HTTP layer fires
// them.
type FaultService interface {
	// CreateFault stores f; f.BusinessID, when set, must name an
	// organization of f.Environment. Only a caller that may ActionOperate
	// in f's environment (and organization, for an OperatorCaller).
	CreateFault(ctx context.Context, c *Caller, f *Fault) error
	// Faults lists the faults in c's scope that may still fire, oldest
	// first: of c's environment, of every environment for
	// AllOperator(). Only a caller that may ActionOperate.
	Faults(ctx context.Context, c *Caller) ([]*Fault, error)
	// DeleteFault removes a fault in c's scope (ENOTFOUND when there is
	// none). Only a caller that may ActionOperate.
	DeleteFault(ctx context.Context, c *Caller, id string) error
	// FireFault counts one answer of fault id and reports whether it may
	// give it: a fault with a count gives exactly that many across all
	// instances. It takes no caller: it is the server's own machinery, on
	// the request path of whichever tenant the fault matched.
	FireFault(ctx context.Context, id string) (bool, error)
}

// JournalService keeps the request journal (decisions §21). Its reads
// act for a caller: the operator reads every tenant's entries (the
// operator API: EnvironmentOperator(env), AllOperator() for
// every environment, with JournalQuery.BusinessID to narrow to one
// organization; or OperatorCaller(org)); a tenant's console session reads
// its own organization's in its environment. Its writes are the server's
// machinery and take no caller.
type JournalService interface {
	// WriteJournal stores a batch of entries in one transaction. It is the
	// HTTP layer's machinery, run off the request path for calls already
	// answered, so it takes no caller: each entry names its tenant.
	WriteJournal(ctx context.Context, entries []*JournalEntry) error
	// PruneJournal keeps the newest keep entries of each organization of
	// orgIDs and deletes the older ones. It is the journal writer's
	// machinery (the bound of JournalPerTenant) and takes no caller.
	PruneJournal(ctx context.Context, orgIDs []int64, keep int) error
	// Journal pages the entries of c's scope matching q, newest first,
	// without their bodies, p.Size of them (1-500, else 100); p.After is
	// the Next of the page before (only older entries), the decimal text
	// the operator API's before parameter and the console's page
	// parameter carry; Next is empty on the last page. Only a caller that
	// may ActionViewTenant (any service account: its own organization's;
	// the operator: any tenant's); a p.After that is not a page's cursor
	// is EINVALID naming "before".
	Journal(ctx context.Context, c *Caller, q JournalQuery, p PageRequest) (Page[*JournalEntry], error)
	// JournalEntries returns the entries of the request ID in c's scope
	// (and q's BusinessID, for the operator), newest first, with bodies:
	// a lookup never picks another tenant's entry that shares the ID
	// (decisions §21). Only a caller that may ActionViewTenant.
	JournalEntries(ctx context.Context, c *Caller, q JournalQuery, requestID string) ([]*JournalEntry, error)
}

// Control is an operator control that throws data away or makes an
// environment behave unlike the real service (decisions §21).
type Control string

const (
	// ControlReset empties an organization's or an environment's data.
	ControlReset Control = "reset"
	// ControlRestore puts an organization back as a snapshot saved it.
	ControlRestore Control = "restore"
	// ControlFault makes matching API calls fail or slow down.
	ControlFault Control = "fault"
	// ControlClock moves an environment's clock forward.
	ControlClock Control = "clock"
)

// DecideControl decides whether control may act on the environment
// named env on a server whose sandbox mode is sandbox (decisions §21):
//
//   - the call must name its environment: an empty one is refused (400
//     naming environment), so no control acts on production by default;
//   - the test environment's data is always disposable;
//   - production's only on a server started with --sandbox (--demo and
//     --db memory imply it); elsewhere 403 naming --sandbox.
//
// It returns the environment the control acts on.
func DecideControl(sandbox bool, env string, control Control) (Environment, error) {
	if strings.TrimSpace(env) == "" {
		return "", &Error{Code: EINVALID, Message: "Name the environment this " + string(control) + " acts on: environment=production or environment=test.",
			Fields: []FieldError{{Field: "environment", Message: "is required: production or test"}}}
	}
	e, err := ParseEnvironment(env)
	if err != nil {
		return "", &Error{Code: EINVALID, Message: ErrorMessage(err),
			Fields: []FieldError{{Field: "environment", Message: "must be production or test"}}}
	}
	if e == Production && !sandbox {
		return "", Errorf(EFORBIDDEN, "Production data is not disposable on this server: a %s of production needs a server started with --sandbox (the test environment allows it on any server).", control)
	}
	return e, nil
}
