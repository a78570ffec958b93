package parcelgate

import (
	"time"
)

// The web console's side of the store: the views its pages show, and its
// sessions. The console acts through the same services as the API
// (OrderService, CredentialService, ControlService, ...); what is declared
// here is only what a page shows that no API answer carries — lists paged
// newest first in both directions, counts, an order's rows with the
// balances they draw on — and the sessions of signed-in browsers. Every
// read acts for one caller and is scoped to its organization AND
// environment, so another tenant's object answers exactly like a missing
// one; which products a caller sees is ConsoleProductScope's.

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

// The longest texts the console's lists filter by: an order reference
// (an externalId, an order ID or a reference value), a warehouse ID, a
// product search.
const (
	MaxConsoleReference = 200
	MaxConsoleWarehouse = 100
	MaxConsoleSearch    = 100
)

// Validate checks the texts of an order filter, naming the console's
// fields: ref (Reference) and warehouse (Warehouse), each at most its
// length.
func (f ConsoleOrderFilter) Validate() error {
	var p Problems
	if len(f.Reference) > MaxConsoleReference {
		p.Add("ref", "At most %d characters.", MaxConsoleReference)
	}
	if len(f.Warehouse) > MaxConsoleWarehouse {
		p.Add("warehouse", "At most %d characters.", MaxConsoleWarehouse)
	}
	return p.Err()
}

// ValidConsoleSearch checks a product search of the console (field q).
func ValidConsoleSearch(q string) error {
	var p Problems
	if len(q) > MaxConsoleSearch {
		p.Add("q", "At most %d characters.", MaxConsoleSearch)
	}
	return p.Err()
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
	// catalog reads (interface §3 rule 2, EOSVisible); zero while ACTIVE.
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
// still see it (EOSVisibleSince: interface §3 rules 1-2); and the products c's
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

// Credential kinds of the console's OperatorReader.ConsoleCredentialOrg.
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
