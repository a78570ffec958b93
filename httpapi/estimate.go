package httpapi

import (
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// Delivery time estimates (decisions §19, §32): the gateway's POST
// /{version}/estimate with the provider's estimate object, and the older
// estimation API's GET, which takes the same gateway token without a
// version.
func (s *Server) estimateRoutes() {
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

// Estimate is the answer of the estimation API's GET (and of the
// deprecated body of the POST): {"deliveryTime":
// "2014-10-07T16:00:00.000+03:00"}.
type Estimate struct {
	DeliveryTime string `json:"deliveryTime"`
}

// Estimates is the answer of POST /{version}/estimate, as the provider's
// gateway answers: {"estimates":[{"time":"2026-03-16T14:00:00Z"}]}, the
// time null where the model cannot promise.
type Estimates struct {
	Estimates []parcelgate.PickupEstimate `json:"estimates"`
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

// estimatePlaceBody is an origin or destination of the estimate object.
type estimatePlaceBody struct {
	CountryCode string `json:"countryCode"`
	Postcode    string `json:"postcode"`
	PupCode     string `json:"pupCode"`
	GLN         string `json:"gln"`
}

func (b *estimatePlaceBody) place() *parcelgate.EstimatePlace {
	if b == nil {
		return nil
	}
	return &parcelgate.EstimatePlace{CountryCode: b.CountryCode, Postcode: b.Postcode, PupCode: b.PupCode, GLN: b.GLN}
}

// estimateContext is the estimate's optional context. Whether the provider
// takes it inside the estimate object or beside it is not known; both are
// accepted (decisions §32).
type estimateContext struct {
	LogisticsPhase *struct {
		Event  string `json:"event"`
		Reason string `json:"reason"`
	} `json:"logisticsPhase"`
	ShipmentSeq     *int   `json:"shipmentSeq"`
	SenderAgreement string `json:"senderAgreement"`
	PayerAgreement  string `json:"payerAgreement"`
	ShipmentType    string `json:"shipmentType"`
	PartyName       string `json:"partyName"`
}

// estimateBody is the body of POST /{version}/estimate: the provider's
// {"estimate":{…}}, or parcelgate's former flat body, kept as a deprecated
// alias (decisions §32; answered {"deliveryTime"} with a Deprecation
// header).
type estimateBody struct {
	Estimate *struct {
		Time        string             `json:"time"`
		Origin      *estimatePlaceBody `json:"origin"`
		Destination *estimatePlaceBody `json:"destination"`
		Product     *struct {
			Code                    string   `json:"code"`
			AdditionalServicesCodes []string `json:"additionalServicesCodes"`
		} `json:"product"`
		Context *estimateContext `json:"context"`
	} `json:"estimate"`
	Context *estimateContext `json:"context"`

	// The deprecated flat body.
	Origin             *estimatePlaceBody `json:"origin"`
	Destination        *estimatePlaceBody `json:"destination"`
	ProductCode        string             `json:"productCode"`
	Time               string             `json:"time"`
	LogisticPhase      string             `json:"logisticPhase"`
	AdditionalServices []string           `json:"additionalServices"`
}

func (b *estimateBody) flat() bool {
	return b.Origin != nil || b.Destination != nil || b.ProductCode != "" || b.Time != "" || b.LogisticPhase != "" || b.AdditionalServices != nil
}

// postEstimate is POST /{version}/estimate.
func (s *Server) postEstimate(w http.ResponseWriter, r *http.Request) error {
	var b estimateBody
	if err := decodeStrict(r, &b); err != nil {
		return err
	}
	var p parcelgate.Problems
	switch {
	case b.Estimate != nil && b.flat():
		p.Add("estimate", "give the estimate object alone; origin, destination, productCode, time, logisticPhase and additionalServices beside it are the deprecated flat body")
	case b.Estimate == nil && b.flat():
		return s.postFlatEstimate(w, r, &b)
	case b.Estimate == nil:
		p.Add("estimate", "is required")
	}
	if err := p.Err(); err != nil {
		return err
	}
	e := b.Estimate
	ge := parcelgate.GatewayEstimate{Time: e.Time, Origin: e.Origin.place(), Destination: e.Destination.place()}
	if e.Product != nil {
		ge.ProductCode, ge.AdditionalServices = e.Product.Code, e.Product.AdditionalServicesCodes
	}
	for _, c := range []struct {
		ctx  *estimateContext
		path string
	}{{e.Context, "estimate.context"}, {b.Context, "context"}} {
		if c.ctx == nil || c.ctx.LogisticsPhase == nil {
			continue
		}
		lp := c.ctx.LogisticsPhase
		if strings.TrimSpace(lp.Event) == "" || strings.TrimSpace(lp.Reason) == "" {
			p.Add(c.path+".logisticsPhase", "needs event and reason together")
		}
		ge.Phase = lp.Event
	}
	q, promise, err := s.estimates.PlanGatewayEstimate(ge, "estimate.", "", "pupCode")
	if err != nil {
		p.AddFields(parcelgate.ErrorFields(err)...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	var est parcelgate.PickupEstimate
	if promise {
		t := parcelgate.GatewayEstimateTime(s.estimates.EstimateDeliveryTime(q))
		est.Time = &t
	}
	writeJSON(w, http.StatusOK, Estimates{[]parcelgate.PickupEstimate{est}})
	return nil
}

// postFlatEstimate answers the deprecated flat body.
func (s *Server) postFlatEstimate(w http.ResponseWriter, r *http.Request, b *estimateBody) error {
	w.Header().Set("Deprecation", "true")
	origin, dest := b.Origin, b.Destination
	if origin == nil {
		origin = &estimatePlaceBody{}
	}
	if dest == nil {
		dest = &estimatePlaceBody{}
	}
	q := parcelgate.EstimateRequest{
		FromPostcode: origin.Postcode, FromCountry: origin.CountryCode,
		ToPostcode: dest.Postcode, ToCountry: dest.CountryCode,
		Product: b.ProductCode, Phase: b.LogisticPhase, Services: b.AdditionalServices,
	}
	return s.answerEstimate(w, r, q, b.Time, parcelgate.EstimateFields{
		FromPostcode: "origin.postcode", FromCountry: "origin.countryCode", ToPostcode: "destination.postcode",
		ToCountry: "destination.countryCode", Product: "productCode", Phase: "logisticPhase", Services: "additionalServices"}, "time")
}

// answerEstimate reads the time (absent: now, by the caller's
// environment's clock, so the environment clock applies), checks q and answers
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
	if err := s.estimates.CheckEstimate(&q, names); err != nil {
		p.AddFields(parcelgate.ErrorFields(err)...)
	}
	if err := p.Err(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Estimate{DeliveryTime: s.estimates.EstimateDeliveryTime(q).Format(parcelgate.EstimateTimeLayout)})
	return nil
}
