package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// The Shipments API v3 of dropshipping (decisions §34): a supplier's
// service account (role supplier) polls and moves the shipments of the
// retailers' orders it ships. Every answer is the full shipment; another
// organization's shipment answers 404 exactly like a missing one.
func (s *Server) supplierShipmentRoutes() {
	if s.supplierShipments == nil {
		return
	}
	supply := parcelgate.ActionSupplyShipments
	s.handle("GET /ecommerce/v3/shipments", s.ecom(supply, s.listSupplierShipments))
	s.handle("GET /ecommerce/v3/shipments/{id}", s.ecom(supply, s.getSupplierShipment))
	s.handle("PATCH /ecommerce/v3/shipments/{id}", s.ecom(supply, s.patchSupplierShipment))
	s.handle("PUT /ecommerce/v3/shipments/{id}", s.ecom(supply, s.putSupplierShipment))
	s.handle("POST /ecommerce/v3/shipments/{id}/delivered", s.ecom(supply, s.confirmSupplierShipment))
	// The retailer's view of its suppliers' progress on one order.
	s.handle("GET /ecommerce/v3/orders/{id}/shipments", s.ecom(parcelgate.ActionReadOrders, s.orderSupplierShipments))
}

// DefaultShipmentPageSize is the page size of GET /shipments (the
// provider's example, size=20).
const DefaultShipmentPageSize = 20

func (s *Server) listSupplierShipments(w http.ResponseWriter, r *http.Request) error {
	pr, perr := parsePage(r, DefaultShipmentPageSize)
	var p parcelgate.Problems
	if perr != nil {
		p.AddFields(parcelgate.ErrorFields(perr)...)
	}
	qv := r.URL.Query()
	var q parcelgate.ShipmentQuery
	q.From, _ = parseTime(qv, "from", &p)
	if v := qv.Get("status"); v != "" {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			st, ok := parcelgate.ParseSupplyStatus(name)
			if !ok {
				p.Add("status", "%q is not a shipment status: Created, Submitted, Viewed, Picking, Packing, Shipping, Delivered, Cancelled or Error (case-sensitive)", name)
				continue
			}
			q.Statuses = append(q.Statuses, st)
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	res, err := s.supplierShipments.ListShipments(r.Context(), caller(r), q, pr)
	if err != nil {
		return err
	}
	writePage(w, newPage(s, r, pr, res))
	return nil
}

func (s *Server) getSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	sh, err := s.supplierShipments.FindShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) patchSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	u, err := readShipmentUpdate(r)
	if err != nil {
		return err
	}
	sh, err := s.supplierShipments.UpdateShipment(r.Context(), caller(r), r.PathValue("id"), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) putSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	u, err := readShipmentUpdate(r)
	if err != nil {
		return err
	}
	sh, err := s.supplierShipments.SplitShipment(r.Context(), caller(r), r.PathValue("id"), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) confirmSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	// The body, if any, says nothing the fast confirmation takes.
	if _, _, err := readOptionalTree(r); err != nil {
		return err
	}
	sh, err := s.supplierShipments.ConfirmShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

func (s *Server) orderSupplierShipments(w http.ResponseWriter, r *http.Request) error {
	list, err := s.supplierShipments.OrderShipments(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"content": list})
	return nil
}

// readShipmentUpdate reads a PATCH or PUT body: status (an object
// {"value": ...} or the bare name), externalId and consignment.parcels.
// Every other member of a full shipment sent back is ignored. Problems of
// reading name their fields, all at once.
func readShipmentUpdate(r *http.Request) (parcelgate.ShipmentUpdate, error) {
	var u parcelgate.ShipmentUpdate
	tree, err := readTree(r)
	if err != nil {
		return u, err
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return u, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a shipment or a part of one).",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonin.Reader{}
	switch st := obj["status"].(type) {
	case nil:
	case string:
		v := parcelgate.SupplyStatus(st)
		u.Status = &v
	case map[string]any:
		if v, ok := rd.OptString(st, "value", "status.value"); ok {
			sv := parcelgate.SupplyStatus(v)
			u.Status = &sv
		}
	default:
		rd.Problems.Add("status", "must be an object {\"value\": ...}, not %s", jsonin.Kind(st))
	}
	u.ExternalID = strings.TrimSpace(rd.String(obj, "externalId", "externalId"))
	if len(u.ExternalID) > 100 {
		rd.Problems.Add("externalId", "must be at most 100 characters")
	}
	if c, ok := rd.Obj(obj, "consignment", "consignment"); ok {
		if v, present := c["parcels"]; present && v != nil {
			u.HasParcels = true
			list := rd.Array(c, "parcels", "consignment.parcels")
			if len(list) > parcelgate.MaxShipmentParcels {
				rd.Problems.Add("consignment.parcels", "must hold at most %d parcels", parcelgate.MaxShipmentParcels)
				list = nil
			}
			u.Parcels = make([]parcelgate.ShipmentParcel, 0, len(list))
			for i, v := range list {
				path := fmt.Sprintf("consignment.parcels[%d]", i)
				if po, ok := rd.Object(v, path); ok {
					u.Parcels = append(u.Parcels, readParcel(rd, po, path))
				} else if v == nil {
					rd.Problems.Add(path, "must be an object")
				}
			}
		}
	}
	return u, rd.Problems.Err()
}

func readParcel(rd *jsonin.Reader, po map[string]any, path string) parcelgate.ShipmentParcel {
	p := parcelgate.ShipmentParcel{
		ParcelID:           rd.String(po, "parcelId", path+".parcelId"),
		PackageType:        rd.String(po, "packageType", path+".packageType"),
		ServiceCode:        rd.String(po, "serviceCode", path+".serviceCode"),
		DeliveryOperator:   rd.String(po, "deliveryOperator", path+".deliveryOperator"),
		PickupPointID:      rd.String(po, "pickupPointId", path+".pickupPointId"),
		RoutingServiceCode: rd.String(po, "routingServiceCode", path+".routingServiceCode"),
	}
	if len(p.PackageType) > 20 {
		rd.Problems.Add(path+".packageType", "must be at most 20 characters")
	}
	if v := po["additionalServices"]; v != nil {
		p.AdditionalServices = []parcelgate.AdditionalService{}
		for i, sv := range rd.Array(po, "additionalServices", path+".additionalServices") {
			sp := fmt.Sprintf("%s.additionalServices[%d]", path, i)
			switch sv := sv.(type) {
			case string:
				p.AdditionalServices = append(p.AdditionalServices, parcelgate.AdditionalService{ServiceCode: sv})
			case map[string]any:
				p.AdditionalServices = append(p.AdditionalServices, parcelgate.AdditionalService{ServiceCode: rd.String(sv, "serviceCode", sp+".serviceCode")})
			default:
				rd.Problems.Add(sp, "must be an object {\"serviceCode\": ...}, not %s", jsonin.Kind(sv))
			}
		}
	}
	if v := po["trackingCodes"]; v != nil {
		p.TrackingCodes = []string{}
		for i, c := range rd.Array(po, "trackingCodes", path+".trackingCodes") {
			s, ok := c.(string)
			if !ok {
				rd.Problems.Add(fmt.Sprintf("%s.trackingCodes[%d]", path, i), "must be a string, not %s", jsonin.Kind(c))
				continue
			}
			p.TrackingCodes = append(p.TrackingCodes, strings.TrimSpace(s))
		}
	}
	if v := po["rows"]; v != nil {
		p.Rows = []parcelgate.ParcelRow{}
		for i, rv := range rd.Array(po, "rows", path+".rows") {
			rp := fmt.Sprintf("%s.rows[%d]", path, i)
			ro, ok := rd.Object(rv, rp)
			if !ok {
				continue
			}
			row := parcelgate.ParcelRow{
				ExternalWarehouseID: strings.TrimSpace(rd.String(ro, "externalWarehouseId", rp+".externalWarehouseId")),
				ItemID:              rd.String(ro, "itemId", rp+".itemId"),
			}
			if q, ok := readWhole(rd, ro, "quantity", rp+".quantity"); ok {
				row.Quantity = q
			}
			if q, ok := readWhole(rd, ro, "deliveredQuantity", rp+".deliveredQuantity"); ok {
				row.DeliveredQuantity = &q
			}
			p.Rows = append(p.Rows, row)
		}
	}
	return p
}

// readWhole reads member key as a whole number from 0 to MaxRowQuantity
// (1 and 1.0 alike); absent or null is (0, false) and no problem.
func readWhole(rd *jsonin.Reader, obj map[string]any, key, path string) (parcelgate.Quantity, bool) {
	v, present := obj[key]
	if !present || v == nil {
		return 0, false
	}
	n, ok := v.(json.Number)
	if !ok {
		rd.Problems.Add(path, "must be a whole number, not %s", jsonin.Kind(v))
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 0 || f > parcelgate.MaxRowQuantity {
		rd.Problems.Add(path, "must be a whole number from 0 to %d, not %s", parcelgate.MaxRowQuantity, n)
		return 0, false
	}
	return parcelgate.Quantity(f), true
}
