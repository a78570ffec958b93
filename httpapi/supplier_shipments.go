package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
	"github.com/parcelgate/parcelgate/label"
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
	s.handle("GET /ecommerce/v3/shipments/{id}/parcels/{parcelId}/label", s.ecom(supply, s.supplierParcelLabel))
	s.handle("GET /ecommerce/v3/shipments/{id}/parcels/{parcelId}/note", s.ecom(supply, s.supplierParcelNote))
	// The operator switches an organization's automatic supplier.
	s.handle("PUT /admin/v1/organizations/{businessId}/auto-supplier", s.admin(s.setAutoSupplier))
	s.handle("GET /admin/v1/organizations/{businessId}/auto-supplier", s.admin(s.getAutoSupplier))
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

// supplierParcel is the caller's shipment of the path and its parcel
// parcelId.
func (s *Server) supplierParcel(r *http.Request) (*parcelgate.SupplierShipment, *parcelgate.ShipmentParcel, error) {
	sh, err := s.supplierShipments.FindShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return nil, nil, err
	}
	p, err := parcelgate.ShipmentParcelOf(sh, r.PathValue("parcelId"))
	return sh, p, err
}

// supplierParcelLabel answers the parcel's address label, a PDF with one
// label per tracking code, for the medium of ?media= (laser-a5 when
// absent): only for codes the platform made (parcelgate.LabelDecision).
func (s *Server) supplierParcelLabel(w http.ResponseWriter, r *http.Request) error {
	media := label.LaserA5
	if v := r.URL.Query().Get("media"); v != "" {
		m, ok := label.ParseMedia(v)
		if !ok {
			return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: media is not a print medium.",
				Fields: []parcelgate.FieldError{{Field: "media", Message: fmt.Sprintf("must be one of laser-a5, laser-a4, laser-2a5, thermo-225, thermo-190, not %q", v)}}}
		}
		media = m
	}
	sh, p, err := s.supplierParcel(r)
	if err != nil {
		return err
	}
	if err := parcelgate.LabelDecision(sh, p); err != nil {
		return err
	}
	c := sh.Consignment
	var services []string
	for _, a := range p.AdditionalServices {
		services = append(services, a.ServiceCode)
	}
	labels := make([]label.Parcel, len(p.TrackingCodes))
	for i, code := range p.TrackingCodes {
		labels[i] = label.Parcel{TrackingNumber: code, ServiceCode: p.ServiceCode, AdditionalServices: services,
			Sender: labelParty(c.Sender), Receiver: labelParty(&c.DeliveryAddress), PickupPointID: p.PickupPointID,
			Reference: c.Reference, Date: sh.Status.Timestamp}
	}
	var buf bytes.Buffer
	if err := label.Render(&buf, media, labels); err != nil {
		return err
	}
	writePDF(w, buf.Bytes())
	return nil
}

// supplierParcelNote answers the parcel's delivery note (packing slip), a
// PDF: its rows with the ordered and the delivered quantities, and its
// tracking codes. Every parcel has one, whoever made its codes.
func (s *Server) supplierParcelNote(w http.ResponseWriter, r *http.Request) error {
	sh, p, err := s.supplierParcel(r)
	if err != nil {
		return err
	}
	c := sh.Consignment
	n := label.Note{Title: "Delivery note", OrderNumber: c.Reference, ShipmentID: sh.ShipmentID, Sender: labelParty(c.Sender),
		Receiver: labelParty(c.Client), DeliveryAddress: new(labelParty(&c.DeliveryAddress)), ServiceCode: p.ServiceCode,
		TrackingNumbers: p.TrackingCodes, Date: sh.Status.Timestamp}
	if c.Client == nil {
		n.Receiver = labelParty(&c.DeliveryAddress)
	}
	for _, pr := range p.Rows {
		row := parcelgate.ShipmentRow{}
		for _, sr := range c.Rows {
			if sr.ItemID == pr.ItemID {
				row = sr
			}
		}
		var delivered float64
		if pr.DeliveredQuantity != nil {
			delivered = float64(*pr.DeliveredQuantity)
		}
		n.Rows = append(n.Rows, label.NoteRow{ItemID: pr.ItemID, EAN: row.ProductEANCode, Description: row.ProductDescription, Ordered: float64(pr.Quantity), Delivered: delivered})
	}
	var buf bytes.Buffer
	if err := label.DeliveryNote(&buf, n); err != nil {
		return err
	}
	writePDF(w, buf.Bytes())
	return nil
}

func labelParty(a *parcelgate.Address) label.Party {
	if a == nil {
		return label.Party{}
	}
	return label.Party{Name: a.Name, Address1: a.StreetAddress, Zipcode: a.PostalCode, City: a.PostOffice, Country: a.Country, Phone: a.Telephone, Email: a.Email}
}

func writePDF(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// setAutoSupplier switches the automatic supplier of the organization of
// the path in ?environment= (decisions §34): {"enabled": true,
// "delaySeconds": 60}.
func (s *Server) setAutoSupplier(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	var a parcelgate.AutoSupplier
	if err := decodeStrict(r, &a); err != nil {
		return err
	}
	out, err := s.supplierShipments.SetAutoSupplier(r.Context(), env, r.PathValue("businessId"), a)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) getAutoSupplier(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	out, err := s.supplierShipments.AutoSupplierOf(r.Context(), env, r.PathValue("businessId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
