package httpapi

import (
	"context"

	"github.com/parcelgate/parcelgate"
)

// The narrow interfaces the API holds where it calls less than a root
// service offers (decisions §50): such a field names only the calls the
// API makes, so it says what the API does with it and a fake implements
// no more. A field the API calls whole keeps its root interface
// (parcelgate.InventoryService, ...). The rules and who may act are stated
// on the root interfaces the store's services implement.

// OrganizationStore creates, finds and lists organizations for the operator
// (parcelgate.OrganizationService).
type OrganizationStore interface {
	CreateOrganization(ctx context.Context, c *parcelgate.Caller, o *parcelgate.Organization) error
	FindOrganization(ctx context.Context, c *parcelgate.Caller, businessID string) (*parcelgate.Organization, error)
	ListOrganizations(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrganizationQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Organization], error)
}

// OrderWriter places, changes and moves orders (parcelgate.OrderService);
// the API reads them through OrderAnswers.
type OrderWriter interface {
	CreateOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest) (*parcelgate.Order, error)
	UpdateOrder(ctx context.Context, c *parcelgate.Caller, id string, req *parcelgate.OrderRequest) (*parcelgate.Order, error)
	CancelOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error)
	ReopenOrder(ctx context.Context, c *parcelgate.Caller, id string, req *parcelgate.OrderRequest) (*parcelgate.Order, error)
	SetOrderPreferences(ctx context.Context, c *parcelgate.Caller, id string, p parcelgate.OrderPreferences) (*parcelgate.Order, error)
	AddOrderComment(ctx context.Context, c *parcelgate.Caller, id string, comment parcelgate.OrderComment) (*parcelgate.OrderComment, bool, error)
	DeleteOrderComment(ctx context.Context, c *parcelgate.Caller, id, commentID string) error
	SetOrderStatus(ctx context.Context, c *parcelgate.Caller, id string, to parcelgate.OrderStatus, reason string) (*parcelgate.Order, error)
}

// ShipmentStore stores, finds and delivers shipment data, and makes and
// reads the shipping API's shipments (parcelgate.ShipmentService).
type ShipmentStore interface {
	CreateShipment(ctx context.Context, c *parcelgate.Caller, s *parcelgate.Shipment) (created bool, err error)
	CreateShippingOrder(ctx context.Context, c *parcelgate.Caller, s *parcelgate.Shipment) error
	FindShippingOrder(ctx context.Context, c *parcelgate.Caller, number string) (*parcelgate.Shipment, error)
	ShipmentCodes(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (parcelgate.ShipmentCodes, error)
	FindShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error)
	DeliverShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error)
}

// CodeStore makes and finds sending codes and errand codes
// (parcelgate.CodeService).
type CodeStore interface {
	CreateSendingCode(ctx context.Context, c *parcelgate.Caller, trackingNumber string, noEdiCheck bool) (*parcelgate.SendingCode, error)
	FindSendingCode(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.SendingCode, error)
	FindSendingCodeByCode(ctx context.Context, c *parcelgate.Caller, code string) (*parcelgate.SendingCode, error)
	ErrandCodes(ctx context.Context, c *parcelgate.Caller, parcelIDs []string) ([]parcelgate.ErrandCodeResult, error)
	ActiveCodes(ctx context.Context, c *parcelgate.Caller) (int64, error)
}

// InventoryStore writes and reads the inventory API's products and
// balances (parcelgate.InventoryService); the console's product pages
// (ListProducts, FindProduct, ProductStock) are not the API's.
type InventoryStore interface {
	PutInventory(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.InventoryInput) (parcelgate.InventoryFailures, error)
	ListInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, page parcelgate.PageRequest) (parcelgate.Page[*parcelgate.InventoryItem], error)
	WriteInventory(ctx context.Context, c *parcelgate.Caller, f parcelgate.InventoryFilter, page parcelgate.PageRequest, w parcelgate.InventoryWriter) error
	FindInventoryItem(ctx context.Context, c *parcelgate.Caller, externalID string) (*parcelgate.InventoryItem, error)
	EndOfSale(ctx context.Context, c *parcelgate.Caller, externalIDs []string) ([]*parcelgate.InventoryItem, error)
	PutBalances(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.BalanceInput) ([]*parcelgate.Balance, error)
	ListSupplierBalances(ctx context.Context, c *parcelgate.Caller, f parcelgate.BalanceFilter, page parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Balance], error)
	DeleteBalances(ctx context.Context, c *parcelgate.Caller, r parcelgate.BalanceRemoval) ([]*parcelgate.Balance, error)
	RemoveFromCatalogs(ctx context.Context, c *parcelgate.Caller, rs []parcelgate.BalanceRemoval) (parcelgate.InventoryFailures, error)
	MigrateProductIDs(ctx context.Context, c *parcelgate.Caller) (*parcelgate.IDMigration, error)
}
