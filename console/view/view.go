// Package view holds the shapes of what the web console shows that no API
// answer carries: lists paged newest first in both directions, counts, an
// order's rows with the balances they draw on, and the console's sessions.
// They are data only. The rules behind them stay in the root, which
// decides them for the API as well: which products a caller sees
// (parcelgate.ConsoleProductScope), a code's state (parcelgate.CodeState),
// the longest texts a list filters by (parcelgate.ValidConsoleOrderFilter,
// parcelgate.ValidConsoleSearch).
//
// The package imports only the root and the standard library, so the
// store may implement the console's readers (console.Reader,
// console.OperatorReader, console.SessionStore) with these shapes without
// importing the console itself (internal/tools/archtest checks both).
package view

import (
	"time"

	"github.com/parcelgate/parcelgate"
)

// OrderFilter narrows the console's order list. Zero fields do not
// filter.
type OrderFilter struct {
	Statuses     []parcelgate.OrderStatus
	UpdatedSince time.Time
	// Reference matches the externalId, the service's order ID or the
	// value of any reference, exactly.
	Reference string
	Warehouse string
}

// Validate checks the texts of the filter by the root's rule
// (parcelgate.ValidConsoleOrderFilter), naming the console's fields ref
// and warehouse.
func (f OrderFilter) Validate() error {
	return parcelgate.ValidConsoleOrderFilter(f.Reference, f.Warehouse)
}

// TenantCounts are the figures of a tenant's overview.
type TenantCounts struct {
	Products    int64 // ACTIVE products the organization supplies
	EOSProducts int64
	// ActiveCodes counts the sending and errand codes active now, up to
	// MaxCountedCodes: past it ActiveCodesMore is set and the tile says
	// "1000+" (a code's activity ends with time, which no counter can
	// keep; decisions §53).
	ActiveCodes     int64
	ActiveCodesMore bool
	Shipments       int64
}

// MaxCountedCodes bounds the active codes the overview counts.
const MaxCountedCodes = 1000

// Allocation is one row of an order with the balance it draws on: the
// row's quantity is held in that balance's allocated while the order is
// allocated (Created, Submitted), and leaves it when the order is
// delivered or returns to quantity when it is cancelled
// (parcelgate.EffectOf).
type Allocation struct {
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

// Product is a product as the console lists it.
type Product struct {
	*parcelgate.Product
	// Name is the product's name from its descriptions (en, else any).
	Name string
	// Own is true when the caller supplies the product; false when it is
	// only published to one of the caller's catalogs.
	Own bool
	// LeavesListsAt is when an EOS product stops appearing in retailers'
	// catalog reads (interface §3 rule 2, parcelgate.EOSVisible); zero
	// while ACTIVE.
	LeavesListsAt time.Time
	// Stock is the total of the product's live balances the caller sees
	// (parcelgate.ScopedProduct): the products list shows this one
	// figure, the product's page its balances by catalog (decisions §58).
	Stock parcelgate.StockTotal
}

// Catalog is a catalog an organization may publish its products to, as
// the console's forms offer it.
type Catalog struct {
	RetailerID string
	ExternalID string
	Name       string
	Type       parcelgate.CatalogType
	// Own is true when the organization is the catalog's retailer too:
	// its warehouse, which its orders draw on.
	Own bool
}

// Balance is a product's stock and price in one catalog.
type Balance struct {
	Catalog     string
	CatalogName string
	CatalogType parcelgate.CatalogType
	RetailerID  string
	Quantity    int64
	Allocated   int64
	Price       string
	Currency    string
	ModifiedAt  time.Time
	Removed     bool
}

// Organization is an organization with its figures, for the operator's
// overview.
type Organization struct {
	*parcelgate.Organization
	Orders   int64
	Products int64
}

// Credential kinds of console.OperatorReader's ConsoleCredentialOrg.
const (
	CredentialGatewayClient  = "gateway-client"
	CredentialServiceAccount = "service-account"
)

// Kinds of console session.
const (
	// SessionOperator: signed in with the admin token; sees every
	// environment and organization.
	SessionOperator = "operator"
	// SessionAccount: signed in as a service account; sees that account's
	// organization in its environment, with its roles.
	SessionAccount = "account"
)

// Session is a signed-in browser of the web console. Sessions live in the
// database, so every instance behind a load balancer knows them and
// signing out on one ends the session on all.
type Session struct {
	Kind     string
	Username string // the service account of an account session
	// Environment, BusinessID and OrgID are the account's organization, or
	// the tenant an operator has chosen to look at (OrgID 0: none).
	Environment parcelgate.Environment
	BusinessID  string
	OrgID       int64
	// Roles are the account's roles, read afresh on every request, so a
	// change of roles applies at once.
	Roles     []parcelgate.Role
	CreatedAt time.Time
	SeenAt    time.Time
	ExpiresAt time.Time
}
