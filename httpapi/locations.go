package httpapi

import (
	"net/http"
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
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > parcelgate.MaxPickupLimit {
			p.Add("limit", "must be a whole number from 1 to %d, not %q", parcelgate.MaxPickupLimit, v)
		} else {
			pq.Limit = n
		}
	}
	if err := pq.Validate(); err != nil {
		p.AddFields(parcelgate.ErrorFields(err)...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, parcelgate.SearchPickupPoints(pq, s.clock.Now(caller(r).Environment)))
	return nil
}
