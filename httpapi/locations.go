package httpapi

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/parcelgate/parcelgate"
)

// The location services a shop uses at checkout: the delivery services it
// can offer, and the pick-up points a shopper can choose for 2103 (spec
// 2.3 pickupPointId). Both answer a bare JSON array, as the warehouse
// plugin reads them.
func (s *Server) locationRoutes() {
	s.handle("GET /ecommerce/v3/services", s.ecom(parcelgate.ActionReadLocations, s.listDeliveryServices))
	s.handle("GET /ecommerce/v3/pickup-points", s.ecom(parcelgate.ActionReadLocations, s.searchPickupPoints))
}

// listDeliveryServices answers GET /services?workflow=WAREHOUSE.
func (s *Server) listDeliveryServices(w http.ResponseWriter, r *http.Request) error {
	svcs, err := parcelgate.DeliveryServices(r.URL.Query().Get("workflow"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, svcs)
	return nil
}

// searchPickupPoints answers GET /pickup-points, the plugin's two calls:
// near an address (serviceCode, postalCode, postOffice, streetAddress,
// country, type, capability, countryFrom, postalCodeFrom) or by text
// (search). An empty parameter is an absent one, as the plugin sends every
// parameter whether it has a value or not.
func (s *Server) searchPickupPoints(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	pq := parcelgate.PickupQuery{
		ServiceCodes:   commaValues(q, "serviceCode"),
		PostalCode:     q.Get("postalCode"),
		PostOffice:     q.Get("postOffice"),
		StreetAddress:  q.Get("streetAddress"),
		Country:        q.Get("country"),
		Search:         q.Get("search"),
		Types:          commaValues(q, "type"),
		Capabilities:   commaValues(q, "capability"),
		CountryFrom:    q.Get("countryFrom"),
		PostalCodeFrom: q.Get("postalCodeFrom"),
	}
	var p parcelgate.Problems
	pq.Limit = pickupLimit(q, &p)
	if err := pq.Validate(); err != nil {
		p.AddFields(parcelgate.ErrorFields(err)...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.pickups.QueryPickupPoints(pq, s.clock.Now(caller(r).Environment)))
	return nil
}

// pickupLimit reads how many points a search wants: limit, or size, the
// name the provider's PHP library sends (decisions §19:
// the two are one parameter; given both, they must agree). 0 is the
// default.
func pickupLimit(q url.Values, p *parcelgate.Problems) int {
	n := 0
	for _, name := range []string{"limit", "size"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		m, err := strconv.Atoi(v)
		switch {
		case err != nil || m < 1 || m > parcelgate.MaxPickupLimit:
			p.Add(name, "must be a whole number from 1 to %d, not %q", parcelgate.MaxPickupLimit, v)
		case n != 0 && m != n:
			p.Add(name, "is another name of limit; give one of them, or the same number in both")
		default:
			n = m
		}
	}
	return n
}
