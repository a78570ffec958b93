package parcelgate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// TrackingKey is one of the Tracking API's lookups by a key other than the
// tracking number: its route under /tracking/7/shipments/ (decisions §30).
// The provider documents the routes by name only; what each key matches
// in what parcelgate stores, and how its value is checked, is decided
// here.
type TrackingKey string

// The provider's lookup keys.
const (
	KeyWaybillNumber     TrackingKey = "waybillnumber"
	KeyConsignmentNumber TrackingKey = "consignmentnumber"
	KeyGoodsItemID       TrackingKey = "goodsitemid"
	KeySenderReference   TrackingKey = "senderreference"
	KeyOrderNumber       TrackingKey = "ordernumber"
	KeyReceiverReference TrackingKey = "receiverreference"
	KeyErrandCode        TrackingKey = "errandcode"
	KeyPhoneNumber       TrackingKey = "phonenumber"
)

// TrackingKeys lists every key, in the order the routes are served.
var TrackingKeys = []TrackingKey{KeyWaybillNumber, KeyConsignmentNumber, KeyGoodsItemID,
	KeySenderReference, KeyOrderNumber, KeyReceiverReference, KeyErrandCode, KeyPhoneNumber}

// TrackingMatch is what a key's value is matched against in the store.
type TrackingMatch int

const (
	// MatchShipmentNumber: the shipment's tracking number; every parcel of
	// the shipment.
	MatchShipmentNumber TrackingMatch = iota + 1
	// MatchReference: the shipment's sender reference (case-insensitive);
	// every parcel of the shipment.
	MatchReference
	// MatchErrandCode: an active errand code; the parcel that holds it.
	MatchErrandCode
	// MatchNothing: nothing stored answers the key.
	MatchNothing
	// MatchFreight: a freight key (the provider's v7 OpenAPI: the
	// waybill number and the goods item ID are freight's). parcelgate
	// carries no freight, so it answers no parcel and no freight.
	MatchFreight
)

// MaxTrackingReference is the longest reference a key takes: a stored
// reference is at most as long (Shipment.Validate).
const MaxTrackingReference = maxAddressField

// trackingKeyRule is how one key is served.
type trackingKeyRule struct {
	param string // the route's path parameter, the field of a 400
	noun  string // what the value is, in a 404's message
	match TrackingMatch
	// lookup: found in every organization of the environment (another's
	// parcel in the public view), and an unknown value is 404; else a
	// search of the caller's own parcels, answering an empty list.
	lookup bool
	// restricted: the provider serves the key to holders of a special
	// permission only.
	restricted bool
	check      func(p *Problems, field, v string) string
}

// trackingKeys (decisions §30, §39). The parcel numbers printed on a
// parcel are lookups, as trackingnumber is: whoever holds the parcel holds
// the number, and its 4 to 35 characters are not guessed. The waybill
// number and the goods item ID are freight keys (the provider's v7
// OpenAPI: waybillnumber is freight_waybill_number, goodsitemid an alias
// of freight_tracking_number; consignmentnumber is parcel-only): they
// search freight, of which parcelgate has none, and answer empty lists. A
// reference, an
// order number and an errand code are searches of the caller's own
// parcels: a reference is a tenant's own words (often a plain order
// number, easily guessed), and an errand code is 6 characters from a
// space of 16.7 million, so answering another tenant's parcel for either
// would let a caller enumerate other tenants' shipments. The errand-code
// API itself answers the caller's own codes only (decisions §5).
var trackingKeys = map[TrackingKey]trackingKeyRule{
	KeyWaybillNumber:     {param: "waybillNumber", noun: "waybill number", match: MatchFreight, check: checkShipmentNumber},
	KeyConsignmentNumber: {param: "consignmentNumber", noun: "consignment number", match: MatchShipmentNumber, lookup: true, check: checkShipmentNumber},
	KeyGoodsItemID:       {param: "goodsItemId", noun: "goods item ID", match: MatchFreight, check: checkGoodsItemID},
	KeySenderReference:   {param: "senderReference", noun: "sender reference", match: MatchReference, check: checkReference},
	KeyOrderNumber:       {param: "orderNumber", noun: "order number", match: MatchReference, check: checkReference},
	KeyReceiverReference: {param: "receiverReference", noun: "receiver reference", match: MatchNothing, check: checkReference},
	KeyErrandCode:        {param: "errandCode", noun: "errand code", match: MatchErrandCode, check: checkErrandCode},
	KeyPhoneNumber:       {param: "phoneNumber", noun: "phone number", match: MatchNothing, restricted: true},
}

// Valid reports whether k is one of TrackingKeys.
func (k TrackingKey) Valid() bool { _, ok := trackingKeys[k]; return ok }

// Param is the name of k's path parameter, the field a bad value is
// reported in.
func (k TrackingKey) Param() string { return trackingKeys[k].param }

// Match is what k's value is matched against.
func (k TrackingKey) Match() TrackingMatch { return trackingKeys[k].match }

// Lookup reports whether k looks a number up in every organization of the
// caller's environment (another organization's parcel in the public view;
// no parcel is 404), rather than searching the caller's own parcels (none
// is an empty list).
func (k TrackingKey) Lookup() bool { return trackingKeys[k].lookup }

// Restricted reports whether the provider serves k only with a special
// permission: parcelgate grants it to no caller.
func (k TrackingKey) Restricted() bool { return trackingKeys[k].restricted }

// Value returns v as k matches it (trimmed; a number or code upper-cased),
// or why it cannot be: EINVALID naming k's parameter for a value of the
// wrong form, EFORBIDDEN for a restricted key whatever the value.
func (k TrackingKey) Value(v string) (string, error) {
	rule, ok := trackingKeys[k]
	switch {
	case !ok:
		return "", Errorf(EINVALID, "%q is not a tracking key.", string(k))
	case rule.restricted:
		return "", k.refused()
	}
	var p Problems
	v = rule.check(&p, rule.param, v)
	return v, p.Err()
}

// refused is the EFORBIDDEN of a restricted key, wherever it is named:
// its route or a find's keys.
func (k TrackingKey) refused() error {
	return Errorf(EFORBIDDEN, "Tracking by %s is restricted: the provider serves it only with a special permission, which parcelgate grants to no one (decisions §30).", trackingKeys[k].noun)
}

// NotFound is the error of a lookup by k that found no parcel.
func (k TrackingKey) NotFound(v string) error {
	return Errorf(ENOTFOUND, "No parcel with %s %s.", trackingKeys[k].noun, v)
}

// checkShipmentNumber: a consignment number is the shipment's tracking
// number, of the form every tracking number has; a (freight) waybill
// number is checked alike.
func checkShipmentNumber(p *Problems, field, v string) string {
	v = NormalizeID(v)
	CheckTrackingNumber(p, field, v, true)
	return v
}

// checkGoodsItemID: a goods item's ID is a package's number, of the form
// a parcel ID has.
func checkGoodsItemID(p *Problems, field, v string) string {
	v = NormalizeID(v)
	switch {
	case v == "":
		p.Add(field, "is required")
	case !ValidParcelID(v):
		p.Add(field, "must be 12-21 characters of A-Z and 0-9")
	}
	return v
}

// checkReference: any text a reference can be stored as, without control
// characters, of 1 to MaxTrackingReference characters.
func checkReference(p *Problems, field, v string) string {
	v = strings.TrimSpace(v)
	if msg := TextProblem(v); msg != "" {
		p.Add(field, "%s", msg)
		return v
	}
	switch n := utf8.RuneCountInString(v); {
	case n == 0:
		p.Add(field, "is required")
	case n > MaxTrackingReference:
		p.Add(field, "must be 1-%d characters, not %d", MaxTrackingReference, n)
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		p.Add(field, "must not contain control characters")
	}
	return v
}

// checkErrandCode: an errand code has the form of every code (decisions §5).
func checkErrandCode(p *Problems, field, v string) string {
	v = NormalizeCode(v)
	switch {
	case v == "":
		p.Add(field, "is required")
	case !ValidCode(v):
		p.Add(field, "must be %d characters of 0-9 and A-F", CodeLength)
	}
	return v
}
