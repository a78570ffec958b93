package sqlstore

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// The reads a replica may serve (see replica.go): a caller's point reads,
// list pages, catalog walks, change polls and the console's lists. Each
// runs on a replica that has replayed the caller's organization's floor,
// else on the primary; a replica that fails mid-read is taken out of use
// and the read runs again on the primary. Reads made inside a write
// transaction, and every other read, stay on the primary.

// readOnReplica runs fn, a read for c, routed by onReplica.
func readOnReplica[T any](ctx context.Context, db *DB, c *parcelgate.Caller, fn func(ctx context.Context) (T, error)) (T, error) {
	rctx := db.onReplica(ctx, c)
	v, err := fn(rctx)
	r, _ := rctx.Value(routeKey{}).(*replica)
	if r == nil {
		return v, err
	}
	if replicaFailed(ctx, err) {
		r.failures.Add(1)
		r.markDown()
		return fn(onPrimary(rctx))
	}
	r.reads.Add(1)
	return v, err
}

// FindOrder returns the caller's order id (see findOrder).
func (db *DB) FindOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (*parcelgate.Order, error) { return db.findOrder(ctx, c, id) })
}

// FindOrderAnswer returns the caller's order id rendered (see
// findOrderAnswer).
func (db *DB) FindOrderAnswer(ctx context.Context, c *parcelgate.Caller, id string, render func(*parcelgate.Order) ([]byte, error)) ([]byte, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) ([]byte, error) { return db.findOrderAnswer(ctx, c, id, render) })
}

// ListOrders answers the order queries of spec 4.3 (see listOrders).
func (db *DB) ListOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Order], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Order], error) {
		return db.listOrders(ctx, c, q, p)
	})
}

// ListOrderAnswers is ListOrders with each order as render encodes it
// (see listOrderAnswers).
func (db *DB) ListOrderAnswers(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest, render func(*parcelgate.Order) ([]byte, error)) (parcelgate.PageOf[[]byte], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[[]byte], error) {
		return db.listOrderAnswers(ctx, c, q, p, render)
	})
}

// ListCatalogBalances pages a retailer's catalog (see listCatalogBalances).
func (db *DB) ListCatalogBalances(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Balance], error) {
		return db.listCatalogBalances(ctx, c, catalogExternalID, f, pr)
	})
}

// ListCatalogProducts pages a retailer's catalog as products (see
// listCatalogProducts).
func (db *DB) ListCatalogProducts(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
		return db.listCatalogProducts(ctx, c, catalogExternalID, f, pr)
	})
}

// ListOwnCatalogs pages the caller's catalogs (see listOwnCatalogs).
func (db *DB) ListOwnCatalogs(ctx context.Context, c *parcelgate.Caller, role parcelgate.CatalogRole, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.CatalogEntry], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.CatalogEntry], error) {
		return db.listOwnCatalogs(ctx, c, role, pr)
	})
}

// ListSupplierBalances pages a supplier's balances (see
// listSupplierBalances).
func (db *DB) ListSupplierBalances(ctx context.Context, c *parcelgate.Caller, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Balance], error) {
		return db.listSupplierBalances(ctx, c, f, pr)
	})
}

// ListInventory pages a supplier's products (see listInventoryTx).
func (db *DB) ListInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
		return db.listInventoryTx(ctx, c, f, pr)
	})
}

// FindInventoryItem returns one of the caller's products (see
// findInventoryItem).
func (db *DB) FindInventoryItem(ctx context.Context, c *parcelgate.Caller, externalID string) (*parcelgate.InventoryItem, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (*parcelgate.InventoryItem, error) {
		return db.findInventoryItem(ctx, c, externalID)
	})
}

// ConsoleOrders pages the caller's orders (see consoleOrders).
func (db *DB) ConsoleOrders(ctx context.Context, c *parcelgate.Caller, q ConsoleOrderFilter, cursor string, limit int) (ConsolePage[*parcelgate.Order], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (ConsolePage[*parcelgate.Order], error) {
		return db.consoleOrders(ctx, c, q, cursor, limit)
	})
}

// ConsoleOrderCounts counts the caller's orders by status (see
// consoleOrderCounts).
func (db *DB) ConsoleOrderCounts(ctx context.Context, c *parcelgate.Caller) (map[parcelgate.OrderStatus]int64, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (map[parcelgate.OrderStatus]int64, error) {
		return db.consoleOrderCounts(ctx, c)
	})
}

// ConsoleCounts counts the caller's products, active codes and shipments
// (see consoleCounts).
func (db *DB) ConsoleCounts(ctx context.Context, c *parcelgate.Caller) (parcelgate.ConsoleTenantCounts, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (parcelgate.ConsoleTenantCounts, error) { return db.consoleCounts(ctx, c) })
}

// ConsoleProducts pages the caller's products (see consoleProducts).
func (db *DB) ConsoleProducts(ctx context.Context, c *parcelgate.Caller, search, cursor string, limit int) (ConsolePage[*parcelgate.ConsoleProduct], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (ConsolePage[*parcelgate.ConsoleProduct], error) {
		return db.consoleProducts(ctx, c, search, cursor, limit)
	})
}

// ConsoleShipments pages the caller's shipments (see consoleShipments).
func (db *DB) ConsoleShipments(ctx context.Context, c *parcelgate.Caller, cursor string, limit int) (ConsolePage[*parcelgate.ConsoleShipment], error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (ConsolePage[*parcelgate.ConsoleShipment], error) {
		return db.consoleShipments(ctx, c, cursor, limit)
	})
}

// ConsoleChangeStamp is the newest modification stamp of the caller's
// data (see consoleChangeStamp).
func (db *DB) ConsoleChangeStamp(ctx context.Context, c *parcelgate.Caller) (int64, error) {
	return readOnReplica(ctx, db, c, func(ctx context.Context) (int64, error) { return db.consoleChangeStamp(ctx, c) })
}
