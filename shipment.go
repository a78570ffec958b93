package parcelgate

import (
	"context"
	"crypto/rand"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LockerSize is the parcel-locker compartment a parcel fits (interface §2.2).
type LockerSize string

const (
	LockerS  LockerSize = "S"
	LockerM  LockerSize = "M"
	LockerL  LockerSize = "L"
	LockerXL LockerSize = "XL"
)

// locker is one locker size with its package type code and its inner
// dimensions in cm, sorted ascending (interface §2.2 table).
type locker struct {
	size LockerSize
	code string
	dims [3]float64
}

// lockers are the locker sizes from the smallest up.
var lockers = []locker{
	{LockerS, "S2", [3]float64{11, 32, 42}},
	{LockerM, "M2", [3]float64{19, 36, 60}},
	{LockerL, "L2", [3]float64{36, 37, 60}},
	{LockerXL, "XL2", [3]float64{36, 59, 60}},
}

// Shipment limits. A parcel bigger or heavier than these is no parcel any
// locker or courier of the provider takes; the caps also keep a single
// request small.
const (
	MaxParcelsPerShipment = 100
	MaxParcelWeightKg     = 1000
	MaxParcelDimensionCm  = 1000
)

// ShipmentStatus is where a shipment is. Created shipments hold codes;
// delivering one frees its codes for reuse (decisions §5).
type ShipmentStatus string

const (
	ShipmentCreated   ShipmentStatus = "Created"
	ShipmentDelivered ShipmentStatus = "Delivered"
)

// Parcel is one parcel of a shipment. Weight is in kg, the dimensions in
// cm; each is nil when not given.
type Parcel struct {
	ParcelID    string     `json:"parcelId"`
	PackageCode string     `json:"packageCode,omitempty"`
	Weight      *float64   `json:"weight,omitempty"`
	Length      *float64   `json:"length,omitempty"`
	Width       *float64   `json:"width,omitempty"`
	Height      *float64   `json:"height,omitempty"`
	LockerSize  LockerSize `json:"lockerSize"`
	// Contents says what the parcel holds (shipping API parcels[].contents).
	Contents string `json:"contents,omitempty"`
}

// Shipment is the shipment data (EDI) of the provider's shipment-creation
// service (interface §2.2 rule 2, interface §4.2 rule 1): what must exist before a
// sending code (without noEdiCheck) or an errand code is handed out.
type Shipment struct {
	ID             int64          `json:"-"`
	OrgID          int64          `json:"-"`
	Environment    Environment    `json:"-"`
	TrackingNumber string         `json:"trackingNumber"`
	ServiceCode    string         `json:"serviceCode"`
	Sender         Address        `json:"sender"`
	Receiver       Address        `json:"receiver"`
	Parcels        []Parcel       `json:"parcels"`
	Status         ShipmentStatus `json:"status"`
	CreatedAt      time.Time      `json:"createdAt"`
	DeliveredAt    *time.Time     `json:"deliveredAt,omitempty"`
	// Origin is how the data came to be; the shipping API's shipments
	// also carry the fields below (decisions §29).
	Origin ShipmentOrigin `json:"origin,omitempty"`
	// PickupPointID is the pick-up point the parcels go to, "" for none.
	PickupPointID      string   `json:"pickupPointId,omitempty"`
	AdditionalServices []string `json:"additionalServices,omitempty"`
	// ContractNumber is the sender's customer number at the provider
	// (senderPartners[].custNo).
	ContractNumber string `json:"contractNumber,omitempty"`
	// Reference is the sender's reference, printed on the labels.
	Reference string `json:"reference,omitempty"`
	// PrintMedia is the label medium asked for (printConfig.target1Media).
	PrintMedia string `json:"printMedia,omitempty"`
}

var (
	parcelIDPattern       = regexp.MustCompile(`^[A-Z0-9]{12,21}$`)
	trackingNumberPattern = regexp.MustCompile(`^[A-Z0-9]{4,35}$`)
)

// NormalizeID trims and upper-cases a tracking number or parcel ID, the
// form in which both are stored and looked up (decisions §5).
func NormalizeID(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// ValidParcelID reports whether id, normalized, is a parcel tracking code:
// 12-21 characters of A-Z and 0-9 (interface §2.2, interface §8).
func ValidParcelID(id string) bool { return parcelIDPattern.MatchString(id) }

// ValidTrackingNumber reports whether tn, normalized, is a shipment
// tracking number parcelgate accepts: 4-35 characters of A-Z and 0-9. The
// spec fixes only parcel IDs; this admits every tracking number format the
// provider prints, and keeps out anything that could not be one.
func ValidTrackingNumber(tn string) bool { return trackingNumberPattern.MatchString(tn) }

// CheckTrackingNumber records in p the problem, if any, with tracking
// number tn (normalized) in field: missing when required, else not of the
// form ValidTrackingNumber accepts. Shipment data, a sending-code request
// and the store all check a tracking number this one way.
func CheckTrackingNumber(p *Problems, field, tn string, required bool) {
	switch {
	case tn == "":
		if required {
			p.Add(field, "is required")
		}
	case !ValidTrackingNumber(tn):
		p.Add(field, "must be 4-35 characters of A-Z and 0-9")
	}
}

// shipmentServiceCodes are the services that move a parcel: the service
// table less NOUTO (pick-up from the warehouse), which ships nothing.
var shipmentServiceCodes = serviceCodesWhere(func(s Service) bool { return s.Code != ServiceNouto })

// NewTrackingNumber returns a fresh tracking number in the provider's
// domestic form: JJFI and 17 random digits. It is also a valid parcel ID.
func NewTrackingNumber() string {
	n, err := rand.Int(rand.Reader, new(big.Int).Exp(big.NewInt(10), big.NewInt(17), nil))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	s := n.String()
	return "JJFI" + strings.Repeat("0", 17-len(s)) + s
}

// PackageCodeSize returns the locker size a package type code selects
// (interface §2.2 table), read case-insensitively; a generic parcel code (PC,
// PKT) is known and selects none ("").
func PackageCodeSize(code string) (LockerSize, bool) {
	if GenericPackageCode(strings.ToUpper(code)) {
		return "", true
	}
	for _, l := range lockers {
		if strings.EqualFold(code, l.code) {
			return l.size, true
		}
	}
	return "", false
}

// FitLocker applies the locker size rules of interface §2.2 and decisions §5 to p:
// a package code selects its size; without one the size is S (interface §2.2
// rule 1), unless the dimensions are given and do not fit S, when it is the
// smallest size they fit. A parcel fits a locker when its dimensions,
// sorted, are each at most the locker's, sorted. A code whose locker the
// given dimensions do not fit, and dimensions no locker fits, are EINVALID.
func (p *Parcel) FitLocker() (LockerSize, error) {
	dims, haveDims := p.dimensions()
	if p.PackageCode != "" && !GenericPackageCode(strings.ToUpper(p.PackageCode)) {
		size, ok := PackageCodeSize(p.PackageCode)
		if !ok {
			return "", Errorf(EINVALID, "packageCode must be S2, M2, L2, XL2, PC or PKT, not %q", p.PackageCode)
		}
		if haveDims && !fits(dims, lockerOf(size).dims) {
			return "", Errorf(EINVALID, "a parcel of %s cm does not fit the %s locker (%s cm) that package code %s selects", formatDims(dims), size, formatDims(lockerOf(size).dims), p.PackageCode)
		}
		return size, nil
	}
	if !haveDims {
		return LockerS, nil
	}
	for _, l := range lockers {
		if fits(dims, l.dims) {
			return l.size, nil
		}
	}
	return "", Errorf(EINVALID, "a parcel of %s cm fits no locker; the largest, XL, is %s cm", formatDims(dims), formatDims(lockers[len(lockers)-1].dims))
}

// dimensions returns p's dimensions sorted ascending, when all three are
// given.
func (p *Parcel) dimensions() ([3]float64, bool) {
	if p.Length == nil || p.Width == nil || p.Height == nil {
		return [3]float64{}, false
	}
	d := [3]float64{*p.Length, *p.Width, *p.Height}
	slices.Sort(d[:])
	return d, true
}

func lockerOf(size LockerSize) locker {
	for _, l := range lockers {
		if l.size == size {
			return l
		}
	}
	panic("parcelgate: unknown locker size " + string(size))
}

func fits(parcel, locker [3]float64) bool {
	return parcel[0] <= locker[0] && parcel[1] <= locker[1] && parcel[2] <= locker[2]
}

func formatDims(d [3]float64) string {
	return strconv.FormatFloat(d[0], 'f', -1, 64) + " x " + strconv.FormatFloat(d[1], 'f', -1, 64) + " x " + strconv.FormatFloat(d[2], 'f', -1, 64)
}

// Validate normalizes s as a request to register it and reports every
// problem: the tracking number and parcel IDs (optional, generated later
// when empty) trimmed, upper-cased and checked, the service code known, the
// sender's and receiver's names given, and each parcel's package code,
// weight and dimensions sane and consistent (FitLocker), which also sets its
// LockerSize.
func (s *Shipment) Validate() error {
	var p Problems
	s.TrackingNumber = NormalizeID(s.TrackingNumber)
	CheckTrackingNumber(&p, "trackingNumber", s.TrackingNumber, false)
	s.ServiceCode = strings.ToUpper(strings.TrimSpace(s.ServiceCode))
	switch {
	case s.ServiceCode == "":
		p.Add("serviceCode", "is required")
	case !slices.Contains(shipmentServiceCodes, s.ServiceCode):
		p.Add("serviceCode", "must be one of %s, not %q", strings.Join(shipmentServiceCodes, ", "), s.ServiceCode)
	}
	s.Sender.Validate(&p, "sender", true)
	s.Receiver.Validate(&p, "receiver", true)
	if len(s.Reference) > maxAddressField {
		p.Add("reference", "must be at most %d characters", maxAddressField)
	}
	switch {
	case len(s.Parcels) == 0:
		p.Add("parcels", "at least one parcel is required")
	case len(s.Parcels) > MaxParcelsPerShipment:
		p.Add("parcels", "at most %d parcels per shipment, not %d", MaxParcelsPerShipment, len(s.Parcels))
	}
	seen := map[string]int{}
	for i := range s.Parcels {
		if i >= MaxParcelsPerShipment {
			break
		}
		s.Parcels[i].validate(i, &p, seen)
	}
	return p.Err()
}

func (p *Parcel) validate(i int, probs *Problems, seen map[string]int) {
	p.ParcelID = NormalizeID(p.ParcelID)
	if p.ParcelID != "" {
		if !ValidParcelID(p.ParcelID) {
			probs.AddAt(i, "parcels.parcelId", "must be 12-21 characters of A-Z and 0-9")
		} else if j, dup := seen[p.ParcelID]; dup {
			probs.AddAt(i, "parcels.parcelId", "%s is also the ID of parcel %d", p.ParcelID, j)
		} else {
			seen[p.ParcelID] = i
		}
	}
	p.PackageCode = strings.ToUpper(strings.TrimSpace(p.PackageCode))
	p.Contents = strings.TrimSpace(p.Contents)
	if len(p.Contents) > maxAddressField {
		probs.AddAt(i, "parcels.contents", "must be at most %d characters", maxAddressField)
	}
	sane := true
	if w := p.Weight; w != nil && !(*w > 0 && *w <= MaxParcelWeightKg) {
		probs.AddAt(i, "parcels.weight", "must be more than 0 and at most %d kg", MaxParcelWeightKg)
	}
	given := 0
	for _, d := range []struct {
		name string
		v    *float64
	}{{"length", p.Length}, {"width", p.Width}, {"height", p.Height}} {
		if d.v == nil {
			continue
		}
		given++
		if !(*d.v > 0 && *d.v <= MaxParcelDimensionCm) {
			probs.AddAt(i, "parcels."+d.name, "must be more than 0 and at most %d cm", MaxParcelDimensionCm)
			sane = false
		}
	}
	if given != 0 && given != 3 {
		probs.AddAt(i, "parcels", "give all of length, width and height, or none of them")
		sane = false
	}
	field := "parcels.packageCode"
	if p.PackageCode == "" {
		field = "parcels"
	}
	if _, known := PackageCodeSize(p.PackageCode); p.PackageCode != "" && !known {
		probs.AddAt(i, field, "must be S2, M2, L2, XL2, PC or PKT, not %q", p.PackageCode)
		return
	}
	if !sane {
		return
	}
	size, err := p.FitLocker()
	if err != nil {
		probs.AddAt(i, field, "%s", ErrorMessage(err))
		return
	}
	p.LockerSize = size
}

// ShipmentService registers and reads shipment data, whichever way it is
// made: the gateway's registration (CreateShipment), the shipping API
// (CreateShippingOrder), and a warehouse order reaching Delivered (the
// store writes that one in the order's transaction). Every call acts for
// one caller and sees only the shipments of the caller's organization in
// the caller's environment; another tenant's shipment is ENOTFOUND, exactly
// like a missing one. Every method asks Caller.May itself first
// (interface §5.1: the gateway's actions; the operator's delivery), so a
// caller without the right is EFORBIDDEN and nothing is read or written
// for it.
type ShipmentService interface {
	// CreateShipment validates s and registers it for c, generating a
	// tracking number and parcel IDs where they are empty
	// (Shipment.NewParcelNumber). Registering a
	// tracking number again with the same content returns the stored
	// shipment with created false (a safe retry); with other content it is
	// ECONFLICT, as is a parcel ID another shipment of c's already has.
	// Only a caller that may ActionCreateShipments.
	CreateShipment(ctx context.Context, c *Caller, s *Shipment) (created bool, err error)
	// FindShipment returns c's shipment with the tracking number, or
	// ENOTFOUND. Only a caller that may ActionReadShipments.
	FindShipment(ctx context.Context, c *Caller, trackingNumber string) (*Shipment, error)
	// ListShipments pages c's shipments of every origin, newest first,
	// each with its parcels; q (ParseShipmentSearch), when not empty,
	// keeps those it names. p.After is a Page's Next or Prev ("" for the
	// first page); one that is not this list's is EINVALID naming "page".
	// p.Size is 1-500 (else 50). Page.Total is not counted. Only a caller
	// that may ActionReadShipments.
	ListShipments(ctx context.Context, c *Caller, q ShipmentSearch, p PageRequest) (Page[*Shipment], error)
	// DeliverShipment marks c's shipment delivered and frees its sending
	// and errand codes at once (decisions §5). Only the operator acts
	// (ActionOperate): c is an OperatorCaller of the shipment's
	// organization. Delivering a delivered shipment changes nothing.
	DeliverShipment(ctx context.Context, c *Caller, trackingNumber string) (*Shipment, error)

	// The shipping API (decisions §29): its shipments are the same
	// shipment data, with OriginShipping.

	// CreateShippingOrder registers s for c with OriginShipping, the
	// shipping API's one way to make a shipment: it validates s and
	// decides its pick-up point (Shipment.ValidateShippingOrder, through
	// the service's PickupPointFinder), then numbers its parcels
	// (Shipment.NewParcelNumber; any numbers s carries are replaced); the
	// shipment's tracking number is its first parcel's. A number c already
	// holds is drawn again. Only a caller that may ActionCreateShipments.
	CreateShippingOrder(ctx context.Context, c *Caller, s *Shipment) error
	// FindShippingOrder returns c's shipment whose tracking number, or the
	// number of one of whose parcels, is number; else ENOTFOUND. Only a
	// caller that may ActionReadShipments.
	FindShippingOrder(ctx context.Context, c *Caller, number string) (*Shipment, error)
	// ShipmentCodes returns the active codes of c's shipment with the
	// tracking number, for printing on its labels. Only a caller that may
	// ActionReadCodes.
	ShipmentCodes(ctx context.Context, c *Caller, trackingNumber string) (ShipmentCodes, error)
}
