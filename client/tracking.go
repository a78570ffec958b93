package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The provider's Tracking API v7 (decisions §30 of the server), with the
// service account's token. A parcel of the caller's own organization has
// every field; another's, found by its number, the public ones only.

// ParcelStatus is a parcel's status code: WAITING, RECEIVED,
// IN_TRANSPORT, READY_FOR_PICKUP, OUT_FOR_DELIVERY, DELIVERED,
// RETURN_IN_TRANSPORT, RETURNED_TO_SENDER and the like.
type ParcelStatus string

// Localized is a text in Finnish, English and Swedish.
type Localized struct {
	FI string `json:"fi"`
	EN string `json:"en"`
	SV string `json:"sv"`
}

// TrackingPlace is where an event happened, or where a parcel goes.
type TrackingPlace struct {
	Code    string `json:"code,omitempty"`
	Name    string `json:"name,omitempty"`
	City    string `json:"city,omitempty"`
	Country string `json:"country,omitempty"`
}

// TrackedParcel is one parcel of a Tracking API answer.
type TrackedParcel struct {
	TrackingCode string `json:"trackingCode"`
	Product      struct {
		Code string    `json:"code"`
		Name Localized `json:"name"`
	} `json:"product"`
	Status struct {
		Code        ParcelStatus `json:"code"`
		Description Localized    `json:"description"`
	} `json:"status"`
	ModifiedAt            time.Time       `json:"modifiedAt"`
	EstimatedDeliveryTime *time.Time      `json:"estimatedDeliveryTime,omitempty"`
	Destination           TrackingPlace   `json:"destination"`
	PickupPoint           *TrackingPlace  `json:"pickupPoint,omitempty"`
	Events                []TrackingEvent `json:"events"`

	// The contract view's fields: set for the caller's own parcels.
	ShipmentTrackingCode string `json:"shipmentTrackingCode,omitempty"`
	Weight               *struct {
		Value float64 `json:"value"`
		Unit  string  `json:"unit"`
	} `json:"weight,omitempty"`
	Sender     *Address `json:"sender,omitempty"`
	Receiver   *Address `json:"receiver,omitempty"`
	References []struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"references,omitempty"`
	AdditionalServices []string `json:"additionalServices,omitempty"`
}

// TrackingEvent is one step of a parcel's journey.
type TrackingEvent struct {
	EventCode        string        `json:"eventCode"`
	EventDescription Localized     `json:"eventDescription"`
	Status           ParcelStatus  `json:"status"`
	Timestamp        time.Time     `json:"timestamp"`
	Location         TrackingPlace `json:"location"`
}

type trackingAnswer struct {
	ParcelShipments []TrackedParcel `json:"parcelShipments"`
}

// Track returns the parcels with the numbers (parcel numbers, or
// shipment tracking numbers for all their parcels), at most 100; numbers
// nobody has are left out.
func (c *Client) Track(ctx context.Context, numbers ...string) ([]TrackedParcel, error) {
	switch {
	case len(numbers) == 0:
		return nil, errors.New("client: Track needs a tracking number")
	case len(numbers) > 100:
		return nil, errors.New("client: Track takes at most 100 tracking numbers")
	}
	esc := make([]string, len(numbers))
	for i, n := range numbers {
		esc[i] = url.PathEscape(n)
	}
	var out trackingAnswer
	err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/tracking/7/shipments/trackingnumbers/" + strings.Join(esc, ",")}, &out)
	return out.ParcelShipments, err
}

// FindParcels returns the caller's own parcels whose number, shipment
// tracking number or reference is one of the keywords.
func (c *Client) FindParcels(ctx context.Context, keywords ...string) ([]TrackedParcel, error) {
	return c.FindParcelsIn(ctx, nil, keywords...)
}

// FindParcelsIn is FindParcels comparing the keywords only with what keys
// name (the Tracking API's keys: the provider's names, such as "all",
// "parcel_all", "parcel_tracking_number", "parcel_order_number",
// "freight_all", or these route names): ByTrackingNumber a parcel's number
// or its shipment's tracking number, ByConsignmentNumber the shipment's
// tracking number, BySenderReference and ByOrderNumber the reference;
// ByWaybillNumber and ByGoodsItemID are freight keys and search nothing
// (parcelgate carries no freight). A key's Not excludes it: with only
// exclusions the rest of all is searched. No keys is FindParcels. Keys
// that leave nothing to search find nothing; an unknown key is an error
// with status 400, ByPhoneNumber one with status 403.
func (c *Client) FindParcelsIn(ctx context.Context, keys []TrackingKey, keywords ...string) ([]TrackedParcel, error) {
	q := url.Values{"keywords": {strings.Join(keywords, ",")}}
	for _, k := range keys {
		q.Add("keys", string(k))
	}
	var out trackingAnswer
	err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/tracking/7/shipments/find", query: q}, &out)
	return out.ParcelShipments, err
}

// TrackingKey is one of the Tracking API's other lookups, the route
// segment after /tracking/7/shipments/, and a key of FindParcelsIn.
type TrackingKey string

// ByTrackingNumber is the tracking number as a key of FindParcelsIn
// (TrackBy with it looks one number up as trackingnumber/{n} does:
// nobody's is an error with status 404).
const ByTrackingNumber TrackingKey = "trackingnumber"

// Not is k excluded, as a key of FindParcelsIn.
func (k TrackingKey) Not() TrackingKey { return "!" + k }

// The Tracking API's other keys. A consignment number is looked up like a
// tracking number (another organization's parcel in the public view;
// nobody's is an error with status 404); a waybill number and a goods item
// ID are freight keys and find nothing (parcelgate carries no freight); a
// sender reference, an order number, a receiver reference and an errand
// code search the caller's own parcels (none is an empty list). Tracking
// by phone number is restricted by the provider and always refused (403).
const (
	ByWaybillNumber     TrackingKey = "waybillnumber"
	ByConsignmentNumber TrackingKey = "consignmentnumber"
	ByGoodsItemID       TrackingKey = "goodsitemid"
	BySenderReference   TrackingKey = "senderreference"
	ByOrderNumber       TrackingKey = "ordernumber"
	ByReceiverReference TrackingKey = "receiverreference"
	ByErrandCode        TrackingKey = "errandcode"
	ByPhoneNumber       TrackingKey = "phonenumber"
)

// The find keys in the provider's names (its Tracking API v7's keys
// parameter), for FindParcelsIn; the route names above are read as
// aliases of the ones they stand for. A group key takes every key of its
// group. A key names what a keyword is compared with: a parcel's number
// (ParcelTrackingNumber), its shipment's number (ParcelConsignmentNumber),
// the shipment's sender-side reference (ParcelOrderNumber,
// ParcelSenderReference). parcelgate carries no freight: the freight keys
// find nothing (the answer's freightShipments is always empty), nor do
// the keys of what it stores nothing for (ParcelReceiverReference,
// ParcelErrandCode: TrackBy with ByErrandCode finds by errand code).
const (
	KeyAll                      TrackingKey = "all"
	KeyParcelAll                TrackingKey = "parcel_all"
	KeyFreightAll               TrackingKey = "freight_all"
	KeyParcelTrackingNumber     TrackingKey = "parcel_tracking_number"
	KeyParcelConsignmentNumber  TrackingKey = "parcel_consignment_number"
	KeyParcelErrandCode         TrackingKey = "parcel_errand_code"
	KeyParcelOrderNumber        TrackingKey = "parcel_order_number"
	KeyParcelReceiverReference  TrackingKey = "parcel_receiver_reference"
	KeyParcelSenderReference    TrackingKey = "parcel_sender_reference"
	KeyFreightWaybillNumber     TrackingKey = "freight_waybill_number"
	KeyFreightTrackingNumber    TrackingKey = "freight_tracking_number"
	KeyFreightOrderNumber       TrackingKey = "freight_order_number"
	KeyFreightReceiverReference TrackingKey = "freight_receiver_reference"
	KeyFreightSenderReference   TrackingKey = "freight_sender_reference"
)

// TrackBy returns the parcels that key's value names: the first 100, in
// the order their shipments were made.
func (c *Client) TrackBy(ctx context.Context, key TrackingKey, value string) ([]TrackedParcel, error) {
	if key == "" || strings.ContainsAny(string(key), "/?#") {
		return nil, fmt.Errorf("client: %q is not a tracking key", key)
	}
	var out trackingAnswer
	err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/tracking/7/shipments/" + string(key) + "/" + url.PathEscape(value)}, &out)
	return out.ParcelShipments, err
}

// ReservationQuery asks ReservationStatus for the caller's parcels due at
// destinations in Country with one of Postcodes in [From, To) (at most 31
// days), optionally of Products ("2103", or "2103:3101" with an additional
// service) and carrying one of Services.
type ReservationQuery struct {
	From, To  time.Time
	Country   string
	Postcodes []string
	Products  []string
	Services  []string
}

// Reservation is one day of a ReservationStatus answer: the caller's
// parcels due in [From, To), by their numbers.
type Reservation struct {
	From            time.Time `json:"from"`
	To              time.Time `json:"to"`
	Count           int       `json:"count"`
	TrackingNumbers []string  `json:"trackingNumbers"`
}

// ReservationStatus answers the Tracking API's reservations/status
// (decisions §39 of the server): the caller's own parcels due at the
// postcodes, ready for pick-up or delivered, one reservation a day of the
// window. A bad or missing parameter is an error with status 400 naming
// it.
func (c *Client) ReservationStatus(ctx context.Context, q ReservationQuery) ([]Reservation, error) {
	v := url.Values{"from": {q.From.Format(time.RFC3339)}, "to": {q.To.Format(time.RFC3339)}, "country": {q.Country}}
	if len(q.Postcodes) > 0 {
		v.Set("postcode", strings.Join(q.Postcodes, ","))
	}
	if len(q.Products) > 0 {
		v.Set("product", strings.Join(q.Products, ","))
	}
	if len(q.Services) > 0 {
		v.Set("service", strings.Join(q.Services, ","))
	}
	var out struct {
		Reservations []Reservation `json:"reservations"`
	}
	err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/tracking/7/reservations/status", query: v}, &out)
	return out.Reservations, err
}
