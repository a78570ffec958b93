package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// DeliveryService is a delivery method a shop can offer; its ID is an
// order's ServiceCode. Description is keyed by language (en, fi, sv); the
// tag "PICKUP_POINT" marks a service delivered to a pick-up point the
// shopper chooses (see PickupPoints).
type DeliveryService struct {
	ID                 string                   `json:"id"`
	Provider           string                   `json:"provider"`
	DeliveryOperator   string                   `json:"deliveryOperator"`
	Description        map[string]string        `json:"description"`
	Tags               []string                 `json:"tags"`
	AdditionalServices []AdditionalServiceOffer `json:"additionalServices"`
}

// AdditionalServiceOffer is an additional service a delivery service offers;
// Specifiers name what an order must give with it (e.g. the amount and
// reference of cash on delivery, 3101).
type AdditionalServiceOffer struct {
	Code        string            `json:"code"`
	Description map[string]string `json:"description"`
	Specifiers  []string          `json:"specifiers"`
}

// DeliveryServices lists the delivery services of the warehouse workflow
// (every service code an order may name). Any ecom role may ask.
func (c *Client) DeliveryServices(ctx context.Context) ([]DeliveryService, error) {
	var out []DeliveryService
	q := url.Values{"workflow": {"WAREHOUSE"}}
	if err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/services", query: q}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// PickupPoint is a place a parcel of service 2103 can be collected from;
// ExternalID is what an order names as its PickupPointID.
type PickupPoint struct {
	ExternalID      string         `json:"externalId"`
	PupCode         string         `json:"pupCode"`
	Name            string         `json:"name"`
	Type            string         `json:"type"` // POST_OFFICE, PICKUP_POINT, PARCEL_LOCKER
	ServiceProvider string         `json:"serviceProvider"`
	StreetAddress   string         `json:"streetAddress"`
	PostalCode      string         `json:"postalCode"`
	PostOffice      string         `json:"postOffice"`
	Country         string         `json:"country"`
	Latitude        float64        `json:"latitude"`
	Longitude       float64        `json:"longitude"`
	Capabilities    []string       `json:"capabilities"` // outdoors, cashOnDelivery
	ServiceCodes    []string       `json:"serviceCodes"`
	OpeningHours    []OpeningHours `json:"openingHours"`
	// Distance is in metres from the searched place; nil for a search by
	// text that names no place.
	Distance *int `json:"distance,omitempty"`
	// Estimation is the estimated delivery date (yyyy-mm-dd) of a parcel
	// handed over now.
	Estimation string `json:"estimation"`
}

// OpeningHours are the hours of one weekday ("HH:MM"; 00:00-24:00 round
// the clock).
type OpeningHours struct {
	Day    string `json:"day"`
	Opens  string `json:"opens"`
	Closes string `json:"closes"`
}

// PickupPointQuery is a search for pick-up points: near an address
// (PostalCode, PostOffice, StreetAddress) or by free text (Search). Types
// and Capabilities may each be preceded by "!" to leave them out, e.g.
// Capabilities: []string{"!outdoors"}.
type PickupPointQuery struct {
	ServiceCodes   []string
	PostalCode     string
	PostOffice     string
	StreetAddress  string
	Country        string // default FI
	Search         string
	Types          []string
	Capabilities   []string
	CountryFrom    string // where the parcel leaves from, for the estimate
	PostalCodeFrom string
	Limit          int // default 20, at most 100
}

// PickupPoints finds pick-up points, nearest first. Any ecom role may ask.
func (c *Client) PickupPoints(ctx context.Context, q PickupPointQuery) ([]PickupPoint, error) {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("serviceCode", strings.Join(q.ServiceCodes, ","))
	set("postalCode", q.PostalCode)
	set("postOffice", q.PostOffice)
	set("streetAddress", q.StreetAddress)
	set("country", q.Country)
	set("search", q.Search)
	set("type", strings.Join(q.Types, ","))
	set("capability", strings.Join(q.Capabilities, ","))
	set("countryFrom", q.CountryFrom)
	set("postalCodeFrom", q.PostalCodeFrom)
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out []PickupPoint
	if err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/pickup-points", query: v}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
