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
func (s *OrderService) FindOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (*parcelgate.Order, error) { return s.findOrder(ctx, c, id) })
}

// FindOrderAnswer returns the caller's order id rendered (see
// findOrderAnswer).
func (s *OrderService) FindOrderAnswer(ctx context.Context, c *parcelgate.Caller, id string, render func(*parcelgate.Order) ([]byte, error)) ([]byte, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) ([]byte, error) { return s.findOrderAnswer(ctx, c, id, render) })
}

// ListOrders answers the order queries of spec 4.3 (see listOrders).
func (s *OrderService) ListOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Order], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Order], error) {
		return s.listOrders(ctx, c, q, p)
	})
}

// ListOrderAnswers is ListOrders with each order as render encodes it
// (see listOrderAnswers).
func (s *OrderService) ListOrderAnswers(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest, render func(*parcelgate.Order) ([]byte, error)) (parcelgate.PageOf[[]byte], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[[]byte], error) {
		return s.listOrderAnswers(ctx, c, q, p, render)
	})
}

// ListCatalogBalances pages a retailer's catalog (see listCatalogBalances).
func (s *CatalogService) ListCatalogBalances(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Balance], error) {
		return s.listCatalogBalances(ctx, c, catalogExternalID, f, pr)
	})
}

// ListCatalogProducts pages a retailer's catalog as products (see
// listCatalogProducts).
func (s *CatalogService) ListCatalogProducts(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
		return s.listCatalogProducts(ctx, c, catalogExternalID, f, pr)
	})
}

// ListOwnCatalogs pages the caller's catalogs (see listOwnCatalogs).
func (s *CatalogService) ListOwnCatalogs(ctx context.Context, c *parcelgate.Caller, role parcelgate.CatalogRole, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.CatalogEntry], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.CatalogEntry], error) {
		return s.listOwnCatalogs(ctx, c, role, pr)
	})
}

// ListSupplierBalances pages a supplier's balances (see
// listSupplierBalances).
func (s *InventoryService) ListSupplierBalances(ctx context.Context, c *parcelgate.Caller, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Balance], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.Balance], error) {
		return s.listSupplierBalances(ctx, c, f, pr)
	})
}

// ListInventory pages a supplier's products (see listInventoryTx).
func (s *InventoryService) ListInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, pr parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.PageOf[*parcelgate.InventoryItem], error) {
		return s.listInventoryTx(ctx, c, f, pr)
	})
}

// FindInventoryItem returns one of the caller's products (see
// findInventoryItem).
func (s *InventoryService) FindInventoryItem(ctx context.Context, c *parcelgate.Caller, externalID string) (*parcelgate.InventoryItem, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (*parcelgate.InventoryItem, error) {
		return s.findInventoryItem(ctx, c, externalID)
	})
}

// ConsoleOrders pages the caller's orders (see consoleOrders).
func (s *ConsoleService) ConsoleOrders(ctx context.Context, c *parcelgate.Caller, q ConsoleOrderFilter, cursor string, limit int) (ConsolePage[*parcelgate.Order], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (ConsolePage[*parcelgate.Order], error) {
		return s.consoleOrders(ctx, c, q, cursor, limit)
	})
}

// ConsoleOrderCounts counts the caller's orders by status (see
// consoleOrderCounts).
func (s *ConsoleService) ConsoleOrderCounts(ctx context.Context, c *parcelgate.Caller) (map[parcelgate.OrderStatus]int64, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (map[parcelgate.OrderStatus]int64, error) {
		return s.consoleOrderCounts(ctx, c)
	})
}

// ConsoleCounts counts the caller's products, active codes and shipments
// (see consoleCounts).
func (s *ConsoleService) ConsoleCounts(ctx context.Context, c *parcelgate.Caller) (parcelgate.ConsoleTenantCounts, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (parcelgate.ConsoleTenantCounts, error) { return s.consoleCounts(ctx, c) })
}

// ConsoleProducts pages the caller's products (see consoleProducts).
func (s *ConsoleService) ConsoleProducts(ctx context.Context, c *parcelgate.Caller, search, cursor string, limit int) (ConsolePage[*parcelgate.ConsoleProduct], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (ConsolePage[*parcelgate.ConsoleProduct], error) {
		return s.consoleProducts(ctx, c, search, cursor, limit)
	})
}

// ConsoleShipments pages the caller's shipments (see consoleShipments).
func (s *ConsoleService) ConsoleShipments(ctx context.Context, c *parcelgate.Caller, cursor string, limit int) (ConsolePage[*parcelgate.ConsoleShipment], error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (ConsolePage[*parcelgate.ConsoleShipment], error) {
		return s.consoleShipments(ctx, c, cursor, limit)
	})
}

// ConsoleChangeStamp is the newest modification stamp of the caller's
// data (see consoleChangeStamp).
func (s *ConsoleService) ConsoleChangeStamp(ctx context.Context, c *parcelgate.Caller) (int64, error) {
	return readOnReplica(ctx, s.db, c, func(ctx context.Context) (int64, error) { return s.consoleChangeStamp(ctx, c) })
}
