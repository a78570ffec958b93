package sqlstore

// Stock moves: how orders take, hand over and give back stock on a balance.

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/parcelgate/parcelgate"
)

// lookupBalance finds the balance of a product of supplierOrg in the
// catalog catalogExternalID of retailerOrg, the key warehouse order rows
// name: (merchant, externalProductId, merchant, externalWarehouseId), the
// product ID in either form (parcelgate.ProductKey). It
// reports false when the product is not published there, also when it was
// removed from there. The balance of an EOS product is found; its quantity
// is 0.
func lookupBalance(ctx context.Context, tx *Tx, supplierOrg int64, supplierID, productExternalID string, retailerOrg int64, catalogExternalID string) (int64, bool, error) {
	var id int64
	forms := parcelgate.ProductIDForms(supplierID, productExternalID)
	err := tx.QueryRow(ctx, `SELECT b.id FROM products p
		JOIN balances b ON b.product_id = p.id
		JOIN catalogs c ON c.id = b.catalog_id
		WHERE p.supplier_org_id = ? AND p.external_id IN (`+placeholders(len(forms))+`) AND c.retailer_org_id = ? AND c.external_id = ? AND b.removed_at = 0
		ORDER BY LENGTH(p.external_id) LIMIT 1`,
		append(append([]any{supplierOrg}, anys(forms)...), retailerOrg, catalogExternalID)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// moveStock adds dQuantity to a balance's quantity and dAllocated to its
// allocated, unless either would go negative, and stamps the change so
// pollers see it (decisions §6). It reports whether it moved: false means
// not enough stock (or allocation), and nothing changed. A removed balance
// never moves: its callers look balances up live, and a tombstone keeps
// quantity 0 until it is published again. Allocation is
// moveStock(id, -q, +q), delivery (0, -q), a cancellation (+q, -q).
//
// The caller takes stamp with nextStamp before touching any balance, as
// the product and balance writers do, so every balance write of an
// environment runs under the same lock and none waits on another's row
// lock while holding a row lock itself.
func moveStock(ctx context.Context, tx *Tx, balanceID, dQuantity, dAllocated int64, stamp time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE balances SET quantity = quantity + ?, allocated = allocated + ?, modified_at = ?
		WHERE id = ? AND removed_at = 0 AND quantity + ? >= 0 AND allocated + ? >= 0`, dQuantity, dAllocated, micros(stamp), balanceID, dQuantity, dAllocated)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// MoveStock moves the stock of one balance, named as warehouse order rows
// name it, in a transaction of its own: moveStock by organization business
// IDs, in c's environment. It reports false when the product is not
// published in that catalog or the move would make quantity or allocated
// negative. It is the operator's (tests stage stock with it): only a
// caller that may ActionOperate moves stock so, EnvironmentOperator(env)
// on any balance of env, OperatorCaller(org) only on one org supplies or
// retails (another's answers false, as a balance that is not there).
func (s *InventoryService) MoveStock(ctx context.Context, c *parcelgate.Caller, supplierID, productExternalID, retailerID, catalogExternalID string, dQuantity, dAllocated int64) (bool, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return false, err
	}
	env := c.Environment
	if !env.Valid() {
		return false, parcelgate.Errorf(parcelgate.EINVALID, "A stock move names its environment.")
	}
	var moved bool
	err := s.db.inTx(ctx, func(tx *Tx) error {
		stamp, err := nextStamp(ctx, tx, env)
		if err != nil {
			return err
		}
		var supplierOrg, retailerOrg int64
		err = tx.QueryRow(ctx, `SELECT s.id, r.id FROM organizations s, organizations r WHERE s.environment = ? AND s.business_id = ? AND r.environment = ? AND r.business_id = ?`,
			string(env), supplierID, string(env), retailerID).Scan(&supplierOrg, &retailerOrg)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.Scope == parcelgate.ScopeOrganization && c.OrgID != supplierOrg && c.OrgID != retailerOrg {
			return nil
		}
		id, found, err := lookupBalance(ctx, tx, supplierOrg, supplierID, productExternalID, retailerOrg, catalogExternalID)
		if err != nil || !found {
			return err
		}
		moved, err = moveStock(ctx, tx, id, dQuantity, dAllocated, stamp)
		return err
	})
	return moved, err
}
