package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

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
	// Each route's service decides who may act, before the input
	// (decisions §57): ask hands it what the handler could not read.
	ss := s.supplierShipments
	s.handle("GET /ecommerce/v3/shipments", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := ss.ListShipments(ctx, c, parcelgate.DropshipQuery{}, parcelgate.PageRequest{})
		return err
	}, s.listSupplierShipments))
	s.handle("GET /ecommerce/v3/shipments/{id}", s.ecomService(s.getSupplierShipment))
	s.handle("PATCH /ecommerce/v3/shipments/{id}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := ss.UpdateShipment(ctx, c, "", parcelgate.DropshipUpdate{})
		return err
	}, s.patchSupplierShipment))
	s.handle("PUT /ecommerce/v3/shipments/{id}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := ss.SplitShipment(ctx, c, "", parcelgate.DropshipUpdate{})
		return err
	}, s.putSupplierShipment))
	s.handle("POST /ecommerce/v3/shipments/{id}/delivered", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := ss.ConfirmShipment(ctx, c, "")
		return err
	}, s.confirmSupplierShipment))
	s.handle("GET /ecommerce/v3/shipments/{id}/parcels/{parcelId}/label", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := ss.FindShipment(ctx, c, "")
		return err
	}, s.supplierParcelLabel))
	s.handle("GET /ecommerce/v3/shipments/{id}/parcels/{parcelId}/note", s.ecomService(s.supplierParcelNote))
	s.handle("POST /ecommerce/v3/shipments/{id}/events", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, _, err := ss.AddShipmentEvent(ctx, c, "", parcelgate.DropshipEventInput{})
		return err
	}, s.postShipmentEvent))
	s.handle("GET /ecommerce/v3/shipments/{id}/options", s.ecomService(s.shipmentOptions))
	// The operator switches an organization's automatic supplier.
	s.handle("PUT /admin/v1/organizations/{businessId}/auto-supplier", s.admin(s.setAutoSupplier))
	s.handle("GET /admin/v1/organizations/{businessId}/auto-supplier", s.admin(s.getAutoSupplier))
	// The retailer's view of its suppliers' progress on one order.
	s.handle("GET /ecommerce/v3/orders/{id}/shipments", s.ecomService(s.orderSupplierShipments))
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
	var q parcelgate.DropshipQuery
	q.From, _ = parseTime(qv, "from", &p)
	if v := qv.Get("status"); v != "" {
		for name := range strings.SplitSeq(v, ",") {
			name = strings.TrimSpace(name)
			st, ok := parcelgate.ParseDropshipStatus(name)
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
	for i, sh := range res.Items {
		res.Items[i] = s.withParcelLinks(r, sh)
	}
	writePage(w, newPage(s, r, pr, res))
	return nil
}

// withParcelLinks is sh as its supplier reads it: each parcel with the
// links of the documents it has (parcelgate.ParcelDocuments), absolute
// under the public URL, on the routes the supplier's token opens
// (labelUrl, deliveryNoteUrl: names INVENTED, decisions §38). sh is not
// changed.
func (s *Server) withParcelLinks(r *http.Request, sh *parcelgate.DropshipShipment) *parcelgate.DropshipShipment {
	out := *sh
	out.Consignment.Parcels = slices.Clone(sh.Consignment.Parcels)
	base := s.publicURL(r) + "/ecommerce/v3/shipments/" + url.PathEscape(sh.ShipmentID) + "/parcels/"
	for i := range out.Consignment.Parcels {
		p := &out.Consignment.Parcels[i]
		label, note := parcelgate.ParcelDocuments(sh, p)
		p.LabelURL, p.DeliveryNoteURL = "", ""
		if label {
			p.LabelURL = base + url.PathEscape(p.ParcelID) + "/label"
		}
		if note {
			p.DeliveryNoteURL = base + url.PathEscape(p.ParcelID) + "/note"
		}
	}
	return &out
}

func (s *Server) getSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	sh, err := s.supplierShipments.FindShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.withParcelLinks(r, sh))
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
	writeJSON(w, http.StatusOK, s.withParcelLinks(r, sh))
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
	writeJSON(w, http.StatusOK, s.withParcelLinks(r, sh))
	return nil
}

func (s *Server) confirmSupplierShipment(w http.ResponseWriter, r *http.Request) error {
	// The body, if any, says nothing the fast confirmation takes.
	if _, _, err := readOptionalBody(r); err != nil {
		return err
	}
	sh, err := s.supplierShipments.ConfirmShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.withParcelLinks(r, sh))
	return nil
}

// eventBody is a supplier's event (parcelgate.DropshipEvent; INVENTED,
// decisions §38), read leniently as the other shipment bodies are.
type eventBody struct {
	ExternalID  jsonin.Text `json:"externalId"`
	Code        jsonin.Text `json:"code"`
	Description jsonin.Text `json:"description"`
	ParcelID    jsonin.Text `json:"parcelId"`
	Location    jsonin.Text `json:"location"`
	Timestamp   jsonin.Text `json:"timestamp"`
}

// postShipmentEvent keeps a supplier's event on its shipment and answers
// the shipment, 201 for a new event, 200 for a retry (decisions §38).
func (s *Server) postShipmentEvent(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var ob jsonin.Object[eventBody]
	if err := jsonin.DecodeLenient(body, &ob); err != nil {
		return err
	}
	if !ob.Set {
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (an event).",
			Fields: []parcelgate.FieldError{{Field: jsonin.BodyPath, Message: "must be an object"}}}
	}
	var p parcelgate.Problems
	jsonin.Problems(&ob, jsonin.BodyPath, &p)
	b := &ob.V
	in := parcelgate.DropshipEventInput{ExternalID: b.ExternalID.V, Code: b.Code.V, Description: b.Description.V, ParcelID: b.ParcelID.V, Location: b.Location.V}
	if v := strings.TrimSpace(b.Timestamp.V); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			p.Add("timestamp", "must be an ISO 8601 time with its offset (2026-01-01T12:00:00Z), not %q", v)
		}
		in.Timestamp = t
	}
	if err := p.Err(); err != nil {
		return err
	}
	sh, added, err := s.supplierShipments.AddShipmentEvent(r.Context(), caller(r), r.PathValue("id"), in)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if !added {
		status = http.StatusOK // a retry: the event was kept before
	}
	writeJSON(w, status, s.withParcelLinks(r, sh))
	return nil
}

// shipmentOptions answers the delivery options of the caller's shipment
// (parcelgate.OptionsOf; INVENTED, decisions §38).
func (s *Server) shipmentOptions(w http.ResponseWriter, r *http.Request) error {
	sh, err := s.supplierShipments.FindShipment(r.Context(), caller(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, parcelgate.OptionsOf(sh))
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

// The body of a PATCH or PUT of a shipment, read leniently as order bodies
// are (jsonin's lenient types): status (an object {"value": ...} or the
// bare name), externalId and consignment.parcels. Every other member of a
// full shipment sent back is ignored. Problems of reading name their
// fields, all at once.
type shipmentBody struct {
	Status      shipmentStatusBody `json:"status"`
	ExternalID  jsonin.Text        `json:"externalId"`
	Consignment jsonin.Object[struct {
		Parcels jsonin.Array[jsonin.Object[parcelBody]] `json:"parcels"`
	}] `json:"consignment"`
}

type parcelBody struct {
	ParcelID           jsonin.Text `json:"parcelId"`
	PackageType        jsonin.Text `json:"packageType"`
	ServiceCode        jsonin.Text `json:"serviceCode"`
	DeliveryOperator   jsonin.Text `json:"deliveryOperator"`
	PickupPointID      jsonin.Text `json:"pickupPointId"`
	RoutingServiceCode jsonin.Text `json:"routingServiceCode"`
	AdditionalServices jsonin.Array[jsonin.Object[struct {
		ServiceCode jsonin.Text `json:"serviceCode"`
	}]] `json:"additionalServices"`
	TrackingCodes jsonin.Array[jsonin.String]                `json:"trackingCodes"`
	Rows          jsonin.Array[jsonin.Object[parcelRowBody]] `json:"rows"`
}

type parcelRowBody struct {
	ExternalWarehouseID jsonin.Text `json:"externalWarehouseId"`
	ItemID              jsonin.Text `json:"itemId"`
	Quantity            wholeNumber `json:"quantity"`
	DeliveredQuantity   wholeNumber `json:"deliveredQuantity"`
}

// shipmentStatusBody is status: {"value": "Viewed"} or "Viewed".
type shipmentStatusBody struct {
	value   string
	set     bool
	problem string
}

func (s *shipmentStatusBody) UnmarshalJSON(b []byte) error {
	*s = shipmentStatusBody{}
	switch b[0] {
	case 'n':
	case '"':
		s.set = true
		return json.Unmarshal(b, &s.value)
	case '{':
		var v struct {
			Value jsonin.Text `json:"value"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		s.value, s.set = v.Value.V, v.Value.Set
		if p := v.Value.Problem(); p != "" {
			s.problem = "value " + p
		}
	default:
		s.problem = "must be an object {\"value\": ...}, not " + jsonin.Kind(b)
	}
	return nil
}

func (s *shipmentStatusBody) Problem() string { return s.problem }

// wholeNumber is a quantity of a parcel's row: a whole number from 0 to
// MaxRowQuantity (1 and 1.0 alike); absent or null is not given.
type wholeNumber struct {
	n       int64
	set     bool
	problem string
}

func (q *wholeNumber) UnmarshalJSON(b []byte) error {
	*q = wholeNumber{}
	switch {
	case b[0] == 'n':
	case b[0] != '-' && (b[0] < '0' || b[0] > '9'):
		q.problem = "must be a whole number, not " + jsonin.Kind(b)
	default:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 0 || f > parcelgate.MaxRowQuantity {
			q.problem = fmt.Sprintf("must be a whole number from 0 to %d, not %s", parcelgate.MaxRowQuantity, b)
			return nil
		}
		q.n, q.set = int64(f), true
	}
	return nil
}

func (q *wholeNumber) Problem() string { return q.problem }

// readShipmentUpdate reads a PATCH or PUT body (shipmentBody).
func readShipmentUpdate(r *http.Request) (parcelgate.DropshipUpdate, error) {
	var u parcelgate.DropshipUpdate
	body, err := readBody(r)
	if err != nil {
		return u, err
	}
	var ob jsonin.Object[shipmentBody]
	if err := jsonin.DecodeLenient(body, &ob); err != nil {
		return u, err
	}
	if !ob.Set {
		return u, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a shipment or a part of one).",
			Fields: []parcelgate.FieldError{{Field: jsonin.BodyPath, Message: "must be an object"}}}
	}
	var p parcelgate.Problems
	jsonin.Problems(&ob, jsonin.BodyPath, &p)
	sb := &ob.V
	if sb.Status.set {
		st := parcelgate.DropshipStatus(sb.Status.value)
		u.Status = &st
	}
	u.ExternalID = strings.TrimSpace(sb.ExternalID.V)
	if len(u.ExternalID) > 100 {
		p.Add("externalId", "must be at most 100 characters")
	}
	if parcels := sb.Consignment.V.Parcels; parcels.Set {
		u.HasParcels = true
		if len(parcels.V) > parcelgate.MaxShipmentParcels {
			p.Add("consignment.parcels", "must hold at most %d parcels", parcelgate.MaxShipmentParcels)
			return u, p.Err()
		}
		u.Parcels = []parcelgate.ConsignmentParcel{}
		for i, po := range parcels.V {
			if !po.Set {
				continue // a problem of its own (jsonin.Object)
			}
			u.Parcels = append(u.Parcels, readParcel(&p, &po.V, fmt.Sprintf("consignment.parcels[%d]", i)))
		}
	}
	return u, p.Err()
}

func readParcel(p *parcelgate.Problems, po *parcelBody, path string) parcelgate.ConsignmentParcel {
	out := parcelgate.ConsignmentParcel{ParcelID: po.ParcelID.V, PackageType: strings.TrimSpace(po.PackageType.V), ServiceCode: po.ServiceCode.V,
		DeliveryOperator: po.DeliveryOperator.V, PickupPointID: po.PickupPointID.V, RoutingServiceCode: po.RoutingServiceCode.V}
	if len(out.PackageType) > 20 {
		p.Add(path+".packageType", "must be at most 20 characters")
	}
	if po.AdditionalServices.Set {
		out.AdditionalServices = []parcelgate.AdditionalService{}
		for _, a := range po.AdditionalServices.V {
			if a.Set {
				out.AdditionalServices = append(out.AdditionalServices, parcelgate.AdditionalService{ServiceCode: a.V.ServiceCode.V})
			}
		}
	}
	if po.TrackingCodes.Set {
		out.TrackingCodes = []string{}
		for _, c := range po.TrackingCodes.V {
			if c.Set {
				out.TrackingCodes = append(out.TrackingCodes, strings.TrimSpace(c.V))
			}
		}
	}
	if po.Rows.Set {
		out.Rows = []parcelgate.ConsignmentParcelRow{}
		for _, ro := range po.Rows.V {
			if !ro.Set {
				continue
			}
			row := parcelgate.ConsignmentParcelRow{ExternalWarehouseID: strings.TrimSpace(ro.V.ExternalWarehouseID.V), ItemID: ro.V.ItemID.V, Quantity: parcelgate.Quantity(ro.V.Quantity.n)}
			if ro.V.DeliveredQuantity.set {
				q := parcelgate.Quantity(ro.V.DeliveredQuantity.n)
				row.DeliveredQuantity = &q
			}
			out.Rows = append(out.Rows, row)
		}
	}
	return out
}

// supplierParcel is the caller's shipment of the path and its parcel
// parcelId.
func (s *Server) supplierParcel(r *http.Request) (*parcelgate.DropshipShipment, *parcelgate.ConsignmentParcel, error) {
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
		row := parcelgate.ConsignmentRow{}
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
	// A setting out of bounds is refused before the organization is
	// looked up, as it always was (400 before 404).
	if err := a.Validate(); err != nil {
		return err
	}
	c, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	out, err := s.supplierShipments.SetAutoSupplier(r.Context(), c, a)
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
	c, err := s.operatorIn(r, env)
	if err != nil {
		return err
	}
	out, err := s.supplierShipments.AutoSupplierOf(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
