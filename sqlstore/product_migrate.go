package sqlstore

import (
	"context"
	"fmt"

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
// before bare IDs were accepted) is left as it was and reported.
func (db *DB) MigrateProductIDs(ctx context.Context, c *parcelgate.Caller) (*parcelgate.IDMigration, error) {
	if err := checkCaller(c); err != nil {
		return nil, err
	}
	var out *parcelgate.IDMigration
	prefix := c.BusinessID + "-"
	err := db.inTx(ctx, func(tx *Tx) error {
		out = &parcelgate.IDMigration{Migrated: []string{}, Conflicts: []parcelgate.IDConflict{}}
		stamp, err := tx.nextStamp(ctx, c.Environment)
		if err != nil {
			return err
		}
		us := micros(stamp)
		type prod struct {
			id       int64
			ext, doc string
		}
		rows, err := tx.Query(ctx, `SELECT id, external_id, document FROM products WHERE supplier_org_id = ? AND SUBSTR(external_id, 1, ?) = ? ORDER BY id`, c.OrgID, len(prefix), prefix)
		if err != nil {
			return err
		}
		var ps []prod
		for rows.Next() {
			var p prod
			if err := rows.Scan(&p.id, &p.ext, &p.doc); err != nil {
				rows.Close()
				return err
			}
			ps = append(ps, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, p := range ps {
			bare := parcelgate.ProductKey(c.BusinessID, p.ext)
			if bare == p.ext {
				continue // only the prefix: no own part to keep
			}
			var taken int64
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM products WHERE supplier_org_id = ? AND external_id = ?`, c.OrgID, bare).Scan(&taken); err != nil {
				return err
			}
			if taken > 0 {
				out.Conflicts = append(out.Conflicts, parcelgate.IDConflict{ExternalID: p.ext, BareID: bare,
					Message: fmt.Sprintf("Product %s was not renamed: product %s exists too, so both are kept as they are; reads and orders naming either form find the bare one while it is on sale.", p.ext, bare)})
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE products SET external_id = ?, document = ?, modified_at = ? WHERE id = ?`, bare, string(withExternalID([]byte(p.doc), bare)), us, p.id); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE balances SET product_external_id = ?, modified_at = CASE WHEN removed_at = 0 THEN ? ELSE modified_at END WHERE product_id = ?`, bare, us, p.id); err != nil {
				return err
			}
			out.Migrated = append(out.Migrated, bare)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
