package parcelgate

import (
	"crypto/rand"
	"math/big"
	"regexp"
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

// ShippingProduct is a service of the table (LookupService) as the
// shipping API reads it.
type ShippingProduct = Service

// ShippingProducts lists the codes the shipping API takes, sorted.
func ShippingProducts() []string {
	return serviceCodesWhere(func(s Service) bool { return s.Shipping })
}

// ShippingProductOf returns the rules of service code code, when the
// shipping API takes it.
func ShippingProductOf(code string) (ShippingProduct, bool) {
	s, ok := LookupService(code)
	return s, ok && s.Shipping
}

// ParseShippingServiceID reads the shipping API's service.id: "PO" and a
// service code ("PO2103"), case-insensitively. The product must be one the
// shipping API takes; a bare code without the PO prefix is refused, as the
// provider's id names the carrier too.
func ParseShippingServiceID(p *Problems, field, id string) (ShippingProduct, bool) {
	id = strings.ToUpper(strings.TrimSpace(id))
	code, ok := strings.CutPrefix(id, "PO")
	prod, known := ShippingProductOf(code)
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
// of product prod, reading the network from points: a named point
// (agent.quickId) must be a point that exists and serves the product, else
// EINVALID with the provider's E41 message on field — a domestic product's point lists it among its
// services, an international pick-up product's point lies in the
// receiver's country, one the product goes to. A point of a country whose
// points parcelgate does not hold (a partner network it has no data for)
// is taken as given. A domestic pick-up point product without one goes to
// the point nearest the receiver's postal code (as PickupPointForOrder does
// for orders), and is refused when there is none; an international one
// needs its point named. Any other product keeps a named point of its own
// as given and otherwise has none. It returns the point's ID ("" for none).
func ShippingPickupPoint(points PickupPointLookup, field string, prod ShippingProduct, quickID string, receiver Address) (string, error) {
	to := strings.ToUpper(receiver.Country)
	if to == "" {
		to = "FI"
	}
	if id := strings.TrimSpace(quickID); id != "" {
		pt, ok := points.FindPickupPoint(id)
		var why string
		switch {
		case !ok && prod.PickupPoint && !prod.Domestic() && !points.HoldsPickupPoints(to) && partnerPointID.MatchString(id):
			return strings.ToUpper(id), nil
		case !ok:
			why = "no pick-up point has this ID"
		case prod.PickupPoint && !prod.Domestic():
			if pt.Country != to || !prod.Goes(pt.Country) {
				why = "this pick-up point is in " + pt.Country + ", not in the receiver's country " + to
			}
		case !slices.Contains(pt.ServiceCodes, prod.Code):
			why = "this pick-up point does not take service " + prod.Code
		}
		if why != "" {
			return "", &Error{Code: EINVALID, Message: InactivePickupPoint, Fields: []FieldError{{Field: field, Message: why}}}
		}
		return pt.ExternalID, nil
	}
	if !prod.PickupPoint {
		return "", nil
	}
	if prod.Domestic() && to == "FI" {
		if pt, ok := points.NearestPickupPoint(receiver.PostalCode, prod.Code); ok {
			return pt.ExternalID, nil
		}
	}
	if !prod.Domestic() {
		return "", &Error{Code: EINVALID, Message: "Service " + prod.Code + " delivers to a pick-up point abroad: give agent.quickId, the point the receiver chose.",
			Fields: []FieldError{{Field: field, Message: "is required for service " + prod.Code}}}
	}
	return "", &Error{Code: EINVALID, Message: "Service " + prod.Code + " delivers to a pick-up point: give agent.quickId, or a Finnish receiver postal code to take the nearest.",
		Fields: []FieldError{{Field: field, Message: "is required: no pick-up point is near the receiver's postal code " + strconv.Quote(receiver.PostalCode)}}}
}

// partnerPointID is the form a pick-up point ID of a network parcelgate
// holds no data for is taken in: 1-20 letters, digits and dashes
// (invented: IDs are numbers or short codes everywhere seen).
var partnerPointID = regexp.MustCompile(`^[A-Za-z0-9-]{1,20}$`)

// ValidateShippingOrder validates s as a shipment of the shipping API
// (decisions §29) and decides its pick-up point, each problem named as the
// shipping API names its field: first the shipment's own rules (Validate:
// addresses, parcels, locker sizes, under ShippingField's names), then the
// service's route (CheckServiceRoute), then the point (ShippingPickupPoint,
// reading PickupPointID as the point the sender named, agent.quickId, and
// setting it to the point decided, "" for none). s.ServiceCode is a product
// the shipping API takes (ParseShippingServiceID read it). The shipment
// service calls it: the front end checks only the body's shape.
func (s *Shipment) ValidateShippingOrder(points PickupPointLookup) error {
	var p Problems
	if err := s.Validate(); err != nil {
		for _, f := range ErrorFields(err) {
			f.Field = ShippingField(f.Field)
			p.AddFields(f)
		}
		return p.Err()
	}
	prod, ok := ShippingProductOf(s.ServiceCode)
	if !ok {
		return Invalid("shipment.service.id", "must be PO followed by one of %s (e.g. PO2103), not %q", strings.Join(ShippingProducts(), ", "), "PO"+s.ServiceCode)
	}
	CheckServiceRoute(&p, "shipment.sender.country", "shipment.receiver.country", prod, s.Sender.Country, s.Receiver.Country)
	if err := p.Err(); err != nil {
		return err
	}
	pt, err := ShippingPickupPoint(points, "shipment.agent.quickId", prod, s.PickupPointID, s.Receiver)
	if err != nil {
		return err
	}
	s.PickupPointID = pt
	return nil
}

// ShippingField renames a field of parcelgate's shipment data (as
// Shipment.Validate names it) to the shipping API's name for it.
func ShippingField(f string) string {
	r := strings.NewReplacer("streetAddress", "address1", "postalCode", "zipcode", "postOffice", "city", "telephone", "phone")
	return "shipment." + r.Replace(f)
}

// CheckServiceRoute records a problem when prod does not go between the
// parties' countries ("" read as FI): a service leaves Finland for a
// receiver in a country it goes to; a return comes to a receiver in
// Finland from a sender in a country it goes to.
func CheckServiceRoute(p *Problems, senderField, receiverField string, prod Service, sender, receiver string) {
	name := func(c string) string {
		if c == "" {
			return "FI"
		}
		return c
	}
	where := "any country but FI"
	if prod.Countries != nil {
		where = strings.Join(prod.Countries, ", ")
	}
	switch {
	case prod.Return && name(receiver) != "FI":
		p.Add(receiverField, "service %s returns parcels to Finland: the receiver's country must be FI, not %s", prod.Code, name(receiver))
	case prod.Return && !prod.Goes(sender):
		p.Add(senderField, "service %s returns parcels from %s, not from %s", prod.Code, where, name(sender))
	case !prod.Return && !prod.Goes(receiver):
		p.Add(receiverField, "service %s delivers to %s, not to %s", prod.Code, where, name(receiver))
	}
}

// NewParcelNumber returns a fresh tracking number for a parcel of product
// prod in the provider's form: JJFI and 17 random digits for a domestic
// service; a UPU S10 number (the service's two letters, CP for a parcel,
// eight random digits, the S10 check digit, FI) for an international one.
func NewParcelNumber(prod ShippingProduct) string {
	if prod.Domestic() {
		return NewTrackingNumber()
	}
	n, err := rand.Int(rand.Reader, big.NewInt(100_000_000))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	digits := strconv.FormatInt(n.Int64(), 10)
	digits = strings.Repeat("0", 8-len(digits)) + digits
	return prod.S10 + digits + string(S10CheckDigit(digits)) + "FI"
}

// NewParcelNumber returns a fresh number for a parcel of s, the one way a
// shipment's numbers are made (the store draws them, and draws again a
// number its organization holds): a shipping API shipment's in the
// provider's form for its product (NewParcelNumber), any other's (its
// tracking number too) JJFI and 17 random digits (NewTrackingNumber).
func (s *Shipment) NewParcelNumber() string {
	if prod, ok := ShippingProductOf(s.ServiceCode); ok && s.Origin == OriginShipping {
		return NewParcelNumber(prod)
	}
	return NewTrackingNumber()
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
	prod, ok := ShippingProductOf(s.ServiceCode)
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
