package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// The provider's shipping API (decisions §29 of the server): a shipment in,
// parcel numbers and address labels out. Its shipments are shipment data:
// sending codes (with additional service 3196) and errand codes follow.

// ShippingOrder is the body of CreateShippingOrder, in the provider's
// field names.
type ShippingOrder struct {
	PrintConfig *PrintConfig     `json:"printConfig,omitempty"`
	Shipment    ShippingShipment `json:"shipment"`
}

// PrintConfig says on what the labels are printed.
type PrintConfig struct {
	// Target1Media is laser-a5 (the default), laser-a4, laser-2a5,
	// thermo-225 or thermo-190.
	Target1Media string `json:"target1Media,omitempty"`
}

// ShippingShipment is the shipment of a ShippingOrder.
type ShippingShipment struct {
	SenderPartners []SenderPartner `json:"senderPartners,omitempty"`
	Sender         ShippingParty   `json:"sender"`
	Receiver       ShippingParty   `json:"receiver"`
	// Agent names the pick-up point (its ID in QuickID); service 2103
	// without one goes to the point nearest the receiver.
	Agent   *ShippingAgent   `json:"agent,omitempty"`
	Service ShippingService  `json:"service"`
	OrderNo string           `json:"orderNo,omitempty"`
	Parcels []ShippingParcel `json:"parcels"`
}

// SenderPartner is the sender's contract with a carrier: ID "POSTI" and
// the customer number.
type SenderPartner struct {
	ID     string `json:"id"`
	CustNo string `json:"custNo"`
}

// ShippingParty is a sender or receiver.
type ShippingParty struct {
	Name     string `json:"name"`
	Address1 string `json:"address1,omitempty"`
	Address2 string `json:"address2,omitempty"`
	Zipcode  string `json:"zipcode,omitempty"`
	City     string `json:"city,omitempty"`
	Country  string `json:"country,omitempty"`
	Phone    string `json:"phone,omitempty"`
	Mobile   string `json:"mobile,omitempty"`
	Email    string `json:"email,omitempty"`
}

// ShippingAgent is the pick-up point a shipment goes to.
type ShippingAgent struct {
	QuickID string `json:"quickId"`
}

// ShippingService is the delivery service, "PO" and its code ("PO2103"),
// with its additional services.
type ShippingService struct {
	ID     string  `json:"id"`
	Addons []Addon `json:"addons,omitempty"`
}

// Addon is an additional service ("3196": label-less sending).
type Addon struct {
	ID string `json:"id"`
}

// ShippingParcel is Copies parcels alike. Weight is in kg, the dimensions
// in cm.
type ShippingParcel struct {
	Copies         int      `json:"copies"`
	Weight         float64  `json:"weight,omitempty"`
	PackageCode    string   `json:"packageCode,omitempty"`
	Contents       string   `json:"contents,omitempty"`
	ValuePerParcel bool     `json:"valuePerParcel"`
	Length         *float64 `json:"length,omitempty"`
	Width          *float64 `json:"width,omitempty"`
	Height         *float64 `json:"height,omitempty"`
}

// ShippingOrderResult is the shipment made: its parcels' numbers and its
// printable labels.
type ShippingOrderResult struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	ShipmentNo string          `json:"shipmentNo"`
	Parcels    []ParcelNo      `json:"parcels"`
	Prints     []ShippingPrint `json:"prints"`
}

// ParcelNo is a parcel's tracking number.
type ParcelNo struct {
	ParcelNo string `json:"parcelNo"`
}

// ShippingPrint is a printable document. Data is the PDF when the order
// was made with ReturnFile; otherwise Label(Href) fetches it.
type ShippingPrint struct {
	ID          string `json:"id"`
	Href        string `json:"href"`
	Description string `json:"description"`
	Media       string `json:"media"`
	PdfType     string `json:"pdf_type"`
	Data        []byte `json:"data,omitempty"`
}

// ShippingOptions are the options of CreateShippingOrder.
type ShippingOptions struct {
	// ReturnFile puts each label PDF in the answer (ShippingPrint.Data).
	ReturnFile bool
}

// CreateShippingOrder makes a shipment with the shipping API. Each call
// makes a new shipment with new parcel numbers, so it is not retried after
// the request may have reached the server.
func (c *Client) CreateShippingOrder(ctx context.Context, o *ShippingOrder, opts *ShippingOptions) (*ShippingOrderResult, error) {
	if c.gatewayURL == "" {
		return nil, errors.New("client: no address configured for the gateway API")
	}
	target := c.gatewayURL + "/shippingapi/api/v2/shipping/order"
	if opts != nil && opts.ReturnFile {
		target += "?returnFile=true"
	}
	var out []ShippingOrderResult
	if err := c.do(ctx, request{surface: gateway, method: http.MethodPost, url: target, body: o, idempotent: ptr(false)}, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("client: the shipping API answered no shipment")
	}
	return &out[0], nil
}

// Label fetches a label PDF: a print's Href, or a shipment's or parcel's
// number (its labels in the medium it was made with).
func (c *Client) Label(ctx context.Context, hrefOrNumber string) ([]byte, error) {
	target := hrefOrNumber
	if !strings.Contains(hrefOrNumber, "/") {
		if c.gatewayURL == "" {
			return nil, errors.New("client: no address configured for the gateway API")
		}
		target = c.gatewayURL + "/shippingapi/api/v2/shipping/label/" + url.PathEscape(hrefOrNumber)
	}
	var pdf []byte
	if err := c.do(ctx, request{surface: gateway, method: http.MethodGet, url: target}, &pdf); err != nil {
		return nil, err
	}
	return pdf, nil
}
