package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// tenantTable is one table of an organization's data: what a reset empties
// and a snapshot saves. tenantTables lists them parents first (the order a
// restore writes them); a reset removes them in reverse.
type tenantTable struct {
	name string
	// scope selects the organization's rows; its one '?' is the
	// organization's id.
	scope string
	// kept tables are never emptied by deleting: their rows are what change
	// pollers follow, so a reset turns them into stamped tombstones (see
	// retire) and a restore writes the saved rows over them by id.
	kept bool
	// stamp is the column a restore sets to a new change stamp, so a poller
	// whose cursor is past the saved rows' stamps still sees them come back.
	stamp string
	// parent, when set, is "column table": saved rows whose parent row no
	// longer exists (a catalog removed since) are not restored.
	parent string
	// shared marks a table with rows unique across organizations (active
	// codes): a saved row that another organization's row now conflicts
	// with is not restored.
	shared bool
}

// tenantTables: a table added to an organization's data is one line here.
var tenantTables = []tenantTable{
	{name: "products", scope: "supplier_org_id = ?", kept: true, stamp: "modified_at"},
	{name: "balances", scope: "supplier_org_id = ?", kept: true, stamp: "modified_at", parent: "catalog_id catalogs"},
	{name: "shipments", scope: "org_id = ?"},
	{name: "parcels", scope: "org_id = ?"},
	{name: "tracking_moves", scope: "org_id = ?"},
	{name: "codes", scope: "org_id = ?", shared: true},
	{name: "orders", scope: "org_id = ?", stamp: "updated_at"},
	{name: "order_rows", scope: "order_pk IN (SELECT id FROM orders WHERE org_id = ?)"},
	{name: "order_refs", scope: "org_id = ?"},
	{name: "order_history", scope: "order_pk IN (SELECT id FROM orders WHERE org_id = ?)"},
	// A retailer's orders take their suppliers' shipments with them
	// (decisions §34).
	{name: "supplier_shipments", scope: "retailer_org_id = ?", stamp: "updated_at"},
}

// resetTables are the tables a reset of one organization removes rows of
// (or retires, for the kept ones), in the order it takes them: children
// before their parents. live selects the rows it removes; its one '?' is
// the organization's id. They are the job's progress, and the keys of
// ResetResult.Removed.
var resetTables = []struct{ name, live string }{
	{"supplier_shipments", "retailer_org_id = ?"},
	{"order_history", "order_pk IN (SELECT id FROM orders WHERE org_id = ?)"},
	{"order_refs", "order_pk IN (SELECT id FROM orders WHERE org_id = ?)"},
	{"order_rows", "order_pk IN (SELECT id FROM orders WHERE org_id = ?)"},
	{"orders", "org_id = ?"},
	{"codes", "org_id = ?"},
	{"tracking_moves", "org_id = ?"},
	{"parcels", "org_id = ?"},
	{"shipments", "org_id = ?"},
	{"balances", "supplier_org_id = ? AND removed_at = 0"},
	{"products", "supplier_org_id = ? AND status <> 'EOS'"},
}

// catalogTables are what a reset with ResetOptions.Catalogs removes
// besides: the balances published to the organization's catalogs (not
// counted in ResetResult.Removed, as before jobs), the catalogs' supplier
// lists and the catalogs.
var catalogTables = []struct{ name, live string }{
	{"catalog_balances", "catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?)"},
	{"catalog_suppliers", "catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?)"},
	{"catalogs", "retailer_org_id = ?"},
}

// resetSteps is how many steps a reset takes: each removes one batch of
// a table (orders with their rows, references and history) per
// transaction until the table has none of the organization's left.
func resetSteps(catalogs bool) int {
	if catalogs {
		return 10
	}
	return 8
}

// ResetOrganization empties the data of c's organization: its orders,
// products, balances, shipments and codes (and its catalogs when asked),
// keeping the organization and its credentials, as a job (StartReset),
// waited for until it ends.
//
// Change pollers never see a rewind: balances become tombstones and
// products end their sale, with new stamps, so a poller mid-sync reads
// them as removed. Stock the organization's open orders held on another
// organization's balances goes back to them. Another organization's data
// is otherwise untouched.
func (s *ControlService) ResetOrganization(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error) {
	j, err := s.StartReset(ctx, c, opt)
	if err == nil {
		j, err = s.await(ctx, c, j)
	}
	if err != nil {
		return nil, err
	}
	return j.Reset, nil
}

// ResetEnvironment resets every organization of c's environment (see
// ResetOrganization), one after another, as a job waited for until it
// ends. Only a caller that may ActionOperate, naming one environment
// (EnvironmentOperator(env)).
func (s *ControlService) ResetEnvironment(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error) {
	return s.ResetOrganization(ctx, c, opt)
}

// StartReset starts the reset of c's organization (an OperatorCaller) or
// environment (EnvironmentOperator(env)) as a job. A tenant with at most
// JobLimits.SmallRows rows is reset in one transaction; a bigger one in
// batches, fenced (its API answers 503 until the job ends).
func (s *ControlService) StartReset(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.Job, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	if c.Scope == parcelgate.ScopeOrganization {
		org := operatorOrg(c)
		return s.startJob(ctx, &jobRow{Kind: string(parcelgate.JobReset), Env: string(org.Environment), OrgID: org.ID, BusinessID: org.BusinessID, Catalogs: opt.Catalogs})
	}
	env, err := oneEnvironment(c)
	if err != nil {
		return nil, err
	}
	return s.startJob(ctx, &jobRow{Kind: string(parcelgate.JobResetEnvironment), Env: string(env), Catalogs: opt.Catalogs})
}

// countRows counts the rows of each table live selects for orgID, each at
// most limit (none when limit < 0), and their sum, in one statement (one
// round trip: a small tenant's job is as quick as its transaction).
func (db *DB) countRows(ctx context.Context, tables []struct{ name, live string }, orgID, limit int64) ([]parcelgate.JobTable, int64, error) {
	q, args := countSQL(tables, orgID, limit)
	counts := make([]int64, len(tables))
	ptrs := make([]any, len(tables))
	for i := range counts {
		ptrs[i] = &counts[i]
	}
	if err := db.queryRow(ctx, q, args...).Scan(ptrs...); err != nil {
		return nil, 0, fmt.Errorf("count: %w", err)
	}
	out := make([]parcelgate.JobTable, len(tables))
	var sum int64
	for i, t := range tables {
		out[i] = parcelgate.JobTable{Name: t.name, Total: &counts[i]}
		sum += counts[i]
	}
	return out, sum, nil
}

// countSQL is the statement of countRows: one column per table.
func countSQL(tables []struct{ name, live string }, orgID, limit int64) (string, []any) {
	cols := make([]string, len(tables))
	var args []any
	for i, t := range tables {
		from := t.name
		if t.name == "catalog_balances" {
			from = "balances"
		}
		if limit >= 0 {
			cols[i] = fmt.Sprintf(`(SELECT COUNT(*) FROM (SELECT 1 FROM %s WHERE %s LIMIT ?) c%d)`, from, t.live, i)
			args = append(args, orgID, limit)
		} else {
			cols[i] = `(SELECT COUNT(*) FROM ` + from + ` WHERE ` + t.live + `)`
			args = append(args, orgID)
		}
	}
	return `SELECT ` + strings.Join(cols, ", "), args
}

// resetTablesOf are the tables a reset with opt takes.
func resetTablesOf(catalogs bool) []struct{ name, live string } {
	ts := resetTables
	if catalogs {
		ts = append(ts[:len(ts):len(ts)], catalogTables...)
	}
	return ts
}

// planReset counts what the reset of orgID removes: bounded first, to
// decide whether it fits one transaction; exactly when it does not, for
// the progress.
func (r *jobRun) planReset(ctx context.Context, orgID int64, catalogs bool, extra int64) error {
	p, small := r.p, r.lim.smallRows()
	tables := resetTablesOf(catalogs)
	var total int64
	var err error
	if small >= 0 {
		if p.Removed, total, err = r.jr.db.countRows(ctx, tables, orgID, small+1); err != nil {
			return err
		}
		p.Small = total+extra <= small
	}
	if !p.Small {
		p.Removed, _, err = r.jr.db.countRows(ctx, tables, orgID, -1)
	}
	return err
}

// resetRangeSQL are the steps that remove a table's rows by ranges of
// keys (decisions §60): a batch reads the greatest of the next n keys of
// the organization after the last batch's (the cursor), in the order of
// an index that starts with the organization, then removes the
// organization's rows in (cursor, greatest] in one set-based statement,
// the children of orders by a subquery over the same range. The pick
// reads only the batch's own index entries (migration 0044: on PostgreSQL
// the entries of rows deleted by earlier batches stay until a vacuum, and
// a batch that started from the first would walk all of them), and no key
// travels to Go and back: a batch of 20,000 keys is two statements, not
// 20,000 bound parameters. Parcels are ranged by their (org_id, parcel_id)
// key.
var resetRangeSQL = map[int]struct{ table, key string }{
	0: {"supplier_shipments", "retailer_org_id = ? AND id"},
	1: {"orders", "org_id = ? AND id"},
	2: {"codes", "org_id = ? AND id"},
	3: {"tracking_moves", "org_id = ? AND id"},
	4: {"parcels", "org_id = ? AND parcel_id"},
	5: {"shipments", "org_id = ? AND id"},
}

// resetPickSQL is the pick of a range step: the greatest of the next n
// keys (NULL when none is left). Its arguments: the organization, the
// cursor, n.
func resetPickSQL(step int) string {
	q := resetRangeSQL[step]
	col := q.key[strings.LastIndex(q.key, " ")+1:]
	return `SELECT MAX(` + col + `) FROM (SELECT ` + col + ` FROM ` + q.table + ` WHERE ` + q.key + ` > ? ORDER BY ` + col + ` LIMIT ?) k`
}

// resetBatchSQL are the statements of the reset's steps that retire or
// remove a batch in one statement: the kept tables become stamped
// tombstones (see tenantTable.kept) — few rows, updated rather than
// deleted — and the balances published to the organization's catalogs.
// Their arguments are the organization and n, preceded by the stamp twice
// for a retirement.
var resetBatchSQL = map[int]struct{ table, sql string }{
	6: {"balances", `UPDATE balances SET quantity = 0, allocated = 0, removed_at = ?, modified_at = ? WHERE id IN (SELECT id FROM balances WHERE supplier_org_id = ? AND removed_at = 0 LIMIT ?)`},
	7: {"products", `UPDATE products SET status = 'EOS', deleted_at = ?, modified_at = ? WHERE id IN (SELECT id FROM products WHERE supplier_org_id = ? AND status <> 'EOS' LIMIT ?)`},
	8: {"catalog_balances", `DELETE FROM balances WHERE id IN (SELECT id FROM balances WHERE catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?) LIMIT ?)`},
}

// resetBatch removes one batch of orgID's rows in tx: up to *budget keys,
// table after table (decisions §62: a batch does not end with a table, so
// an organization of a few rows in each table is one transaction, not one
// per table). It reports whether none is left; *budget is what the batch
// may still take.
func (r *jobRun) resetBatch(ctx context.Context, tx *Tx, p *jobProgress, orgID int64, catalogs bool, budget *int) (bool, error) {
	for ; p.Step < resetSteps(catalogs); p.Step++ {
		for *budget > 0 {
			n, err := r.resetStep(ctx, tx, p, orgID, *budget)
			if err != nil {
				return false, err
			}
			if n == 0 {
				break
			}
			*budget -= int(n)
		}
		if *budget <= 0 {
			return false, nil
		}
		p.Cursor, p.CursorText = 0, ""
	}
	return true, nil
}

// resetStep removes one batch of step p.Step's table: the organization's
// rows of the next n keys (orders with their children), whichever they
// are, since what a batch removes is no longer there for the next. It
// returns the keys removed (0: the table is done).
func (r *jobRun) resetStep(ctx context.Context, tx *Tx, p *jobProgress, orgID int64, n int) (int64, error) {
	del := func(table, q string, args ...any) (int64, error) {
		k, err := rowsAffected(tx.Exec(ctx, q, args...))
		if err != nil {
			return 0, fmt.Errorf("reset %s: %w", table, err)
		}
		p.Removed = addDone(p.Removed, table, k)
		return k, nil
	}
	switch p.Step {
	case 0, 2, 3, 5:
		q := resetRangeSQL[p.Step]
		var hi sql.NullInt64
		if err := tx.QueryRow(ctx, resetPickSQL(p.Step), orgID, p.Cursor, n).Scan(&hi); err != nil {
			return 0, fmt.Errorf("reset %s: %w", q.table, err)
		}
		if !hi.Valid {
			p.Removed = addDone(p.Removed, q.table, 0)
			return 0, nil
		}
		lo := p.Cursor
		p.Cursor = hi.Int64
		k, err := del(q.table, `DELETE FROM `+q.table+` WHERE `+q.key+` > ? AND id <= ?`, orgID, lo, hi.Int64)
		return max(k, 1), err
	case 4:
		var hi sql.NullString
		if err := tx.QueryRow(ctx, resetPickSQL(4), orgID, p.CursorText, n).Scan(&hi); err != nil {
			return 0, fmt.Errorf("reset parcels: %w", err)
		}
		if !hi.Valid {
			p.Removed = addDone(p.Removed, "parcels", 0)
			return 0, nil
		}
		lo := p.CursorText
		p.CursorText = hi.String
		k, err := del("parcels", `DELETE FROM parcels WHERE org_id = ? AND parcel_id > ? AND parcel_id <= ?`, orgID, lo, hi.String)
		return max(k, 1), err
	case 8:
		q := resetBatchSQL[p.Step]
		return del(q.table, q.sql, orgID, n)
	case 1:
		// Orders go with their rows, references and history, and give
		// back the stock they hold (as cancelling them would, interface
		// §4.3) in the same transaction: a batch is an order's whole
		// removal, so a resumed job never releases twice.
		var hi sql.NullInt64
		if err := tx.QueryRow(ctx, resetPickSQL(1), orgID, p.Cursor, n).Scan(&hi); err != nil {
			return 0, fmt.Errorf("reset orders: %w", err)
		}
		if !hi.Valid {
			for _, t := range []string{"order_history", "order_refs", "order_rows", "orders"} {
				p.Removed = addDone(p.Removed, t, 0)
			}
			return 0, nil
		}
		lo := p.Cursor
		p.Cursor = hi.Int64
		stamp, err := r.stampOf(ctx, tx)
		if err != nil {
			return 0, err
		}
		rng := []any{orgID, lo, hi.Int64}
		if err := releaseHeld(ctx, tx, `SELECT r.balance_id, SUM(r.quantity) AS units, r.balance_id AS ord FROM order_rows r JOIN orders o ON o.id = r.order_pk
			WHERE o.org_id = ? AND o.id > ? AND o.id <= ? AND o.allocated = 1 AND r.balance_id <> 0 GROUP BY r.balance_id`, rng, true, stamp); err != nil {
			return 0, fmt.Errorf("reset orders: %w", err)
		}
		for _, t := range []string{"order_history", "order_refs", "order_rows"} {
			if _, err := del(t, `DELETE FROM `+t+` WHERE order_pk IN (SELECT id FROM orders WHERE org_id = ? AND id > ? AND id <= ?)`, rng...); err != nil {
				return 0, err
			}
		}
		k, err := del("orders", `DELETE FROM orders WHERE org_id = ? AND id > ? AND id <= ?`, rng...)
		return max(k, 1), err
	case 6, 7:
		// The kept tables become stamped tombstones (see tenantTable.kept).
		stamp, err := r.stampOf(ctx, tx)
		if err != nil {
			return 0, err
		}
		q := resetBatchSQL[p.Step]
		return del(q.table, q.sql, micros(stamp), micros(stamp), orgID, n)
	case 9:
		// An organization's catalogs are few: one batch.
		k, err := del("catalog_suppliers", `DELETE FROM catalog_suppliers WHERE catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?)`, orgID)
		if err != nil {
			return 0, err
		}
		m, err := del("catalogs", `DELETE FROM catalogs WHERE retailer_org_id = ?`, orgID)
		return k + m, err
	}
	return 0, fmt.Errorf("reset: no step %d", p.Step)
}

// resetResult is a finished reset's answer.
func (r *jobRun) resetResult(ctx context.Context, tx *Tx, p *jobProgress) (*parcelgate.ResetResult, error) {
	stamp, err := r.stampOf(ctx, tx)
	if err != nil {
		return nil, err
	}
	res := &parcelgate.ResetResult{Environment: parcelgate.Environment(r.row.Env), Organizations: 1, Removed: map[string]int64{}, Stamp: stamp,
		ElapsedMs: float64(time.Since(fromMicros(r.row.CreatedAt)).Microseconds()) / 1000}
	if p.Orgs != nil {
		res.Organizations = int(p.Orgs.Done)
	}
	for _, t := range p.Removed {
		if t.Name != "catalog_balances" {
			res.Removed[t.Name] = t.Done
		}
	}
	return res, nil
}

// planEnvironment counts an environment's organizations, and decides
// whether its data fits one transaction (its parent tables' rows counted,
// each at most SmallRows+1: children are a few per parent).
func (r *jobRun) planEnvironment(ctx context.Context) error {
	p, env := r.p, r.row.Env
	var orgs int64
	if err := r.jr.db.queryRow(ctx, `SELECT COUNT(*) FROM organizations WHERE environment = ?`, env).Scan(&orgs); err != nil {
		return err
	}
	p.Orgs = &parcelgate.JobTable{Name: "organizations", Total: &orgs}
	small := r.lim.smallRows()
	if small < 0 {
		return nil
	}
	var sum int64
	for _, t := range []string{"orders", "shipments", "products", "codes", "tracking_moves", "supplier_shipments"} {
		var n int64
		if err := r.jr.db.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+t+` WHERE environment = ? LIMIT ?) x`, env, small+1).Scan(&n); err != nil {
			return err
		}
		sum += n
	}
	p.Small = sum <= small
	return nil
}

// orgCost is what an organization's end takes of a batch's budget: the
// statements that find each of its tables empty (decisions §62), so that
// a batch of many empty organizations ends too.
const orgCost = 20

// environmentBatch resets one batch of the environment's organizations:
// of the one under way, then of the next by id, until the batch's budget
// is spent.
func (r *jobRun) environmentBatch(ctx context.Context, tx *Tx, p *jobProgress) (bool, error) {
	budget := r.size
	for {
		if p.Org == 0 {
			ids, err := scanColumn[int64](tx.Query(ctx, `SELECT id FROM organizations WHERE environment = ? AND id > ? ORDER BY id LIMIT 1`, r.row.Env, p.OrgAfter))
			if err != nil {
				return false, err
			}
			if len(ids) == 0 {
				return true, nil
			}
			p.Org, p.Step = ids[0], 0
		}
		done, err := r.resetBatch(ctx, tx, p, p.Org, r.row.Catalogs, &budget)
		if err != nil || !done {
			return false, err
		}
		p.OrgAfter, p.Org = p.Org, 0
		p.Orgs.Done++
		budget -= orgCost
		if !p.Small && budget <= 0 {
			return false, nil
		}
	}
}

// steps runs a reset or restore job: planned (counted, and decided small
// or not) on its first run; a small one in one transaction, a big one
// fenced and in batches, each its own transaction.
func (r *jobRun) steps(ctx context.Context) error {
	if r.p.Phase == "" {
		var err error
		switch parcelgate.JobKind(r.row.Kind) {
		case parcelgate.JobReset:
			err = r.planReset(ctx, r.row.OrgID, r.row.Catalogs, 0)
		case parcelgate.JobResetEnvironment:
			err = r.planEnvironment(ctx)
		case parcelgate.JobRestore:
			err = r.planRestore(ctx)
		}
		if err != nil {
			return err
		}
		r.p.Phase = "reset"
	}
	next := func(tx *Tx, p *jobProgress) (bool, any, error) {
		var done bool
		var err error
		switch parcelgate.JobKind(r.row.Kind) {
		case parcelgate.JobReset:
			budget := r.size
			done, err = r.resetBatch(ctx, tx, p, r.row.OrgID, r.row.Catalogs, &budget)
		case parcelgate.JobResetEnvironment:
			done, err = r.environmentBatch(ctx, tx, p)
		case parcelgate.JobRestore:
			done, err = r.restoreBatch(ctx, tx, p)
		}
		if err != nil || !done {
			return false, nil, err
		}
		if parcelgate.JobKind(r.row.Kind) == parcelgate.JobRestore {
			res, err := r.restoreResult(ctx, tx, p)
			return true, res, err
		}
		res, err := r.resetResult(ctx, tx, p)
		return true, res, err
	}
	if r.p.Small {
		_, err := r.batch(ctx, func(tx *Tx, p *jobProgress) (bool, any, error) {
			for {
				done, res, err := next(tx, p)
				if err != nil || done {
					return done, res, err
				}
			}
		})
		return err
	}
	if err := r.fence(ctx); err != nil {
		return err
	}
	for {
		done, err := r.batch(ctx, next)
		if err != nil || done {
			return err
		}
	}
}

func rowsAffected(res interface{ RowsAffected() (int64, error) }, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
