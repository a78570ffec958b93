// Package parcelgate holds the domain of parcelgate: the types, rules and
// service interfaces of one parcel-logistics provider's interface (sending
// codes, errand codes, warehouse sales orders, products, catalogs and stock).
//
// Nothing in this package does I/O. Storage lives in sqlstore, the HTTP
// surfaces in httpapi, token sealing and password hashing in auth, and the
// warehouse engine in fulfillment; cmd/parcelgate wires them together.
package parcelgate

import (
	"fmt"
	"strings"
)

// Environment is one of the two isolated data spaces of a deployment
// (decisions §3). Every credential and every object belongs to exactly one, and
// nothing crosses between them.
type Environment string

const (
	Production Environment = "production"
	Test       Environment = "test"
)

// Environments lists every environment, production first.
var Environments = []Environment{Production, Test}

// ParseEnvironment reads an environment name; the empty string means
// production, the default of the operator API.
func ParseEnvironment(s string) (Environment, error) {
	switch Environment(strings.ToLower(strings.TrimSpace(s))) {
	case "", Production:
		return Production, nil
	case Test:
		return Test, nil
	}
	return "", Errorf(EINVALID, "environment must be %q or %q, not %q", Production, Test, s)
}

func (e Environment) String() string { return string(e) }

// Valid reports whether e names one of the two environments.
func (e Environment) Valid() bool { return e == Production || e == Test }

// Role is what a service account may do on the ecom API (decisions §4).
type Role string

const (
	// RoleMerchant places and follows warehouse sales orders.
	RoleMerchant Role = "merchant"
	// RoleSupplier creates products and publishes balances to catalogs.
	RoleSupplier Role = "supplier"
	// RoleRetailer reads the products and balances published to its catalogs.
	RoleRetailer Role = "retailer"
)

// Roles lists every role.
var Roles = []Role{RoleMerchant, RoleSupplier, RoleRetailer}

// ParseRole reads a role name case-insensitively.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Roles {
		if r == known {
			return r, nil
		}
	}
	return "", fmt.Errorf("unknown role %q (want merchant, supplier or retailer)", s)
}
