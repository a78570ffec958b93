package parcelgate

import (
	"slices"
	"strings"
)

// WorkflowWarehouse is the workflow of the provider's warehouse service:
// the warehouse picks and packs, and the provider delivers (interface §2.3). It
// is the only workflow parcelgate serves delivery services for.
const WorkflowWarehouse = "WAREHOUSE"

// TagPickupPoint marks a delivery service that delivers to a pick-up point
// the shopper chooses; the warehouse plugin then offers the points of
// SearchPickupPoints at checkout.
const TagPickupPoint = "PICKUP_POINT"

// Additional services a delivery service can carry (an order's
// additionalServices[].serviceCode).
const (
	// ServiceCashOnDelivery: the recipient pays on collection; the order
	// gives the amount and a payment reference.
	ServiceCashOnDelivery = "3101"
	// ServiceNoOutdoorLockers: not to a pick-up point that stands outdoors
	// (capability "outdoors"); the plugin asks for it when a shop hides
	// outdoor lockers.
	ServiceNoOutdoorLockers = "3376"
)

// DeliveryService is one delivery method a shop can offer its shoppers, as
// the warehouse plugin reads it: it caches the list for a day and offers
// each as a shipping method, labelled "deliveryOperator: description", and
// sends the chosen ID as an order's serviceCode.
type DeliveryService struct {
	// ID is the service code of interface §2.3's table.
	ID               string `json:"id"`
	Provider         string `json:"provider"`
	DeliveryOperator string `json:"deliveryOperator"`
	// Description is keyed by language: en, fi, sv.
	Description        map[string]string        `json:"description"`
	Tags               []string                 `json:"tags"`
	AdditionalServices []AdditionalServiceOffer `json:"additionalServices"`
}

// AdditionalServiceOffer is an additional service a delivery service offers.
// Specifiers name what an order must give with it; the plugin lets a shop
// switch on by hand only those without any.
type AdditionalServiceOffer struct {
	Code        string            `json:"code"`
	Description map[string]string `json:"description"`
	Specifiers  []string          `json:"specifiers"`
}

// Service is one of the provider's delivery services with the rules every
// surface reads from this one table (decisions §39): the warehouse's orders
// and delivery services (Warehouse), the shipping API (Shipping) and the
// shipment data of the sending codes, the labels (Name), the estimates
// (Promise) and tracking (through the estimates).
type Service struct {
	Code string
	// Name is the service's name in English, Finnish and Swedish; labels
	// print the Finnish one.
	Name ServiceNames
	// Warehouse: interface §2.3's table, an order's serviceCode and one of
	// the WAREHOUSE workflow's delivery services.
	Warehouse bool
	// Shipping: the shipping API takes it as service.id "PO" + Code.
	Shipping bool
	// PickupPoint: the parcel goes to a pick-up point (the shipping API's
	// agent.quickId), else to the receiver's address.
	PickupPoint bool
	// Return: the parcel comes back to a receiver in Finland from a sender
	// in Countries; otherwise it leaves Finland for a receiver in Countries.
	Return bool
	// Countries are where the parcel goes (the sender's, for a return):
	// ["FI"] for a domestic service, nil for any country but Finland.
	Countries []string
	// S10 is the two letters of the UPU S10 numbers an international
	// service's parcels carry (CP parcels, E. EMS); "" for a domestic
	// service, whose parcels carry JJFI numbers.
	S10 string
	// Additional lists the additional services it takes.
	Additional []string
	// Labelless: it may be sent without a label (a sending code), given
	// additional service 3196.
	Labelless bool
	// Promise is the code of the estimate's promise row its deliveries
	// keep; "" when the estimate makes no promise for it (the returns,
	// which leave from a consumer or from abroad, and 2461, whose delivery
	// times no source gives).
	Promise string
}

// ServiceNames are a service's names by language.
type ServiceNames struct{ EN, FI, SV string }

// Domestic reports whether the service carries parcels within Finland only
// (JJFI numbers).
func (s Service) Domestic() bool { return s.S10 == "" }

// Goes reports whether the service takes a parcel to (for a return: from)
// country, "" read as FI.
func (s Service) Goes(country string) bool {
	if country == "" {
		country = "FI"
	}
	if s.Countries == nil {
		return country != "FI"
	}
	return slices.Contains(s.Countries, country)
}

// baltics and pickupAbroad are the countries of the provider's pick-up
// networks outside Finland: "all Posti pick-up points in Finland and the
// Baltics", and partner networks in Sweden and Denmark.
var (
	baltics      = []string{"EE", "LV", "LT"}
	pickupAbroad = []string{"EE", "LV", "LT", "SE", "DK"}
	finland      = []string{"FI"}
)

// services is the table (decisions §39). interface §2.3's codes keep their
// names and rules as before; the others are the shipping API's services
// that clients offer: posti-cli's PO2351, PO2352, PO2015, PO2017 and the
// smartship clients' PO2461 (Pikkupaketti), PO2108 (Palautus, a return),
// PO2718 (Parcel Return Connect), PO2338 (Postal Parcel Baltics Return).
// What no source gives (the countries of 2351/2352/2015/2017, the S10
// letters of EMS, the promises) is invented and listed in decisions §39.
var services = []Service{
	{Code: "2015", Name: ServiceNames{"Priority parcel, international", "Priority-paketti, kansainvälinen", "Prioritypaket, internationellt"},
		Shipping: true, S10: "CP", Promise: "2711"},
	{Code: "2017", Name: ServiceNames{"EMS express parcel, international", "EMS-pikapaketti, kansainvälinen", "EMS-expresspaket, internationellt"},
		Shipping: true, S10: "EA", Promise: "2317"},
	{Code: "2101", Name: ServiceNames{"Express parcel, morning, to a business address", "Express-paketti aamuksi yritysosoitteeseen", "Expresspaket på morgonen till en företagsadress"},
		Warehouse: true, Shipping: true, Countries: finland, Additional: []string{"3106"}, Promise: "2101"},
	{Code: "2102", Name: ServiceNames{"Express parcel to a business address", "Express-paketti yritysosoitteeseen", "Expresspaket till en företagsadress"},
		Warehouse: true, Shipping: true, Countries: finland, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceLabelless, "3106"}, Promise: "2102"},
	{Code: "2103", Name: ServiceNames{"Postal parcel to an outlet or parcel locker", "Postipaketti noutopisteeseen tai pakettiautomaattiin", "Postpaket till ett utlämningsställe eller en paketautomat"},
		Warehouse: true, Shipping: true, PickupPoint: true, Countries: finland, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceNoOutdoorLockers, ServiceLabelless}, Promise: "2103"},
	{Code: "2104", Name: ServiceNames{"Home delivery to home addresses", "Kotipaketti kotiosoitteisiin", "Hempaket till hemadresser"},
		Warehouse: true, Shipping: true, Countries: finland, Labelless: true, Additional: []string{ServiceCashOnDelivery, ServiceLabelless}, Promise: "2104"},
	{Code: "2108", Name: ServiceNames{"Return parcel", "Palautus", "Returpaket"},
		Shipping: true, Return: true, Countries: finland},
	{Code: "2143", Name: ServiceNames{"Small parcel to a home address / Express freight, morning", "Pienpaketti kotiosoitteeseen / Express-rahti aamuksi", "Småpaket till hemadress / Expressfrakt på morgonen"},
		Warehouse: true, Shipping: true, Countries: finland, Labelless: true, Additional: []string{ServiceLabelless}, Promise: "2143"},
	{Code: "2144", Name: ServiceNames{"Express freight", "Express-rahti", "Expressfrakt"},
		Warehouse: true, Shipping: true, Countries: finland, Promise: "2144"},
	{Code: "2145", Name: ServiceNames{"Express freight, evening", "Express-rahti illaksi", "Expressfrakt på kvällen"},
		Warehouse: true, Shipping: true, Countries: finland, Promise: "2145"},
	{Code: "2317", Name: ServiceNames{"Express business-day parcel, international", "Express-arkipäiväpaketti, kansainvälinen", "Expresspaket på vardagar, internationellt"},
		Warehouse: true, Shipping: true, S10: "CP", Promise: "2317"},
	{Code: "2318", Name: ServiceNames{"Express business-day pallet, international", "Express-arkipäivälava, kansainvälinen", "Expresspall på vardagar, internationellt"},
		Warehouse: true, Shipping: true, S10: "CP", Promise: "2318"},
	{Code: "2331", Name: ServiceNames{"Postal parcel to the Baltics, international", "Postipaketti Baltiaan, kansainvälinen", "Postpaket till Baltikum, internationellt"},
		Warehouse: true, Shipping: true, PickupPoint: true, Countries: baltics, S10: "CP", Promise: "2331"},
	{Code: "2338", Name: ServiceNames{"Postal parcel from the Baltics, return", "Postipaketti Baltiasta, palautus", "Postpaket från Baltikum, retur"},
		Shipping: true, Return: true, Countries: baltics, S10: "CP"},
	{Code: "2351", Name: ServiceNames{"PickUp Parcel to a pick-up point abroad", "PickUp Parcel noutopisteeseen ulkomaille", "PickUp Parcel till ett utlämningsställe utomlands"},
		Shipping: true, PickupPoint: true, Countries: pickupAbroad, S10: "CP", Promise: "2711"},
	{Code: "2352", Name: ServiceNames{"Home Parcel to a home address abroad", "Home Parcel kotiosoitteeseen ulkomaille", "Home Parcel till en hemadress utomlands"},
		Shipping: true, Countries: pickupAbroad, S10: "CP", Promise: "2711"},
	{Code: "2461", Name: ServiceNames{"Small parcel (Pikkupaketti)", "Pikkupaketti", "Småpaket (Pikkupaketti)"},
		Shipping: true, Countries: finland},
	{Code: "2711", Name: ServiceNames{"International parcel service", "Kansainvälinen pakettipalvelu", "Internationell pakettjänst"},
		Warehouse: true, Shipping: true, S10: "CP", Promise: "2711"},
	{Code: "2718", Name: ServiceNames{"Parcel Return Connect, a return from abroad", "Parcel Return Connect, palautus ulkomailta", "Parcel Return Connect, retur från utlandet"},
		Shipping: true, Return: true, S10: "CP"},
	{Code: ServiceNouto, Name: ServiceNames{"Pick-up from warehouse", "Nouto varastolta", "Avhämtning från lagret"},
		Warehouse: true},
}

// serviceIndex finds a code's row of services.
var serviceIndex = func() map[string]int {
	m := make(map[string]int, len(services))
	for i, s := range services {
		m[s.Code] = i
	}
	return m
}()

// LookupService returns the table's row of code (exact, as stored: "2103",
// "NOUTO").
func LookupService(code string) (Service, bool) {
	i, ok := serviceIndex[code]
	if !ok {
		return Service{}, false
	}
	return services[i], true
}

// serviceCodesWhere lists, in code order, the codes whose row keep says.
func serviceCodesWhere(keep func(Service) bool) []string {
	var codes []string
	for _, s := range services {
		if keep(s) {
			codes = append(codes, s.Code)
		}
	}
	slices.Sort(codes)
	return codes
}

// ValidServiceCode reports whether code is in interface §2.3's table: an
// order's serviceCode, the warehouse's delivery services.
func ValidServiceCode(code string) bool {
	s, ok := LookupService(code)
	return ok && s.Warehouse
}

// ServiceName is the name of a service code in lang (en, fi or sv; en for
// any other), "" for an unknown code.
func ServiceName(code, lang string) string {
	s, _ := LookupService(code)
	switch lang {
	case "fi":
		return s.Name.FI
	case "sv":
		return s.Name.SV
	}
	return s.Name.EN
}

// PromiseOf is the code of the estimate's promise row that deliveries of
// service code keep, "" when none (an unknown code, a return).
func PromiseOf(code string) string {
	s, _ := LookupService(code)
	return s.Promise
}

var (
	cashOnDelivery = AdditionalServiceOffer{Code: ServiceCashOnDelivery,
		Description: map[string]string{"en": "Cash on delivery", "fi": "Postiennakko", "sv": "Postförskott"},
		Specifiers:  []string{"amount", "reference"}}
	noOutdoorLockers = AdditionalServiceOffer{Code: ServiceNoOutdoorLockers,
		Description: map[string]string{"en": "Not to outdoor parcel lockers", "fi": "Ei ulkona oleviin pakettiautomaatteihin", "sv": "Inte till paketautomater utomhus"},
		Specifiers:  []string{}}
)

// serviceOffers are the additional services a delivery service offers the
// warehouse plugin, of those its row takes: a payment collected (on the
// parcels to an address and at pick-up points) and, at a pick-up point,
// kept indoors. Label-less sending and Saturday delivery are the shipping
// API's, not a shopper's choice.
var serviceOffers = map[string]AdditionalServiceOffer{
	ServiceCashOnDelivery:   cashOnDelivery,
	ServiceNoOutdoorLockers: noOutdoorLockers,
}

// DeliveryServices lists the delivery services of workflow, one for each
// code of interface §2.3's table (the service table's Warehouse rows), in
// code order; a domestic pick-up point service is tagged PICKUP_POINT.
// Only WorkflowWarehouse is served; another workflow is EINVALID naming the
// field "workflow". Anyone who may read locations may ask
// (ActionReadLocations).
func DeliveryServices(workflow string) ([]DeliveryService, error) {
	if w := strings.ToUpper(strings.TrimSpace(workflow)); w != WorkflowWarehouse && w != "" {
		var p Problems
		p.Add("workflow", "must be %s, not %q", WorkflowWarehouse, workflow)
		return nil, p.Err()
	}
	codes := serviceCodesWhere(func(s Service) bool { return s.Warehouse })
	out := make([]DeliveryService, 0, len(codes))
	for _, c := range codes {
		s, _ := LookupService(c)
		tags := []string{}
		if s.PickupPoint && s.Domestic() {
			tags = append(tags, TagPickupPoint)
		}
		extra := []AdditionalServiceOffer{}
		for _, a := range s.Additional {
			if o, ok := serviceOffers[a]; ok {
				extra = append(extra, o)
			}
		}
		out = append(out, DeliveryService{
			ID: c, Provider: DeliveryOperator, DeliveryOperator: DeliveryOperator,
			Description:        map[string]string{"en": s.Name.EN, "fi": s.Name.FI, "sv": s.Name.SV},
			Tags:               tags,
			AdditionalServices: extra,
		})
	}
	return out, nil
}
