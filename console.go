package parcelgate

import (
	"context"
	"time"
)

// The web console's side of the store: the views its pages show, and its
// sessions. The console acts through the same services as the API
// (OrderService, CredentialService, SandboxService, ...); what is declared
// here is only what a page shows that no API answer carries — lists paged
// newest first in both directions, counts, an order's rows with the
// balances they draw on — and the sessions of signed-in browsers. Every
// read acts for one caller and is scoped to its organization AND
// environment, so another tenant's object answers exactly like a missing
// one; which products a caller sees is ConsoleProductScope's.

// ConsolePage is one page of a console list. Older and Newer are cursors
// of the neighbouring pages; empty when there is none.
type ConsolePage[T any] struct {
	Items        []T
	Older, Newer string
}

// ConsoleOrderFilter narrows the console's order list. Zero fields do not
// filter.
type ConsoleOrderFilter struct {
	Statuses     []OrderStatus
	UpdatedSince time.Time
	// Reference matches the externalId, the service's order ID or the
	// value of any reference, exactly.
	Reference string
	Warehouse string
}

// ConsoleTenantCounts are the figures of a tenant's overview.
type ConsoleTenantCounts struct {
	Products    int64 // ACTIVE products the organization supplies
	EOSProducts int64
	ActiveCodes int64 // sending and errand codes active now
	Shipments   int64
}

// ConsoleAllocation is one row of an order with the balance it draws on:
// the row's quantity is held in that balance's allocated while the order
// is allocated (Created, Submitted), and leaves it when the order is
// delivered or returns to quantity when it is cancelled (EffectOf).
type ConsoleAllocation struct {
	Line      int
	Product   string
	Warehouse string
	Quantity  int64
	// Catalog and the balance's current figures; BalanceID 0 when the row
	// names no balance (the order went to Error).
	BalanceID        int64
	ProductID        int64
	Catalog          string
	BalanceQuantity  int64
	BalanceAllocated int64
}

// ConsoleProduct is a product as the console lists it.
type ConsoleProduct struct {
	*Product
	// Name is the product's name from its descriptions (en, else any).
	Name string
	// Own is true when the caller supplies the product; false when it is
	// only published to one of the caller's catalogs.
	Own bool
	// LeavesListsAt is when an EOS product stops appearing in retailers'
	// catalog reads (spec 3 rule 2, EOSVisible); zero while ACTIVE.
	LeavesListsAt time.Time
	// Stock is the product's balances the caller sees, by the rule of
	// ConsoleProductDetail (removed ones left out): quantity and allocated
	// per catalog, as the products list shows them.
	Stock []ConsoleBalance
}

// ConsoleCatalog is a catalog an organization may publish its products
// to, as the console's forms offer it.
type ConsoleCatalog struct {
	RetailerID string
	ExternalID string
	Name       string
	Type       CatalogType
	// Own is true when the organization is the catalog's retailer too:
	// its warehouse, which its orders draw on.
	Own bool
}

// ConsoleBalance is a product's stock and price in one catalog.
type ConsoleBalance struct {
	Catalog     string
	CatalogName string
	CatalogType CatalogType
	RetailerID  string
	Quantity    int64
	Allocated   int64
	Price       string
	Currency    string
	ModifiedAt  time.Time
	Removed     bool
}

// ConsoleShipment is a shipment as the console lists it.
type ConsoleShipment struct {
	TrackingNumber string
	ServiceCode    string
	Status         ShipmentStatus
	Parcels        int
	CreatedAt      time.Time
}

// ConsoleCode is a sending code (Parcel "") or an errand code of a
// shipment, with its state.
type ConsoleCode struct {
	Code       string
	Parcel     string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	ReleasedAt time.Time
	// State is CodeState's: CodeActive, CodeExpired or CodeReleased.
	State string
}

// ConsoleOrganization is an organization with its figures, for the
// operator's overview.
type ConsoleOrganization struct {
	*Organization
	Orders   int64
	Products int64
}

// OrderEvent is one entry of an order's history.
type OrderEvent struct {
	Status OrderStatus `json:"status"`
	Reason string      `json:"reason,omitempty"`
	Actor  string      `json:"actor"`
	At     time.Time   `json:"at"`
}

// ProductScope says which products a caller sees: those it supplies when
// Own, and those published (not removed) to its catalogs when Published,
// of the catalog types CatalogTypes (nil: every type), an EOS one only
// while its sale ended after EOSSince. A store filters by it; it does not
// decide it.
type ProductScope struct {
	Own          bool
	Published    bool
	CatalogTypes []CatalogType
	EOSSince     time.Time
}

// ConsoleProductScope is which products the console shows c at now, by
// the rules of the API's own reads: what is published to the catalogs c
// may read (ReadableCatalogTypes), an EOS product only while retailers
// still see it (EOSVisibleSince: spec 3 rules 1-2); and the products c's
// organization supplies, whichever their status (the console shows an EOS
// product to its supplier, marked as such), unless c reads only as a
// retailer: a caller that may read catalogs but not products
// (ActionReadProducts) sees only what is published to it. Who may open the
// products pages at all is Caller.May's, asked by the console.
func ConsoleProductScope(c *Caller, now time.Time) ProductScope {
	types := ReadableCatalogTypes(c)
	published := types == nil || len(types) > 0
	return ProductScope{
		Own:          !published || c.May(ActionReadProducts) == nil,
		Published:    published,
		CatalogTypes: types,
		EOSSince:     EOSVisibleSince(now),
	}
}

// ConsoleReader is what the console's pages of one tenant read besides the
// services. Every method acts for c and is scoped to c's organization and
// environment (ENOTFOUND for another tenant's object); the console asks
// Caller.May before calling. A cursor that is not one of the list's is
// EINVALID naming the field "page".
type ConsoleReader interface {
	// ConsoleOrders pages the caller's orders, most recently changed first.
	ConsoleOrders(ctx context.Context, c *Caller, q ConsoleOrderFilter, cursor string, limit int) (ConsolePage[*Order], error)
	// ConsoleOrderCounts counts the caller's orders by status.
	ConsoleOrderCounts(ctx context.Context, c *Caller) (map[OrderStatus]int64, error)
	// ConsoleCounts counts the caller's products, active codes and
	// shipments.
	ConsoleCounts(ctx context.Context, c *Caller) (ConsoleTenantCounts, error)
	// ConsoleOrderAllocations returns the rows of the caller's order id
	// with their balances, and whether the order holds its stock now.
	ConsoleOrderAllocations(ctx context.Context, c *Caller, id string) ([]ConsoleAllocation, bool, error)
	// ConsoleProducts pages the products of ConsoleProductScope, newest
	// first, each with its Stock; search, when given, keeps those whose externalId contains it
	// (ignoring case) or whose EAN code is it.
	ConsoleProducts(ctx context.Context, c *Caller, search, cursor string, limit int) (ConsolePage[*ConsoleProduct], error)
	// ConsoleCatalogChoices lists the catalogs of the caller's environment
	// its organization supplies (publishes products to), by retailer and
	// external ID: the choices of the console's product and order forms.
	ConsoleCatalogChoices(ctx context.Context, c *Caller) ([]ConsoleCatalog, error)
	// ConsoleProductDetail returns one product of ConsoleProductScope (by
	// the store's product id) with its balances: every catalog's when the
	// caller supplies it, else those of the caller's own catalogs.
	ConsoleProductDetail(ctx context.Context, c *Caller, id int64) (*ConsoleProduct, []ConsoleBalance, error)
	// ConsoleShipments pages the caller's shipments, newest first.
	ConsoleShipments(ctx context.Context, c *Caller, cursor string, limit int) (ConsolePage[*ConsoleShipment], error)
	// ConsoleLookup finds the tracking numbers of the caller's shipments
	// that q names: as a tracking number, a parcel ID, or a sending or
	// errand code (active or not).
	ConsoleLookup(ctx context.Context, c *Caller, q string) ([]string, error)
	// ConsoleShipmentCodes returns every code the caller's shipment held,
	// newest first.
	ConsoleShipmentCodes(ctx context.Context, c *Caller, trackingNumber string) ([]ConsoleCode, error)
	// ConsoleChangeStamp moves whenever one of the caller's orders or
	// balances changes; live updates poll it.
	ConsoleChangeStamp(ctx context.Context, c *Caller) (int64, error)
}

// OperatorReader is what the operator's console pages read: every
// environment's organizations and a chosen organization's credentials and
// catalogs. Only the operator may call it (ActionOperate); the console
// asks before calling.
type OperatorReader interface {
	// ConsoleEnvironmentStamp moves with every change of an order or
	// balance in env; the operator's overview polls it.
	ConsoleEnvironmentStamp(ctx context.Context, env Environment) (int64, error)
	// ConsoleOrganizations pages the organizations of env, newest first.
	ConsoleOrganizations(ctx context.Context, env Environment, cursor string, limit int) (ConsolePage[*ConsoleOrganization], error)
	// ConsoleEnvironmentCounts counts the organizations and orders of env.
	ConsoleEnvironmentCounts(ctx context.Context, env Environment) (orgs, orders int64, err error)
	// ConsoleGatewayClients pages the live gateway clients of one
	// organization, by client ID; next is the after of the next page.
	ConsoleGatewayClients(ctx context.Context, orgID int64, after string, limit int) (clients []*GatewayClient, next string, err error)
	// ConsoleServiceAccounts pages the live service accounts of one
	// organization, by username, with their lockout state.
	ConsoleServiceAccounts(ctx context.Context, orgID int64, after string, limit int) (accounts []*ServiceAccount, next string, err error)
	// ConsoleCredentialOrg returns the organization of a live gateway
	// client (kind CredentialGatewayClient, by client ID) or service
	// account (CredentialServiceAccount, by username), or ENOTFOUND.
	ConsoleCredentialOrg(ctx context.Context, kind, id string) (int64, error)
	// ConsoleCatalogs pages the catalogs an organization owns as retailer,
	// by external ID, each with its suppliers.
	ConsoleCatalogs(ctx context.Context, orgID int64, after string, limit int) (catalogs []*Catalog, next string, err error)
}

// Credential kinds of OperatorReader.ConsoleCredentialOrg.
const (
	CredentialGatewayClient  = "gateway-client"
	CredentialServiceAccount = "service-account"
)

// Kinds of console session.
const (
	// ConsoleOperator: signed in with the admin token; sees every
	// environment and organization.
	ConsoleOperator = "operator"
	// ConsoleAccount: signed in as a service account; sees that account's
	// organization in its environment, with its roles.
	ConsoleAccount = "account"
)

// ConsoleSession is a signed-in browser of the web console. Sessions live
// in the database, so every instance behind a load balancer knows them and
// signing out on one ends the session on all.
type ConsoleSession struct {
	Kind     string
	Username string // the service account of an account session
	// Environment, BusinessID and OrgID are the account's organization, or
	// the tenant an operator has chosen to look at (OrgID 0: none).
	Environment Environment
	BusinessID  string
	OrgID       int64
	// Roles are the account's roles, read afresh on every request, so a
	// change of roles applies at once.
	Roles     []Role
	CreatedAt time.Time
	SeenAt    time.Time
	ExpiresAt time.Time
}

// ConsoleSessionStore keeps the console's sessions, each known by the hash
// of its cookie value, never the value itself. Who may sign in is decided
// before a session is made: the admin token, or AuthenticateServiceAccount
// with its lockout (DecideLogin).
type ConsoleSessionStore interface {
	// CreateConsoleSession stores a session of kind (ConsoleOperator or
	// ConsoleAccount, else EINVALID) and removes the expired ones.
	CreateConsoleSession(ctx context.Context, idHash, kind, username string, now, expires time.Time) error
	// FindConsoleSession returns the live session known by idHash: not
	// past its expiry, used within idle, and, for an account session, of
	// an account that is not revoked. Anything else is ENOTFOUND.
	FindConsoleSession(ctx context.Context, idHash string, now time.Time, idle time.Duration) (*ConsoleSession, error)
	// SetConsoleTenant records the tenant an operator session looks at; an
	// empty businessID clears it. The organization must exist (ENOTFOUND).
	SetConsoleTenant(ctx context.Context, idHash string, env Environment, businessID string) error
	// DeleteConsoleSession ends a session (sign-out); ending one that is
	// gone already is not an error.
	DeleteConsoleSession(ctx context.Context, idHash string) error
	// ConsoleSessionLive reports whether the session still exists and has
	// not expired, without marking it seen.
	ConsoleSessionLive(ctx context.Context, idHash string, now time.Time) (bool, error)
}

// States of a code, as the console shows them.
const (
	CodeActive   = "active"
	CodeExpired  = "expired"
	CodeReleased = "released"
)

// CodeState is the state at now of a code that expires at expiresAt and
// was freed at releasedAt (zero: not yet): released once freed (its
// shipment was delivered, or it expired and was taken back: decisions §5),
// expired from expiresAt on, active before.
func CodeState(expiresAt, releasedAt, now time.Time) string {
	switch {
	case !releasedAt.IsZero():
		return CodeReleased
	case !expiresAt.After(now):
		return CodeExpired
	}
	return CodeActive
}
