package parcelgate

import (
	"context"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OrderStatus is the status of a warehouse sales order (interface §3).
type OrderStatus string

const (
	// OrderCreated: received, not yet transferred to the warehouse.
	OrderCreated OrderStatus = "Created"
	// OrderViewed is the status the provider replaced by Submitted in 2022.
	// parcelgate never produces it; as a query filter it means Submitted.
	OrderViewed OrderStatus = "Viewed"
	// OrderSubmitted: transferred to the warehouse.
	OrderSubmitted OrderStatus = "Submitted"
	// OrderDelivered: picked and packed; tracking codes are available.
	OrderDelivered OrderStatus = "Delivered"
	// OrderError: the order cannot be handled, e.g. a product unknown in
	// its warehouse.
	OrderError OrderStatus = "Error"
	// OrderCancelled: cancelled by the client or the warehouse, or stored
	// so because the stock did not cover it.
	OrderCancelled OrderStatus = "Cancelled"
)

// OrderStatuses lists the statuses an order can have, in the order of a
// normal life. "Partially delivered" is the status of an order whose rows
// are shipped by several parties (its suppliers, its warehouse) while some
// are delivered and others not (decisions §34, §38): set by parcelgate,
// read and filtered by clients, never asked for.
var OrderStatuses = []OrderStatus{OrderCreated, OrderSubmitted, OrderPartiallyDelivered, OrderDelivered, OrderError, OrderCancelled}

// ParseOrderStatus reads a status name case-insensitively; Viewed reads as
// Submitted (interface §3: Submitted replaced Viewed).
func ParseOrderStatus(s string) (OrderStatus, bool) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, string(OrderViewed)) {
		return OrderSubmitted, true
	}
	for _, st := range OrderStatuses {
		if strings.EqualFold(s, string(st)) {
			return st, true
		}
	}
	return "", false
}

// DeliveryOperator is the carrier named on delivered orders: the
// provider's own network, which the shipment data registered at delivery
// belongs to. Real clients link tracking codes by this name (the
// provider's warehouse plugin knows Posti, PostNord, Matkahuolto and DB
// Schenker), so it is the provider's carrier name they know. Delivery
// services name it as their provider too (the plugin sends additional
// service 3376 only for services whose provider is this).
const DeliveryOperator = "Posti"

// Value-added services taken from product flags (interface §2.3).
const (
	ServiceFragile   = "Fragile"
	ServiceOversized = "Oversized"
)

// ServiceNouto is the service code of pick-up from the warehouse; its
// delivery address must carry an e-mail (interface §2.3).
const ServiceNouto = "NOUTO"

// Limits of an order request. They bound the work one request can cause;
// no real order comes near them.
const (
	MaxOrderIDLength   = 20 // interface §2.3, interface §8
	MaxOrderRows       = 500
	MaxOrderReferences = 20
	MaxRowQuantity     = 1_000_000
)

// Quantity is an order row's quantity: an integer on input, written as a
// decimal number (2.0) as interface §2.3 says it is returned.
type Quantity int64

func (q Quantity) MarshalJSON() ([]byte, error) {
	return append(strconv.AppendInt(nil, int64(q), 10), ".0"...), nil
}

// UnmarshalJSON reads 2 or 2.0, so a client may send an order back as it
// was answered.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || f != float64(int64(f)) {
		return Errorf(EINVALID, "quantity must be a whole number")
	}
	*q = Quantity(f)
	return nil
}

// OrderReference is an own reference of the client; the name SO holds its
// own order ID (interface §2.3, interface §4.3 rule 2).
type OrderReference struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RefSO is the reference name of the client's own order ID.
const RefSO = "SO"

// OrderState is a status with the time it was reached, and why, for Error
// and Cancelled.
type OrderState struct {
	Value     OrderStatus `json:"value"`
	Timestamp time.Time   `json:"timestamp"`
	Reason    string      `json:"reason,omitempty"`
}

// OrderMetadata is the metadata object of interface §2.3. UpdateDate is the
// order's modification stamp: passed back as updatedFrom it returns exactly
// the later changes (decisions §7).
type OrderMetadata struct {
	InsertDate   time.Time `json:"insertDate"`
	UpdateDate   time.Time `json:"updateDate"`
	DocumentType string    `json:"documentType"`
	// Client names the software that sent the order (the warehouse plugin
	// sends its user agent), as the client gave it.
	Client string `json:"client,omitempty"`
}

// AdditionalService is a value-added service of an order, in the object
// shape real clients send ({"serviceCode":"3101"}, cash on delivery) and
// read. The services taken from products (Fragile, Oversized) share it.
type AdditionalService struct {
	ServiceCode string `json:"serviceCode"`
}

// OrderComment is a note on an order for the warehouse: the shopper's
// note at checkout (type pickingNote) or a shop's note passed through
// (type passThrough). ID is the service's; DELETE takes it or ExternalID.
type OrderComment struct {
	ID          string    `json:"id"`
	ExternalID  string    `json:"externalId,omitempty"`
	Author      string    `json:"author,omitempty"`
	Value       string    `json:"value"`
	Type        string    `json:"type"`
	CreatedDate time.Time `json:"createdDate"`
	Origin      string    `json:"origin,omitempty"`
}

// OrderPreferences are the client's handling choices.
type OrderPreferences struct {
	// AutoSubmit false holds the order in Created until it is set true.
	AutoSubmit bool `json:"autoSubmit"`
}

// OrderRow is one line of an order.
type OrderRow struct {
	// ExternalID is the client's own row number (the warehouse plugin
	// numbers its rows 1, 2, ...).
	ExternalID           string     `json:"externalId,omitempty"`
	ExternalProductID    string     `json:"externalProductId"`
	ProductUnitOfMeasure string     `json:"productUnitOfMeasure,omitempty"`
	ProductDescription   string     `json:"productDescription,omitempty"`
	ProductEANCode       string     `json:"productEANCode,omitempty"`
	ExternalWarehouseID  string     `json:"externalWarehouseId"`
	Quantity             Quantity   `json:"quantity"`
	Status               OrderState `json:"status"`
	// WholesalePrice is the unit price of the row's balance when the order
	// was allocated; totalWholeSalePrice sums quantity times it.
	WholesalePrice float64 `json:"wholesalePrice"`
	// TrackingCodes are the parcel codes of the row once Delivered.
	TrackingCodes []string `json:"trackingCodes,omitempty"`
	// SupplierID is the business ID of the supplier that ships the row
	// from a dropshipping catalog (decisions §34); empty for a row of the
	// retailer's own warehouse.
	SupplierID string `json:"supplierId,omitempty"`
	// DeliveredQuantity is what the row's supplier confirmed sending, once
	// its shipment ended (decisions §34).
	DeliveredQuantity *Quantity `json:"deliveredQuantity,omitempty"`
}

// Dropship reports whether some of the order's rows were split among
// suppliers (decisions §34): its status then follows their shipments (and,
// when it also has warehouse rows, its warehouse part: decisions §38).
// Which rows a supplier ships is decided once, by DropshipRows, and
// carried on each row as its SupplierID from the allocation on.
func (o *Order) Dropship() bool {
	return slices.ContainsFunc(o.Rows, func(r OrderRow) bool { return r.SupplierID != "" })
}

// WarehouseStatus is the status the warehouse's hand (the engine, the
// operator) moves: for an order that mixes warehouse and supplier rows,
// its warehouse part's, which its warehouse rows show (decisions §38);
// for any other order, the order's own.
func (o *Order) WarehouseStatus() OrderStatus {
	if o.MixedSupply() {
		for _, r := range o.Rows {
			if r.SupplierID == "" {
				return r.Status.Value
			}
		}
	}
	return o.Status.Value
}

// MixedSupply reports whether the order has rows its suppliers ship and
// rows its warehouse ships (decisions §38): each part follows its own
// engine, and the order's status derives from its rows.
func (o *Order) MixedSupply() bool {
	return o.Dropship() && slices.ContainsFunc(o.Rows, func(r OrderRow) bool { return r.SupplierID == "" })
}

// Order is a warehouse sales order (interface §2.3) as the service answers it.
type Order struct {
	// ID is the order ID generated by the service (interface §4.3): GET
	// /orders/{id} takes it as well as the externalId.
	ID         string        `json:"id"`
	ExternalID string        `json:"externalId"`
	ClientID   string        `json:"clientId"`
	Metadata   OrderMetadata `json:"metadata"`
	OrderDate  time.Time     `json:"orderDate"`
	Vendor     *Address      `json:"vendor,omitempty"`
	Sender     *Address      `json:"sender,omitempty"`
	// Client and Recipient are the buyer and the recipient as the client
	// sent them; they are kept and answered, the parcel goes to
	// DeliveryAddress.
	Client          *Address `json:"client,omitempty"`
	Recipient       *Address `json:"recipient,omitempty"`
	DeliveryAddress Address  `json:"deliveryAddress"`
	ServiceCode     string   `json:"serviceCode"`
	// RoutingServiceCode is a routing code the provider\'s PHP library may
	// send beside serviceCode; kept and answered.
	RoutingServiceCode  string           `json:"routingServiceCode,omitempty"`
	PickupPointID       string           `json:"pickupPointId,omitempty"`
	References          []OrderReference `json:"references"`
	Rows                []OrderRow       `json:"rows"`
	Currency            string           `json:"currency,omitempty"`
	TotalPrice          *Decimal         `json:"totalPrice,omitempty"`
	TotalTax            *Decimal         `json:"totalTax,omitempty"`
	TotalWholeSalePrice float64          `json:"totalWholeSalePrice"`
	// AdditionalServices are the client's services followed by those the
	// products bring (interface §2.3).
	AdditionalServices []AdditionalService `json:"additionalServices"`
	// RequestedServices are the client's own services, kept to send the
	// order again as it was; the store keeps them beside the document.
	RequestedServices []AdditionalService `json:"-"`
	Comments          []OrderComment      `json:"comments"`
	Status            OrderState          `json:"status"`
	TrackingCodes     []string            `json:"trackingCodes,omitempty"`
	DeliveryOperator  string              `json:"deliveryOperator,omitempty"`
	Preferences       OrderPreferences    `json:"preferences"`
}

// SORef returns the value of the order's SO reference, "" when it has none.
func (o *Order) SORef() string { return soRef(o.References) }

func soRef(refs []OrderReference) string {
	for _, r := range refs {
		if strings.EqualFold(r.Name, RefSO) {
			return r.Value
		}
	}
	return ""
}

// OrderRowRequest is one row of a create request.
type OrderRowRequest struct {
	ExternalID           string `json:"externalId,omitempty"`
	ProductUnitOfMeasure string `json:"productUnitOfMeasure,omitempty"`
	ProductDescription   string `json:"productDescription,omitempty"`
	ExternalProductID    string `json:"externalProductId"`
	ProductEANCode       string `json:"productEANCode,omitempty"`
	ExternalWarehouseID  string `json:"externalWarehouseId,omitempty"`
	Quantity             int64  `json:"quantity"`
}

// OrderRequest is the content of a create (or re-send) request, read by
// the API layer and checked by Validate. Two requests with equal content
// are the same order (decisions §7), so its JSON form, without ExternalID, is
// what a re-send is compared by.
type OrderRequest struct {
	ExternalID         string            `json:"-"`
	References         []OrderReference  `json:"references,omitempty"`
	DeliveryAddress    Address           `json:"deliveryAddress"`
	Vendor             *Address          `json:"vendor,omitempty"`
	Sender             *Address          `json:"sender,omitempty"`
	Client             *Address          `json:"client,omitempty"`
	Recipient          *Address          `json:"recipient,omitempty"`
	ServiceCode        string            `json:"serviceCode"`
	RoutingServiceCode string            `json:"routingServiceCode,omitempty"`
	PickupPointID      string            `json:"pickupPointId,omitempty"`
	OrderDate          time.Time         `json:"orderDate,omitzero"` // zero: the time of receipt
	Rows               []OrderRowRequest `json:"rows"`
	AutoSubmit         bool              `json:"autoSubmit"` // preferences.autoSubmit, default true
	// AdditionalServices are the client's value-added services (e.g. 3101,
	// cash on delivery).
	AdditionalServices []AdditionalService `json:"additionalServices,omitempty"`
	// Comments are notes for the warehouse sent with the order; their ID
	// and, when absent, createdDate are given when the order is stored.
	Comments   []OrderComment `json:"comments,omitempty"`
	Currency   string         `json:"currency,omitempty"`
	TotalPrice *Decimal       `json:"totalPrice,omitempty"`
	TotalTax   *Decimal       `json:"totalTax,omitempty"`
	// ClientSoftware is metadata.client.
	ClientSoftware string `json:"clientSoftware,omitempty"`
}

// SORef returns the value of the request's SO reference, "" when none.
func (r *OrderRequest) SORef() string { return soRef(r.References) }

// OrderQuery filters an order listing (interface §4.3). Zero fields do not
// filter.
type OrderQuery struct {
	// UpdatedFrom: changed strictly after this instant (updatedFrom,
	// modifiedFromDate).
	UpdatedFrom time.Time
	// UpdatedTo: changed at or before this instant.
	UpdatedTo time.Time
	// RefName and RefValue: orders carrying this reference; the name is
	// compared case-insensitively, the value exactly.
	RefName, RefValue string
	// Warehouse: orders with at least one row in this warehouse.
	Warehouse string
	// Statuses: orders in any of these (OrderFilterStatuses).
	Statuses []OrderStatus
	// OrderedFrom and OrderedTo select by orderDate (the provider's from
	// and to): at or after OrderedFrom, strictly before OrderedTo
	// (decisions §37).
	OrderedFrom, OrderedTo time.Time
	// DocumentType: DocumentSalesOrder (every order) or
	// DocumentPurchaseOrder (none: parcelgate holds sales orders only);
	// "" does not filter.
	DocumentType string

	// The console's view of the list (decisions §47); the API's routes
	// never set them.
	//
	// Reference: orders whose externalId, service order ID or the value
	// of any of whose references is it, exactly.
	Reference string
	// ChangedSince: changed at or after this instant. A view's bound,
	// not a change poll's: it is not held to the poll window as
	// UpdatedFrom is (decisions §22).
	ChangedSince time.Time
	// NewestFirst lists the most recently changed orders first, paged by
	// key both ways: Next is the cursor of the older orders, Prev of the
	// newer ones, and Total is not counted (the console's list).
	NewestFirst bool
}

// OrderEncoding is how a front end encodes an order as its answer. A
// store that keeps encoded answers, to write them out again while the
// stored order is unchanged, keys them by Name: two encodings never share
// bytes, so each must have a Name of its own.
type OrderEncoding struct {
	Name   string
	Encode func(*Order) ([]byte, error)
}

// OrderService keeps warehouse sales orders. Every call is scoped to the
// caller's organization and environment: another tenant's order answers
// ENOTFOUND exactly like a missing one. id is the service's order ID or
// the externalId. Every method asks Caller.May itself first (interface
// §5.2: the merchant's and the retailer's actions; the operator's moves),
// so a caller without the right is EFORBIDDEN whichever front end it came
// through, and nothing is read or written for it. The warehouse engine's
// DueOrders and AdvanceOrder (fulfillment.Store) are no part of it: they
// are the server's own machinery and take no caller.
type OrderService interface {
	// CreateOrder places an order (interface §4.3 rule 1), allocating its stock,
	// or answers a re-send of an existing one (decisions §7): same content →
	// the stored order; different content while Created → replaced and
	// re-allocated atomically; otherwise ECONFLICT. Only a caller that may
	// ActionPlaceOrders. req is checked first (OrderRequest.Validate for
	// the caller's business ID), and normalized as Validate does: an
	// invalid one is EINVALID with every problem at its path.
	CreateOrder(ctx context.Context, c *Caller, req *OrderRequest) (*Order, error)
	// FindOrder returns one order. Only a caller that may
	// ActionReadOrders.
	FindOrder(ctx context.Context, c *Caller, id string) (*Order, error)
	// ListOrders returns one page of the caller's orders matching q,
	// ordered by modification stamp, then by a key that never changes
	// (newest first when q.NewestFirst). Only a caller that may
	// ActionReadOrders.
	ListOrders(ctx context.Context, c *Caller, q OrderQuery, p PageRequest) (Page[*Order], error)
	// UpdateOrder re-sends the content of the existing order id;
	// the rules of CreateOrder apply. Only a caller that may
	// ActionPlaceOrders.
	UpdateOrder(ctx context.Context, c *Caller, id string, req *OrderRequest) (*Order, error)
	// CancelOrder cancels an order that is Created or Submitted and
	// returns its stock. Cancelling a Cancelled order answers it as it is;
	// Delivered and Error orders are ECONFLICT. Only a caller that may
	// ActionPlaceOrders.
	CancelOrder(ctx context.Context, c *Caller, id string) (*Order, error)
	// ReopenOrder sends an order in Error again: with req, its new content
	// (checked as CreateOrder checks it); without, its stored content. It is allocated afresh and may end
	// Created, Error or Cancelled, as a new order would. Other statuses
	// are ECONFLICT. Only a caller that may ActionPlaceOrders.
	ReopenOrder(ctx context.Context, c *Caller, id string, req *OrderRequest) (*Order, error)
	// AddOrderComment adds a comment to the caller's order id, of any
	// status: the warehouse reads it. A comment whose externalId the order
	// already has replaces that one, keeping its ID. It answers the comment
	// as stored and whether it is new. The order's updateDate moves, so
	// change polls see it. Only a caller that may ActionPlaceOrders.
	AddOrderComment(ctx context.Context, c *Caller, id string, comment OrderComment) (*OrderComment, bool, error)
	// DeleteOrderComment removes the comment commentID (its ID or its
	// externalId) of the caller's order id; ENOTFOUND when it has none.
	// Only a caller that may ActionPlaceOrders.
	DeleteOrderComment(ctx context.Context, c *Caller, id, commentID string) error
	// SetOrderPreferences changes preferences.autoSubmit of an order that
	// is Created; on another status only a no-op is allowed (ECONFLICT).
	// Only a caller that may ActionPlaceOrders.
	SetOrderPreferences(ctx context.Context, c *Caller, id string, p OrderPreferences) (*Order, error)
	// SetOrderStatus moves c's order id as the warehouse does (the
	// operator API of --fulfillment manual): only the moves of CanMove;
	// reason is kept for Error and Cancelled. Moving to the status an
	// order already has answers it unchanged; any other refused move is
	// ECONFLICT. Only the operator acts (ActionOperate): c is an
	// OperatorCaller of the order's organization.
	SetOrderStatus(ctx context.Context, c *Caller, id string, to OrderStatus, reason string) (*Order, error)
	// OrderHistory returns the statuses c's order id (its ID or
	// externalId) reached, oldest first, with who moved it: the audit
	// trail of the warehouse's moves. Whoever may read orders may ask
	// (ActionReadOrders).
	OrderHistory(ctx context.Context, c *Caller, id string) ([]OrderEvent, error)
}

// Decimal is an amount kept as the decimal text the client sent (24.90
// stays 24.90) and written as a JSON number.
type Decimal string

func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(d), nil }

func (d *Decimal) UnmarshalJSON(b []byte) error {
	if _, ok := ParseDecimal(string(b)); !ok {
		return Errorf(EINVALID, "%s is not a decimal number", b)
	}
	*d = Decimal(b)
	return nil
}

// ParseDecimal reads an amount: a plain decimal number of at most 30
// characters whose magnitude is below 10^12, in JSON number syntax.
func ParseDecimal(s string) (Decimal, bool) {
	if len(s) == 0 || len(s) > 30 || !decimalPattern.MatchString(s) {
		return "", false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || new(big.Rat).Abs(r).Cmp(big.NewRat(1e12, 1)) >= 0 {
		return "", false
	}
	return Decimal(s), true
}

var decimalPattern = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)
