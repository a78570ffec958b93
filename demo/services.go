package demo

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// The narrow interfaces the seed writes through (decisions §50): each
// field of Services names only the calls of a root service the seed
// makes. The rules and who may act are stated on the root interfaces the
// store's services implement.

// Organizations finds and creates the demo organizations
// (parcelgate.OrganizationService).
type Organizations interface {
	HasOrganizations(ctx context.Context) (bool, error)
	FindOrganization(ctx context.Context, c *parcelgate.Caller, businessID string) (*parcelgate.Organization, error)
	CreateOrganization(ctx context.Context, c *parcelgate.Caller, o *parcelgate.Organization) error
}

// Credentials creates the demo credentials (parcelgate.CredentialService).
type Credentials interface {
	CreateGatewayClient(ctx context.Context, c *parcelgate.Caller, gc *parcelgate.GatewayClient, secretHash string) error
	CreateServiceAccount(ctx context.Context, c *parcelgate.Caller, a *parcelgate.ServiceAccount, passwordHash string) error
}

// Catalogs creates the demo catalogs (parcelgate.CatalogService).
type Catalogs interface {
	CreateCatalog(ctx context.Context, c *parcelgate.Caller, k *parcelgate.Catalog) error
}

// Shipments stores the demo shipment (parcelgate.ShipmentService).
type Shipments interface {
	CreateShipment(ctx context.Context, c *parcelgate.Caller, s *parcelgate.Shipment) (created bool, err error)
}

// Inventory publishes the demo products (parcelgate.InventoryService).
type Inventory interface {
	PutInventory(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.InventoryInput) (parcelgate.InventoryFailures, error)
}

// Orders places the sample orders (parcelgate.OrderService).
type Orders interface {
	CreateOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest) (*parcelgate.Order, error)
}

// Controls takes the demo snapshot (parcelgate.ControlService).
type Controls interface {
	TakeSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Snapshot, error)
}

// AutoSupplier switches a supplier's automatic supplier on
// (parcelgate.SupplierShipmentService).
type AutoSupplier interface {
	SetAutoSupplier(ctx context.Context, c *parcelgate.Caller, a parcelgate.AutoSupplier) (parcelgate.AutoSupplier, error)
}
