package parcelgate

import (
	"strings"
)

// Action is one thing a caller may do on a tenant's behalf. Every surface
// that acts for a tenant — the HTTP API, the console, the CLI — asks
// Caller.May with one of these, so who may act is decided here and only
// here.
type Action string

const (
	// Warehouse sales orders (interface §4.3): the merchant's; a retailer
	// orders from its suppliers' dropshipping catalogs the same way
	// (decisions §34).
	ActionPlaceOrders Action = "orders:write"
	ActionReadOrders  Action = "orders:read"

	// ActionSupplyShipments: a supplier reads and writes the shipments of
	// dropshipping orders that are its own (Shipments API v3, decisions
	// §34).
	ActionSupplyShipments Action = "supplier-shipments:write"

	// Products and balances (interface §4.4): a supplier publishes its own; a
	// merchant, who stocks the provider's warehouse, does the same.
	ActionManageProducts  Action = "products:write"
	ActionReadProducts    Action = "products:read"
	ActionPublishBalances Action = "balances:write"

	// Catalogs (interface §4.4): every ecom role may list the catalogs it takes
	// part in; retailers read the balances of all their catalogs, and a
	// merchant reads those of the provider's warehouse catalogs only.
	ActionListOwnCatalogs       Action = "catalogs:list"
	ActionReadWarehouseCatalogs Action = "catalogs:read-warehouse"
	ActionReadAllCatalogs       Action = "catalogs:read"

	// Delivery services and pick-up points: anyone who places orders or
	// publishes stock may look them up.
	ActionReadLocations Action = "locations:read"

	// Tracking (decisions §30): any service account may track parcels.
	ActionTrackParcels Action = "tracking:read"

	// ActionViewTenant: any service account sees its own organization's
	// overview figures and request journal in the console (decisions §16,
	// §21); the operator any tenant's. It opens no route of the API: the
	// operator's journal reads are ActionOperate's.
	ActionViewTenant Action = "tenant:read"

	// Sending codes, shipment data and errand codes (interface §4.1, 4.2): a
	// gateway client's. Reading the organization's shipments and the codes
	// they hold is also any service account's (decisions §40): the console
	// shows them to the organization's people, and the Tracking API
	// already answers a service account its own parcels in full (§30).
	// That opens no API route to a service account: the gateway's routes
	// take gateway tokens only (decisions §4).
	ActionCreateShipments Action = "shipments:write"
	ActionReadShipments   Action = "shipments:read"
	ActionCreateCodes     Action = "codes:write"
	ActionReadCodes       Action = "codes:read"
	ActionReadErrandCodes Action = "errand-codes:read"

	// ActionOperate is the operator's: credentials, organizations, the
	// warehouse's moves, the operator controls.
	ActionOperate Action = "operate"
)

// ecomPermissions is the table of who may act on the ecom API (interface §5.2):
// for each action, the roles of a service account that allow it.
var ecomPermissions = map[Action][]Role{
	ActionPlaceOrders:           {RoleMerchant, RoleRetailer},
	ActionReadOrders:            {RoleMerchant, RoleRetailer},
	ActionSupplyShipments:       {RoleSupplier},
	ActionManageProducts:        {RoleSupplier, RoleMerchant},
	ActionReadProducts:          {RoleSupplier, RoleMerchant},
	ActionPublishBalances:       {RoleSupplier, RoleMerchant},
	ActionListOwnCatalogs:       {RoleMerchant, RoleSupplier, RoleRetailer},
	ActionReadWarehouseCatalogs: {RoleRetailer, RoleMerchant},
	ActionReadAllCatalogs:       {RoleRetailer},
	ActionReadLocations:         {RoleMerchant, RoleSupplier, RoleRetailer},
	ActionTrackParcels:          {RoleMerchant, RoleSupplier, RoleRetailer},
	ActionViewTenant:            {RoleMerchant, RoleSupplier, RoleRetailer},
	ActionReadShipments:         {RoleMerchant, RoleSupplier, RoleRetailer},
	ActionReadCodes:             {RoleMerchant, RoleSupplier, RoleRetailer},
}

// gatewayPermissions lists what a gateway client may do (interface §5.1): every
// gateway action, within the API versions its token grants.
var gatewayPermissions = map[Action]bool{
	ActionCreateShipments: true,
	ActionReadShipments:   true,
	ActionCreateCodes:     true,
	ActionReadCodes:       true,
	ActionReadErrandCodes: true,
}

// RolesFor returns the service-account roles that allow a on the ecom API
// (none for gateway and operator actions).
func RolesFor(a Action) []Role { return ecomPermissions[a] }

// May reports whether c may do a: nil, or an EFORBIDDEN *Error that says
// what is missing. A token of one service never acts on the other's API
// (decisions §4); an operator may do everything, in every tenant.
//
// For a caller marked by Unread, May answers the refusal as above and,
// where c may do a, the problem of the request instead of nil: the
// service that asks it first decides who may act before what was sent
// is looked at (decisions §57).
func (c *Caller) May(a Action) error {
	if err := c.may(a); err != nil || c == nil {
		return err
	}
	return c.unread
}

func (c *Caller) may(a Action) error {
	if c == nil {
		return Errorf(EUNAUTHORIZED, "No credentials were given.")
	}
	switch c.Kind {
	case KindOperator:
		return nil
	case KindGateway:
		if gatewayPermissions[a] {
			return nil
		}
		return Errorf(EFORBIDDEN, "A gateway token cannot do this; it needs %s.", needs(a))
	case KindEcom:
		for _, r := range ecomPermissions[a] {
			if c.HasRole(r) {
				return nil
			}
		}
		return Errorf(EFORBIDDEN, "This operation needs %s.", needs(a))
	}
	return Errorf(EFORBIDDEN, "This operation needs %s.", needs(a))
}

// Unread returns c making a request whose input its front end could not
// read, or found wrong, with err (decisions §57): the service asked with
// it answers, at its first May, EFORBIDDEN when c may not act and err
// when it may, and does nothing else. A front end that reads its input
// before its service (a body, a query, a path) hands the service its
// problem so: who may act is decided by the service, before the input,
// and a forbidden caller is refused whatever it sent. c is not changed.
func (c *Caller) Unread(err error) *Caller {
	if c == nil {
		return nil
	}
	u := *c
	u.unread = err
	return &u
}

// needs says in words who may do a, for the messages of May.
func needs(a Action) string {
	if roles := ecomPermissions[a]; len(roles) > 0 {
		names := make([]string, len(roles))
		for i, r := range roles {
			names[i] = string(r)
		}
		return "the role " + strings.Join(names, " or ")
	}
	if gatewayPermissions[a] {
		return "a gateway token"
	}
	return "the operator"
}
