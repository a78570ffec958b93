package parcelgate

import (
	"context"
	"crypto/rand"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// The shipping API (decisions §29): the provider's shipment-creation
// service, POST /shippingapi/api/v2/shipping/order. A shipment made there
// is the same shipment data (EDI) as one registered at POST
// /{version}/shipments or made by a warehouse order reaching Delivered;
// Origin says which.

// ShipmentOrigin is how shipment data came to be.
type ShipmentOrigin string

const (
	// OriginEDI: registered at POST /{version}/shipments, parcelgate's
	// own shape, kept as an alias of the shipping API (decisions §29).
	OriginEDI ShipmentOrigin = "edi"
	// OriginShipping: made by the shipping API, with printable labels.
	OriginShipping ShipmentOrigin = "shipping"
	// OriginOrder: made by a warehouse order reaching Delivered
	// (decisions §7).
	OriginOrder ShipmentOrigin = "order"
)

// ServiceLabelless is the additional service that lets a shipment be sent
// without a label, with a sending code (the provider's "helposti" code):
// the provider refuses a code to a shipment without it.
const ServiceLabelless = "3196"

// genericPackageCodes are package codes that name no locker size: a parcel
// (PC, the provider's code; PKT, the clients' Finnish "paketti"). A parcel
// with one gets its locker size from its dimensions as one without a code
// does (interface §2.2 rule 1).
var genericPackageCodes = []string{"PC", "PKT"}

// GenericPackageCode reports whether code, upper-cased, is a package code
// that selects no locker size.
func GenericPackageCode(code string) bool { return slices.Contains(genericPackageCodes, code) }

// ShippingProduct is one delivery service of the shipping API and the rules
// the shipping API applies to it.
type ShippingProduct struct {
	Code string
	// Domestic services carry a JJFI tracking number; international ones
	// a UPU S10 number (two letters, eight digits, a check digit, FI).
	Domestic bool
	// PickupPoint: the parcel goes to a pick-up point, the one the
	// shipment's agent names or else the one nearest the receiver.
	PickupPoint bool
	// Labelless: the service may be sent without a label (a sending code),
	// given additional service 3196.
	Labelless bool
	// Additional lists the additional services the service takes.
	Additional []string
}

// shippingProducts are the services the shipping API takes: interface §2.3's
// table less NOUTO, which ships nothing. Label-less sending is for the
// domestic parcels a customer hands in at a counter or a locker.
var shippingProducts = map[string]ShippingProduct{
	"2103": {Code: "2103", Domestic: true, PickupPoint: true, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceNoOutdoorLockers, ServiceLabelless}},
	"2104": {Code: "2104", Domestic: true, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceLabelless}},
	"2102": {Code: "2102", Domestic: true, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceLabelless, "3106"}},
	"2143": {Code: "2143", Domestic: true, Labelless: true, Additional: []string{ServiceLabelless}},
	"2101": {Code: "2101", Domestic: true, Additional: []string{"3106"}},
	"2144": {Code: "2144", Domestic: true},
	"2145": {Code: "2145", Domestic: true},
	"2711": {Code: "2711"},
	"2331": {Code: "2331"},
	"2317": {Code: "2317"},
	"2318": {Code: "2318"},
}

// ShippingProducts lists the codes the shipping API takes, sorted.
func ShippingProducts() []string {
	codes := make([]string, 0, len(shippingProducts))
	for c := range shippingProducts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// ShippingProductOf returns the rules of service code code.
func ShippingProductOf(code string) (ShippingProduct, bool) {
	p, ok := shippingProducts[code]
	return p, ok
}

// ServiceName is the name of a service code in lang (en, fi or sv; en for
// any other), "" for an unknown code.
func ServiceName(code, lang string) string {
	switch lang {
	case "fi":
		return serviceTranslations[code][0]
	case "sv":
		return serviceTranslations[code][1]
	}
	return serviceCodes[code]
}

// ParseShippingServiceID reads the shipping API's service.id: "PO" and a
// service code ("PO2103"), case-insensitively. The product must be one the
// shipping API takes; a bare code without the PO prefix is refused, as the
// provider's id names the carrier too.
func ParseShippingServiceID(p *Problems, field, id string) (ShippingProduct, bool) {
	id = strings.ToUpper(strings.TrimSpace(id))
	code, ok := strings.CutPrefix(id, "PO")
	prod, known := shippingProducts[code]
	switch {
	case id == "":
		p.Add(field, "is required")
	case !ok || !known:
		p.Add(field, "must be PO followed by one of %s (e.g. PO2103), not %q", strings.Join(ShippingProducts(), ", "), id)
	}
	return prod, ok && known
}

// CheckAdditionalServices records a problem for each additional service
// code the product does not take, and returns the codes trimmed, without
// duplicates, in the order given.
func CheckAdditionalServices(p *Problems, field string, prod ShippingProduct, codes []string) []string {
	var out []string
	for i, c := range codes {
		c = strings.TrimSpace(c)
		switch {
		case c == "":
			p.AddAt(i, field, "is required")
		case !slices.Contains(prod.Additional, c):
			allowed := "none"
			if len(prod.Additional) > 0 {
				allowed = strings.Join(prod.Additional, ", ")
			}
			p.AddAt(i, field, "service %s does not take additional service %q; it takes: %s", prod.Code, c, allowed)
		case !slices.Contains(out, c):
			out = append(out, c)
		}
	}
	return out
}

// InactivePickupPoint is the provider's refusal of an agent that is not a
// pick-up point it delivers to.
const InactivePickupPoint = "E41: Inactive pickup point, please choose an alternative pickup point"

// ShippingPickupPoint decides the pick-up point of a shipping API shipment
// of product prod, reading the network from points: a named point (agent.quickId) must be a point that
// exists and serves the product, else EINVALID with the provider's E41
// message on field; a pick-up point product without one goes to the point
// nearest the receiver's postal code (as PickupPointForOrder does for
// orders), and is refused when there is none; any other product keeps a
// named point as given and otherwise has none. It returns the point.
func ShippingPickupPoint(points PickupPointLookup, field string, prod ShippingProduct, quickID string, receiver Address) (*PickupPoint, error) {
	if id := strings.TrimSpace(quickID); id != "" {
		pt, ok := points.FindPickupPoint(id)
		if !ok || !slices.Contains(pt.ServiceCodes, prod.Code) {
			why := "no pick-up point has this ID"
			if ok {
				why = "this pick-up point does not take service " + prod.Code
			}
			return nil, &Error{Code: EINVALID, Message: InactivePickupPoint, Fields: []FieldError{{Field: field, Message: why}}}
		}
		return &pt, nil
	}
	if !prod.PickupPoint {
		return nil, nil
	}
	if c := strings.ToUpper(receiver.Country); c == "" || c == "FI" {
		if pt, ok := points.NearestPickupPoint(receiver.PostalCode, prod.Code); ok {
			return &pt, nil
		}
	}
	return nil, &Error{Code: EINVALID, Message: "Service " + prod.Code + " delivers to a pick-up point: give agent.quickId, or a Finnish receiver postal code to take the nearest.",
		Fields: []FieldError{{Field: field, Message: "is required: no pick-up point is near the receiver's postal code " + strconv.Quote(receiver.PostalCode)}}}
}

// NewParcelNumber returns a fresh tracking number for a parcel of product
// prod in the provider's form: JJFI and 17 random digits for a domestic
// service; a UPU S10 number (CP, eight random digits, the S10 check digit,
// FI) for an international one.
func NewParcelNumber(prod ShippingProduct) string {
	if prod.Domestic {
		return NewTrackingNumber()
	}
	n, err := rand.Int(rand.Reader, big.NewInt(100_000_000))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	digits := strconv.FormatInt(n.Int64(), 10)
	digits = strings.Repeat("0", 8-len(digits)) + digits
	return "CP" + digits + string(S10CheckDigit(digits)) + "FI"
}

// S10CheckDigit is the check digit of a UPU S10 item number's eight
// digits: weights 8 6 4 2 3 5 9 7, 11 less the sum mod 11, with 10 read
// as 0 and 11 as 5.
func S10CheckDigit(digits string) byte {
	weights := [8]int{8, 6, 4, 2, 3, 5, 9, 7}
	sum := 0
	for i := range 8 {
		sum += int(digits[i]-'0') * weights[i]
	}
	switch c := 11 - sum%11; c {
	case 10:
		return '0'
	case 11:
		return '5'
	default:
		return byte('0' + c)
	}
}

// LabellessDecision decides whether shipment s, found for a sending-code
// request, may be sent without a label. Only shipping API shipments carry
// their services: their product must allow label-less sending and they
// must carry additional service 3196, else ENOTFOUND with the provider's
// message (it answers 404). Shipment data registered for codes (OriginEDI)
// or made by a warehouse order is taken as label-less by intent.
func LabellessDecision(s *Shipment) error {
	if s.Origin != OriginShipping {
		return nil
	}
	prod, ok := shippingProducts[s.ServiceCode]
	if !ok || !prod.Labelless {
		return Errorf(ENOTFOUND, "Shipment not allowed for helposti code generation, service %s does not allow label-less sending", s.ServiceCode)
	}
	if !slices.Contains(s.AdditionalServices, ServiceLabelless) {
		return Errorf(ENOTFOUND, "Shipment not allowed for helposti code generation, Additional service %s is missing", ServiceLabelless)
	}
	return nil
}

// ShipmentCodes are the codes a shipment's parcels hold now: its sending
// code ("" when none) and each parcel's errand code, by parcel ID. Reading
// them creates none.
type ShipmentCodes struct {
	SendingCode string
	ErrandCodes map[string]string
}

// ShippingService is the store of the shipping API. Its shipments are the
// shipment data of ShipmentService (one store); every call acts for one
// caller and sees only the shipments of the caller's organization in the
// caller's environment: another tenant's shipment is ENOTFOUND, exactly
// like a missing one. Every method asks Caller.May itself first
// (interface §5.1: the gateway's actions, decisions §29), so a caller
// without the right is EFORBIDDEN and nothing is read or written for it.
type ShippingService interface {
	// CreateShippingOrder validates s and registers it for c with
	// OriginShipping. The parcels' numbers (ParcelID) are given by the
	// caller (NewParcelNumber); the shipment's tracking number is its first
	// parcel's. A number c already holds is ECONFLICT. Only a caller that
	// may ActionCreateShipments.
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
