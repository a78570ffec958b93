package parcelgate

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ShipmentSearch narrows a list of shipments (ShipmentService.ListShipments)
// to those one text names. The zero value lists them all.
type ShipmentSearch struct {
	// Number, when set, is a normalized tracking number, parcel number or
	// code: the shipment with that tracking number, the one holding a
	// parcel of that number, or the one holding that code now.
	Number string
	// Reference, when set, is the sender's reference (the shipping API's
	// orderNo, a warehouse order's externalId), compared ignoring case as
	// the Tracking API's senderreference compares it.
	Reference string
}

// Empty reports whether q keeps every shipment.
func (q ShipmentSearch) Empty() bool { return q.Number == "" && q.Reference == "" }

// Ways a shipment search is read (ParseShipmentSearch's by).
const (
	SearchAny       = ""          // a number when it can be one, and a reference
	SearchNumber    = "number"    // a tracking number, parcel number or code only
	SearchReference = "reference" // a reference only
)

// ParseShipmentSearch reads the console's shipment search (decisions §40):
// text q, read as by says. By SearchAny a text that can be a tracking
// number (4-35 letters and digits, spaces ignored) is searched as one and
// as a reference, any other as a reference; by SearchNumber it must be a
// number (else EINVALID naming "q"); by SearchReference it is a
// reference. A reference is 1 to MaxTrackingReference characters without
// control characters, as the Tracking API takes it. An empty q searches
// nothing. An unknown by is EINVALID naming "by".
func ParseShipmentSearch(q, by string) (ShipmentSearch, error) {
	var p Problems
	by = strings.ToLower(strings.TrimSpace(by))
	if by == "any" {
		by = SearchAny
	}
	if by != SearchAny && by != SearchNumber && by != SearchReference {
		p.Add("by", "must be number, reference or empty (either), not %q", clip(by))
	}
	q = strings.TrimSpace(q)
	if q == "" {
		return ShipmentSearch{}, p.Err()
	}
	var s ShipmentSearch
	number := NormalizeID(strings.ReplaceAll(q, " ", ""))
	if by != SearchReference && ValidTrackingNumber(number) {
		s.Number = number
	} else if by == SearchNumber {
		p.Add("q", "must be a tracking number, parcel number or code: 4-35 letters and digits, not %q", clip(q))
	}
	if by != SearchNumber {
		switch n := utf8.RuneCountInString(q); {
		case n > MaxTrackingReference:
			p.Add("q", "must be at most %d characters, not %d", MaxTrackingReference, n)
		case strings.ContainsFunc(q, unicode.IsControl):
			p.Add("q", "must not contain control characters")
		default:
			s.Reference = q
		}
	}
	if err := p.Err(); err != nil {
		return ShipmentSearch{}, err
	}
	return s, nil
}

// MaxCodeHistory caps the codes ShipmentCodeHistory answers for one
// shipment: a shipment of MaxParcelsPerShipment parcels holds one errand
// code each and a sending code at a time, each renewed at most once a
// retention period, so this is years of codes.
const MaxCodeHistory = 1000

// HeldCode is a code a shipment held: a sending code (ParcelID "") or a
// parcel's errand code, active or not (decisions §5). State is
// CodeState's at the time it was read.
type HeldCode struct {
	Code           string
	TrackingNumber string
	ParcelID       string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	// ReleasedAt is when the shipment's delivery (or a new holder of the
	// expired code) freed it; zero while it is not.
	ReleasedAt time.Time
	State      string
}
