package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// OrderStatus is the status of an order or of one of its rows (interface
// §3): Created, then Submitted once the warehouse takes it, then Delivered;
// Cancelled and Error end it early.
type OrderStatus string

// Order statuses. Viewed is the old name of Submitted; as a filter it means
// Submitted.
const (
	OrderCreated   OrderStatus = "Created"
	OrderViewed    OrderStatus = "Viewed"
	OrderSubmitted OrderStatus = "Submitted"
	OrderDelivered OrderStatus = "Delivered"
	OrderError     OrderStatus = "Error"
	OrderCancelled OrderStatus = "Cancelled"
)

// RefSO is the name of the reference that holds the client's own order ID
// (interface §4.3 rule 2, option 1).
const RefSO = "SO"

// OrderRequest is a warehouse sales order to create (interface §2.3).
//
// Give the order a unique ID in one of two ways (interface §4.3 rule 2): set
// ExternalID to your own ID, bare (1005) or as {business ID}-{own ID}, at
// most 20 characters (both name the same order); or leave it
// empty, put the own ID in a reference named SO, and store the ExternalID
// the answer carries. Only with an ExternalID is creation retried after a
// transient failure: the service then knows a repeat for what it is.
type OrderRequest struct {
	ExternalID      string      `json:"externalId,omitempty"`
	References      []Reference `json:"references,omitempty"`
	DeliveryAddress Address     `json:"deliveryAddress"`
	// Vendor and Sender default to the organization's own address.
	Vendor *Address `json:"vendor,omitempty"`
	Sender *Address `json:"sender,omitempty"`
	// ServiceCode is one of the codes of interface §2.3, e.g. "2103" (parcel
	// locker) or "NOUTO" (pick-up from the warehouse; needs an e-mail).
	ServiceCode        string `json:"serviceCode"`
	RoutingServiceCode string `json:"routingServiceCode,omitempty"`
	PickupPointID      string `json:"pickupPointId,omitempty"`
	// OrderDate defaults to the time the order is received; its offset is
	// kept.
	OrderDate   time.Time         `json:"orderDate,omitzero"`
	Rows        []OrderRowRequest `json:"rows"`
	Preferences *OrderPreferences `json:"preferences,omitempty"`
	// Client and Recipient are the buyer and the recipient, kept and
	// answered; the parcel goes to DeliveryAddress.
	Client    *Address `json:"client,omitempty"`
	Recipient *Address `json:"recipient,omitempty"`
	// Currency, TotalPrice and TotalTax are the shop's totals, kept and
	// answered.
	Currency   string   `json:"currency,omitempty"`
	TotalPrice *float64 `json:"totalPrice,omitempty"`
	TotalTax   *float64 `json:"totalTax,omitempty"`
	// AdditionalServices are value-added services such as 3101 (cash on
	// delivery).
	AdditionalServices []AdditionalService `json:"additionalServices,omitempty"`
	// Comments are notes for the warehouse, e.g. type pickingNote.
	Comments []OrderComment   `json:"comments,omitempty"`
	Metadata *RequestMetadata `json:"metadata,omitempty"`
}

// RequestMetadata names the software that sends an order.
type RequestMetadata struct {
	Client string `json:"client,omitempty"`
}

// AdditionalService is a value-added service of an order.
type AdditionalService struct {
	ServiceCode string `json:"serviceCode"`
}

// OrderComment is a note on an order for the warehouse: the shopper's note at
// checkout (type pickingNote) or a shop's note passed through (type
// passThrough). ID is the service's; CreatedDate defaults to the time of
// receipt.
type OrderComment struct {
	ID          string    `json:"id,omitempty"`
	ExternalID  string    `json:"externalId,omitempty"`
	Author      string    `json:"author,omitempty"`
	Value       string    `json:"value"`
	Type        string    `json:"type"`
	CreatedDate time.Time `json:"createdDate,omitzero"`
	Origin      string    `json:"origin,omitempty"`
}

// Reference is one of the client's own references of an order.
type Reference struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// OrderRowRequest is one line of an OrderRequest.
type OrderRowRequest struct {
	// ExternalID is your own row number.
	ExternalID string `json:"externalId,omitempty"`
	// ExternalProductID is the product's own ID, bare or as {business
	// ID}-{own product ID}; the product must be in the warehouse before the
	// first order that uses it. A row may name its product by
	// ProductEANCode alone instead (the provider's Orders V3); given both,
	// they must name the same product (else an *Error with status 400
	// naming rows[N].productEANCode). An order has one row per product.
	ExternalProductID    string `json:"externalProductId,omitempty"`
	ProductUnitOfMeasure string `json:"productUnitOfMeasure,omitempty"`
	ProductDescription   string `json:"productDescription,omitempty"`
	ProductEANCode       string `json:"productEANCode,omitempty"`
	// ExternalWarehouseID names the warehouse, the catalog the stock is
	// published to.
	ExternalWarehouseID string `json:"externalWarehouseId,omitempty"`
	Quantity            int64  `json:"quantity"`
}

// OrderPreferences are the client's handling choices of an order.
type OrderPreferences struct {
	// AutoSubmit false holds the order in Created until it is set true.
	AutoSubmit bool `json:"autoSubmit"`
}

// Order is a warehouse sales order as the service holds it (interface §2.3).
type Order struct {
	// ID is the service's own ID of the order; Order takes it as well as
	// the ExternalID.
	ID                 string         `json:"id"`
	ExternalID         string         `json:"externalId"`
	ClientID           string         `json:"clientId"`
	Metadata           Metadata       `json:"metadata"`
	OrderDate          time.Time      `json:"orderDate"`
	Vendor             *Address       `json:"vendor,omitempty"`
	Sender             *Address       `json:"sender,omitempty"`
	Client             *Address       `json:"client,omitempty"`
	Recipient          *Address       `json:"recipient,omitempty"`
	DeliveryAddress    Address        `json:"deliveryAddress"`
	ServiceCode        string         `json:"serviceCode"`
	RoutingServiceCode string         `json:"routingServiceCode,omitempty"`
	PickupPointID      string         `json:"pickupPointId,omitempty"`
	References         []Reference    `json:"references"`
	Rows               []OrderRow     `json:"rows"`
	Currency           string         `json:"currency,omitempty"`
	TotalPrice         *float64       `json:"totalPrice,omitempty"`
	TotalTax           *float64       `json:"totalTax,omitempty"`
	Comments           []OrderComment `json:"comments"`
	// TotalWholeSalePrice sums each row's quantity times its wholesale
	// price.
	TotalWholeSalePrice float64 `json:"totalWholeSalePrice"`
	// AdditionalServices are the client's value-added services, then
	// those taken from the products (Fragile, Oversized).
	AdditionalServices []AdditionalService `json:"additionalServices"`
	Status             Status              `json:"status"`
	// TrackingCodes and DeliveryOperator are set when the order is
	// Delivered; a delivery may have several parcels.
	TrackingCodes    []string         `json:"trackingCodes,omitempty"`
	DeliveryOperator string           `json:"deliveryOperator,omitempty"`
	Preferences      OrderPreferences `json:"preferences"`
}

// SO returns the value of the order's SO reference, "" when it has none.
func (o *Order) SO() string {
	for _, r := range o.References {
		if strings.EqualFold(r.Name, RefSO) {
			return r.Value
		}
	}
	return ""
}

// Metadata is the order's metadata (interface §2.3). UpdateDate is its
// modification time, which OrderSync polls by.
type Metadata struct {
	InsertDate   time.Time `json:"insertDate"`
	UpdateDate   time.Time `json:"updateDate"`
	DocumentType string    `json:"documentType"`
	// Client names the software that sent the order.
	Client string `json:"client,omitempty"`
}

// Status is a status with the time it was reached, and for Error and
// Cancelled why.
type Status struct {
	Value     OrderStatus `json:"value"`
	Timestamp time.Time   `json:"timestamp"`
	Reason    string      `json:"reason,omitempty"`
}

// OrderRow is one line of an Order.
type OrderRow struct {
	ExternalID           string `json:"externalId,omitempty"`
	ProductUnitOfMeasure string `json:"productUnitOfMeasure,omitempty"`
	ProductDescription   string `json:"productDescription,omitempty"`
	ExternalProductID    string `json:"externalProductId"`
	ProductEANCode       string `json:"productEANCode,omitempty"`
	ExternalWarehouseID  string `json:"externalWarehouseId"`
	// Quantity is a whole number the service writes as a decimal (2.0).
	Quantity float64 `json:"quantity"`
	Status   Status  `json:"status"`
	// WholesalePrice is the unit price of the row's stock when the order
	// was allocated.
	WholesalePrice float64 `json:"wholesalePrice"`
	// TrackingCodes are the row's parcels once Delivered.
	TrackingCodes []string `json:"trackingCodes,omitempty"`
	// SupplierID is the supplier that ships a row of a dropshipping
	// catalog; its Status is the supplier's shipment's.
	SupplierID string `json:"supplierId,omitempty"`
	// DeliveredQuantity is what the row's supplier confirmed sending.
	DeliveredQuantity *float64 `json:"deliveredQuantity,omitempty"`
}

// CreateOrder places a warehouse sales order (PUT /ecommerce/v3/order,
// interface §4.3 rule 1) and returns it with status Created, or Error or
// Cancelled with a reason when its products are unknown in the warehouse or
// the stock does not cover it. Sending an ExternalID again with the same
// content returns the stored order.
func (c *Client) CreateOrder(ctx context.Context, o *OrderRequest) (*Order, error) {
	return c.order(ctx, http.MethodPut, "/ecommerce/v3/order", o, ptr(o.ExternalID != ""))
}

// Order returns one order by the service's ID or by its ExternalID
// (interface §4.3).
func (c *Client) Order(ctx context.Context, id string) (*Order, error) {
	return c.order(ctx, http.MethodGet, "/ecommerce/v3/orders/"+escape(id), nil, nil)
}

// UpdateOrder sends new content for an order that is still Created, which
// replaces it and its allocation; the same content again changes nothing.
func (c *Client) UpdateOrder(ctx context.Context, id string, o *OrderRequest) (*Order, error) {
	return c.order(ctx, http.MethodPut, "/ecommerce/v3/orders/"+escape(id), o, nil)
}

// CancelOrder cancels an order that is not yet Delivered and releases its
// stock.
func (c *Client) CancelOrder(ctx context.Context, id string) (*Order, error) {
	return c.order(ctx, http.MethodDelete, "/ecommerce/v3/orders/"+escape(id), nil, nil)
}

// ReopenOrder sends an order in status Error or Cancelled again: with o,
// with that content; with nil, as it was stored. Its stock is allocated
// afresh. A Delivered order is final (a *Error with status 409).
func (c *Client) ReopenOrder(ctx context.Context, id string, o *OrderRequest) (*Order, error) {
	var body any
	if o != nil {
		body = o
	}
	return c.order(ctx, http.MethodPost, "/ecommerce/v3/orders/"+escape(id), body, nil)
}

// SetOrderPreferences changes an order's preferences; AutoSubmit true
// releases an order held in Created.
func (c *Client) SetOrderPreferences(ctx context.Context, id string, p OrderPreferences) (*Order, error) {
	// Setting a value is idempotent, whatever PATCH says in general.
	return c.order(ctx, http.MethodPatch, "/ecommerce/v3/orders/"+escape(id)+"/preferences", p, ptr(true))
}

// AddOrderComment adds a note for the warehouse to order id and returns it
// as stored. A comment with the ExternalID of one the order has replaces
// it, so sending the same note again is safe.
func (c *Client) AddOrderComment(ctx context.Context, id string, cm OrderComment) (*OrderComment, error) {
	var out OrderComment
	err := c.do(ctx, request{surface: ecom, method: http.MethodPost, path: "/ecommerce/v3/orders/" + escape(id) + "/comments", body: cm, idempotent: ptr(cm.ExternalID != "")}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteOrderComment removes the comment commentID (its ID or your
// ExternalID of it) from order id.
func (c *Client) DeleteOrderComment(ctx context.Context, id, commentID string) error {
	return c.do(ctx, request{surface: ecom, method: http.MethodDelete, path: "/ecommerce/v3/orders/" + escape(id) + "/comments/" + escape(commentID)}, nil)
}

func (c *Client) order(ctx context.Context, method, path string, body any, idempotent *bool) (*Order, error) {
	var out Order
	if err := c.do(ctx, request{surface: ecom, method: method, path: path, body: body, idempotent: idempotent}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OrderQuery selects orders (interface §4.3). Zero fields select everything.
type OrderQuery struct {
	// UpdatedFrom keeps the orders changed strictly after it; UpdatedTo
	// those changed at or before it.
	UpdatedFrom time.Time
	UpdatedTo   time.Time
	// RefName and RefValue find orders by an own reference; RefName
	// defaults to SO.
	RefName  string
	RefValue string
	// OrderedFrom and OrderedTo keep the orders whose orderDate is in
	// [OrderedFrom, OrderedTo): from inclusive, to exclusive (the
	// provider's from and to).
	OrderedFrom time.Time
	OrderedTo   time.Time
	// DocumentType keeps one kind of order: DocumentSalesOrder or
	// DocumentPurchaseOrder (parcelgate holds sales orders only, so the
	// latter selects none).
	DocumentType string
	// Statuses keeps the orders in any of them, OrderPartiallyDelivered
	// included.
	Statuses            []OrderStatus
	WarehouseExternalID string
	Paging
}

// Document types of an order (OrderQuery.DocumentType, Metadata).
const (
	DocumentSalesOrder    = "SalesOrder"
	DocumentPurchaseOrder = "PurchaseOrder"
)

func (q *OrderQuery) values() url.Values {
	v := url.Values{}
	if q == nil {
		return v
	}
	if !q.UpdatedFrom.IsZero() {
		v.Set("updatedFrom", formatTime(q.UpdatedFrom))
	}
	if !q.UpdatedTo.IsZero() {
		v.Set("updatedTo", formatTime(q.UpdatedTo))
	}
	if !q.OrderedFrom.IsZero() {
		v.Set("from", formatTime(q.OrderedFrom))
	}
	if !q.OrderedTo.IsZero() {
		v.Set("to", formatTime(q.OrderedTo))
	}
	if q.DocumentType != "" {
		v.Set("documentType", q.DocumentType)
	}
	if q.RefValue != "" {
		v.Set("refName", q.RefName)
		if q.RefName == "" {
			v.Set("refName", RefSO)
		}
		v.Set("refValue", q.RefValue)
	}
	if len(q.Statuses) > 0 {
		s := make([]string, len(q.Statuses))
		for i, st := range q.Statuses {
			s[i] = string(st)
		}
		v.Set("status", strings.Join(s, ","))
	}
	if q.WarehouseExternalID != "" {
		v.Set("warehouseExternalId", q.WarehouseExternalID)
	}
	q.Paging.set(v)
	return v
}

func ordersRequest(q *OrderQuery) request {
	return request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/orders", query: q.values()}
}

// OrdersPage returns one page of the orders q selects, sorted by
// modification time (interface §4.3 rule 3).
func (c *Client) OrdersPage(ctx context.Context, q *OrderQuery) (*Page[Order], error) {
	return getPage[Order](ctx, c, ordersRequest(q))
}

// Orders returns an iterator over every order q selects, from q's page on.
func (c *Client) Orders(ctx context.Context, q *OrderQuery) iter.Seq2[Order, error] {
	return all[Order](ctx, c, ordersRequest(q))
}

// OrderSync returns a Sync over the orders q selects that changed after
// cursor: poll it to follow the orders' progress (interface §6). q's UpdatedFrom
// and page are the Sync's to set.
func (c *Client) OrderSync(q *OrderQuery, cursor time.Time) *Sync[Order] {
	return pollSync(q, cursor,
		func(q *OrderQuery, after time.Time) { q.UpdatedFrom, q.Page = after, 0 },
		c.Orders,
		func(o Order) time.Time { return o.Metadata.UpdateDate })
}
