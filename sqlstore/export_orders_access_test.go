package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// OrdersAndParcelsWrittenForTest sums up what the order and parcel
// services write: rows and change stamps of orders, their history,
// shipment data, codes, tracking moves, supplier shipments and automatic
// suppliers. Two equal sums around a refused call show it wrote nothing.
func (db *DB) OrdersAndParcelsWrittenForTest(ctx context.Context) (string, error) {
	var b strings.Builder
	for _, t := range [][2]string{
		{"orders", "updated_at + auto_submit"},
		{"order_history", "0"},
		{"shipments", "delivered_at"},
		{"parcels", "0"},
		{"codes", "released_at"},
		{"tracking_moves", "0"},
		{"supplier_shipments", "updated_at"},
		{"auto_suppliers", "delay_s"},
	} {
		var n, sum int64
		q := `SELECT CAST(COUNT(*) AS BIGINT), CAST(COALESCE(SUM(` + t[1] + `), 0) AS BIGINT) FROM ` + t[0]
		if err := db.queryRow(ctx, q).Scan(&n, &sum); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		fmt.Fprintf(&b, "%s %d/%d; ", t[0], n, sum)
	}
	return b.String(), nil
}

// OrgIDForTest returns the internal ID of the organization businessID of
// env (normalized as stored), without the organization service, so that
// a test of another service names its tenants whatever that service asks.
func (db *DB) OrgIDForTest(ctx context.Context, env parcelgate.Environment, businessID string) (int64, error) {
	var id int64
	err := db.queryRow(ctx, `SELECT id FROM organizations WHERE environment = ? AND business_id = ?`, string(env), businessID).Scan(&id)
	return id, err
}
