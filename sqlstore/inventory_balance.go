package sqlstore

// The supplier's reads of its balances, and removals from catalogs (spec
// 4.4 GET and DELETE /inventory/balances).

import (
	"context"
	"database/sql"
	"errors"

	"github.com/parcelgate/parcelgate"
)

// ListSupplierBalances pages a supplier's balances; only for a caller
// that may ActionReadProducts (interface §5.2), as GET /inventory/balances
// asks.
func (s *InventoryService) ListSupplierBalances(ctx context.Context, c *parcelgate.Caller, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Balance], error) {
	if err := c.May(parcelgate.ActionReadProducts); err != nil {
		return parcelgate.Page[*parcelgate.Balance]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.Balance], error) {
		q := &keysetQuery{table: "balances b", alias: "b"}
		q.where.tenant(c, "", "b.supplier_org_id")
		q.where.add("b.eos_at = 0")
		if err := contentFilter(ctx, r, c, q, f); err != nil {
			return parcelgate.Page[*parcelgate.Balance]{}, err
		}
		if err := placeFilter(ctx, r, c, &q.where, f, false); err != nil {
			return parcelgate.Page[*parcelgate.Balance]{}, err
		}
		return keysetPage(ctx, r, q, pr, balanceCols, balanceJoins, scanBalance)
	})
}

// DeleteBalances acts only for a caller that may ActionPublishBalances
// (interface §5.2), as DELETE /inventory/balances asks.
//
// The removal is checked here (BalanceRemoval.Validate), whichever front
// end sent it (decisions §57).
func (s *InventoryService) DeleteBalances(ctx context.Context, c *parcelgate.Caller, r parcelgate.BalanceRemoval) ([]*parcelgate.Balance, error) {
	if err := c.May(parcelgate.ActionPublishBalances); err != nil {
		return nil, err
	}
	if err := r.Validate(c.BusinessID); err != nil {
		return nil, err
	}
	var removed []*parcelgate.Balance
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		removed, err = removeBalances(ctx, tx, c, r, micros(stamp))
		return err
	})
	if err != nil {
		return nil, err
	}
	if removed == nil {
		removed = []*parcelgate.Balance{}
	}
	return removed, nil
}

// RemoveFromCatalogs acts only for a caller that may ActionPublishBalances
// (interface §5.2), as DELETE /inventory/balances with a body asks.
func (s *InventoryService) RemoveFromCatalogs(ctx context.Context, c *parcelgate.Caller, rs []parcelgate.BalanceRemoval) (parcelgate.InventoryFailures, error) {
	if err := c.May(parcelgate.ActionPublishBalances); err != nil {
		return nil, err
	}
	var failed parcelgate.InventoryFailures
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, c.Environment)
		if err != nil {
			return err
		}
		failed = parcelgate.InventoryFailures{}
		for i, r := range rs {
			// Each removal is checked here, whichever front end sent
			// it (decisions §57); one with problems is left out.
			if err := r.Validate(c.BusinessID); err != nil {
				failed[i] = err.(*parcelgate.Error)
				continue
			}
			_, err := removeBalances(ctx, tx, c, r, micros(stamp))
			if e, ok := errors.AsType[*parcelgate.Error](err); ok {
				field := "productExternalId"
				if e.Code == parcelgate.ECONFLICT {
					field = "(entry)"
				}
				failed[i] = &parcelgate.Error{Code: e.Code, Message: e.Message, Fields: []parcelgate.FieldError{{Field: field, Message: e.Message}}}
			} else if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return failed, nil
}

// removeBalances removes the product from the catalogs r names, all or
// none: it checks every balance (parcelgate.CheckRemoval) before it writes.
// A removal leaves a tombstone, not a deletion: the removal is a change
// that retailers polling modifiedFromDate must see (decisions §6).
func removeBalances(ctx context.Context, tx *Tx, c *parcelgate.Caller, r parcelgate.BalanceRemoval, us int64) ([]*parcelgate.Balance, error) {
	pid, found, err := findProduct(ctx, tx, c, r.ProductExternalID, true)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", r.ProductExternalID)
	}
	q := `SELECT ` + balanceCols + ` FROM balances b ` + balanceJoins + ` WHERE b.product_id = ? AND b.removed_at = 0`
	args := []any{pid}
	if r.RetailerID != "" {
		q += ` AND ro.business_id = ?`
		args = append(args, r.RetailerID)
	}
	if r.CatalogExternalID != "" {
		q += ` AND c.external_id = ?`
		args = append(args, r.CatalogExternalID)
	}
	rows, err := tx.Query(ctx, q+` ORDER BY b.id`, args...)
	removed, err := collectRows(rows, err, func(rows *sql.Rows) (*parcelgate.Balance, error) {
		b, _, err := scanBalance(rows)
		return b, err
	})
	if err != nil {
		return nil, err
	}
	for _, b := range removed {
		if err := parcelgate.CheckRemoval(b); err != nil {
			return nil, err
		}
	}
	for _, b := range removed {
		if _, err := tx.Exec(ctx, `UPDATE balances SET quantity = 0, removed_at = ?, modified_at = ? WHERE id = ?`, us, us, b.ID); err != nil {
			return nil, err
		}
	}
	return removed, nil
}
