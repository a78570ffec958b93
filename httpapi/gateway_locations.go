package httpapi

import (
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The gateway's Pick-up Point API and delivery time estimates (decisions
// §19): on the versioned gateway, with the gateway token and its version
// check like sending codes; the estimation API's own path takes the same
// token without a version. The points are the data set the ecom
// /pickup-points answers, searched by the same root function.
func (s *Server) gatewayLocationRoutes() {
	s.handle("POST /{version}/pickuppoints", s.gateway(s.searchGatewayPickupPoints))
	s.handle("GET /{version}/pickuppoints/{country}", s.gateway(s.listGatewayPickupPoints))
	s.handle("GET /{version}/pickuppoints/{country}/{id}", s.gateway(s.getGatewayPickupPoint))
	s.handle("POST /{version}/estimate", s.gateway(s.postEstimate))
	s.handle("GET /estimation/v1/{fromPostcode}/{fromCountry}/{toPostcode}/{toCountry}/{product}", s.gatewayUnversioned(s.getEstimate))
}

// gatewayUnversioned wraps a handler of a gateway API that has no version
// in its path (the estimation API): a gateway token of either environment.
func (s *Server) gatewayUnversioned(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, fail := s.authenticate(r, parcelgate.KindGateway)
		if fail != nil {
			s.refuse(w, r, gatewaySurface, fail)
			return
		}
		s.serve(w, withCaller(r, c), gatewaySurface, h)
	})
}

// GatewayPickupPoint is a point as the gateway answers it: the point of
// the ecom search, with its type named in the language asked for.
type GatewayPickupPoint struct {
	parcelgate.PickupPoint
	TypeName string `json:"typeName"`
}

// GatewayPickupPoints is the answer of the gateway's searches.
type GatewayPickupPoints struct {
	PickupPoints []GatewayPickupPoint `json:"pickupPoints"`
}

// pickupTypeNames are the names of the point types by language.
var pickupTypeNames = map[string]map[string]string{
	"fi": {parcelgate.PointPostOffice: "Posti", parcelgate.PointPickupShop: "Noutopiste", parcelgate.PointParcelLocker: "Pakettiautomaatti"},
	"sv": {parcelgate.PointPostOffice: "Postkontor", parcelgate.PointPickupShop: "Utlämningsställe", parcelgate.PointParcelLocker: "Paketautomat"},
	"en": {parcelgate.PointPostOffice: "Post office", parcelgate.PointPickupShop: "Pick-up point", parcelgate.PointParcelLocker: "Parcel locker"},
}

// language picks the answer's language from Accept-Language: the first of
// fi, sv and en it names (by order, weights ignored), en when none.
func language(r *http.Request) string {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Language"), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		if _, ok := pickupTypeNames[base]; ok {
			return base
		}
	}
	return "en"
}

func writeGatewayPoints(w http.ResponseWriter, r *http.Request, pts []parcelgate.PickupPoint) {
	lang := language(r)
	out := GatewayPickupPoints{PickupPoints: make([]GatewayPickupPoint, len(pts))}
	for i, p := range pts {
		out.PickupPoints[i] = GatewayPickupPoint{p, pickupTypeNames[lang][p.Type]}
	}
	w.Header().Set("Content-Language", lang)
	writeJSON(w, http.StatusOK, out)
}

// gatewayPickupRequest is the body of POST /{version}/pickuppoints, as the
// provider's page shows it: {"searchCriteria":{"location":{"postcode":
// "20100","countryCode":"FI"}},"limit":20}, with the narrowing of the ecom
// search under searchCriteria.
type gatewayPickupRequest struct {
	SearchCriteria *struct {
		Location *struct {
			Postcode    string `json:"postcode"`
			CountryCode string `json:"countryCode"`
			City        string `json:"city"`
			Address     string `json:"address"`
		} `json:"location"`
		Text         string   `json:"text"`
		ServiceCodes []string `json:"serviceCodes"`
		Types        []string `json:"types"`
		Capabilities []string `json:"capabilities"`
	} `json:"searchCriteria"`
	Limit *int `json:"limit"`
}

// gatewayPickupFields names the body's members in the problems of the root
// search's Validate, which names query parameters.
var gatewayPickupFields = map[string]string{
	"postalCode": "searchCriteria.location.postcode", "country": "searchCriteria.location.countryCode",
	"postOffice": "searchCriteria.location.city", "streetAddress": "searchCriteria.location.address",
	"search": "searchCriteria.text", "serviceCode": "searchCriteria.serviceCodes", "type": "searchCriteria.types",
	"capability": "searchCriteria.capabilities", "limit": "limit",
}

// renamed is err with its fields renamed by names (others kept).
func renamed(err error, names map[string]string) error {
	if err == nil {
		return nil
	}
	var p parcelgate.Problems
	for _, f := range parcelgate.ErrorFields(err) {
		if n, ok := names[f.Field]; ok {
			f.Field = n
		}
		p.AddFields(f)
	}
	return p.Err()
}

// searchGatewayPickupPoints is POST /{version}/pickuppoints.
func (s *Server) searchGatewayPickupPoints(w http.ResponseWriter, r *http.Request) error {
	var req gatewayPickupRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var q parcelgate.PickupQuery
	if sc := req.SearchCriteria; sc != nil {
		q.Search, q.ServiceCodes, q.Types, q.Capabilities = sc.Text, sc.ServiceCodes, sc.Types, sc.Capabilities
		if l := sc.Location; l != nil {
			q.PostalCode, q.Country, q.PostOffice, q.StreetAddress = l.Postcode, l.CountryCode, l.City, l.Address
		}
	}
	var p parcelgate.Problems
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > parcelgate.MaxPickupLimit {
			p.Add("limit", "must be from 1 to %d, not %d", parcelgate.MaxPickupLimit, *req.Limit)
		} else {
			q.Limit = *req.Limit
		}
	}
	if err := q.Validate(); err != nil {
		p.AddFields(parcelgate.ErrorFields(renamed(err, gatewayPickupFields))...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	writeGatewayPoints(w, r, parcelgate.SearchPickupPoints(q, s.clock.Now(caller(r).Environment)))
	return nil
}

// listGatewayPickupPoints is GET /{version}/pickuppoints/{country}: the
// country's points near postcode, city or address, or matching text, with
// the narrowing and limit of the ecom search; without any of them, the
// country's points in name order, limit at a time.
func (s *Server) listGatewayPickupPoints(w http.ResponseWriter, r *http.Request) error {
	qv := r.URL.Query()
	q := parcelgate.PickupQuery{
		Country: r.PathValue("country"), PostalCode: qv.Get("postcode"), PostOffice: qv.Get("city"),
		StreetAddress: qv.Get("address"), Search: qv.Get("text"),
		ServiceCodes: commaValues(qv, "serviceCode"), Types: commaValues(qv, "type"), Capabilities: commaValues(qv, "capability"),
	}
	var p parcelgate.Problems
	q.Limit = pickupLimit(qv, &p)
	all := q.PostalCode == "" && q.PostOffice == "" && q.StreetAddress == "" && q.Search == ""
	if err := q.Validate(); err != nil {
		for _, f := range parcelgate.ErrorFields(renamed(err, map[string]string{
			"postalCode": "postcode", "postOffice": "city", "streetAddress": "address", "search": "text", "country": "country"})) {
			// The list of a whole country needs no place.
			if all && f.Field == "postcode" {
				continue
			}
			p.AddFields(f)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	now := s.clock.Now(caller(r).Environment)
	if all {
		writeGatewayPoints(w, r, parcelgate.CountryPickupPoints(q, now))
		return nil
	}
	writeGatewayPoints(w, r, parcelgate.SearchPickupPoints(q, now))
	return nil
}

// getGatewayPickupPoint is GET /{version}/pickuppoints/{country}/{id}: one
// point, 404 when the country has no point of that ID.
func (s *Server) getGatewayPickupPoint(w http.ResponseWriter, r *http.Request) error {
	country := strings.ToUpper(r.PathValue("country"))
	p, ok := parcelgate.FindPickupPoint(r.PathValue("id"))
	if !ok || p.Country != country {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "No pick-up point %s in %s.", r.PathValue("id"), country)
	}
	p = parcelgate.WithEstimation(p, s.clock.Now(caller(r).Environment))
	lang := language(r)
	w.Header().Set("Content-Language", lang)
	writeJSON(w, http.StatusOK, GatewayPickupPoint{p, pickupTypeNames[lang][p.Type]})
	return nil
}

// Estimate is the answer of both estimate routes, as the provider's
// estimation API answers: {"deliveryTime": "2014-10-07T16:00:00.000+03:00"}.
type Estimate struct {
	DeliveryTime string `json:"deliveryTime"`
}

// getEstimate is GET /estimation/v1/{fromPostcode}/{fromCountry}/
// {toPostcode}/{toCountry}/{product}?time=&logisticPhase=&service=: the
// origin's pair first (decisions §19).
func (s *Server) getEstimate(w http.ResponseWriter, r *http.Request) error {
	qv := r.URL.Query()
	q := parcelgate.EstimateRequest{
		FromPostcode: r.PathValue("fromPostcode"), FromCountry: r.PathValue("fromCountry"),
		ToPostcode: r.PathValue("toPostcode"), ToCountry: r.PathValue("toCountry"), Product: r.PathValue("product"),
		Phase: qv.Get("logisticPhase"), Services: commaValues(qv, "service"),
	}
	return s.answerEstimate(w, r, q, qv.Get("time"), parcelgate.EstimateFields{
		FromPostcode: "fromPostcode", FromCountry: "fromCountry", ToPostcode: "toPostcode", ToCountry: "toCountry",
		Product: "product", Phase: "logisticPhase", Services: "service"}, "time")
}

// estimateRequest is the body of POST /{version}/estimate: the estimation
// API's parameters as members, the places as the pick-up point search
// writes a location.
type estimateRequest struct {
	Origin             *estimatePlace `json:"origin"`
	Destination        *estimatePlace `json:"destination"`
	ProductCode        string         `json:"productCode"`
	Time               string         `json:"time"`
	LogisticPhase      string         `json:"logisticPhase"`
	AdditionalServices []string       `json:"additionalServices"`
}

type estimatePlace struct {
	Postcode    string `json:"postcode"`
	CountryCode string `json:"countryCode"`
}

// postEstimate is POST /{version}/estimate.
func (s *Server) postEstimate(w http.ResponseWriter, r *http.Request) error {
	var req estimateRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	if req.Origin == nil {
		req.Origin = &estimatePlace{}
	}
	if req.Destination == nil {
		req.Destination = &estimatePlace{}
	}
	q := parcelgate.EstimateRequest{
		FromPostcode: req.Origin.Postcode, FromCountry: req.Origin.CountryCode,
		ToPostcode: req.Destination.Postcode, ToCountry: req.Destination.CountryCode,
		Product: req.ProductCode, Phase: req.LogisticPhase, Services: req.AdditionalServices,
	}
	return s.answerEstimate(w, r, q, req.Time, parcelgate.EstimateFields{
		FromPostcode: "origin.postcode", FromCountry: "origin.countryCode", ToPostcode: "destination.postcode",
		ToCountry: "destination.countryCode", Product: "productCode", Phase: "logisticPhase", Services: "additionalServices"}, "time")
}

// answerEstimate reads the time (absent: now, by the caller's
// environment's clock, so the sandbox clock applies), checks q and answers
// its estimate.
func (s *Server) answerEstimate(w http.ResponseWriter, r *http.Request, q parcelgate.EstimateRequest, at string, names parcelgate.EstimateFields, timeField string) error {
	var p parcelgate.Problems
	if at == "" {
		q.At = s.clock.Now(caller(r).Environment)
	} else {
		// A '+' of the offset sent unescaped in a query string arrives as
		// a space.
		t, ok := parcelgate.ParseEstimateTime(strings.Replace(at, " ", "+", 1))
		if !ok {
			p.Add(timeField, "must be an ISO 8601 time with its offset, such as 2014-10-03T09:00:00.000+0300, not %q", at)
		}
		q.At = t
	}
	if err := q.Validate(names); err != nil {
		p.AddFields(parcelgate.ErrorFields(err)...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Estimate{DeliveryTime: parcelgate.EstimateDeliveryTime(q).Format(parcelgate.EstimateTimeLayout)})
	return nil
}
