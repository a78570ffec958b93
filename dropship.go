package parcelgate

import (
	"context"
	"slices"
	"time"
)

// Dropshipping (decisions §34): a retailer's order whose rows name products
// of suppliers' dropshipping catalogs (catalog type Catalog) is split, in
// the order's transaction, into one DropshipShipment per supplier. The
// supplier polls and moves its shipments (Shipments API v3); what it
// writes is copied back to the retailer's order and its rows.

// DropshipStatus is the status of a supplier shipment (DropshipShipment;
// ShipmentStatus is the gateway shipment data's). Names are
// case-sensitive, as the provider writes them.
type DropshipStatus string

const (
	DropshipCreated   DropshipStatus = "Created"
	DropshipSubmitted DropshipStatus = "Submitted"
	DropshipViewed    DropshipStatus = "Viewed"
	DropshipPicking   DropshipStatus = "Picking"
	DropshipPacking   DropshipStatus = "Packing"
	DropshipShipping  DropshipStatus = "Shipping"
	DropshipDelivered DropshipStatus = "Delivered"
	DropshipCancelled DropshipStatus = "Cancelled"
	DropshipError     DropshipStatus = "Error"
)

// DropshipStatuses lists every status of a shipment in the order of a
// normal life, then the two other ends.
var DropshipStatuses = []DropshipStatus{DropshipCreated, DropshipSubmitted, DropshipViewed, DropshipPicking, DropshipPacking, DropshipShipping, DropshipDelivered, DropshipCancelled, DropshipError}

// SupplierStatuses are the statuses a supplier may write (PATCH).
var SupplierStatuses = []DropshipStatus{DropshipViewed, DropshipPicking, DropshipPacking, DropshipShipping, DropshipDelivered, DropshipCancelled, DropshipError}

// Final reports whether s gets no further updates: Delivered, Cancelled
// and Error (decisions §34).
func (s DropshipStatus) Final() bool {
	return s == DropshipDelivered || s == DropshipCancelled || s == DropshipError
}

// progressRank orders the statuses of a shipment in progress; a supplier
// moves forward only.
func (s DropshipStatus) progressRank() int {
	switch s {
	case DropshipCreated:
		return 0
	case DropshipSubmitted:
		return 1
	case DropshipViewed:
		return 2
	case DropshipPicking:
		return 3
	case DropshipPacking:
		return 4
	case DropshipShipping:
		return 5
	}
	return 6
}

// ParseDropshipStatus reads a status exactly as written (the provider's
// names are case-sensitive).
func ParseDropshipStatus(s string) (DropshipStatus, bool) {
	for _, st := range DropshipStatuses {
		if s == string(st) {
			return st, true
		}
	}
	return "", false
}

// DropshipState is a shipment's status and when it was reached.
type DropshipState struct {
	Value     DropshipStatus `json:"value"`
	Timestamp time.Time      `json:"timestamp"`
}

// DropshipMetadata is a shipment's metadata: the retailer whose order it
// comes from, and its insert and update stamps. UpdateDate is the stamp
// that GET /shipments?from= pages by.
type DropshipMetadata struct {
	SourceOrganization string    `json:"sourceOrganization"`
	InsertDate         time.Time `json:"insertDate"`
	UpdateDate         time.Time `json:"updateDate"`
	DocumentType       string    `json:"documentType"`
}

// ConsignmentRow is one row of a shipment: one of the order's rows, by the
// supplier's product ID.
type ConsignmentRow struct {
	ItemID              string   `json:"itemId"`
	ProductEANCode      string   `json:"productEANCode,omitempty"`
	ExternalWarehouseID string   `json:"externalWarehouseId"`
	Quantity            Quantity `json:"quantity"`
	ProductDescription  string   `json:"productDescription,omitempty"`
	// DeliveredQuantity is what the supplier confirmed sending, summed over
	// its parcels; absent until the shipment is Delivered.
	DeliveredQuantity *Quantity `json:"deliveredQuantity,omitempty"`
}

// ConsignmentParcelRow is a row's share of one parcel: Quantity is the ordered
// quantity of the row, DeliveredQuantity what this parcel carries of it.
type ConsignmentParcelRow struct {
	ExternalWarehouseID string    `json:"externalWarehouseId,omitempty"`
	ItemID              string    `json:"itemId"`
	Quantity            Quantity  `json:"quantity"`
	DeliveredQuantity   *Quantity `json:"deliveredQuantity,omitempty"`
}

// ConsignmentParcel is one parcel of a shipment.
type ConsignmentParcel struct {
	ParcelID           string                 `json:"parcelId"`
	PackageType        string                 `json:"packageType"`
	ServiceCode        string                 `json:"serviceCode"`
	DeliveryOperator   string                 `json:"deliveryOperator"`
	AdditionalServices []AdditionalService    `json:"additionalServices"`
	PickupPointID      string                 `json:"pickupPointId,omitempty"`
	RoutingServiceCode string                 `json:"routingServiceCode,omitempty"`
	TrackingCodes      []string               `json:"trackingCodes"`
	Ready              bool                   `json:"ready"`
	Rows               []ConsignmentParcelRow `json:"rows"`
	// PlatformCodes: the tracking codes were made by the platform, which
	// then also makes the parcel's label; a supplier's own codes get a
	// delivery note only.
	PlatformCodes bool `json:"platformTrackingCodes,omitempty"`
	// LabelURL and DeliveryNoteURL link the parcel's address label and
	// delivery note (PDF), which the supplier's token opens (names
	// INVENTED, decisions §38: the provider says a parcel carries them but
	// publishes no member names). Set on the supplier's answers only
	// (ParcelDocuments says which); never stored.
	LabelURL        string `json:"labelUrl,omitempty"`
	DeliveryNoteURL string `json:"deliveryNoteUrl,omitempty"`
}

// Consignment is what the supplier ships: the order's parties, rows and
// parcels.
type Consignment struct {
	Reference        string              `json:"reference"`
	ContractNumber   string              `json:"contractNumber,omitempty"`
	OrderDate        time.Time           `json:"orderDate"`
	Vendor           *Address            `json:"vendor,omitempty"`
	Sender           *Address            `json:"sender,omitempty"`
	Client           *Address            `json:"client,omitempty"`
	DeliveryAddress  Address             `json:"deliveryAddress"`
	DeliveryOperator string              `json:"deliveryOperator"`
	Rows             []ConsignmentRow    `json:"rows"`
	Parcels          []ConsignmentParcel `json:"parcels"`
}

// DropshipShipment is one supplier's part of a retailer's order, as the
// Shipments API v3 answers it. (Shipment is the gateway's shipment data.)
type DropshipShipment struct {
	ShipmentID  string           `json:"shipmentId"`
	ExternalID  string           `json:"externalId,omitempty"`
	ClientID    string           `json:"clientId"`
	Metadata    DropshipMetadata `json:"metadata"`
	References  []OrderReference `json:"references"`
	CreatedDate time.Time        `json:"createdDate"`
	Status      DropshipState    `json:"status"`
	Consignment Consignment      `json:"consignment"`
	// Events are what its supplier reported about it (AddShipmentEvent;
	// INVENTED, decisions §38), oldest first.
	Events []DropshipEvent `json:"events,omitempty"`
}

// DropshipDocumentType is metadata.documentType of every shipment.
const DropshipDocumentType = "SalesOrder"

// DefaultPackageType is the package type of the parcel made with a
// shipment ("PC", the provider's example).
const DefaultPackageType = "PC"

// Delivered returns what the shipment delivered of each of its rows, by
// row: 0 for every row until it is Delivered.
func (s *DropshipShipment) Delivered() []int64 {
	out := make([]int64, len(s.Consignment.Rows))
	if s.Status.Value != DropshipDelivered {
		return out
	}
	for i, r := range s.Consignment.Rows {
		if r.DeliveredQuantity != nil {
			out[i] = int64(*r.DeliveredQuantity)
		}
	}
	return out
}

// TrackingCodes returns every tracking code of the shipment's parcels, and
// those of the parcels carrying item.
func (s *DropshipShipment) TrackingCodes(item string) (all, ofItem []string) {
	all, ofItem = []string{}, []string{}
	for _, p := range s.Consignment.Parcels {
		all = append(all, p.TrackingCodes...)
		if slices.ContainsFunc(p.Rows, func(r ConsignmentParcelRow) bool {
			return r.ItemID == item && (r.DeliveredQuantity == nil || *r.DeliveredQuantity > 0)
		}) {
			ofItem = append(ofItem, p.TrackingCodes...)
		}
	}
	return all, ofItem
}

// DropshipQuery filters a supplier's shipment list (GET /shipments).
type DropshipQuery struct {
	// From: changed strictly after this instant (metadata.updateDate);
	// zero lists every shipment.
	From time.Time
	// Statuses: shipments in any of these.
	Statuses []DropshipStatus
}

// DropshipService keeps the shipments of dropshipping orders.
// Every call is scoped to the caller's organization and environment: the
// supplier (clientId) reads and writes its shipments; another
// organization's shipment answers ENOTFOUND exactly like a missing one.
// Every write answers the full shipment and copies what it changed back
// to the retailer's order in the same transaction, with the stock effect
// of a final status. Every method asks Caller.May itself first (interface
// §5.2, decisions §34), so a caller without the right is EFORBIDDEN and
// nothing is read or written for it. The automatic supplier's
// DueShipments and AutoConfirm (fulfillment.SupplierStore) are no part of
// it: they are the server's own machinery and take no caller.
type DropshipService interface {
	// ListShipments returns one page of the caller's shipments matching q,
	// ordered by update stamp, then by a key that never changes. Only a
	// caller that may ActionSupplyShipments.
	ListShipments(ctx context.Context, c *Caller, q DropshipQuery, p PageRequest) (Page[*DropshipShipment], error)
	// FindShipment returns one of the caller's shipments. Only a caller
	// that may ActionSupplyShipments.
	FindShipment(ctx context.Context, c *Caller, id string) (*DropshipShipment, error)
	// UpdateShipment applies a PATCH (MoveShipment). Only a caller that
	// may ActionSupplyShipments.
	UpdateShipment(ctx context.Context, c *Caller, id string, u DropshipUpdate) (*DropshipShipment, error)
	// SplitShipment applies a PUT (SplitShipment). Only a caller that may
	// ActionSupplyShipments.
	SplitShipment(ctx context.Context, c *Caller, id string, u DropshipUpdate) (*DropshipShipment, error)
	// ConfirmShipment fast-confirms a shipment (FastConfirm). Only a
	// caller that may ActionSupplyShipments.
	ConfirmShipment(ctx context.Context, c *Caller, id string) (*DropshipShipment, error)
	// AddShipmentEvent keeps a supplier's event on one of its shipments
	// (AddShipmentEvent) and answers the shipment, and whether the event is
	// new (false: a retry of one kept before); the retailer's order is not
	// changed. Only a caller that may ActionSupplyShipments.
	AddShipmentEvent(ctx context.Context, c *Caller, id string, e DropshipEventInput) (*DropshipShipment, bool, error)
	// OrderShipments returns the shipments of the caller's order id (its
	// ID or externalId), for the retailer: its suppliers' progress. Only
	// a caller that may ActionReadOrders.
	OrderShipments(ctx context.Context, c *Caller, orderID string) ([]*DropshipShipment, error)
	// SetAutoSupplier switches the automatic supplier of c's organization
	// on or off (supplier_auto.go) and answers the setting. Only the
	// operator acts (ActionOperate): c is an OperatorCaller of the
	// organization.
	SetAutoSupplier(ctx context.Context, c *Caller, a AutoSupplier) (AutoSupplier, error)
	// AutoSupplierOf answers the automatic supplier setting of c's
	// organization. Only the operator acts (ActionOperate): c is an
	// OperatorCaller of the organization.
	AutoSupplierOf(ctx context.Context, c *Caller) (AutoSupplier, error)
}
