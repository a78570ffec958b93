package client

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// GatewayPickupPoint is a pick-up point as the gateway's Pick-up Point API
// answers it: the point of PickupPoints, with its type named in the
// language asked for.
type GatewayPickupPoint struct {
	PickupPoint
	TypeName string `json:"typeName"`
}

// PickupPointSearch is a search of the gateway's Pick-up Point API: near a
// location (Postcode, City, Address in CountryCode, default FI) or by
// free Text, narrowed as PickupPointQuery is.
type PickupPointSearch struct {
	Postcode     string
	CountryCode  string
	City         string
	Address      string
	Text         string
	ServiceCodes []string
	Types        []string // each optionally "!"-prefixed to leave it out
	Capabilities []string // each optionally "!"-prefixed for one to lack
	Limit        int      // default 20, at most 100
	// Language names the point types in fi, sv or en (default en).
	Language string
}

type gatewayPickupPoints struct {
	PickupPoints []GatewayPickupPoint `json:"pickupPoints"`
}

// SearchPickupPoints asks the gateway's Pick-up Point API for points,
// nearest first, with the gateway client's token: the same points
// PickupPoints answers the ecom API's callers.
func (c *Client) SearchPickupPoints(ctx context.Context, q PickupPointSearch) ([]GatewayPickupPoint, error) {
	location := map[string]string{}
	for k, v := range map[string]string{"postcode": q.Postcode, "countryCode": q.CountryCode, "city": q.City, "address": q.Address} {
		if v != "" {
			location[k] = v
		}
	}
	criteria := map[string]any{"location": location}
	if q.Text != "" {
		criteria["text"] = q.Text
	}
	for k, v := range map[string][]string{"serviceCodes": q.ServiceCodes, "types": q.Types, "capabilities": q.Capabilities} {
		if len(v) > 0 {
			criteria[k] = v
		}
	}
	body := map[string]any{"searchCriteria": criteria}
	if q.Limit != 0 {
		body["limit"] = q.Limit
	}
	var out gatewayPickupPoints
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/pickuppoints", body: body, language: q.Language, idempotent: ptr(true)}, &out); err != nil {
		return nil, err
	}
	return out.PickupPoints, nil
}

// GatewayPickupPoint returns one point of a country by its ID (ExternalID),
// its type named in language (fi, sv or en; "" is en).
func (c *Client) GatewayPickupPoint(ctx context.Context, country, id, language string) (*GatewayPickupPoint, error) {
	var out GatewayPickupPoint
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: "/pickuppoints/" + escape(country) + "/" + escape(id), language: language}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Logistic phases of an estimate: where the parcel's clock starts.
const (
	PhaseDroppedOff = "DROPPED_OFF" // the sender drops it at an outlet (the default)
	PhasePickedUp   = "PICKED_UP"   // the provider picks it up from the sender
)

// SaturdayDelivery is the additional service code of Saturday delivery
// (products 2101 and 2102).
const SaturdayDelivery = "3106"

// EstimateRequest asks when a parcel will be delivered.
type EstimateRequest struct {
	FromPostcode, FromCountry string // FromCountry default FI
	ToPostcode, ToCountry     string // ToCountry default FI
	ProductCode               string // a service code, e.g. 2103
	// At is when the parcel is handed over; zero is now (by the server's
	// clock, the sandbox clock on a sandbox).
	At                 time.Time
	LogisticPhase      string // PhaseDroppedOff (default) or PhasePickedUp
	AdditionalServices []string
}

// Estimate is a delivery estimate: DeliveryTime as the server wrote it
// (Finnish time, milliseconds, the offset), and the same instant read.
type Estimate struct {
	DeliveryTime string    `json:"deliveryTime"`
	Time         time.Time `json:"-"`
}

// Estimate asks the gateway when a parcel will be delivered (POST
// /{version}/estimate).
func (c *Client) Estimate(ctx context.Context, q EstimateRequest) (*Estimate, error) {
	or := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	body := map[string]any{
		"origin":      map[string]string{"postcode": q.FromPostcode, "countryCode": or(q.FromCountry, "FI")},
		"destination": map[string]string{"postcode": q.ToPostcode, "countryCode": or(q.ToCountry, "FI")},
		"productCode": q.ProductCode,
	}
	if !q.At.IsZero() {
		body["time"] = q.At.Format("2006-01-02T15:04:05.000Z07:00")
	}
	if q.LogisticPhase != "" {
		body["logisticPhase"] = q.LogisticPhase
	}
	if len(q.AdditionalServices) > 0 {
		body["additionalServices"] = q.AdditionalServices
	}
	var out Estimate
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/estimate", body: body, idempotent: ptr(true)}, &out); err != nil {
		return nil, err
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z07:00", out.DeliveryTime)
	if err != nil {
		return nil, fmt.Errorf("client: the estimate's deliveryTime %q: %w", out.DeliveryTime, err)
	}
	out.Time = t
	return &out, nil
}
