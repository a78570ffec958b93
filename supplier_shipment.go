package parcelgate

import (
	"context"
	"fmt"
	"slices"
	"strings"
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

// OrderPartiallyDelivered is the status of an order, and of its rows, whose
// suppliers differ or whose delivered quantities fall short of the ordered
// ones (the provider's Orders V3).
const OrderPartiallyDelivered OrderStatus = "Partially delivered"

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

// DropshipRows decides, once for an order, which of its rows come from a
// supplier's dropshipping catalog: those whose externalWarehouseId names
// one of the retailer's dropshipping catalogs (catalogs); the others come
// from its own warehouses (decisions §34, §38). The request's check
// (CheckRowCatalogs) and the store's choice of each row's balance read it;
// from the allocation on, the decision is carried on each row as its
// SupplierID (Order.Apply), which the split, the engines and the reads
// follow.
func (r *OrderRequest) DropshipRows(catalogs []string) []bool {
	out := make([]bool, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = slices.Contains(catalogs, row.ExternalWarehouseID)
	}
	return out
}

// OrderRowSupply is where an allocated order row comes from: a supplier's
// dropshipping catalog (SupplierID set) or the retailer's own warehouse.
type OrderRowSupply struct {
	SupplierOrg int64
	SupplierID  string
}

// DropshipPart is one supplier's part of an order as SplitOrder decides
// it: the shipment, and for each of its rows the index of the order's row
// it ships.
type DropshipPart struct {
	SupplierOrg int64
	Shipment    *DropshipShipment
	Lines       []int
}

// SplitOrder splits an allocated order into one shipment per supplier, in
// the order suppliers are first met among the rows (decisions §34):
// clientId is the supplier, metadata.sourceOrganization the retailer,
// references PO (the order's externalId) and SO (the retailer's own
// reference, when it has one), the order's parties, the supplier's rows,
// and one parcel "1" holding every row with the order's service, pick-up
// point and the value-added services the supplier's products bring
// (services[i] are those of row i). newID makes the shipments' IDs. Rows
// of the retailer's own warehouse (no SupplierID) are not split.
func SplitOrder(o *Order, retailer *Organization, supply []OrderRowSupply, services [][]string, newID func() string, now time.Time) []DropshipPart {
	var parts []DropshipPart
	at := map[int64]int{}
	for i, row := range o.Rows {
		s := supply[i]
		if s.SupplierID == "" {
			continue
		}
		j, ok := at[s.SupplierOrg]
		if !ok {
			j = len(parts)
			at[s.SupplierOrg] = j
			parts = append(parts, DropshipPart{SupplierOrg: s.SupplierOrg, Shipment: newSupplierShipment(o, retailer, s.SupplierID, newID(), now)})
		}
		p := &parts[j]
		c := &p.Shipment.Consignment
		c.Rows = append(c.Rows, ConsignmentRow{ItemID: row.ExternalProductID, ProductEANCode: row.ProductEANCode, ExternalWarehouseID: row.ExternalWarehouseID,
			Quantity: row.Quantity, ProductDescription: row.ProductDescription})
		parcel := &c.Parcels[0]
		parcel.Rows = append(parcel.Rows, ConsignmentParcelRow{ExternalWarehouseID: row.ExternalWarehouseID, ItemID: row.ExternalProductID, Quantity: row.Quantity})
		for _, svc := range services[i] {
			if !slices.ContainsFunc(parcel.AdditionalServices, func(a AdditionalService) bool { return a.ServiceCode == svc }) {
				parcel.AdditionalServices = append(parcel.AdditionalServices, AdditionalService{ServiceCode: svc})
			}
		}
		p.Lines = append(p.Lines, i)
	}
	return parts
}

func newSupplierShipment(o *Order, retailer *Organization, supplierID, id string, now time.Time) *DropshipShipment {
	refs := []OrderReference{{Name: "PO", Value: o.ExternalID}}
	if so := o.SORef(); so != "" {
		refs = append(refs, OrderReference{Name: RefSO, Value: so})
	}
	// Glue's parcel 1 names the routing code of its pick-up point (the
	// provider's example: 001003200 with 3200): the last 4 digits of a
	// 9-digit point ID, unless the order gave its own.
	routing := o.RoutingServiceCode
	if pp := o.PickupPointID; routing == "" && len(pp) == 9 && strings.Trim(pp, "0123456789") == "" {
		routing = pp[5:]
	}
	return &DropshipShipment{
		ShipmentID:  id,
		ClientID:    supplierID,
		Metadata:    DropshipMetadata{SourceOrganization: retailer.BusinessID, InsertDate: now, UpdateDate: now, DocumentType: DropshipDocumentType},
		References:  refs,
		CreatedDate: now,
		Status:      DropshipState{Value: DropshipCreated, Timestamp: now},
		Consignment: Consignment{
			Reference:        o.ExternalID,
			ContractNumber:   retailer.ContractNumber,
			OrderDate:        o.OrderDate,
			Vendor:           &Address{ExternalID: supplierID},
			Sender:           o.Sender,
			Client:           o.Client,
			DeliveryAddress:  o.DeliveryAddress,
			DeliveryOperator: DeliveryOperator,
			Rows:             []ConsignmentRow{},
			Parcels: []ConsignmentParcel{{ParcelID: "1", PackageType: DefaultPackageType, ServiceCode: o.ServiceCode, DeliveryOperator: DeliveryOperator,
				AdditionalServices: []AdditionalService{}, PickupPointID: o.PickupPointID, RoutingServiceCode: routing,
				TrackingCodes: []string{}, Rows: []ConsignmentParcelRow{}}},
		},
	}
}

// DropshipUpdate is a supplier's PATCH (a status move, or a confirmation
// with parcels) or PUT (the full parcel list) of a shipment.
type DropshipUpdate struct {
	Status  *DropshipStatus
	Parcels []ConsignmentParcel
	// HasParcels: the body carried consignment.parcels (even empty).
	HasParcels bool
	// ExternalID is the supplier's own reference, when given.
	ExternalID string
}

// MaxShipmentParcels bounds the parcels of one shipment.
const MaxShipmentParcels = 100

// MaxTrackingCodes bounds the tracking codes of one parcel.
const MaxTrackingCodes = 10

// MoveShipment applies a supplier's PATCH to s at now and returns the
// shipment as it is to be stored (s is not changed), or a 4xx naming the
// field (decisions §34): a status of SupplierStatuses, never out of a final
// status (the same final status again answers the shipment unchanged),
// forward only while in progress; parcels only with Delivered (they
// confirm what was sent). newCode makes platform tracking codes.
func MoveShipment(s *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, bool, error) {
	if u.Status == nil {
		return nil, false, fieldError("status.value", "is required: one of %s", supplierStatusNames())
	}
	to := *u.Status
	if !slices.Contains(SupplierStatuses, to) {
		return nil, false, fieldError("status.value", "%q is not a status a supplier writes: one of %s (case-sensitive)", to, supplierStatusNames())
	}
	from := s.Status.Value
	if u.HasParcels && to != DropshipDelivered {
		return nil, false, fieldError("consignment.parcels", "confirm parcels with status Delivered; split a shipment into parcels with PUT")
	}
	if from == to && (from.Final() || !u.HasParcels) {
		if u.HasParcels {
			return nil, false, Errorf(ECONFLICT, "Shipment %s is already Delivered.", s.ShipmentID)
		}
		return s, false, nil
	}
	if err := checkMove(s, to); err != nil {
		return nil, false, err
	}
	out := cloneShipment(s)
	if u.ExternalID != "" {
		out.ExternalID = u.ExternalID
	}
	if to == DropshipDelivered {
		if err := confirmParcels(out, u, newCode); err != nil {
			return nil, false, err
		}
	}
	if to == DropshipCancelled || to == DropshipError {
		zero := Quantity(0)
		for i := range out.Consignment.Rows {
			out.Consignment.Rows[i].DeliveredQuantity = &zero
		}
	}
	out.Status = DropshipState{Value: to, Timestamp: now}
	return out, true, nil
}

// checkMove decides whether a supplier may move s to to, another status
// than its own (decisions §34, §38): to is one of SupplierStatuses (400
// naming status.value otherwise); nothing moves out of a final status
// (409); a shipment in progress moves forward only, so a status behind
// the current one is 400 naming status.value.
func checkMove(s *DropshipShipment, to DropshipStatus) error {
	if !slices.Contains(SupplierStatuses, to) {
		return fieldError("status.value", "%q is not a status a supplier writes: one of %s (case-sensitive)", to, supplierStatusNames())
	}
	from := s.Status.Value
	if from.Final() {
		return &Error{Code: ECONFLICT, Message: fmt.Sprintf("Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, from),
			Fields: []FieldError{{Field: "status.value", Message: fmt.Sprintf("cannot move from %s to %s", from, to)}}}
	}
	if !to.Final() && to.progressRank() < from.progressRank() {
		return fieldError("status.value", "cannot move back from %s to %s: a shipment in progress moves forward only", from, to)
	}
	return nil
}

// FastConfirm is POST /shipments/{id}/delivered: Delivered with every
// row's deliveredQuantity its ordered quantity and platform tracking codes
// for the parcels without one. Only for deliveries the provider carries
// itself (not via Unifaun); a Delivered shipment is answered as it is.
func FastConfirm(s *DropshipShipment, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, bool, error) {
	if s.Status.Value == DropshipDelivered {
		return s, false, nil
	}
	if s.Status.Value.Final() {
		return nil, false, Errorf(ECONFLICT, "Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, s.Status.Value)
	}
	for i, p := range s.Consignment.Parcels {
		if !strings.EqualFold(p.DeliveryOperator, DeliveryOperator) {
			return nil, false, &Error{Code: ECONFLICT, Message: "Fast confirmation is for deliveries the provider carries itself; confirm with PATCH.",
				Fields: []FieldError{{Field: fmt.Sprintf("consignment.parcels[%d].deliveryOperator", i), Message: fmt.Sprintf("is %s, not %s", p.DeliveryOperator, DeliveryOperator)}}}
		}
	}
	out := cloneShipment(s)
	c := &out.Consignment
	for _, row := range c.Rows {
		// Shares already given by a split stand; the row's first parcel
		// takes what they leave.
		var given Quantity
		first := -1
		for pi := range c.Parcels {
			for ri := range c.Parcels[pi].Rows {
				pr := &c.Parcels[pi].Rows[ri]
				if pr.ItemID != row.ItemID {
					continue
				}
				if first < 0 {
					first = pi*1_000_000 + ri
				}
				if pr.DeliveredQuantity != nil {
					given += *pr.DeliveredQuantity
				}
			}
		}
		if first < 0 {
			c.Parcels[0].Rows = append(c.Parcels[0].Rows, ConsignmentParcelRow{ExternalWarehouseID: row.ExternalWarehouseID, ItemID: row.ItemID, Quantity: row.Quantity})
			first = len(c.Parcels[0].Rows) - 1
		}
		pr := &c.Parcels[first/1_000_000].Rows[first%1_000_000]
		d := row.Quantity - given
		if pr.DeliveredQuantity != nil {
			d += *pr.DeliveredQuantity
		}
		pr.DeliveredQuantity = &d
	}
	settleParcels(out, map[int][]string{}, newCode)
	out.Status = DropshipState{Value: DropshipDelivered, Timestamp: now}
	return out, true, nil
}

// SplitShipment is PUT /shipments/{id}: the full parcel list replaces the
// shipment's parcels, and the status of the body, when given, applies
// after the split (decisions §34, §38; the provider's split example is one
// PUT that also confirms with Delivered).
//
// A parcel the shipment already has (by parcelId) may leave out what it
// has: packageType, serviceCode and with it deliveryOperator,
// pickupPointId, routingServiceCode and additionalServices (the provider's
// example sends parcel 1 as Glue made it, without a service). A parcel it
// adds needs a unique parcelId, a packageType, a serviceCode, a
// routingServiceCode, and a pickupPointId when its service delivers to a
// pick-up point (DeliversToPickupPoint); deliveryOperator and
// additionalServices default to those of the shipment's first parcel. A
// row shared by parcels appears in each with its ordered quantity and that
// parcel's share as deliveredQuantity; every row is in some parcel and the
// shares of a row never exceed its quantity. With status Delivered the
// shares are what is sent (deliveredQuantity required on every row of
// every parcel, 0 for what is not sent), and each parcel that carries
// something gets its tracking codes: its own trackingCodes, else one the
// platform makes (newCode), with a label. Another status moves the
// shipment as a PATCH would (checkMove). Only a shipment in progress is
// split.
func SplitShipment(s *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string, now time.Time) (*DropshipShipment, error) {
	if s.Status.Value.Final() {
		return nil, Errorf(ECONFLICT, "Shipment %s is %s, a final status: it takes no further updates.", s.ShipmentID, s.Status.Value)
	}
	to := s.Status.Value
	if u.Status != nil && *u.Status != to {
		if err := checkMove(s, *u.Status); err != nil {
			return nil, err
		}
		to = *u.Status
	}
	confirm := to == DropshipDelivered
	var p Problems
	switch {
	case !u.HasParcels || len(u.Parcels) == 0:
		return nil, fieldError("consignment.parcels", "is required: the full list of the shipment's parcels")
	case len(u.Parcels) > MaxShipmentParcels:
		return nil, fieldError("consignment.parcels", "must hold at most %d parcels", MaxShipmentParcels)
	}
	base := s.Consignment.Parcels[0]
	out := cloneShipment(s)
	if u.ExternalID != "" {
		out.ExternalID = u.ExternalID
	}
	seen := map[string]bool{}
	own := map[int][]string{}
	parcels := make([]ConsignmentParcel, len(u.Parcels))
	for i, in := range u.Parcels {
		path := fmt.Sprintf("consignment.parcels[%d]", i)
		in.ParcelID = strings.TrimSpace(in.ParcelID)
		switch {
		case in.ParcelID == "":
			p.Add(path+".parcelId", "is required")
		case !validParcelID(in.ParcelID):
			p.Add(path+".parcelId", "must be 1-35 letters, digits, '-' or '_', not %q", in.ParcelID)
		case seen[in.ParcelID]:
			p.Add(path+".parcelId", "%q is given twice: each parcel needs its own", in.ParcelID)
		}
		seen[in.ParcelID] = true
		in.PackageType = strings.TrimSpace(in.PackageType)
		at := slices.IndexFunc(s.Consignment.Parcels, func(x ConsignmentParcel) bool { return x.ParcelID == in.ParcelID })
		// kept: a parcel the shipment has, sent back with its own service or
		// none; it keeps what it is not given.
		kept := false
		if at >= 0 {
			had := s.Consignment.Parcels[at]
			if in.PackageType == "" {
				in.PackageType = had.PackageType
			}
			if sc := strings.TrimSpace(in.ServiceCode); sc == "" || sc == had.ServiceCode {
				kept = true
				in.ServiceCode = had.ServiceCode
				if strings.TrimSpace(in.DeliveryOperator) == "" {
					in.DeliveryOperator = had.DeliveryOperator
				}
				if strings.TrimSpace(in.PickupPointID) == "" {
					in.PickupPointID = had.PickupPointID
				}
				if strings.TrimSpace(in.RoutingServiceCode) == "" {
					in.RoutingServiceCode = had.RoutingServiceCode
				}
				if in.AdditionalServices == nil {
					in.AdditionalServices = slices.Clone(had.AdditionalServices)
				}
			}
		}
		if in.PackageType == "" {
			p.Add(path+".packageType", "is required for a parcel the shipment does not have yet (e.g. PC)")
		}
		checkParcelMethod(&p, path, &in, true)
		in.RoutingServiceCode = strings.TrimSpace(in.RoutingServiceCode)
		if in.ServiceCode != "" && !kept {
			if in.RoutingServiceCode == "" {
				p.Add(path+".routingServiceCode", "is required with serviceCode %s (e.g. 3200)", in.ServiceCode)
			}
			if in.PickupPointID == "" && DeliversToPickupPoint(in.ServiceCode) {
				p.Add(path+".pickupPointId", "is required: service %s delivers to a pick-up point", in.ServiceCode)
			}
		}
		if in.DeliveryOperator == "" {
			in.DeliveryOperator = base.DeliveryOperator
		}
		if in.AdditionalServices == nil {
			in.AdditionalServices = slices.Clone(base.AdditionalServices)
		}
		if in.TrackingCodes == nil {
			in.TrackingCodes = []string{}
		}
		checkTrackingCodes(&p, path, in.TrackingCodes)
		if len(in.TrackingCodes) > 0 {
			own[i] = in.TrackingCodes
		}
		// Codes are the confirmation's: the supplier's own, or the
		// platform's when it confirms.
		in.TrackingCodes, in.PlatformCodes, in.Ready = []string{}, false, false
		in.Rows = checkParcelRows(&p, path, s, in.Rows, confirm)
		parcels[i] = in
	}
	out.Consignment.Parcels = parcels
	checkRowShares(&p, out, true)
	if err := p.Err(); err != nil {
		return nil, err
	}
	switch to {
	case DropshipDelivered:
		settleParcels(out, own, newCode)
	case DropshipCancelled, DropshipError:
		zero := Quantity(0)
		for i := range out.Consignment.Rows {
			out.Consignment.Rows[i].DeliveredQuantity = &zero
		}
	}
	if to != s.Status.Value {
		out.Status = DropshipState{Value: to, Timestamp: now}
	}
	return out, nil
}

// DeliversToPickupPoint reports whether service code (2103, or PO2103 via
// Unifaun) delivers to a pick-up point the shopper chose: a parcel of it
// names its point (pickupPointId).
func DeliversToPickupPoint(code string) bool {
	p, ok := ShippingProductOf(strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(code)), "PO"))
	return ok && p.PickupPoint
}

// ParcelDocuments says which documents a parcel of s has (decisions §38):
// the delivery note always (a packing slip with what each row ships, and
// the parcel's tracking codes once confirmed); the address label only when
// LabelDecision allows it (codes the platform made).
func ParcelDocuments(s *DropshipShipment, p *ConsignmentParcel) (label, note bool) {
	return LabelDecision(s, p) == nil, true
}

// confirmParcels applies the parcels of a Delivered PATCH to out: each
// names a parcel of the shipment (split first with PUT to add parcels) and
// gives its rows' deliveredQuantity (required), its own trackingCodes when
// the supplier has them, and serviceCode with deliveryOperator to change
// the method. Parcels not named keep their shares (none: nothing sent).
// Without parcels, a shipment never split is delivered in full.
func confirmParcels(out *DropshipShipment, u DropshipUpdate, newCode func(serviceCode string) string) error {
	c := &out.Consignment
	own := map[int][]string{}
	if !u.HasParcels {
		split := false
		for _, p := range c.Parcels {
			for _, r := range p.Rows {
				split = split || r.DeliveredQuantity != nil
			}
		}
		if !split {
			for pi := range c.Parcels {
				for ri := range c.Parcels[pi].Rows {
					q := c.Parcels[pi].Rows[ri].Quantity
					c.Parcels[pi].Rows[ri].DeliveredQuantity = &q
				}
			}
		}
		settleParcels(out, own, newCode)
		return nil
	}
	var p Problems
	if len(u.Parcels) == 0 {
		return fieldError("consignment.parcels", "must name at least one parcel; leave it out to deliver every row in full")
	}
	if len(u.Parcels) > MaxShipmentParcels {
		return fieldError("consignment.parcels", "must hold at most %d parcels", MaxShipmentParcels)
	}
	seen := map[string]bool{}
	for i, in := range u.Parcels {
		path := fmt.Sprintf("consignment.parcels[%d]", i)
		id := strings.TrimSpace(in.ParcelID)
		at := slices.IndexFunc(c.Parcels, func(x ConsignmentParcel) bool { return x.ParcelID == id })
		switch {
		case id == "":
			p.Add(path+".parcelId", "is required")
			continue
		case at < 0:
			p.Add(path+".parcelId", "the shipment has no parcel %q (its parcels: %s); add parcels with PUT first", id, parcelIDs(c.Parcels))
			continue
		case seen[id]:
			p.Add(path+".parcelId", "%q is given twice", id)
			continue
		}
		seen[id] = true
		parcel := &c.Parcels[at]
		if t := strings.TrimSpace(in.PackageType); t != "" {
			parcel.PackageType = t
		}
		if in.ServiceCode != "" || in.DeliveryOperator != "" {
			checkParcelMethod(&p, path, &in, false)
			if in.ServiceCode != "" && in.DeliveryOperator == "" {
				p.Add(path+".deliveryOperator", "is required with serviceCode: changing the method needs both")
			} else if in.DeliveryOperator != "" && in.ServiceCode == "" {
				p.Add(path+".serviceCode", "is required with deliveryOperator: changing the method needs both")
			} else {
				parcel.ServiceCode, parcel.DeliveryOperator = in.ServiceCode, in.DeliveryOperator
				if in.PickupPointID != "" {
					parcel.PickupPointID = in.PickupPointID
				}
			}
		}
		if in.TrackingCodes != nil {
			checkTrackingCodes(&p, path, in.TrackingCodes)
			own[at] = in.TrackingCodes
		}
		if in.Rows != nil {
			parcel.Rows = checkParcelRows(&p, path, out, in.Rows, true)
		}
		parcel.Ready = true
	}
	checkRowShares(&p, out, false)
	if err := p.Err(); err != nil {
		return err
	}
	settleParcels(out, own, newCode)
	return nil
}

// settleParcels ends a confirmation: rows' deliveredQuantity is the sum of
// their parcels' shares (a share left out is 0), and each parcel that
// carries something has tracking codes: the supplier's own (own[i]), those
// it had, or one the platform makes. A parcel that carries nothing has
// none.
func settleParcels(out *DropshipShipment, own map[int][]string, newCode func(serviceCode string) string) {
	c := &out.Consignment
	delivered := map[string]Quantity{}
	for pi := range c.Parcels {
		parcel := &c.Parcels[pi]
		var carried Quantity
		for ri := range parcel.Rows {
			r := &parcel.Rows[ri]
			if r.DeliveredQuantity == nil {
				zero := Quantity(0)
				r.DeliveredQuantity = &zero
			}
			carried += *r.DeliveredQuantity
			delivered[r.ItemID] += *r.DeliveredQuantity
		}
		parcel.Ready = true
		switch {
		case carried == 0:
			parcel.TrackingCodes, parcel.PlatformCodes = []string{}, false
		case len(own[pi]) > 0:
			parcel.TrackingCodes, parcel.PlatformCodes = slices.Clone(own[pi]), false
		case len(parcel.TrackingCodes) == 0:
			parcel.TrackingCodes, parcel.PlatformCodes = []string{newCode(parcel.ServiceCode)}, true
		}
	}
	for i := range c.Rows {
		d := delivered[c.Rows[i].ItemID]
		c.Rows[i].DeliveredQuantity = &d
	}
}

// checkParcelMethod checks a parcel's service code and delivery operator
// (required says the service code must be given).
func checkParcelMethod(p *Problems, path string, in *ConsignmentParcel, required bool) {
	in.ServiceCode = strings.TrimSpace(in.ServiceCode)
	in.DeliveryOperator = strings.TrimSpace(in.DeliveryOperator)
	in.PickupPointID = strings.TrimSpace(in.PickupPointID)
	switch {
	case in.ServiceCode == "" && required:
		p.Add(path+".serviceCode", "is required (e.g. 2103)")
	case in.ServiceCode == "":
	case strings.EqualFold(in.DeliveryOperator, "Unifaun"):
		if !ValidServiceCode(strings.TrimPrefix(in.ServiceCode, "PO")) || !strings.HasPrefix(in.ServiceCode, "PO") {
			p.Add(path+".serviceCode", "%q is not a Unifaun service code: PO and a code of 2101, 2102, 2103, 2104, 2143, 2144, 2145, 2317, 2318, 2331, 2711", in.ServiceCode)
		}
		in.DeliveryOperator = "Unifaun"
	case !ValidServiceCode(in.ServiceCode):
		p.Add(path+".serviceCode", "%q is not a service code; use one of 2101, 2102, 2103, 2104, 2143, 2144, 2145, 2317, 2318, 2331, 2711, NOUTO", in.ServiceCode)
	}
	switch {
	case in.DeliveryOperator == "", strings.EqualFold(in.DeliveryOperator, DeliveryOperator):
		if in.DeliveryOperator != "" {
			in.DeliveryOperator = DeliveryOperator
		}
	case in.DeliveryOperator == "Unifaun":
	default:
		p.Add(path+".deliveryOperator", "must be Posti or Unifaun, not %q", in.DeliveryOperator)
	}
	if len(in.PickupPointID) > 50 {
		p.Add(path+".pickupPointId", "must be at most 50 characters")
	}
	if len(in.RoutingServiceCode) > 20 {
		p.Add(path+".routingServiceCode", "must be at most 20 characters")
	}
	if len(in.AdditionalServices) > MaxOrderServices {
		p.Add(path+".additionalServices", "must hold at most %d services", MaxOrderServices)
	}
}

// checkTrackingCodes checks a supplier's own tracking codes: 1-10 codes of
// 4-35 letters, digits and '-', each once.
func checkTrackingCodes(p *Problems, path string, codes []string) {
	if len(codes) > MaxTrackingCodes {
		p.Add(path+".trackingCodes", "must hold at most %d codes", MaxTrackingCodes)
		return
	}
	for i, code := range codes {
		if !validTrackingCode(code) {
			p.Add(fmt.Sprintf("%s.trackingCodes[%d]", path, i), "must be 4-35 letters, digits or '-', not %q", code)
		}
	}
}

func validTrackingCode(s string) bool {
	if len(s) < 4 || len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validParcelID(s string) bool {
	if len(s) > 35 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// checkParcelRows checks a parcel's rows against the shipment's: each
// names a row by itemId (and, when given, its externalWarehouseId), at
// most once; quantity, when given, is the row's ordered quantity;
// deliveredQuantity (required when needShare) is 0 to that quantity.
func checkParcelRows(p *Problems, path string, s *DropshipShipment, rows []ConsignmentParcelRow, needShare bool) []ConsignmentParcelRow {
	if len(rows) > len(s.Consignment.Rows) {
		p.Add(path+".rows", "must hold at most the shipment's %d rows", len(s.Consignment.Rows))
		return nil
	}
	out := make([]ConsignmentParcelRow, 0, len(rows))
	seen := map[string]bool{}
	for i, r := range rows {
		rp := fmt.Sprintf("%s.rows[%d]", path, i)
		r.ItemID = strings.TrimSpace(r.ItemID)
		at := slices.IndexFunc(s.Consignment.Rows, func(x ConsignmentRow) bool { return x.ItemID == r.ItemID })
		switch {
		case r.ItemID == "":
			p.Add(rp+".itemId", "is required")
			continue
		case at < 0:
			p.Add(rp+".itemId", "the shipment has no row %q", r.ItemID)
			continue
		case seen[r.ItemID]:
			p.Add(rp+".itemId", "%q is given twice in this parcel", r.ItemID)
			continue
		}
		seen[r.ItemID] = true
		row := s.Consignment.Rows[at]
		if r.ExternalWarehouseID != "" && r.ExternalWarehouseID != row.ExternalWarehouseID {
			p.Add(rp+".externalWarehouseId", "is %s for this row, not %q", row.ExternalWarehouseID, r.ExternalWarehouseID)
		}
		if r.Quantity != 0 && r.Quantity != row.Quantity {
			p.Add(rp+".quantity", "is the row's ordered quantity, %d, not %d; a parcel's share is deliveredQuantity", row.Quantity, r.Quantity)
		}
		switch {
		case r.DeliveredQuantity == nil && needShare:
			p.Add(rp+".deliveredQuantity", "is required: what this parcel carries of the row, 0 to %d", row.Quantity)
		case r.DeliveredQuantity != nil && (*r.DeliveredQuantity < 0 || *r.DeliveredQuantity > row.Quantity):
			p.Add(rp+".deliveredQuantity", "must be 0 to the row's quantity %d, not %d", row.Quantity, *r.DeliveredQuantity)
		}
		out = append(out, ConsignmentParcelRow{ExternalWarehouseID: row.ExternalWarehouseID, ItemID: row.ItemID, Quantity: row.Quantity, DeliveredQuantity: r.DeliveredQuantity})
	}
	return out
}

// checkRowShares checks that the shares of each row over the parcels do
// not exceed its quantity, and with everyRow that each row is in a parcel.
func checkRowShares(p *Problems, s *DropshipShipment, everyRow bool) {
	for i, row := range s.Consignment.Rows {
		var sum Quantity
		in := false
		for _, parcel := range s.Consignment.Parcels {
			for _, r := range parcel.Rows {
				if r.ItemID == row.ItemID {
					in = true
					if r.DeliveredQuantity != nil {
						sum += *r.DeliveredQuantity
					}
				}
			}
		}
		switch {
		case !in && everyRow:
			p.Add("consignment.parcels", "row %d (itemId %s) is in no parcel: list it, with deliveredQuantity 0 when it is not sent", i, row.ItemID)
		case sum > row.Quantity:
			p.Add("consignment.parcels", "the parcels carry %d of row %s, more than its quantity %d", sum, row.ItemID, row.Quantity)
		}
	}
}

func parcelIDs(ps []ConsignmentParcel) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ParcelID
	}
	return strings.Join(ids, ", ")
}

func supplierStatusNames() string {
	names := make([]string, len(SupplierStatuses))
	for i, s := range SupplierStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

func fieldError(field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Code: EINVALID, Message: "Validation failed: " + field + " " + msg, Fields: []FieldError{{Field: field, Message: msg}}}
}

// cloneShipment copies s deeply enough for a change: rows, parcels and
// their rows and codes are new slices.
func cloneShipment(s *DropshipShipment) *DropshipShipment {
	out := *s
	out.References = slices.Clone(s.References)
	out.Events = slices.Clone(s.Events)
	c := &out.Consignment
	c.Rows = slices.Clone(s.Consignment.Rows)
	c.Parcels = slices.Clone(s.Consignment.Parcels)
	for i := range c.Parcels {
		c.Parcels[i].Rows = slices.Clone(c.Parcels[i].Rows)
		c.Parcels[i].TrackingCodes = slices.Clone(c.Parcels[i].TrackingCodes)
		c.Parcels[i].AdditionalServices = slices.Clone(c.Parcels[i].AdditionalServices)
	}
	return &out
}

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

// DropshipSettlement is what a shipment reaching a final status does to
// the stock its rows hold (interface §2.5): for each row's hold, Units
// leave allocated and Returned of them go back to quantity.
type DropshipSettlement struct {
	BalanceID       int64
	Units, Returned int64
}

// SettleShipment decides the stock effect of a shipment that reached a
// final status, row by row (holds[i] is row i's balance and ordered
// quantity): Delivered keeps what was delivered out and returns the rest;
// Cancelled and Error return everything. Not final: no settlement.
func SettleShipment(s *DropshipShipment, balances []int64) []DropshipSettlement {
	if !s.Status.Value.Final() {
		return nil
	}
	d := s.Delivered()
	out := make([]DropshipSettlement, 0, len(balances))
	for i, row := range s.Consignment.Rows {
		if i >= len(balances) || balances[i] == 0 {
			continue
		}
		out = append(out, DropshipSettlement{BalanceID: balances[i], Units: int64(row.Quantity), Returned: int64(row.Quantity) - d[i]})
	}
	return out
}

// SettleHolds decides the moves of settlements on balances whose levels
// are levels: of each hold only what the balance still has allocated is
// released (its supplier may have released allocations itself, interface
// §4.4 PUT balances rule 5), and of that at most Returned goes back to
// quantity. Balances not among levels (removed) get no move.
func SettleHolds(levels map[int64]StockLevel, settle []DropshipSettlement) []StockMove {
	run := make(map[int64]StockLevel, len(levels))
	var moves []StockMove
	for _, s := range settle {
		l, ok := run[s.BalanceID]
		if !ok {
			if l, ok = levels[s.BalanceID]; !ok {
				continue
			}
		}
		n := min(l.Allocated, s.Units)
		back := max(0, min(s.Returned, n))
		l.Allocated -= n
		l.Quantity += back
		run[s.BalanceID] = l
		moves = append(moves, StockMove{BalanceID: s.BalanceID, Quantity: back, Allocated: -n})
	}
	return moves
}

// OrderProgress is what the suppliers' shipments make of a retailer's
// order (decisions §34): the order's status, each row's status, delivered
// quantity and tracking codes, and the order's tracking codes.
type OrderProgress struct {
	Status        OrderStatus
	Rows          []RowProgress
	TrackingCodes []string
}

// RowProgress is one order row's part of OrderProgress; rows not shipped
// by a supplier are zero (Status "").
type RowProgress struct {
	Status            OrderStatus
	DeliveredQuantity *Quantity
	TrackingCodes     []string
}

// WarehousePart is the warehouse's part of an order that mixes warehouse
// and supplier rows (decisions §38): its status, which the warehouse
// engine (or the operator) moves as it moves a whole warehouse order, the
// order rows it ships, and each one's tracking codes once Delivered.
type WarehousePart struct {
	Status OrderStatus
	Lines  []int
	Codes  [][]string
}

// DropshipOfRows is a shipment with, for each of its rows, the order row
// it ships.
type DropshipOfRows struct {
	Shipment *DropshipShipment
	Lines    []int
}

// Progress copies the suppliers' shipments back to an order of rows order
// rows: a row follows its shipment's status (Viewed, Picking, ... as the
// supplier writes them; Created and Submitted read as Submitted once the
// order has moved); once Delivered it is Delivered when it got its whole
// quantity, "Partially delivered" when it got part, and Delivered with
// deliveredQuantity 0 when the supplier sent none of it (how the provider
// shows a supplier's cancellation of a row); a Cancelled shipment's rows
// are Cancelled, an Error shipment's Error. The order is Created while
// every shipment is; Submitted while they are in progress and nothing is
// delivered; once something is delivered and anything else is open or
// short, "Partially delivered"; Delivered when every row got its whole
// quantity; Cancelled when every shipment is, Error when every shipment
// ended without delivering and one is in Error.
//
// wh, when not nil, is the warehouse part of an order that mixes warehouse
// and supplier rows (decisions §38): it counts as one more party, its rows
// showing its status (Created, Submitted, Delivered in full, Cancelled,
// Error) and its tracking codes.
func Progress(rows int, shipments []DropshipOfRows, wh *WarehousePart) OrderProgress {
	out := OrderProgress{Rows: make([]RowProgress, rows), TrackingCodes: []string{}}
	allCreated, allFinal, anyDelivered, allFull, anyError, allCancelled := true, true, false, true, false, true
	parties := len(shipments)
	if wh != nil {
		parties++
		st := wh.Status
		allCreated = allCreated && st == OrderCreated
		allFinal = allFinal && st.Terminal()
		allCancelled = allCancelled && st == OrderCancelled
		anyError = anyError || st == OrderError
		anyDelivered = anyDelivered || st == OrderDelivered && len(wh.Lines) > 0
		allFull = allFull && st == OrderDelivered
		for i, line := range wh.Lines {
			if line < 0 || line >= rows {
				continue
			}
			rp := RowProgress{Status: st, TrackingCodes: []string{}}
			if i < len(wh.Codes) && st == OrderDelivered {
				rp.TrackingCodes = slices.Clone(wh.Codes[i])
			}
			out.TrackingCodes = append(out.TrackingCodes, rp.TrackingCodes...)
			out.Rows[line] = rp
		}
	}
	for _, sh := range shipments {
		s := sh.Shipment
		st := s.Status.Value
		all, _ := s.TrackingCodes("")
		out.TrackingCodes = append(out.TrackingCodes, all...)
		if st != DropshipCreated {
			allCreated = false
		}
		if !st.Final() {
			allFinal = false
		}
		if st != DropshipCancelled {
			allCancelled = false
		}
		if st == DropshipError {
			anyError = true
		}
		d := s.Delivered()
		for i, line := range sh.Lines {
			if line < 0 || line >= rows {
				continue
			}
			row := s.Consignment.Rows[i]
			rp := RowProgress{TrackingCodes: []string{}}
			switch st {
			case DropshipDelivered:
				q := Quantity(d[i])
				rp.DeliveredQuantity = &q
				_, rp.TrackingCodes = s.TrackingCodes(row.ItemID)
				switch {
				case d[i] >= int64(row.Quantity):
					rp.Status = OrderDelivered
				case d[i] > 0:
					rp.Status = OrderPartiallyDelivered
				default:
					rp.Status = OrderDelivered
				}
				if d[i] > 0 {
					anyDelivered = true
				}
				if d[i] < int64(row.Quantity) {
					allFull = false
				}
			case DropshipCancelled, DropshipError:
				q := Quantity(0)
				rp.DeliveredQuantity = &q
				rp.Status = OrderStatus(st)
				allFull = false
			case DropshipCreated:
				rp.Status = OrderCreated
				allFull = false
			default:
				rp.Status = OrderStatus(st)
				allFull = false
			}
			out.Rows[line] = rp
		}
	}
	switch {
	case parties == 0:
		out.Status = OrderCreated
	case allCancelled:
		out.Status = OrderCancelled
	case allFinal && allFull:
		out.Status = OrderDelivered
	case anyDelivered:
		out.Status = OrderPartiallyDelivered
	case allFinal && anyError:
		out.Status = OrderError
	case allFinal:
		out.Status = OrderCancelled
	case allCreated:
		out.Status = OrderCreated
	default:
		out.Status = OrderSubmitted
	}
	return out
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

// ShipmentParcelOf returns parcel id of s; ENOTFOUND naming it when s has
// none.
func ShipmentParcelOf(s *DropshipShipment, id string) (*ConsignmentParcel, error) {
	for i := range s.Consignment.Parcels {
		if s.Consignment.Parcels[i].ParcelID == id {
			return &s.Consignment.Parcels[i], nil
		}
	}
	return nil, Errorf(ENOTFOUND, "Shipment %s has no parcel %s.", s.ShipmentID, id)
}

// LabelDecision says whether the platform prints an address label for p
// (decisions §34): only for tracking codes it made itself. A parcel without
// codes (not confirmed, or carrying nothing) has no label yet; one whose
// codes are the supplier's own gets the delivery note only, as the
// provider's Glue does.
func LabelDecision(s *DropshipShipment, p *ConsignmentParcel) error {
	switch {
	case len(p.TrackingCodes) == 0:
		return Errorf(ECONFLICT, "Parcel %s of shipment %s has no tracking code yet: confirm the shipment (Delivered) first; a parcel that carries nothing has none.", p.ParcelID, s.ShipmentID)
	case !p.PlatformCodes:
		return Errorf(ECONFLICT, "Parcel %s of shipment %s has the supplier's own tracking codes: the platform makes no label for it, only the delivery note.", p.ParcelID, s.ShipmentID)
	}
	return nil
}

// PlatformParcelNumber makes the tracking code the platform gives a
// confirmed parcel of service serviceCode (2103, or PO2103 via Unifaun):
// the shipping API's parcel number of that service (NewParcelNumber: JJFI
// and 17 digits domestic, a UPU S10 number international), so a supplier's
// parcel and a shipping API parcel are numbered alike.
func PlatformParcelNumber(serviceCode string) string {
	if prod, ok := ShippingProductOf(strings.TrimPrefix(strings.ToUpper(serviceCode), "PO")); ok {
		return NewParcelNumber(prod)
	}
	return NewTrackingNumber()
}
