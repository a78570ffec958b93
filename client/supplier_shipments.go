package client

import (
	"context"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Dropshipping (the Shipments API v3): a retailer's order from its
// suppliers' dropshipping catalogs is split into one SupplierShipment per
// supplier. A supplier's service account (role supplier) polls its
// shipments, moves them through the statuses and confirms what it sent;
// what it writes shows on the retailer's order and its rows.

// SupplyStatus is the status of a supplier shipment, case-sensitive.
// Delivered, Cancelled and Error are final.
type SupplyStatus string

// Supplier shipment statuses.
const (
	SupplyCreated   SupplyStatus = "Created"
	SupplySubmitted SupplyStatus = "Submitted"
	SupplyViewed    SupplyStatus = "Viewed"
	SupplyPicking   SupplyStatus = "Picking"
	SupplyPacking   SupplyStatus = "Packing"
	SupplyShipping  SupplyStatus = "Shipping"
	SupplyDelivered SupplyStatus = "Delivered"
	SupplyCancelled SupplyStatus = "Cancelled"
	SupplyError     SupplyStatus = "Error"
)

// OrderPartiallyDelivered is the status of a retailer's order, or of one
// of its rows, whose suppliers differ or fall short.
const OrderPartiallyDelivered OrderStatus = "Partially delivered"

// SupplierShipment is one supplier's part of a retailer's order.
type SupplierShipment struct {
	ShipmentID string `json:"shipmentId"`
	// ExternalID is the supplier's own reference, once it gave one.
	ExternalID string `json:"externalId,omitempty"`
	// ClientID is the supplier's business ID.
	ClientID string `json:"clientId"`
	Metadata struct {
		// SourceOrganization is the retailer's business ID.
		SourceOrganization string    `json:"sourceOrganization"`
		InsertDate         time.Time `json:"insertDate"`
		// UpdateDate is the modification time ShipmentSync polls by.
		UpdateDate   time.Time `json:"updateDate"`
		DocumentType string    `json:"documentType"`
	} `json:"metadata"`
	// References are PO (the order's externalId) and SO (the retailer's
	// own order reference).
	References  []Reference `json:"references"`
	CreatedDate time.Time   `json:"createdDate"`
	Status      struct {
		Value     SupplyStatus `json:"value"`
		Timestamp time.Time    `json:"timestamp"`
	} `json:"status"`
	Consignment Consignment `json:"consignment"`
	// Events are what its supplier reported about it (AddShipmentEvent),
	// oldest first.
	Events []ShipmentEvent `json:"events,omitempty"`
}

// ShipmentEvent is something a supplier reported about its shipment
// beside its status (a hand-over to the carrier, a delay). The shape is
// parcelgate's own: the provider documents the route, not its body.
type ShipmentEvent struct {
	// ID is the platform's: the event's number in its shipment.
	ID string `json:"id,omitempty"`
	// ExternalID is your own ID of the event: sending it again is a
	// retry, answered unchanged.
	ExternalID string `json:"externalId,omitempty"`
	// Code names what happened: 1-50 letters, digits, '_' or '-'.
	Code        string `json:"code"`
	Description string `json:"description,omitempty"`
	// ParcelID names the parcel the event is about; empty: the shipment.
	ParcelID string `json:"parcelId,omitempty"`
	Location string `json:"location,omitempty"`
	// Timestamp is when it happened (zero: when received).
	Timestamp   time.Time `json:"timestamp,omitzero"`
	CreatedDate time.Time `json:"createdDate,omitzero"`
}

// ShipmentOptions are the delivery methods a shipment's parcels may take
// (parcelgate's own shape: the provider documents the route, not its
// answer).
type ShipmentOptions struct {
	ShipmentID      string `json:"shipmentId"`
	DeliveryCountry string `json:"deliveryCountry"`
	// Open: the shipment is in progress; a final one has no options.
	Open    bool `json:"open"`
	Options []struct {
		ServiceCode        string            `json:"serviceCode"`
		DeliveryOperator   string            `json:"deliveryOperator"`
		Name               map[string]string `json:"name"`
		PickupPoint        bool              `json:"pickupPoint"`
		AdditionalServices []string          `json:"additionalServices"`
		// Parcels are the shipment's parcels that have this method now.
		Parcels []string `json:"parcels"`
	} `json:"options"`
}

// Consignment is what a shipment ships: the order's parties, rows and
// parcels.
type Consignment struct {
	Reference        string           `json:"reference"`
	ContractNumber   string           `json:"contractNumber,omitempty"`
	OrderDate        time.Time        `json:"orderDate"`
	Vendor           *Address         `json:"vendor,omitempty"`
	Sender           *Address         `json:"sender,omitempty"`
	Client           *Address         `json:"client,omitempty"`
	DeliveryAddress  Address          `json:"deliveryAddress"`
	DeliveryOperator string           `json:"deliveryOperator"`
	Rows             []ShipmentRow    `json:"rows"`
	Parcels          []ShipmentParcel `json:"parcels"`
}

// ShipmentRow is one row of a shipment; ItemID is your product ID.
type ShipmentRow struct {
	ItemID              string  `json:"itemId"`
	ProductEANCode      string  `json:"productEANCode,omitempty"`
	ExternalWarehouseID string  `json:"externalWarehouseId"`
	Quantity            float64 `json:"quantity"`
	ProductDescription  string  `json:"productDescription,omitempty"`
	// DeliveredQuantity is what was confirmed sent, once the shipment
	// ended.
	DeliveredQuantity *float64 `json:"deliveredQuantity,omitempty"`
}

// ShipmentParcel is one parcel of a shipment.
type ShipmentParcel struct {
	ParcelID           string              `json:"parcelId"`
	PackageType        string              `json:"packageType,omitempty"`
	ServiceCode        string              `json:"serviceCode,omitempty"`
	DeliveryOperator   string              `json:"deliveryOperator,omitempty"`
	AdditionalServices []AdditionalService `json:"additionalServices,omitempty"`
	PickupPointID      string              `json:"pickupPointId,omitempty"`
	RoutingServiceCode string              `json:"routingServiceCode,omitempty"`
	// TrackingCodes are your own, or those the platform made on
	// confirmation (then it also has a label).
	TrackingCodes []string    `json:"trackingCodes,omitempty"`
	Ready         bool        `json:"ready,omitempty"`
	Rows          []ParcelRow `json:"rows,omitempty"`
	// LabelURL and DeliveryNoteURL link the parcel's address label (only
	// when the platform made its tracking codes) and its delivery note,
	// PDFs your token opens (ParcelLabel, ParcelNote). The member names
	// are parcelgate's own: the provider publishes none. Answers only.
	LabelURL        string `json:"labelUrl,omitempty"`
	DeliveryNoteURL string `json:"deliveryNoteUrl,omitempty"`
}

// ParcelRow is a row's share of one parcel: Quantity is the row's ordered
// quantity, DeliveredQuantity this parcel's share.
type ParcelRow struct {
	ExternalWarehouseID string   `json:"externalWarehouseId,omitempty"`
	ItemID              string   `json:"itemId"`
	Quantity            float64  `json:"quantity,omitempty"`
	DeliveredQuantity   *float64 `json:"deliveredQuantity,omitempty"`
}

// Delivered is a DeliveredQuantity.
func Delivered(n float64) *float64 { return &n }

// ShipmentQuery selects the caller's shipments. Zero fields select
// everything.
type ShipmentQuery struct {
	// From keeps the shipments changed strictly after it.
	From     time.Time
	Statuses []SupplyStatus
	Paging
}

func (q *ShipmentQuery) values() url.Values {
	v := url.Values{}
	if q == nil {
		return v
	}
	if !q.From.IsZero() {
		v.Set("from", formatTime(q.From))
	}
	if len(q.Statuses) > 0 {
		s := make([]string, len(q.Statuses))
		for i, st := range q.Statuses {
			s[i] = string(st)
		}
		v.Set("status", strings.Join(s, ","))
	}
	q.Paging.set(v)
	return v
}

func shipmentsRequest(q *ShipmentQuery) request {
	return request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/shipments", query: q.values()}
}

// SupplierShipmentsPage returns one page of the caller's shipments q
// selects, oldest change first.
func (c *Client) SupplierShipmentsPage(ctx context.Context, q *ShipmentQuery) (*Page[SupplierShipment], error) {
	return getPage[SupplierShipment](ctx, c, shipmentsRequest(q))
}

// SupplierShipments returns an iterator over every shipment q selects.
func (c *Client) SupplierShipments(ctx context.Context, q *ShipmentQuery) iter.Seq2[SupplierShipment, error] {
	return all[SupplierShipment](ctx, c, shipmentsRequest(q))
}

// ShipmentSync returns a Sync over the shipments q selects that changed
// after cursor: poll it for new shipments and the retailers'
// cancellations. q's From and page are the Sync's to set.
func (c *Client) ShipmentSync(q *ShipmentQuery, cursor time.Time) *Sync[SupplierShipment] {
	return pollSync(q, cursor,
		func(q *ShipmentQuery, after time.Time) { q.From, q.Page = after, 0 },
		c.SupplierShipments,
		func(s SupplierShipment) time.Time { return s.Metadata.UpdateDate })
}

// SupplierShipment returns one of the caller's shipments.
func (c *Client) SupplierShipment(ctx context.Context, id string) (*SupplierShipment, error) {
	return c.shipment(ctx, http.MethodGet, "/ecommerce/v3/shipments/"+escape(id), nil)
}

// SetShipmentStatus moves a shipment: Viewed, Picking, Packing, Shipping
// (forward only), Delivered (every row in full), Cancelled or Error. The
// status it has already is answered unchanged, so a retry is safe.
func (c *Client) SetShipmentStatus(ctx context.Context, id string, st SupplyStatus) (*SupplierShipment, error) {
	body := map[string]any{"status": map[string]any{"value": st}}
	return c.shipment(ctx, http.MethodPatch, "/ecommerce/v3/shipments/"+escape(id), body)
}

// ConfirmShipment confirms what was sent: Delivered, with each named
// parcel's rows and their DeliveredQuantity (0 for a row not sent), and
// the parcel's own TrackingCodes when you have them (else the platform
// makes one). Add parcels with SplitShipment first.
func (c *Client) ConfirmShipment(ctx context.Context, id string, parcels []ShipmentParcel) (*SupplierShipment, error) {
	body := map[string]any{"status": map[string]any{"value": SupplyDelivered}, "consignment": map[string]any{"parcels": parcels}}
	return c.shipment(ctx, http.MethodPatch, "/ecommerce/v3/shipments/"+escape(id), body)
}

// SplitShipment replaces a shipment's parcels with parcels, each with its
// share of each row as DeliveredQuantity: a parcel the shipment has may
// leave out what it has (PackageType, ServiceCode, PickupPointID,
// RoutingServiceCode); a parcel added needs a unique ParcelID, a
// PackageType, a ServiceCode, a RoutingServiceCode and, for a pick-up
// service, a PickupPointID. The status stays.
func (c *Client) SplitShipment(ctx context.Context, id string, parcels []ShipmentParcel) (*SupplierShipment, error) {
	body := map[string]any{"consignment": map[string]any{"parcels": parcels}}
	return c.shipment(ctx, http.MethodPut, "/ecommerce/v3/shipments/"+escape(id), body)
}

// SplitAndConfirmShipment splits a shipment into parcels (as
// SplitShipment) and confirms them in the same call, as the provider's
// split example does: each parcel's DeliveredQuantity is what it carries
// (0 for a row not sent), and each parcel that carries something gets its
// own TrackingCodes or one the platform makes, with a label.
func (c *Client) SplitAndConfirmShipment(ctx context.Context, id string, parcels []ShipmentParcel) (*SupplierShipment, error) {
	body := map[string]any{"status": map[string]any{"value": SupplyDelivered}, "consignment": map[string]any{"parcels": parcels}}
	return c.shipment(ctx, http.MethodPut, "/ecommerce/v3/shipments/"+escape(id), body)
}

// FastConfirmShipment confirms every row in full, with platform tracking
// codes (POST …/delivered); a Delivered shipment is answered unchanged.
func (c *Client) FastConfirmShipment(ctx context.Context, id string) (*SupplierShipment, error) {
	var out SupplierShipment
	err := c.do(ctx, request{surface: ecom, method: http.MethodPost, path: "/ecommerce/v3/shipments/" + escape(id) + "/delivered", idempotent: ptr(true)}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// AddShipmentEvent reports an event of one of your shipments (Code
// required) and returns the shipment with its events. An event with an
// ExternalID you sent before is a retry, answered unchanged.
func (c *Client) AddShipmentEvent(ctx context.Context, id string, e ShipmentEvent) (*SupplierShipment, error) {
	var out SupplierShipment
	idem := e.ExternalID != ""
	if err := c.do(ctx, request{surface: ecom, method: http.MethodPost, path: "/ecommerce/v3/shipments/" + escape(id) + "/events", body: e, idempotent: &idem}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ShipmentOptionsOf returns the delivery methods one of your shipments'
// parcels may take, for a confirmation or a split.
func (c *Client) ShipmentOptionsOf(ctx context.Context, id string) (*ShipmentOptions, error) {
	var out ShipmentOptions
	if err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/shipments/" + escape(id) + "/options"}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OrderShipments returns the suppliers' shipments of one of the caller's
// orders (a retailer's view of its suppliers' progress).
func (c *Client) OrderShipments(ctx context.Context, orderID string) ([]SupplierShipment, error) {
	var out struct {
		Content []SupplierShipment `json:"content"`
	}
	if err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/orders/" + escape(orderID) + "/shipments"}, &out); err != nil {
		return nil, err
	}
	return out.Content, nil
}

// ParcelLabel writes the PDF address label of a parcel whose tracking
// codes the platform made to w; media is a print medium (laser-a5 when
// empty).
func (c *Client) ParcelLabel(ctx context.Context, id, parcelID, media string, w io.Writer) error {
	q := url.Values{}
	if media != "" {
		q.Set("media", media)
	}
	return c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/shipments/" + escape(id) + "/parcels/" + escape(parcelID) + "/label", query: q}, w)
}

// ParcelNote writes the PDF delivery note of a parcel to w.
func (c *Client) ParcelNote(ctx context.Context, id, parcelID string, w io.Writer) error {
	return c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/shipments/" + escape(id) + "/parcels/" + escape(parcelID) + "/note"}, w)
}

func (c *Client) shipment(ctx context.Context, method, path string, body any) (*SupplierShipment, error) {
	var out SupplierShipment
	// A status move and a split state the result, so repeating one is
	// safe.
	if err := c.do(ctx, request{surface: ecom, method: method, path: path, body: body, idempotent: ptr(true)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
