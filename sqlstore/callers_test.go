package sqlstore_test

import "github.com/parcelgate/parcelgate"

// The callers the store tests act as. The services ask Caller.May
// themselves (decisions §33), so a test's caller must carry the kind and
// roles its action needs, as a real token would.

// accountOf is a service account of o holding roles: the caller of the
// ecom API (interface §5.2).
func accountOf(o *parcelgate.Organization, roles ...parcelgate.Role) *parcelgate.Caller {
	return &parcelgate.Caller{Subject: "account-" + o.BusinessID, OrgID: o.ID, BusinessID: o.BusinessID, Environment: o.Environment, Kind: parcelgate.KindEcom, Roles: roles}
}

// gatewayClientOf is a gateway client of o: the caller of shipment data,
// sending codes and errand codes (interface §5.1); it never acts on the
// ecom API.
func gatewayClientOf(o *parcelgate.Organization) *parcelgate.Caller {
	return &parcelgate.Caller{Subject: "client-" + o.BusinessID, OrgID: o.ID, BusinessID: o.BusinessID, Environment: o.Environment, Kind: parcelgate.KindGateway,
		Versions: []parcelgate.VersionGrant{{Version: parcelgate.DefaultVersions[0], Tier: 1}}}
}

// orgOf is the organization c acts for, as far as the caller names it:
// enough for the callers above and for OperatorCaller.
func orgOf(c *parcelgate.Caller) *parcelgate.Organization {
	return &parcelgate.Organization{ID: c.OrgID, BusinessID: c.BusinessID, Environment: c.Environment}
}
