package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Address is the address object of interface §2.3: an order's delivery address,
// vendor and sender, and a shipment's sender and receiver.
type Address struct {
	// ExternalID is a business ID; vendor and sender only.
	ExternalID    string `json:"externalId,omitempty"`
	Name          string `json:"name,omitempty"`
	StreetAddress string `json:"streetAddress,omitempty"`
	PostalCode    string `json:"postalCode,omitempty"`
	PostOffice    string `json:"postOffice,omitempty"`
	// Country is a two-letter country code.
	Country   string `json:"country,omitempty"`
	Telephone string `json:"telephone,omitempty"`
	Email     string `json:"email,omitempty"`
}

// PackageCode is a parcel's package type; it selects the parcel-locker size
// (interface §2.2: S2 fits S, M2 M, L2 L, XL2 XL).
type PackageCode string

// Package codes.
const (
	PackageS  PackageCode = "S2"
	PackageM  PackageCode = "M2"
	PackageL  PackageCode = "L2"
	PackageXL PackageCode = "XL2"
)

// ShipmentRequest registers a shipment's data (EDI) with the shipment-data
// service, the "separate shipment-creation service" of interface §2.2 rule 2:
// sending and errand codes are made for shipments it holds.
type ShipmentRequest struct {
	// TrackingNumber is generated when empty. With one, registering the same
	// shipment again answers the stored one, so the call is retried safely.
	TrackingNumber string          `json:"trackingNumber,omitempty"`
	ServiceCode    string          `json:"serviceCode"`
	Sender         Address         `json:"sender"`
	Receiver       Address         `json:"receiver"`
	Parcels        []ParcelRequest `json:"parcels"`
}

// ParcelRequest is one parcel of a ShipmentRequest. Weight is in kg and the
// dimensions in cm; give all three dimensions or none (interface §2.2 rule 3).
type ParcelRequest struct {
	// ParcelID is the parcel's tracking code, 12-21 characters of A-Z and
	// 0-9; generated when empty.
	ParcelID string `json:"parcelId,omitempty"`
	// PackageCode selects the locker size: PackageS, PackageM, PackageL or
	// PackageXL. Without it the size follows from the dimensions, else S.
	PackageCode PackageCode `json:"packageCode,omitempty"`
	Weight      *float64    `json:"weight,omitempty"`
	Length      *float64    `json:"length,omitempty"`
	Width       *float64    `json:"width,omitempty"`
	Height      *float64    `json:"height,omitempty"`
}

// ShipmentStatus is the status of a shipment: Created when its data is
// registered, Delivered once delivered (its codes are then freed).
type ShipmentStatus string

// Shipment statuses.
const (
	ShipmentCreated   ShipmentStatus = "Created"
	ShipmentDelivered ShipmentStatus = "Delivered"
)

// Shipment is a shipment's data as the shipment-data service holds it.
type Shipment struct {
	TrackingNumber string         `json:"trackingNumber"`
	ServiceCode    string         `json:"serviceCode"`
	Sender         Address        `json:"sender"`
	Receiver       Address        `json:"receiver"`
	Parcels        []Parcel       `json:"parcels"`
	Status         ShipmentStatus `json:"status"`
	CreatedAt      time.Time      `json:"createdAt"`
	DeliveredAt    *time.Time     `json:"deliveredAt,omitempty"`
}

// Parcel is one parcel of a Shipment, with the locker size it fits.
type Parcel struct {
	ParcelID    string      `json:"parcelId"`
	PackageCode PackageCode `json:"packageCode,omitempty"`
	Weight      *float64    `json:"weight,omitempty"`
	Length      *float64    `json:"length,omitempty"`
	Width       *float64    `json:"width,omitempty"`
	Height      *float64    `json:"height,omitempty"`
	// LockerSize is S, M, L or XL.
	LockerSize string `json:"lockerSize"`
}

// CreateShipment registers a shipment's data and returns it as stored,
// with its tracking number and parcel IDs generated where none were given.
func (c *Client) CreateShipment(ctx context.Context, s *ShipmentRequest) (*Shipment, error) {
	var out Shipment
	err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/shipments", body: s, idempotent: ptr(s.TrackingNumber != "")}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Shipment returns the shipment data of trackingNumber.
func (c *Client) Shipment(ctx context.Context, trackingNumber string) (*Shipment, error) {
	var out Shipment
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: "/shipments/" + escape(trackingNumber)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SendingCode is the sending code record of interface §2.1: the 6-character code
// that replaces a shipment's printed label. Looked up by code
// (ShipmentBySendingCode) it also carries what is held of the shipment.
type SendingCode struct {
	TrackingNumber string    `json:"trackingNumber"`
	SendingCode    string    `json:"sendingCode"`
	CreatedAt      time.Time `json:"createdAt,omitzero"`
	// ExpiresAt is when the code is freed unless the shipment is delivered
	// first.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`

	// The shipment details, when the service holds shipment data for the
	// code.
	Status            ShipmentStatus `json:"status,omitempty"`
	ServiceCode       string         `json:"serviceCode,omitempty"`
	Sender            *PartySummary  `json:"sender,omitempty"`
	Receiver          *PartySummary  `json:"receiver,omitempty"`
	Parcels           []Parcel       `json:"parcels,omitempty"`
	ShipmentCreatedAt *time.Time     `json:"shipmentCreatedAt,omitempty"`
	// Mock marks an answer to a call with TestEnvironment: mock data
	// the service made for the number or code, no code it holds.
	Mock bool `json:"mock,omitempty"`
}

// PartySummary is the part of a sender's or receiver's address a sending
// code lookup shows.
type PartySummary struct {
	Name       string `json:"name,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
	PostOffice string `json:"postOffice,omitempty"`
	Country    string `json:"country,omitempty"`
}

// SendingCodeOptions are the options of the sending code calls.
type SendingCodeOptions struct {
	// NoEDICheck makes a code for the tracking number even when no shipment
	// data is held for it (validation.noEdiCheck, interface §4.1); for
	// CreateSendingCode only.
	NoEDICheck bool
	// TestEnvironment sends x-test-environment: true, which the provider's
	// Sending Code API answers with mock data on its production host too:
	// the same mock code (or, by code, the same mock shipment) for the
	// same well-formed number every time, marked Mock, nothing stored and
	// no code taken. A shop's client uses it to try its code flow without
	// a shipment.
	TestEnvironment bool
}

// header is the call's x-test-environment header, when asked for.
func (o *SendingCodeOptions) header() http.Header {
	if o == nil || !o.TestEnvironment {
		return nil
	}
	return http.Header{"X-Test-Environment": {"true"}}
}

// firstOptions is the one options value a lookup takes.
func firstOptions(opts []*SendingCodeOptions) *SendingCodeOptions {
	if len(opts) == 0 {
		return nil
	}
	return opts[0]
}

type sendingCodes struct {
	Shipments []SendingCode `json:"shipments"`
}

func (r *sendingCodes) first() (*SendingCode, error) {
	if len(r.Shipments) == 0 {
		return nil, errors.New("client: the answer lists no shipments")
	}
	return &r.Shipments[0], nil
}

// CreateSendingCode returns the sending code of the shipment trackingNumber,
// making one if it has none (interface §4.1). Without NoEDICheck the shipment data
// must exist, else the call fails with 404 NOT_FOUND. A tracking number has
// one code however often it is asked, so the call is retried safely.
func (c *Client) CreateSendingCode(ctx context.Context, trackingNumber string, opts *SendingCodeOptions) (*SendingCode, error) {
	body := map[string]any{"searchCriteria": map[string]string{"trackingNumber": trackingNumber}}
	if opts != nil && opts.NoEDICheck {
		body["validation"] = map[string]bool{"noEdiCheck": true}
	}
	var out sendingCodes
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, path: "/labelless", body: body, idempotent: ptr(true), header: opts.header()}, &out); err != nil {
		return nil, err
	}
	return out.first()
}

// SendingCode returns the sending code of the shipment trackingNumber;
// with TestEnvironment (opts: at most one) its mock code.
func (c *Client) SendingCode(ctx context.Context, trackingNumber string, opts ...*SendingCodeOptions) (*SendingCode, error) {
	var out sendingCodes
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: "/labelless/" + escape(trackingNumber), header: firstOptions(opts).header()}, &out); err != nil {
		return nil, err
	}
	return out.first()
}

// ShipmentBySendingCode returns the shipment a sending code was made for,
// with the shipment details held for it. Codes are matched
// case-insensitively. With TestEnvironment (opts: at most one) a mock
// shipment of its own answers any well-formed code.
func (c *Client) ShipmentBySendingCode(ctx context.Context, sendingCode string, opts ...*SendingCodeOptions) (*SendingCode, error) {
	var out sendingCodes
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, path: "/labelless/shipment/" + escape(sendingCode), header: firstOptions(opts).header()}, &out); err != nil {
		return nil, err
	}
	return out.first()
}

// ErrandCodeResult is the errand code of one parcel (interface §2.2).
type ErrandCodeResult struct {
	ParcelID string `json:"ParcelID"`
	// ErrandCode is 6 characters of 0-9 and A-F; empty unless ResultText
	// is ResultOK.
	ErrandCode string `json:"ErrandCode"`
	// ResultText is ResultOK, or says why the parcel has no code.
	ResultText string `json:"ResultText"`
}

// ResultOK is the ResultText of a parcel that has its errand code.
const ResultOK = "OK"

// OK reports whether the parcel has its code.
func (r ErrandCodeResult) OK() bool { return r.ResultText == ResultOK }

// MaxErrandCodeIDs is the most parcel IDs the service takes in one request;
// ErrandCodes splits longer lists.
const MaxErrandCodeIDs = 100

type errandCodes struct {
	ErrandCodeResult []ErrandCodeResult `json:"ErrandCodeResult"`
}

// ErrandCode returns the errand code of one parcel (interface §4.2), whose
// shipment data must exist (interface §4.2 rule 1). A parcel without a code is an
// *Error with status 404 whose Message is the result's text.
func (c *Client) ErrandCode(ctx context.Context, parcelID string) (*ErrandCodeResult, error) {
	var out errandCodes
	err := c.do(ctx, request{surface: errand, method: http.MethodGet, path: "/v1/errandCodes/" + escape(parcelID)}, &out)
	if e, ok := errors.AsType[*Error](err); ok && e.Code == "" {
		// The single form answers 404 with the result body, not the
		// gateway error body; its ResultText says why.
		var res errandCodes
		if decodeInto(e.Body, &res) == nil && len(res.ErrandCodeResult) == 1 {
			e.Code, e.Message = "NOT_FOUND", res.ErrandCodeResult[0].ResultText
		}
	}
	if err != nil {
		return nil, err
	}
	if len(out.ErrandCodeResult) == 0 {
		return nil, errors.New("client: the answer lists no errand code")
	}
	return &out.ErrandCodeResult[0], nil
}

// ErrandCodes returns the errand codes of several parcels, one result per
// ID in the order given (interface §4.2). A parcel without a code is not an
// error: its result's ResultText says why. Lists longer than
// MaxErrandCodeIDs are asked in several requests.
func (c *Client) ErrandCodes(ctx context.Context, parcelIDs ...string) ([]ErrandCodeResult, error) {
	if len(parcelIDs) == 0 {
		return nil, errors.New("client: ErrandCodes needs at least one parcel ID")
	}
	results := make([]ErrandCodeResult, 0, len(parcelIDs))
	for start := 0; start < len(parcelIDs); start += MaxErrandCodeIDs {
		chunk := parcelIDs[start:min(start+MaxErrandCodeIDs, len(parcelIDs))]
		var out errandCodes
		q := url.Values{"id": {strings.Join(chunk, ",")}}
		if err := c.do(ctx, request{surface: errand, method: http.MethodGet, path: "/v1/errandCodes", query: q}, &out); err != nil {
			return nil, err
		}
		results = append(results, out.ErrandCodeResult...)
	}
	return results, nil
}
