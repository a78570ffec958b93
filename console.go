package parcelgate

import (
	"time"
)

// The web console's rules. What its pages show is console/view's (data
// only); which products a caller sees, a code's state, the longest texts
// its lists filter by and who may open its products pages are decided
// here, by the rules of the API's own reads, so the console implements no
// rule of its own (decisions §18).

// The longest texts the console's lists filter by: an order reference
// (an externalId, an order ID or a reference value), a warehouse ID, a
// product search.
const (
	MaxConsoleReference = 200
	MaxConsoleWarehouse = 100
	MaxConsoleSearch    = 100
)

// ValidConsoleOrderFilter checks the texts of the console's order filter,
// naming the console's fields: ref (reference: an externalId, an order ID
// or a reference value) and warehouse, each at most its length.
func ValidConsoleOrderFilter(reference, warehouse string) error {
	var p Problems
	if len(reference) > MaxConsoleReference {
		p.Add("ref", "At most %d characters.", MaxConsoleReference)
	}
	if len(warehouse) > MaxConsoleWarehouse {
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

// MayReadConsoleProducts decides who may open the console's products
// pages and read their lists: a caller that may read products (a supplier
// or merchant: what it supplies) or every catalog (a retailer: what is
// published to it); which products each sees is ConsoleProductScope's.
// A refusal is ActionReadProducts's, as the console words it. For a
// caller marked by Unread it answers as May does: the refusal, or the
// problem of the request when c may read.
func MayReadConsoleProducts(c *Caller) error {
	if c != nil && c.may(ActionReadAllCatalogs) == nil {
		return c.unread
	}
	return c.May(ActionReadProducts)
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
