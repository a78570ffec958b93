package sqlstore

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// ExplainDropshipListForTest returns the engine's plans of the first page
// and of a later page of ListDropshipShipments on a side, as walk runs
// them (the list's key is dropshipKey), with sequential scans and sorts
// priced out on PostgreSQL (so the plan says whether an index finds the
// rows in the list's order, whatever the table's size); with generic,
// PostgreSQL's generic plans of the same statements.
func (db *DB) ExplainDropshipListForTest(ctx context.Context, env parcelgate.Environment, orgID int64, asRetailer, generic bool) ([]string, error) {
	side, _ := dropshipSide(asRetailer)
	base := `SELECT ` + dropshipColumns + ` FROM supplier_shipments WHERE ` + side + ` = ? AND environment = ?`
	var plans []string
	for q, args := range map[string][]any{
		base + ` ORDER BY ` + dropshipKey + ` DESC LIMIT ?`:                             {orgID, string(env), 51},
		base + ` AND ` + dropshipKey + ` < ? ORDER BY ` + dropshipKey + ` DESC LIMIT ?`: {orgID, string(env), int64(1_000_000), 51},
	} {
		plan, err := db.explainForTest(ctx, []string{`SET enable_seqscan = off`, `SET enable_sort = off`}, generic, q, args...)
		if err != nil {
			return nil, err
		}
		plans = append(plans, plan)
	}
	return plans, nil
}
