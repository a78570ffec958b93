package console

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// The narrow interfaces the console holds (decisions §50): each field of
// Services names only the calls of a root service the console makes, so a
// field says what the console does with it and a fake implements no more.
// The rules and who may act are stated on the root interfaces the store's
// services implement (parcelgate.OrderService, ...); the wiring hands the
// same services.

// OrganizationFinder finds the organization a session names, and lists
// the operator's (parcelgate.OrganizationService).
type OrganizationFinder interface {
	OrganizationByID(ctx context.Context, id int64) (*parcelgate.Organization, error)
	ListOrganizations(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrganizationQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Organization], error)
}

// CredentialStore signs service accounts in and makes, revokes and unlocks
// credentials (parcelgate.CredentialService; new ones through auth).
type CredentialStore interface {
	auth.CredentialStore
	AuthenticateServiceAccount(ctx context.Context, username, password string) (*parcelgate.ServiceAccount, error)
	CredentialOwner(ctx context.Context, kind parcelgate.CredentialKind, name string) (*parcelgate.Caller, error)
	RevokeGatewayClient(ctx context.Context, c *parcelgate.Caller, clientID string) error
	RevokeServiceAccount(ctx context.Context, c *parcelgate.Caller, username string) error
	UnlockServiceAccount(ctx context.Context, c *parcelgate.Caller, username string) error
	ListGatewayClients(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.GatewayClient], error)
	ListServiceAccounts(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.ServiceAccount], error)
}

// OrderStore places, reads and moves one order (parcelgate.OrderService).
type OrderStore interface {
	CreateOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest) (*parcelgate.Order, error)
	FindOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error)
	ListOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Order], error)
	OrderHistory(ctx context.Context, c *parcelgate.Caller, id string) ([]parcelgate.OrderEvent, error)
	CancelOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error)
	SetOrderStatus(ctx context.Context, c *parcelgate.Caller, id string, to parcelgate.OrderStatus, reason string) (*parcelgate.Order, error)
}

// InventoryStore lists and shows the products of a session's
// ConsoleProductScope, through the inventory service the API reads
// products with (issue 38 item 1, decisions §53), and stores the
// workbench's product and balance forms (parcelgate.InventoryService).
type InventoryStore interface {
	ListProducts(ctx context.Context, c *parcelgate.Caller, q parcelgate.ProductQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.ScopedProduct], error)
	FindProduct(ctx context.Context, c *parcelgate.Caller, id int64) (*parcelgate.ScopedProduct, error)
	ProductStock(ctx context.Context, c *parcelgate.Caller, id int64, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.CatalogStock], error)
	PutInventory(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.InventoryInput) (parcelgate.InventoryFailures, error)
	PutBalances(ctx context.Context, c *parcelgate.Caller, entries []parcelgate.BalanceInput) ([]*parcelgate.Balance, error)
}

// ControlStore moves the clock, resets an organization and keeps its
// snapshots (parcelgate.ControlService).
type ControlStore interface {
	AdvanceClock(ctx context.Context, c *parcelgate.Caller, d time.Duration) (time.Time, error)
	ListSnapshots(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Snapshot, error)
	RestoreSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.RestoreResult, error)
	DropSnapshot(ctx context.Context, c *parcelgate.Caller, name string) error
	StartReset(ctx context.Context, c *parcelgate.Caller, opt parcelgate.ResetOptions) (*parcelgate.Job, error)
	StartSnapshot(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Job, error)
	StartRestore(ctx context.Context, c *parcelgate.Caller, name string) (*parcelgate.Job, error)
	AwaitJob(ctx context.Context, c *parcelgate.Caller, id string, d time.Duration) (*parcelgate.Job, error)
	Jobs(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Job, error)
	CancelJob(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Job, error)
	TenantBusy(ctx context.Context, env parcelgate.Environment, orgID int64) bool
}

// FaultStore lists, sets and removes injected faults
// (parcelgate.FaultService).
type FaultStore interface {
	Faults(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Fault, error)
	CreateFault(ctx context.Context, c *parcelgate.Caller, f *parcelgate.Fault) error
	DeleteFault(ctx context.Context, c *parcelgate.Caller, id string) error
}

// JournalReader reads the request journal (parcelgate.JournalService).
type JournalReader interface {
	Journal(ctx context.Context, c *parcelgate.Caller, q parcelgate.JournalQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.JournalEntry], error)
	JournalEntries(ctx context.Context, c *parcelgate.Caller, q parcelgate.JournalQuery, requestID string) ([]*parcelgate.JournalEntry, error)
}

// SupplyStore is a supplier's shipments and a retailer's view of its
// suppliers' progress (parcelgate.DropshipService).
type SupplyStore interface {
	ListShipments(ctx context.Context, c *parcelgate.Caller, q parcelgate.DropshipQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.DropshipShipment], error)
	FindShipment(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.DropshipShipment, error)
	UpdateShipment(ctx context.Context, c *parcelgate.Caller, id string, u parcelgate.DropshipUpdate) (*parcelgate.DropshipShipment, error)
	SplitShipment(ctx context.Context, c *parcelgate.Caller, id string, u parcelgate.DropshipUpdate) (*parcelgate.DropshipShipment, error)
	ConfirmShipment(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.DropshipShipment, error)
	OrderShipments(ctx context.Context, c *parcelgate.Caller, orderID string) ([]*parcelgate.DropshipShipment, error)
}

// PickupFinder finds pick-up points for the pick-up pages and checks an
// order form's point (parcelgate.PickupPointFinder).
type PickupFinder interface {
	parcelgate.PickupPointLookup
	QueryPickupPoints(q parcelgate.PickupQuery, now time.Time) []parcelgate.PickupPoint
	SearchPickupPoints(s parcelgate.PickupSearch) []parcelgate.PickupPoint
}
