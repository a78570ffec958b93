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

// serviceTranslations are the Finnish and Swedish names of interface §2.3's
// service codes; the English ones are serviceCodes'.
var serviceTranslations = map[string][2]string{
	"2103":  {"Postipaketti noutopisteeseen tai pakettiautomaattiin", "Postpaket till ett utlämningsställe eller en paketautomat"},
	"2143":  {"Pienpaketti kotiosoitteeseen / Express-rahti aamuksi", "Småpaket till hemadress / Expressfrakt på morgonen"},
	"2104":  {"Kotipaketti kotiosoitteisiin", "Hempaket till hemadresser"},
	"2102":  {"Express-paketti yritysosoitteeseen", "Expresspaket till en företagsadress"},
	"2101":  {"Express-paketti aamuksi yritysosoitteeseen", "Expresspaket på morgonen till en företagsadress"},
	"2144":  {"Express-rahti", "Expressfrakt"},
	"2145":  {"Express-rahti illaksi", "Expressfrakt på kvällen"},
	"2711":  {"Kansainvälinen pakettipalvelu", "Internationell pakettjänst"},
	"2331":  {"Postipaketti Baltiaan, kansainvälinen", "Postpaket till Baltikum, internationellt"},
	"2317":  {"Express-arkipäiväpaketti, kansainvälinen", "Expresspaket på vardagar, internationellt"},
	"2318":  {"Express-arkipäivälava, kansainvälinen", "Expresspall på vardagar, internationellt"},
	"NOUTO": {"Nouto varastolta", "Avhämtning från lagret"},
}

var (
	cashOnDelivery = AdditionalServiceOffer{Code: ServiceCashOnDelivery,
		Description: map[string]string{"en": "Cash on delivery", "fi": "Postiennakko", "sv": "Postförskott"},
		Specifiers:  []string{"amount", "reference"}}
	noOutdoorLockers = AdditionalServiceOffer{Code: ServiceNoOutdoorLockers,
		Description: map[string]string{"en": "Not to outdoor parcel lockers", "fi": "Ei ulkona oleviin pakettiautomaatteihin", "sv": "Inte till paketautomater utomhus"},
		Specifiers:  []string{}}
)

// serviceExtras are the tags and additional services of each code: 2103
// delivers to pick-up points (which can collect a payment, and can be
// kept indoors); the domestic parcels to an address can collect a payment.
var serviceExtras = map[string]struct {
	tags  []string
	extra []AdditionalServiceOffer
}{
	ServiceToPickupPoint: {[]string{TagPickupPoint}, []AdditionalServiceOffer{cashOnDelivery, noOutdoorLockers}},
	"2104":               {nil, []AdditionalServiceOffer{cashOnDelivery}},
	"2102":               {nil, []AdditionalServiceOffer{cashOnDelivery}},
}

// DeliveryServices lists the delivery services of workflow, one for each
// code of interface §2.3's table, in code order. Only WorkflowWarehouse is
// served; another workflow is EINVALID naming the field "workflow". Anyone
// who may read locations may ask (ActionReadLocations).
func DeliveryServices(workflow string) ([]DeliveryService, error) {
	if w := strings.ToUpper(strings.TrimSpace(workflow)); w != WorkflowWarehouse && w != "" {
		var p Problems
		p.Add("workflow", "must be %s, not %q", WorkflowWarehouse, workflow)
		return nil, p.Err()
	}
	codes := make([]string, 0, len(serviceCodes))
	for c := range serviceCodes {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	out := make([]DeliveryService, 0, len(codes))
	for _, c := range codes {
		tr := serviceTranslations[c]
		x := serviceExtras[c]
		out = append(out, DeliveryService{
			ID: c, Provider: DeliveryOperator, DeliveryOperator: DeliveryOperator,
			Description:        map[string]string{"en": serviceCodes[c], "fi": tr[0], "sv": tr[1]},
			Tags:               append([]string{}, x.tags...),
			AdditionalServices: append([]AdditionalServiceOffer{}, x.extra...),
		})
	}
	return out, nil
}
