package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// GatewayPickupPoint is a pick-up point as the provider's gateway Pick-up
// Point API answers it, in either of its shapes: release 2025-04's, and
// the provider's live shapes that the gateway answers from 2026-04 on
// (Config.Version) — capabilities as objects with cut-off times, opening
// hours by dayOfWeek in HH:MM:SS with closed and open24h, a hosted
// point's PublicName "Posti, <host>" and CareOf "c/o Posti, <host>". ID is
// 9 digits: the postal code and the routing service code.
type GatewayPickupPoint struct {
	ID                 string               `json:"id"`
	PupCode            string               `json:"pupCode"`
	ExternalID         string               `json:"externalId"`
	PublicName         string               `json:"publicName"`
	CareOf             string               `json:"careOf"`
	ParcelLocker       bool                 `json:"parcelLocker"`
	RoutingServiceCode string               `json:"routingServiceCode"`
	DistanceInMeters   *int                 `json:"distanceInMeters,omitempty"`
	Availability       PickupAvailability   `json:"availability"`
	Location           PickupLocation       `json:"location"`
	Capabilities       PickupCapabilities   `json:"capabilities"`
	Extensions         *GatewayPointExtends `json:"extensions,omitempty"`
}

// PickupCapability is one capability of a point. From 2026-04 on the
// gateway answers each as the provider's live answer does: Name
// (parcelPickup, parcelDropoff, accessibility, ...), Value (AVAILABLE,
// MANUAL_DROP, WHEELCHAIR, NOT_POSSIBLE, ...) and, for a hand-over, the
// CutOffTime (HH:MM:SS) a parcel must be in by to leave that day ("" where
// there is none). Release 2025-04 lists the names of the features a point
// has (parcelPickup, wheelchairAccessibility, ...): each is read as a
// capability with that Name and an empty Value.
type PickupCapability struct {
	Name       string `json:"name"`
	Value      string `json:"value,omitempty"`
	CutOffTime string `json:"cutOffTime,omitempty"`
}

// PickupCapabilities are a point's capabilities, in the answer's order.
type PickupCapabilities []PickupCapability

// UnmarshalJSON reads either release's list: names (2025-04) or objects
// (2026-04 on).
func (cs *PickupCapabilities) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(PickupCapabilities, 0, len(raw))
	for _, r := range raw {
		var name string
		if json.Unmarshal(r, &name) == nil {
			out = append(out, PickupCapability{Name: name})
			continue
		}
		var c struct {
			Name       string  `json:"name"`
			Value      string  `json:"value"`
			CutOffTime *string `json:"cutOffTime"`
		}
		if err := json.Unmarshal(r, &c); err != nil {
			return fmt.Errorf("a capability is neither a name nor {name, value, cutOffTime}: %w", err)
		}
		pc := PickupCapability{Name: c.Name, Value: c.Value}
		if c.CutOffTime != nil {
			pc.CutOffTime = *c.CutOffTime
		}
		out = append(out, pc)
	}
	*cs = out
	return nil
}

// Find returns the capability named name, if the point lists it.
func (cs PickupCapabilities) Find(name string) (PickupCapability, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c, true
		}
	}
	return PickupCapability{}, false
}

// Names are the capabilities' names, in order.
func (cs PickupCapabilities) Names() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// PickupAvailability is when a point is open: its hours by weekday and the
// coming days it keeps other hours.
type PickupAvailability struct {
	OpeningHours []PickupHours `json:"openingHours"`
	Exceptions   []PickupHours `json:"exceptions"`
}

// PickupHours are the hours of a weekday (in OpeningHours) or of a date
// (Date, in Exceptions). From 2026-04 on a weekday is DayOfWeek (MONDAY,
// ...), Opens and Closes are HH:MM:SS ("" on a Closed day) and Open24h
// marks a point open round the clock; release 2025-04 names the weekday
// Weekday, writes HH:MM and adds a Description in the answer's language.
// Day reads either.
type PickupHours struct {
	DayOfWeek   string `json:"dayOfWeek,omitempty"`
	Weekday     string `json:"weekday,omitempty"`
	Date        string `json:"date,omitempty"`
	Opens       string `json:"opens,omitempty"`
	Closes      string `json:"closes,omitempty"`
	Closed      bool   `json:"closed"`
	Open24h     bool   `json:"open24h,omitempty"`
	Description string `json:"description,omitempty"`
}

// Day is the weekday the hours are of, in either release's member.
func (h PickupHours) Day() string {
	if h.DayOfWeek != "" {
		return h.DayOfWeek
	}
	return h.Weekday
}

// PickupLocation is where a point is.
type PickupLocation struct {
	Country          string `json:"country"`
	CountryCode      string `json:"countryCode"`
	Street           string `json:"street"`
	Postcode         string `json:"postcode"`
	City             string `json:"city"`
	Municipality     string `json:"municipality"`
	SpecificLocation string `json:"specificLocation"`
	RoutingPostcode  string `json:"routingPostcode"`
	Coordinates      struct {
		Latitude  float64 `json:"latitude"`
		Longitude float64 `json:"longitude"`
	} `json:"coordinates"`
}

// GatewayPointExtends are the extensions a search asked for.
type GatewayPointExtends struct {
	Estimate *struct {
		Time *string `json:"time"` // null where the model cannot promise
	} `json:"estimate,omitempty"`
	AverageLockerOccupancyRate *struct {
		AverageRate float64 `json:"averageRate"`
		Description string  `json:"description"`
	} `json:"averageLockerOccupancyRate,omitempty"`
}

// Boolean service filters of a search (PickupPointSearch.Filters): true
// keeps only the points with the feature, false only those without.
const (
	FilterOutdoorLocker    = "outdoorLocker"
	FilterLockerReservable = "lockerReservable"
	FilterWheelchair       = "wheelchairAccessibility"
	FilterOpenOnWeekends   = "openOnWeekends"
	FilterADR              = "ADRLimitedQuantities"
	FilterSaturdayDelivery = "saturdayDelivery"
)

// PickupPointSearch is a search of the gateway's Pick-up Point API: one
// mode — near Postcode/Street/City (in CountryCode, default FI), near
// Coordinates within RadiusMetres, inside Rectangle, or FreeText — or only
// ParcelLocker; narrowed by ParcelLocker, ProductCode and Filters.
type PickupPointSearch struct {
	Postcode, CountryCode, Street, City string
	Coordinates                         *[2]float64 // latitude, longitude
	RadiusMetres                        float64
	Rectangle                           *[4]float64 // swLatitude, swLongitude, neLatitude, neLongitude
	FreeText                            string
	ParcelLocker                        *bool
	ProductCode                         string
	Filters                             map[string]bool
	Limit                               int // default 20, at most 100
	// Language is the answer's language: fi (default), sv, da, en, et,
	// lv or lt.
	Language string
	// EstimateFrom, when set, asks each point's delivery estimate for a
	// parcel of EstimateProduct handed over at EstimateAt (zero: now) in
	// this Finnish postal code.
	EstimateFrom, EstimateProduct string
	EstimateAt                    time.Time
	// Occupancy asks each locker's usual occupancy.
	Occupancy bool
}

// GatewayPickupPoints is an answer of the Pick-up Point API: the points,
// and for a country listing the token of the next page ("" on the last).
type GatewayPickupPoints struct {
	PickupPoints            []GatewayPickupPoint `json:"pickupPoints"`
	PagingContinuationToken string               `json:"pagingContinuationToken,omitempty"`
}

// SearchPickupPoints asks the gateway's Pick-up Point API for points
// (POST /{version}/pickuppoints), with the gateway client's token.
func (c *Client) SearchPickupPoints(ctx context.Context, q PickupPointSearch) ([]GatewayPickupPoint, error) {
	location := map[string]any{}
	for k, v := range map[string]string{"postcode": q.Postcode, "countryCode": q.CountryCode, "street": q.Street, "city": q.City} {
		if v != "" {
			location[k] = v
		}
	}
	if q.Coordinates != nil {
		location["coordinates"] = map[string]float64{"latitude": q.Coordinates[0], "longitude": q.Coordinates[1]}
	}
	if q.RadiusMetres > 0 {
		location["radius"] = map[string]any{"unit": "m", "value": q.RadiusMetres}
	}
	criteria := map[string]any{}
	if len(location) > 0 {
		criteria["location"] = location
	}
	if r := q.Rectangle; r != nil {
		criteria["rectangle"] = map[string]float64{"swLatitude": r[0], "swLongitude": r[1], "neLatitude": r[2], "neLongitude": r[3]}
	}
	if q.FreeText != "" {
		criteria["freeText"] = q.FreeText
	}
	if q.ParcelLocker != nil {
		criteria["parcelLocker"] = *q.ParcelLocker
	}
	if q.ProductCode != "" || len(q.Filters) > 0 {
		filters := map[string]any{}
		for k, v := range q.Filters {
			filters[k] = v
		}
		if q.ProductCode != "" {
			filters["product"] = map[string]string{"code": q.ProductCode}
		}
		criteria["serviceFilters"] = filters
	}
	body := map[string]any{"searchCriteria": criteria}
	if q.Limit != 0 {
		body["limit"] = q.Limit
	}
	ext := map[string]any{}
	if q.EstimateFrom != "" {
		at := q.EstimateAt
		if at.IsZero() {
			at = time.Now()
		}
		ext["estimate"] = map[string]any{"time": at.UTC().Format(time.RFC3339),
			"origin": map[string]string{"postcode": q.EstimateFrom, "countryCode": "FI"}, "product": map[string]string{"code": q.EstimateProduct}}
	}
	if q.Occupancy {
		ext["averageLockerOccupancyRate"] = true
	}
	if len(ext) > 0 {
		body["extensions"] = ext
	}
	var out GatewayPickupPoints
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/pickuppoints", body: body, language: q.Language, idempotent: ptr(true)}, &out); err != nil {
		return nil, err
	}
	return out.PickupPoints, nil
}

// ListPickupPoints reads one page of a country's points (GET
// /{version}/pickuppoints/{country}; country may carry an ID prefix, FI00),
// 250 a page in ID order; token is "" for the first page, else the
// previous page's PagingContinuationToken.
func (c *Client) ListPickupPoints(ctx context.Context, country, token, language string) (*GatewayPickupPoints, error) {
	path := "/pickuppoints/" + escape(country)
	if token != "" {
		path += "?pagingContinuationToken=" + url.QueryEscape(token)
	}
	var out GatewayPickupPoints
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: path, language: language}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GatewayPickupPoint returns one point of a country by its 9-digit ID (a
// former 7-digit ID names its successor), in language ("" is fi); nil
// when the country has no such point.
func (c *Client) GatewayPickupPoint(ctx context.Context, country, id, language string) (*GatewayPickupPoint, error) {
	var out GatewayPickupPoints
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: "/pickuppoints/" + escape(country) + "/" + escape(id), language: language}, &out); err != nil {
		return nil, err
	}
	if len(out.PickupPoints) == 0 {
		return nil, nil
	}
	return &out.PickupPoints[0], nil
}

// Logistic phases of an estimate: where the parcel's clock starts.
const (
	PhaseDroppedOff = "DROPPED_OFF" // the sender drops it at an outlet (the default)
	PhasePickedUp   = "PICKED_UP"   // the provider picks it up from the sender
)

// SaturdayDelivery is the additional service code of Saturday delivery
// (products 2101 and 2102).
const SaturdayDelivery = "3106"

// EstimateRequest asks when a parcel will be delivered. A place is a
// postal code, or a pick-up point's 9-digit ID (FromPupCode, ToPupCode).
type EstimateRequest struct {
	FromPostcode, FromPupCode, FromCountry string // FromCountry default FI
	ToPostcode, ToPupCode, ToCountry       string // ToCountry default FI
	ProductCode                            string // a service code, e.g. 2103
	// At is when the parcel is handed over; zero is now (by this
	// machine's clock).
	At                 time.Time
	LogisticPhase      string // PhaseDroppedOff (default) or PhasePickedUp
	AdditionalServices []string
}

// Estimate is a delivery estimate as the gateway answers it: Time in UTC,
// nil where the estimate model cannot promise.
type Estimate struct {
	Time *time.Time `json:"time"`
}

type estimates struct {
	Estimates []Estimate `json:"estimates"`
}

// Estimate asks the gateway when a parcel will be delivered (POST
// /{version}/estimate, the provider's estimate object).
func (c *Client) Estimate(ctx context.Context, q EstimateRequest) (*Estimate, error) {
	place := func(postcode, pupCode, country string) map[string]string {
		if country == "" {
			country = "FI"
		}
		p := map[string]string{"countryCode": country}
		if pupCode != "" {
			p["pupCode"] = pupCode
		} else {
			p["postcode"] = postcode
		}
		return p
	}
	at := q.At
	if at.IsZero() {
		at = time.Now()
	}
	product := map[string]any{"code": q.ProductCode}
	if len(q.AdditionalServices) > 0 {
		product["additionalServicesCodes"] = q.AdditionalServices
	}
	est := map[string]any{
		"time":        at.Format(time.RFC3339Nano),
		"origin":      place(q.FromPostcode, q.FromPupCode, q.FromCountry),
		"destination": place(q.ToPostcode, q.ToPupCode, q.ToCountry),
		"product":     product,
	}
	body := map[string]any{"estimate": est}
	if q.LogisticPhase != "" {
		body["context"] = map[string]any{"logisticsPhase": map[string]string{"event": q.LogisticPhase, "reason": q.LogisticPhase}}
	}
	var out estimates
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/estimate", body: body, idempotent: ptr(true)}, &out); err != nil {
		return nil, err
	}
	if len(out.Estimates) == 0 {
		return &Estimate{}, nil
	}
	return &out.Estimates[0], nil
}
