package parcelgate

import (
	"slices"
	"strings"
	"time"
)

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
// (services[i] are those of row i). newID makes the shipments' IDs. The
// rows split are those that carry a supplier (OrderRow.SupplierID, which
// Order.Apply set from DropshipRows' decision; supply[i] names row i's
// supplier's organization): rows of the retailer's own warehouse are not.
func SplitOrder(o *Order, retailer *Organization, supply []OrderRowSupply, services [][]string, newID func() string, now time.Time) []DropshipPart {
	var parts []DropshipPart
	at := map[int64]int{}
	for i, row := range o.Rows {
		if row.SupplierID == "" {
			continue
		}
		s := supply[i]
		j, ok := at[s.SupplierOrg]
		if !ok {
			j = len(parts)
			at[s.SupplierOrg] = j
			parts = append(parts, DropshipPart{SupplierOrg: s.SupplierOrg, Shipment: newDropshipShipment(o, retailer, row.SupplierID, newID(), now)})
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

func newDropshipShipment(o *Order, retailer *Organization, supplierID, id string, now time.Time) *DropshipShipment {
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
