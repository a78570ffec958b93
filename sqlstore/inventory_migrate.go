package sqlstore

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// MigrateProductIDs performs the provider's ID migration for the caller
// (POST /inventory/migrate): every product {businessId}-{x} becomes {x},
// in its document and in its balances. Balances keep their rows, so
// allocations stay where they are, and order rows point at balances by row;
// orders that name the old form keep resolving it (parcelgate.ProductKey).
// The renamed balances are stamped, so a retailer polling them sees the new
// ID. Run again, it finds nothing left to rename. A product whose bare ID
// another product of the supplier already has (both forms were created
// before bare IDs were accepted) is left as it was and reported. Only a
// caller that may ActionManageProducts (interface §5.2) migrates.
func (s *InventoryService) MigrateProductIDs(ctx context.Context, c *parcelgate.Caller) (*parcelgate.IDMigration, error) {
	if err := c.May(parcelgate.ActionManageProducts); err != nil {
		return nil, err
	}
	var out *parcelgate.IDMigration
	prefix := c.BusinessID + "-"
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		type prod struct {
			id       int64
			ext, doc string
		}
		own := tenantOf(c, "", "supplier_org_id")
		rows, err := tx.Query(ctx, `SELECT id, external_id, document FROM products WHERE `+own.sql()+` AND (SUBSTR(external_id, 1, ?) = ?
			OR ? || external_id IN (SELECT external_id FROM products WHERE `+own.sql()+`)) ORDER BY id`, append(own.with(len(prefix), prefix, prefix), own.with()...)...)
		ps, err := collect(rows, err, func(p *prod) []any { return []any{&p.id, &p.ext, &p.doc} })
		if err != nil {
			return err
		}
		stored := make([]string, len(ps))
		for i, p := range ps {
			stored[i] = p.ext
		}
		var renames map[string]string
		renames, out = parcelgate.PlanIDMigration(c.BusinessID, stored)
		us := micros(stamp)
		for _, p := range ps {
			bare, ok := renames[p.ext]
			if !ok {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE products SET external_id = ?, document = ?, modified_at = ? WHERE id = ?`, bare, string(parcelgate.WithExternalID([]byte(p.doc), bare)), us, p.id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE balances SET product_external_id = ?, modified_at = CASE WHEN removed_at = 0 THEN ? ELSE modified_at END WHERE product_id = ?`, bare, us, p.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
