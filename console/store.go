package console

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
	// The console's own type view (a rendered page) takes the name, so
	// the package of its data shapes is views here.
	views "github.com/parcelgate/parcelgate/console/view"
)

// The console's own reads and sessions: what its pages need from storage
// besides the root's services. sqlstore's ConsoleService and
// ConsoleSessionService implement them (the wiring checks it); the store
// never imports the console.

// Database tells apart the store's errors that say the database is out of
// reach or did not answer within the request's deadline from faults:
// sqlstore's DB.Unavailable, the very decision the API answers 503 by.
type Database interface {
	Unavailable(err error) bool
}

// Reader is what the console's pages of one tenant read besides the
// services. Every method acts for c and is scoped to c's organization and
// environment (ENOTFOUND for another tenant's object), and asks c.May
// itself with the action of the page that shows it; the console asks
// parcelgate.Caller.May before calling too, and words its own refusal. A
// cursor that is not one of the list's is EINVALID naming the field
// "page".
type Reader interface {
	// ConsoleOrderCounts counts the caller's orders by status. Only a
	// caller that may ActionReadOrders.
	ConsoleOrderCounts(ctx context.Context, c *parcelgate.Caller) (map[parcelgate.OrderStatus]int64, error)
	// ConsoleCounts counts the caller's products, active codes and
	// shipments: its overview's figures. Only a caller that may
	// ActionViewTenant.
	ConsoleCounts(ctx context.Context, c *parcelgate.Caller) (views.TenantCounts, error)
	// ConsoleOrderAllocations returns the rows of the caller's order id
	// with their balances, and whether the order holds its stock now.
	// Only a caller that may ActionReadOrders.
	ConsoleOrderAllocations(ctx context.Context, c *parcelgate.Caller, id string) ([]views.Allocation, bool, error)
	// ConsoleCatalogChoices lists the catalogs of the caller's environment
	// its organization supplies (publishes products to), by retailer and
	// external ID: the choices of the console's product and order forms.
	// Only a caller that may ActionListOwnCatalogs.
	ConsoleCatalogChoices(ctx context.Context, c *parcelgate.Caller) ([]views.Catalog, error)
	// ConsoleChangeStamp moves whenever one of the caller's orders or
	// balances changes; live updates poll it. Only a caller that may
	// ActionViewTenant.
	ConsoleChangeStamp(ctx context.Context, c *parcelgate.Caller) (int64, error)
}

// OperatorReader is what the operator's console pages read: every
// environment's organizations and a chosen organization's credentials and
// catalogs. Only the operator may call it: every method asks
// c.May(ActionOperate) itself, and the console asks before calling. c is
// parcelgate.EnvironmentOperator(env) for an environment's figures
// (AllOperator(): every environment's), the operator on one
// organization (the session's caller once it chose a tenant) for that
// organization's credentials. A chosen organization's credentials and
// catalogs are listed by the services the operator API calls
// (parcelgate.CredentialService, CatalogLister).
type OperatorReader interface {
	// ConsoleEnvironmentStamp moves with every change of an order or
	// balance in c's environment; the operator's overview polls it.
	ConsoleEnvironmentStamp(ctx context.Context, c *parcelgate.Caller) (int64, error)
	// ConsoleOrganizationFigures returns orgs (a page of
	// parcelgate.OrganizationService's ListOrganizations) with the
	// overview's figures of each: its orders and ACTIVE products.
	ConsoleOrganizationFigures(ctx context.Context, c *parcelgate.Caller, orgs []*parcelgate.Organization) ([]*views.Organization, error)
	// ConsoleEnvironmentCounts counts the organizations and orders of c's
	// environment.
	ConsoleEnvironmentCounts(ctx context.Context, c *parcelgate.Caller) (orgs, orders int64, err error)
	// ConsoleCredentialOrg returns the organization of a live gateway
	// client (kind views.CredentialGatewayClient, by client ID) or service
	// account (views.CredentialServiceAccount, by username) of c's
	// environment, or ENOTFOUND.
	ConsoleCredentialOrg(ctx context.Context, c *parcelgate.Caller, kind, id string) (int64, error)
}

// SessionStore keeps the console's sessions, each known by the hash
// of its cookie value, never the value itself. Who may sign in is decided
// before a session is made: the admin token, or AuthenticateServiceAccount
// with its lockout (DecideLogin). Its methods take no caller: they run
// before there is one, a session being what the console makes its caller
// from; choosing an operator's tenant (SetConsoleTenant) takes the
// session's caller, and decides who may (ActionOperate).
type SessionStore interface {
	// CreateConsoleSession stores a session of kind (views.SessionOperator or
	// views.SessionAccount, else EINVALID) and removes the expired ones.
	CreateConsoleSession(ctx context.Context, idHash, kind, username string, now, expires time.Time) error
	// FindConsoleSession returns the live session known by idHash: not
	// past its expiry, used within idle, and, for an account session, of
	// an account that is not revoked. Anything else is ENOTFOUND.
	FindConsoleSession(ctx context.Context, idHash string, now time.Time, idle time.Duration) (*views.Session, error)
	// SetConsoleTenant records the tenant an operator session looks at; an
	// empty businessID clears it. The organization must exist (ENOTFOUND).
	SetConsoleTenant(ctx context.Context, c *parcelgate.Caller, idHash string, env parcelgate.Environment, businessID string) error
	// DeleteConsoleSession ends a session (sign-out); ending one that is
	// gone already is not an error.
	DeleteConsoleSession(ctx context.Context, idHash string) error
	// ConsoleSessionLive reports whether the session still exists and has
	// not expired, without marking it seen.
	ConsoleSessionLive(ctx context.Context, idHash string, now time.Time) (bool, error)
}

// CatalogLister is the catalog service's list of catalogs the operator
// API answers too (parcelgate.CatalogService's ListCatalogs): the
// console pages a chosen organization's by external ID.
type CatalogLister interface {
	ListCatalogs(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Catalog], error)
}
