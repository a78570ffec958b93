package httpapi

import (
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The gateway's Pick-up Point API (decisions §32), versions 2025-04 and
// 2026-04, with the gateway token and its version check like sending
// codes: the provider's search body, its point object and its country
// listing paged by pagingContinuationToken. The points come from the
// server's PickupPointFinder, the data set the ecom /pickup-points answers.
func (s *Server) pickupPointRoutes() {
	s.handle("POST /{version}/pickuppoints", s.gateway(s.searchPickupPointsGateway))
	// One pattern serves GET /pickuppoints/{countryCode} and
	// /pickuppoints/{id}: a point ID is digits, a country code starts with
	// letters.
	s.handle("GET /{version}/pickuppoints/{countryOrId}", s.gateway(s.listOrGetPickupPoints))
	s.handle("GET /{version}/pickuppoints/{country}/{pupCode}", s.gateway(s.getPickupPointInCountry))
}

// PickupPointsAnswer is the answer of every pick-up point route of the
// 2025-04 release: {"pickupPoints":[…]}, with pagingContinuationToken
// while a country listing has pages left.
type PickupPointsAnswer struct {
	PickupPoints            []parcelgate.ProviderPickupPoint `json:"pickupPoints"`
	PagingContinuationToken string                           `json:"pagingContinuationToken,omitempty"`
}

// PickupPointsAnswer2026 is the same answer from the 2026-04 release on,
// its points in the provider's live shapes (decisions §36).
type PickupPointsAnswer2026 struct {
	PickupPoints            []parcelgate.ProviderPickupPoint2026 `json:"pickupPoints"`
	PagingContinuationToken string                               `json:"pagingContinuationToken,omitempty"`
}

// pickupSearchBody is the body of POST /{version}/pickuppoints, as the
// provider's schema has it (every object closed to other members).
type pickupSearchBody struct {
	SearchCriteria *struct {
		Location *struct {
			Postcode    string `json:"postcode"`
			CountryCode string `json:"countryCode"`
			Street      string `json:"street"`
			City        string `json:"city"`
			Coordinates *struct {
				Latitude  *float64 `json:"latitude"`
				Longitude *float64 `json:"longitude"`
			} `json:"coordinates"`
			Radius *struct {
				Unit  string   `json:"unit"`
				Value *float64 `json:"value"`
			} `json:"radius"`
		} `json:"location"`
		Rectangle *struct {
			SWLatitude  *float64 `json:"swLatitude"`
			SWLongitude *float64 `json:"swLongitude"`
			NELatitude  *float64 `json:"neLatitude"`
			NELongitude *float64 `json:"neLongitude"`
		} `json:"rectangle"`
		// FreeText is the free-text mode; the provider's name for it is
		// not known (decisions §32).
		FreeText       string `json:"freeText"`
		ParcelLocker   *bool  `json:"parcelLocker"`
		ServiceFilters *struct {
			Product *struct {
				Code string `json:"code"`
			} `json:"product"`
			OutdoorLocker           *bool `json:"outdoorLocker"`
			LockerReservable        *bool `json:"lockerReservable"`
			WheelchairAccessibility *bool `json:"wheelchairAccessibility"`
			OpenOnWeekends          *bool `json:"openOnWeekends"`
			ADRLimitedQuantities    *bool `json:"ADRLimitedQuantities"`
			SaturdayDelivery        *bool `json:"saturdayDelivery"`
		} `json:"serviceFilters"`
	} `json:"searchCriteria"`
	Limit      *int `json:"limit"`
	Extensions *struct {
		Estimate *struct {
			Time   string `json:"time"`
			Origin *struct {
				Postcode      string `json:"postcode"`
				CountryCode   string `json:"countryCode"`
				PickuppointID string `json:"pickuppointId"`
				GLN           string `json:"gln"`
			} `json:"origin"`
			Product *struct {
				Code                    string   `json:"code"`
				AdditionalServicesCodes []string `json:"additionalServicesCodes"`
			} `json:"product"`
		} `json:"estimate"`
		AverageLockerOccupancyRate bool `json:"averageLockerOccupancyRate"`
	} `json:"extensions"`
}

// search is the body as the root's search, with the problems of what only
// the body can get wrong (a required member missing).
func (b *pickupSearchBody) search(p *parcelgate.Problems) parcelgate.PickupSearch {
	var q parcelgate.PickupSearch
	sc := b.SearchCriteria
	if sc == nil {
		p.Add("searchCriteria", "is required")
		return q
	}
	if l := sc.Location; l != nil {
		q.Postcode, q.CountryCode, q.Street, q.City = l.Postcode, l.CountryCode, l.Street, l.City
		if c := l.Coordinates; c != nil {
			if c.Latitude == nil || c.Longitude == nil {
				p.Add("searchCriteria.location.coordinates", "needs both latitude and longitude")
			} else {
				q.Coordinates = &parcelgate.Coordinates{Latitude: *c.Latitude, Longitude: *c.Longitude}
			}
		}
		if r := l.Radius; r != nil {
			factor := map[string]float64{"m": 1, "km": 1000}[strings.ToLower(r.Unit)]
			switch {
			case factor == 0:
				p.Add("searchCriteria.location.radius.unit", "must be m or km, not %q", r.Unit)
			case r.Value == nil:
				p.Add("searchCriteria.location.radius.value", "is required")
			default:
				q.RadiusMetres = *r.Value * factor
			}
		}
	}
	if r := sc.Rectangle; r != nil {
		if r.SWLatitude == nil || r.SWLongitude == nil || r.NELatitude == nil || r.NELongitude == nil {
			p.Add("searchCriteria.rectangle", "needs all of swLatitude, swLongitude, neLatitude and neLongitude")
		} else {
			q.Rectangle = &parcelgate.Rectangle{SWLatitude: *r.SWLatitude, SWLongitude: *r.SWLongitude, NELatitude: *r.NELatitude, NELongitude: *r.NELongitude}
		}
	}
	q.FreeText, q.ParcelLocker = sc.FreeText, sc.ParcelLocker
	if f := sc.ServiceFilters; f != nil {
		if f.Product != nil {
			q.ProductCode = f.Product.Code
		}
		q.Filters = map[string]bool{}
		for name, v := range map[string]*bool{
			parcelgate.FilterOutdoorLocker: f.OutdoorLocker, parcelgate.FilterLockerReservable: f.LockerReservable,
			parcelgate.FilterWheelchair: f.WheelchairAccessibility, parcelgate.FilterOpenOnWeekends: f.OpenOnWeekends,
			parcelgate.FilterADR: f.ADRLimitedQuantities, parcelgate.FilterSaturdayDelivery: f.SaturdayDelivery,
		} {
			if v != nil {
				q.Filters[name] = *v
			}
		}
	}
	if b.Limit != nil {
		if *b.Limit < 1 || *b.Limit > parcelgate.MaxPickupLimit {
			p.Add("limit", "must be from 1 to %d, not %d", parcelgate.MaxPickupLimit, *b.Limit)
		}
		q.Limit = *b.Limit
	}
	return q
}

// searchPickupPointsGateway is POST /{version}/pickuppoints.
func (s *Server) searchPickupPointsGateway(w http.ResponseWriter, r *http.Request) error {
	var body pickupSearchBody
	if err := decodeStrict(r, &body); err != nil {
		return err
	}
	var p parcelgate.Problems
	q := body.search(&p)
	if p.Len() == 0 {
		if err := q.Validate(); err != nil {
			p.AddFields(parcelgate.ErrorFields(err)...)
		}
	}
	var est *parcelgate.GatewayEstimate
	occupancy := false
	if x := body.Extensions; x != nil {
		occupancy = x.AverageLockerOccupancyRate
		if e := x.Estimate; e != nil {
			est = &parcelgate.GatewayEstimate{Time: e.Time}
			if o := e.Origin; o != nil {
				est.Origin = &parcelgate.EstimatePlace{CountryCode: o.CountryCode, Postcode: o.Postcode, PupCode: o.PickuppointID, GLN: o.GLN}
			}
			if pr := e.Product; pr != nil {
				est.ProductCode, est.AdditionalServices = pr.Code, pr.AdditionalServicesCodes
			}
			// The request's own problems, with a destination of the
			// right form (each point's is its own).
			if _, _, err := s.estimates.PlanGatewayEstimate(*est, "extensions.estimate.", "00100", "pickuppointId"); err != nil {
				p.AddFields(parcelgate.ErrorFields(err)...)
			}
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	pts := s.pickups.SearchPickupPoints(q)
	return s.writePickupPoints(w, r, pts, "", est, occupancy)
}

// writePickupPoints answers points in the provider's object of the
// route's release (parcelgate.LivePickupShapes), in the language
// Accept-Language asks for, with the extensions asked for.
func (s *Server) writePickupPoints(w http.ResponseWriter, r *http.Request, pts []parcelgate.PickupPoint, token string, est *parcelgate.GatewayEstimate, occupancy bool) error {
	lang := parcelgate.PickupLanguage(r.Header.Get("Accept-Language"))
	now := s.clock.Now(caller(r).Environment)
	live := parcelgate.LivePickupShapes(r.PathValue("version"))
	out := PickupPointsAnswer{PickupPoints: []parcelgate.ProviderPickupPoint{}, PagingContinuationToken: token}
	out2026 := PickupPointsAnswer2026{PickupPoints: []parcelgate.ProviderPickupPoint2026{}, PagingContinuationToken: token}
	if live {
		out2026.PickupPoints = make([]parcelgate.ProviderPickupPoint2026, len(pts))
	} else {
		out.PickupPoints = make([]parcelgate.ProviderPickupPoint, len(pts))
	}
	// The estimate is planned once (checked by the search already); each
	// point is its destination.
	var plan parcelgate.EstimateRequest
	promise := false
	if est != nil {
		plan, promise, _ = s.estimates.PlanGatewayEstimate(*est, "extensions.estimate.", "00100", "pickuppointId")
	}
	for i, p := range pts {
		var x *parcelgate.PickupExtensions
		if est != nil || occupancy {
			x = &parcelgate.PickupExtensions{}
		}
		if est != nil {
			pe := &parcelgate.PickupEstimate{}
			if promise && p.Country == "FI" {
				q := plan
				q.ToPostcode = p.PostalCode
				t := parcelgate.GatewayEstimateTime(s.estimates.EstimateDeliveryTime(q))
				pe.Time = &t
			}
			x.Estimate = pe
		}
		if occupancy {
			x.AverageLockerOccupancyRate = parcelgate.LockerOccupancy(p, lang, now)
		}
		if live {
			pp := p.Provider2026(lang, now)
			pp.Extensions = x
			out2026.PickupPoints[i] = pp
			continue
		}
		pp := p.Provider(lang, now)
		pp.Extensions = x
		out.PickupPoints[i] = pp
	}
	w.Header().Set("Content-Language", lang)
	if live {
		writeJSON(w, http.StatusOK, out2026)
		return nil
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// listOrGetPickupPoints is GET /{version}/pickuppoints/{countryCode} (a
// country's points, PickupPageSize a page, in ID order, the pattern's ID
// prefix narrowing them) and GET /{version}/pickuppoints/{id} (one point;
// an ID of no point finds none).
func (s *Server) listOrGetPickupPoints(w http.ResponseWriter, r *http.Request) error {
	seg := r.PathValue("countryOrId")
	if parcelgate.IsPickupPointID(seg) {
		return s.writeOnePickupPoint(w, r, seg, "")
	}
	l, err := parcelgate.ParsePickupList(seg, r.URL.Query().Get("pagingContinuationToken"))
	if err != nil {
		return err
	}
	pts, more := s.pickups.ListPickupPoints(l)
	token := ""
	if more {
		token = parcelgate.PickupPageToken(l, pts[len(pts)-1].ExternalID)
	}
	return s.writePickupPoints(w, r, pts, token, nil, false)
}

// getPickupPointInCountry is GET /{version}/pickuppoints/{countryCode}/
// {pupCode}: the point, when it is in that country.
func (s *Server) getPickupPointInCountry(w http.ResponseWriter, r *http.Request) error {
	l, err := parcelgate.ParsePickupList(r.PathValue("country"), "")
	if err != nil {
		return err
	}
	return s.writeOnePickupPoint(w, r, r.PathValue("pupCode"), l.Country)
}

// writeOnePickupPoint answers the point of id (of country, unless "") as a
// list of one; a point that does not exist is an empty list, as the
// provider's searches answer no match (its operations document no 404).
func (s *Server) writeOnePickupPoint(w http.ResponseWriter, r *http.Request, id, country string) error {
	p, ok := s.pickups.FindPickupPoint(id)
	pts := []parcelgate.PickupPoint{}
	if ok && (country == "" || p.Country == country) {
		pts = append(pts, p)
	}
	return s.writePickupPoints(w, r, pts, "", nil, false)
}

// pickupPointOf is the pick-up point shipment data sh names, nil for none.
func (s *Server) pickupPointOf(sh *parcelgate.Shipment) *parcelgate.PickupPoint {
	if sh.PickupPointID == "" {
		return nil
	}
	if pt, ok := s.pickups.FindPickupPoint(sh.PickupPointID); ok {
		return &pt
	}
	return nil
}
