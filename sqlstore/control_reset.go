package sqlstore

import (
	"context"
	"fmt"
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

// retire is how a reset empties the kept tables: balances become tombstones
// that change polls report as removed, products end their sale. Both take
// the reset's stamp. ($1 is the stamp, $2 the organization.)
var retire = map[string]string{
	"products": `UPDATE products SET status = 'EOS', deleted_at = ?, modified_at = ? WHERE supplier_org_id = ? AND status <> 'EOS'`,
	"balances": `UPDATE balances SET quantity = 0, allocated = 0, removed_at = ?, modified_at = ? WHERE supplier_org_id = ? AND removed_at = 0`,
}

// ResetOrganization empties the data of one organization of env: its orders,
// products, balances, shipments and codes (and its catalogs when asked),
// keeping the organization and its credentials. It is one transaction: a
// reset that fails leaves nothing half-done.
//
// Change pollers never see a rewind: balances become tombstones and
// products end their sale, all with a new stamp, so a poller mid-sync reads
// them as removed. Stock the organization's open orders held on another
// organization's balances goes back to them. Another organization's data
// is otherwise untouched.
func (s *ControlService) ResetOrganization(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env, org := c.Environment, operatorOrg(c)
	start := time.Now()
	res := &parcelgate.ResetResult{Environment: env, Organizations: 1}
	err := s.db.inTx(ctx, func(tx *Tx) error {
		*res = parcelgate.ResetResult{Environment: env, Organizations: 1}
		stamp, err := nextStamp(ctx, tx, env)
		if err != nil {
			return err
		}
		res.Stamp = stamp
		return resetOrg(ctx, tx, org.ID, stamp, opt, res)
	})
	res.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return res, err
}

// ResetEnvironment resets every organization of c's environment (see
// ResetOrganization), in one transaction. Only a caller that may
// ActionOperate, naming one environment (EnvironmentOperator(env)).
func (s *ControlService) ResetEnvironment(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.ResetResult, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env, err := oneEnvironment(c)
	if err != nil {
		return nil, err
	}
	if c.Scope == parcelgate.ScopeOrganization {
		// An operator on one organization resets that one only.
		return s.ResetOrganization(ctx, c, opt)
	}
	start := time.Now()
	res := &parcelgate.ResetResult{Environment: env}
	err = s.db.inTx(ctx, func(tx *Tx) error {
		*res = parcelgate.ResetResult{Environment: env, Removed: map[string]int64{}}
		stamp, err := nextStamp(ctx, tx, env)
		if err != nil {
			return err
		}
		res.Stamp = stamp
		ids, err := scanColumn[int64](tx.Query(ctx, `SELECT id FROM organizations WHERE environment = ? ORDER BY id`, string(env)))
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := resetOrg(ctx, tx, id, stamp, opt, res); err != nil {
				return err
			}
		}
		res.Organizations = len(ids)
		return nil
	})
	res.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return res, err
}

// resetOrg empties one organization's data in tx with stamp.
func resetOrg(ctx context.Context, tx *Tx, orgID int64, stamp time.Time, opt parcelgate.ResetOptions, res *parcelgate.ResetResult) error {
	if err := releaseHeldStock(ctx, tx, orgID, stamp); err != nil {
		return err
	}
	for i := len(tenantTables) - 1; i >= 0; i-- {
		t := tenantTables[i]
		var n int64
		var err error
		if t.kept {
			n, err = rowsAffected(tx.Exec(ctx, retire[t.name], micros(stamp), micros(stamp), orgID))
		} else {
			n, err = rowsAffected(tx.Exec(ctx, `DELETE FROM `+t.name+` WHERE `+t.scope, orgID))
		}
		if err != nil {
			return fmt.Errorf("reset %s: %w", t.name, err)
		}
		res.Add(t.name, n)
	}
	if opt.Catalogs {
		const owned = `catalog_id IN (SELECT id FROM catalogs WHERE retailer_org_id = ?)`
		for _, q := range []struct{ table, sql string }{
			{"balances", `DELETE FROM balances WHERE ` + owned},
			{"catalog_suppliers", `DELETE FROM catalog_suppliers WHERE ` + owned},
			{"catalogs", `DELETE FROM catalogs WHERE retailer_org_id = ?`},
		} {
			n, err := rowsAffected(tx.Exec(ctx, q.sql, orgID))
			if err != nil {
				return fmt.Errorf("reset %s: %w", q.table, err)
			}
			if q.table != "balances" {
				res.Add(q.table, n)
			}
		}
	}
	return nil
}

// releaseHeldStock returns to their balances the stock that the
// organization's allocated orders hold, as cancelling them would (interface §4.3):
// the orders are about to go, and the stock must not stay held on another
// organization's balances. One UPDATE per balance, whatever the number of
// orders.
func releaseHeldStock(ctx context.Context, tx *Tx, orgID int64, stamp time.Time) error {
	return releaseHeld(ctx, tx, `SELECT r.balance_id, SUM(r.quantity) AS units, r.balance_id AS ord FROM order_rows r JOIN orders o ON o.id = r.order_pk
		WHERE o.org_id = ? AND o.allocated = 1 AND r.balance_id <> 0 GROUP BY r.balance_id`, []any{orgID}, true, stamp)
}

func rowsAffected(res interface{ RowsAffected() (int64, error) }, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
