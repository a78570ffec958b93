package console

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The console's own reads and sessions: what its pages need from storage
// besides the root's services. sqlstore's ConsoleService and
// ConsoleSessionService implement them (the wiring checks it); the store
// never imports the console.

// Reader is what the console's pages of one tenant read besides the
// services. Every method acts for c and is scoped to c's organization and
// environment (ENOTFOUND for another tenant's object); the console asks
// parcelgate.Caller.May before calling. A cursor that is not one of the list's is
// EINVALID naming the field "page".
type Reader interface {
	// ConsoleOrders pages the caller's orders, most recently changed first.
	ConsoleOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.ConsoleOrderFilter, cursor string, limit int) (parcelgate.Page[*parcelgate.Order], error)
	// ConsoleOrderCounts counts the caller's orders by status.
	ConsoleOrderCounts(ctx context.Context, c *parcelgate.Caller) (map[parcelgate.OrderStatus]int64, error)
	// ConsoleCounts counts the caller's products, active codes and
	// shipments.
	ConsoleCounts(ctx context.Context, c *parcelgate.Caller) (parcelgate.ConsoleTenantCounts, error)
	// ConsoleOrderAllocations returns the rows of the caller's order id
	// with their balances, and whether the order holds its stock now.
	ConsoleOrderAllocations(ctx context.Context, c *parcelgate.Caller, id string) ([]parcelgate.ConsoleAllocation, bool, error)
	// ConsoleProducts pages the products of ConsoleProductScope, newest
	// first, each with its Stock; search, when given, keeps those whose externalId contains it
	// (ignoring case) or whose EAN code is it.
	ConsoleProducts(ctx context.Context, c *parcelgate.Caller, search, cursor string, limit int) (parcelgate.Page[*parcelgate.ConsoleProduct], error)
	// ConsoleCatalogChoices lists the catalogs of the caller's environment
	// its organization supplies (publishes products to), by retailer and
	// external ID: the choices of the console's product and order forms.
	ConsoleCatalogChoices(ctx context.Context, c *parcelgate.Caller) ([]parcelgate.ConsoleCatalog, error)
	// ConsoleProductDetail returns one product of ConsoleProductScope (by
	// the store's product id) with its balances: every catalog's when the
	// caller supplies it, else those of the caller's own catalogs.
	ConsoleProductDetail(ctx context.Context, c *parcelgate.Caller, id int64) (*parcelgate.ConsoleProduct, []parcelgate.ConsoleBalance, error)
	// ConsoleShipments pages the caller's shipments, newest first.
	ConsoleShipments(ctx context.Context, c *parcelgate.Caller, cursor string, limit int) (parcelgate.Page[*parcelgate.ConsoleShipment], error)
	// ConsoleLookup finds the tracking numbers of the caller's shipments
	// that q names: as a tracking number, a parcel ID, or a sending or
	// errand code (active or not).
	ConsoleLookup(ctx context.Context, c *parcelgate.Caller, q string) ([]string, error)
	// ConsoleShipmentCodes returns every code the caller's shipment held,
	// newest first.
	ConsoleShipmentCodes(ctx context.Context, c *parcelgate.Caller, trackingNumber string) ([]parcelgate.ConsoleCode, error)
	// ConsoleChangeStamp moves whenever one of the caller's orders or
	// balances changes; live updates poll it.
	ConsoleChangeStamp(ctx context.Context, c *parcelgate.Caller) (int64, error)
}

// OperatorReader is what the operator's console pages read: every
// environment's organizations and a chosen organization's credentials and
// catalogs. Only the operator may call it (ActionOperate); the console
// asks before calling.
type OperatorReader interface {
	// ConsoleEnvironmentStamp moves with every change of an order or
	// balance in env; the operator's overview polls it.
	ConsoleEnvironmentStamp(ctx context.Context, env parcelgate.Environment) (int64, error)
	// ConsoleOrganizations pages the organizations of env, newest first.
	ConsoleOrganizations(ctx context.Context, env parcelgate.Environment, cursor string, limit int) (parcelgate.Page[*parcelgate.ConsoleOrganization], error)
	// ConsoleEnvironmentCounts counts the organizations and orders of env.
	ConsoleEnvironmentCounts(ctx context.Context, env parcelgate.Environment) (orgs, orders int64, err error)
	// ConsoleGatewayClients pages the live gateway clients of one
	// organization, by client ID; next is the after of the next page.
	ConsoleGatewayClients(ctx context.Context, orgID int64, after string, limit int) (clients []*parcelgate.GatewayClient, next string, err error)
	// ConsoleServiceAccounts pages the live service accounts of one
	// organization, by username, with their lockout state.
	ConsoleServiceAccounts(ctx context.Context, orgID int64, after string, limit int) (accounts []*parcelgate.ServiceAccount, next string, err error)
	// ConsoleCredentialOrg returns the organization of a live gateway
	// client (kind CredentialGatewayClient, by client ID) or service
	// account (CredentialServiceAccount, by username), or ENOTFOUND.
	ConsoleCredentialOrg(ctx context.Context, kind, id string) (int64, error)
	// ConsoleCatalogs pages the catalogs an organization owns as retailer,
	// by external ID, each with its suppliers.
	ConsoleCatalogs(ctx context.Context, orgID int64, after string, limit int) (catalogs []*parcelgate.Catalog, next string, err error)
}

// SessionStore keeps the console's sessions, each known by the hash
// of its cookie value, never the value itself. Who may sign in is decided
// before a session is made: the admin token, or AuthenticateServiceAccount
// with its lockout (DecideLogin).
type SessionStore interface {
	// CreateConsoleSession stores a session of kind (ConsoleOperator or
	// ConsoleAccount, else EINVALID) and removes the expired ones.
	CreateConsoleSession(ctx context.Context, idHash, kind, username string, now, expires time.Time) error
	// FindConsoleSession returns the live session known by idHash: not
	// past its expiry, used within idle, and, for an account session, of
	// an account that is not revoked. Anything else is ENOTFOUND.
	FindConsoleSession(ctx context.Context, idHash string, now time.Time, idle time.Duration) (*parcelgate.ConsoleSession, error)
	// SetConsoleTenant records the tenant an operator session looks at; an
	// empty businessID clears it. The organization must exist (ENOTFOUND).
	SetConsoleTenant(ctx context.Context, idHash string, env parcelgate.Environment, businessID string) error
	// DeleteConsoleSession ends a session (sign-out); ending one that is
	// gone already is not an error.
	DeleteConsoleSession(ctx context.Context, idHash string) error
	// ConsoleSessionLive reports whether the session still exists and has
	// not expired, without marking it seen.
	ConsoleSessionLive(ctx context.Context, idHash string, now time.Time) (bool, error)
}
