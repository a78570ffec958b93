package parcelgate

import "strings"

// FindFields is the set of stored fields a find (the Tracking API's
// find?keywords= and find/{keyword}) compares its keywords with; its
// keys parameter chooses them (decisions §30, §39).
type FindFields uint8

// The fields a find compares a keyword with.
const (
	// FindParcelNumber: a parcel's own number.
	FindParcelNumber FindFields = 1 << iota
	// FindShipmentNumber: the parcel's shipment's tracking number, which
	// finds every parcel of the shipment.
	FindShipmentNumber
	// FindReference: the shipment's reference, case-insensitively.
	FindReference
)

// FindAll is what a find without keys compares keywords with, and what
// the key names all and parcel_all mean: every field a find searches.
const FindAll = FindParcelNumber | FindShipmentNumber | FindReference

// Has reports whether f holds every field of g.
func (f FindFields) Has(g FindFields) bool { return f&g == g }

// The names keys takes besides the provider's others and the route names.
const (
	FindKeyAll            = "all"
	FindKeyTrackingNumber = "trackingnumber"
)

// findKey is one name keys takes and the fields it searches.
type findKey struct {
	name   string
	fields FindFields
}

// findKeys are the names keys takes (decisions §39), in the order an
// unknown name's 400 lists them: first the provider's (its v7 OpenAPI's
// find keys: the groups all, parcel_all and freight_all, the parcel keys,
// the freight keys, mps_cod_group, delivery_group and the path form's
// sequence), then the Tracking API's route names, kept as aliases of the
// provider's keys they stand for. What each searches is parcelgate's
// decision (the provider names the keys only): a key searches the stored
// field its meaning names — a parcel's number, its shipment's tracking
// number (the consignment), the shipment's one sender-side reference (an
// order number and a sender reference alike). A key whose meaning
// parcelgate stores nothing for — every freight key (no freight is
// carried), a receiver reference, an errand code (errandcode/{code} serves
// it), a cash-on-delivery or delivery group, a sequence — is understood and
// searches nothing. phonenumber is restricted (ParseFindKeys).
var findKeys = []findKey{
	{FindKeyAll, FindAll},
	{"parcel_all", FindAll},
	{"freight_all", 0},
	{"parcel_tracking_number", FindParcelNumber | FindShipmentNumber},
	{"parcel_consignment_number", FindShipmentNumber},
	{"parcel_errand_code", 0},
	{"parcel_order_number", FindReference},
	{"parcel_receiver_reference", 0},
	{"parcel_sender_reference", FindReference},
	{"freight_waybill_number", 0},
	{"freight_tracking_number", 0},
	{"freight_order_number", 0},
	{"freight_receiver_reference", 0},
	{"freight_sender_reference", 0},
	{"mps_cod_group", 0},
	{"delivery_group", 0},
	{"sequence", 0},
	// The route names: trackingnumber is parcel and freight tracking
	// numbers, consignmentnumber and errandcode parcel-only, waybillnumber
	// freight_waybill_number, goodsitemid freight_tracking_number, and the
	// reference and order number routes the parcel and freight keys of
	// their name.
	{FindKeyTrackingNumber, FindParcelNumber | FindShipmentNumber},
	{string(KeyConsignmentNumber), FindShipmentNumber},
	{string(KeyWaybillNumber), 0},
	{string(KeyGoodsItemID), 0},
	{string(KeySenderReference), FindReference},
	{string(KeyOrderNumber), FindReference},
	{string(KeyReceiverReference), 0},
	{string(KeyErrandCode), 0},
}

// findKeyNames are the names keys accepts, for an unknown name's 400.
// phonenumber is recognized but refused (ParseFindKeys), so it is not
// offered.
var findKeyNames = func() []string {
	names := make([]string, len(findKeys))
	for i, k := range findKeys {
		names[i] = k.name
	}
	return names
}()

// findKeyFields is what the key name searches in a find, and whether the
// name is known.
func findKeyFields(name string) (FindFields, bool) {
	for _, k := range findKeys {
		if k.name == name {
			return k.fields, true
		}
	}
	return 0, false
}

// ParseFindKeys reads a find's keys parameter (its values, each a
// comma-separated list; names case-insensitive) into the fields the find
// compares keywords with (decisions §30, §39). No keys is FindAll. A name
// searches its fields; !name excludes them: the fields are those of the
// names given (all when only exclusions are given) less those of the
// excluded names, so keys=all,!parcel_order_number compares numbers only.
// A name that is no key is EINVALID naming keys and listing the names.
// Keys that leave nothing to search (freight_all, !all) are no error:
// they find nothing, as the provider's freight keys find no parcel (no
// fields). phonenumber is restricted as its route is (EFORBIDDEN);
// !phonenumber excludes nothing a find searches and is accepted.
func ParseFindKeys(values []string) (FindFields, error) {
	var in, out FindFields
	var given bool
	var restricted TrackingKey
	var p Problems
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			name := strings.ToLower(strings.TrimSpace(item))
			if name == "" {
				continue
			}
			exclude := strings.HasPrefix(name, "!")
			if exclude {
				name = strings.TrimSpace(name[1:])
			}
			fields, known := findKeyFields(name)
			isPhone := TrackingKey(name) == KeyPhoneNumber
			switch {
			case isPhone && exclude:
			case isPhone:
				restricted = KeyPhoneNumber
			case !known:
				p.Add("keys", "%q is not a key: each must be one of %s, or one prefixed with ! to exclude it", strings.TrimSpace(item), strings.Join(findKeyNames, ", "))
			case exclude:
				out |= fields
			default:
				in |= fields
				given = true
			}
		}
	}
	if err := p.Err(); err != nil {
		return 0, err
	}
	if restricted != "" {
		return 0, restricted.refused()
	}
	if !given {
		in = FindAll
	}
	return in &^ out, nil
}
