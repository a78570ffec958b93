package parcelgate

import "strings"

// FindFields is the set of stored fields a find (the Tracking API's
// find?keywords= and find/{keyword}) compares its keywords with; its
// keys parameter chooses them (decisions §30).
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
// the key name all means: every field a find searches.
const FindAll = FindParcelNumber | FindShipmentNumber | FindReference

// Has reports whether f holds every field of g.
func (f FindFields) Has(g FindFields) bool { return f&g == g }

// The names keys takes besides the TrackingKeys.
const (
	FindKeyAll            = "all"
	FindKeyTrackingNumber = "trackingnumber"
)

// findKeyNames are the names keys accepts, in the order an unknown name's
// 400 lists them. phonenumber is recognized but refused (ParseFindKeys),
// so it is not offered.
var findKeyNames = func() []string {
	names := []string{FindKeyAll, FindKeyTrackingNumber}
	for _, k := range TrackingKeys {
		if !k.Restricted() {
			names = append(names, string(k))
		}
	}
	return names
}()

// findKeyFields is what the key name searches in a find, and whether
// the name is known (decisions §30; the provider documents the names,
// not what each searches, so this is invented). Each key searches what
// its own route matches: trackingnumber a parcel's number or its
// shipment's tracking number, as the trackingnumber route looks a number
// up; waybillnumber and consignmentnumber the shipment's tracking
// number; goodsitemid the parcel's number; senderreference and
// ordernumber the reference. receiverreference and errandcode search
// nothing: no receiver reference is stored, and an errand code is not
// among what a find has compared keywords with, which all must keep
// (errandcode/{code} serves it).
func findKeyFields(name string) (FindFields, bool) {
	switch name {
	case FindKeyAll:
		return FindAll, true
	case FindKeyTrackingNumber:
		return FindParcelNumber | FindShipmentNumber, true
	}
	k := TrackingKey(name)
	if !k.Valid() {
		return 0, false
	}
	switch k.Match() {
	case MatchParcelNumber:
		return FindParcelNumber, true
	case MatchShipmentNumber:
		return FindShipmentNumber, true
	case MatchReference:
		return FindReference, true
	}
	return 0, true
}

// ParseFindKeys reads a find's keys parameter (its values, each a
// comma-separated list; names case-insensitive) into the fields the find
// compares keywords with (decisions §30). No keys is FindAll. A name
// searches its fields; !name excludes them: the fields are those of the
// names given (all when only exclusions are given) less those of the
// excluded names. A name that is no key is EINVALID naming keys and
// listing the names; keys that leave nothing to search (keys=!all,
// keys=receiverreference) EINVALID too, since every keyword would find
// nothing. phonenumber is restricted as its route is (EFORBIDDEN);
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
			switch {
			case !known:
				p.Add("keys", "%q is not a key: each must be one of %s, or one prefixed with ! to exclude it", strings.TrimSpace(item), strings.Join(findKeyNames, ", "))
			case exclude:
				out |= fields
			case TrackingKey(name).Restricted():
				restricted = TrackingKey(name)
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
	if in &^= out; in == 0 {
		p.Add("keys", "leave nothing to search: a find compares keywords with a parcel's number, its shipment's tracking number and its reference, and these keys choose none of them (receiverreference and errandcode search none; !all excludes all three)")
		return 0, p.Err()
	}
	return in, nil
}
