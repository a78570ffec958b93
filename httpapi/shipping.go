package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/label"
)

// The shipping API (decisions §29): the provider's shipment-creation
// service. A shipment in, parcel numbers and address labels out; the
// shipment is the shipment data (EDI) sending and errand codes need.
// POST /shippingapi/api/v2/shipping/order takes a gateway Bearer token
// (its targets list shippingapi); the legacy v1 form takes the same token
// bare in Authorization, the raw key the v1 API took.

// shippingRoutes registers the shipping API's routes.
func (s *Server) shippingRoutes() {
	s.handle("POST /shippingapi/api/v2/shipping/order", s.shippingAPI(false, s.createShippingOrder(false)))
	s.handle("GET /shippingapi/api/v2/shipping/label/{number}", s.shippingAPI(false, s.getShippingLabel))
	s.handle("POST /shippingapi/api/v1/shipping/order", s.shippingAPI(true, s.createShippingOrder(true)))
	s.handle("GET /shippingapi/api/v1/shipping/label/{number}", s.shippingAPI(true, s.getShippingLabel))
}

// shippingAPI wraps a shipping API handler: a gateway token, as a Bearer
// token (v2) or bare in Authorization (v1, where a Bearer token is taken
// too), answered in the gateway's error shape.
func (s *Server) shippingAPI(legacy bool, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if legacy {
			if raw := strings.TrimSpace(r.Header.Get("Authorization")); raw != "" && !strings.Contains(raw, " ") {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+raw)
			}
		}
		c, fail := s.authenticate(r, parcelgate.KindGateway)
		if fail != nil {
			s.refuse(w, r, gatewaySurface, fail)
			return
		}
		s.serve(w, withCaller(r, c), gatewaySurface, h)
	})
}

// shippingOrderRequest is the body of the shipping API (the provider's
// field names; unknown fields are accepted and ignored, as the provider
// does).
type shippingOrderRequest struct {
	PrintConfig *struct {
		Target1Media string `json:"target1Media"`
	} `json:"printConfig"`
	// PdfConfig is v1's name for printConfig.
	PdfConfig *struct {
		Target1Media string `json:"target1Media"`
	} `json:"pdfConfig"`
	Shipment *struct {
		SenderPartners []struct {
			ID     string `json:"id"`
			CustNo string `json:"custNo"`
		} `json:"senderPartners"`
		Sender   *shippingParty `json:"sender"`
		Receiver *shippingParty `json:"receiver"`
		Agent    *struct {
			QuickID string `json:"quickId"`
		} `json:"agent"`
		Service *struct {
			ID     string `json:"id"`
			Addons []struct {
				ID string `json:"id"`
			} `json:"addons"`
		} `json:"service"`
		OrderNo   string           `json:"orderNo"`
		SenderRef string           `json:"senderReference"`
		Parcels   []shippingParcel `json:"parcels"`
	} `json:"shipment"`
}

type shippingParty struct {
	Name     string `json:"name"`
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	Zipcode  string `json:"zipcode"`
	City     string `json:"city"`
	Country  string `json:"country"`
	Phone    string `json:"phone"`
	Mobile   string `json:"mobile"`
	Email    string `json:"email"`
}

// address is the party as parcelgate's address: address2 follows address1
// on the street line; the phone is the mobile number when no phone is
// given.
func (p *shippingParty) address() parcelgate.Address {
	street := strings.TrimSpace(p.Address1)
	if a2 := strings.TrimSpace(p.Address2); a2 != "" {
		street = strings.TrimSpace(street + ", " + a2)
	}
	phone := p.Phone
	if strings.TrimSpace(phone) == "" {
		phone = p.Mobile
	}
	return parcelgate.Address{Name: p.Name, StreetAddress: street, PostalCode: p.Zipcode, PostOffice: p.City, Country: p.Country, Telephone: phone, Email: p.Email}
}

// shippingParcel is one parcels[] entry: copies of one parcel, weight in
// kg, dimensions in cm.
type shippingParcel struct {
	Copies         *int     `json:"copies"`
	Weight         *float64 `json:"weight"`
	PackageCode    string   `json:"packageCode"`
	Contents       string   `json:"contents"`
	ValuePerParcel *bool    `json:"valuePerParcel"`
	Length         *float64 `json:"length"`
	Width          *float64 `json:"width"`
	Height         *float64 `json:"height"`
}

// ShippingOrderAnswer is one element of the shipping API's answer array.
type ShippingOrderAnswer struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	ShipmentNo string          `json:"shipmentNo"`
	Parcels    []ShippingNo    `json:"parcels"`
	Prints     []ShippingPrint `json:"prints,omitempty"`
	// Pdfs is v1's name for prints.
	Pdfs []ShippingPrint `json:"pdfs,omitempty"`
}

// ShippingNo is one parcel of the answer: its tracking number.
type ShippingNo struct {
	ParcelNo string `json:"parcelNo"`
}

// ShippingPrint is one printable document of the answer. Data (v2) or Pdf
// (v1) holds the PDF in base64 when returnFile=true.
type ShippingPrint struct {
	ID          string `json:"id"`
	Href        string `json:"href"`
	Description string `json:"description"`
	Media       string `json:"media"`
	PdfType     string `json:"pdf_type"`
	Data        string `json:"data,omitempty"`
	Pdf         string `json:"pdf,omitempty"`
}

// parseShippingOrder reads the provider's body into shipment data, with
// every problem of its shape in one EINVALID error naming the provider's
// fields. The shipment's own rules, its route and its pick-up point are
// the shipment service's (Shipment.ValidateShippingOrder): the point the
// sender named (agent.quickId) is handed on in PickupPointID.
func parseShippingOrder(r *http.Request, legacy bool) (*parcelgate.Shipment, label.Media, error) {
	var req shippingOrderRequest
	if err := decodeLenient(r, &req); err != nil {
		return nil, "", err
	}
	var p parcelgate.Problems
	media := label.LaserA5
	pc, pcField := req.PrintConfig, "printConfig.target1Media"
	if legacy && pc == nil {
		pc, pcField = req.PdfConfig, "pdfConfig.target1Media"
	}
	if pc != nil && strings.TrimSpace(pc.Target1Media) != "" {
		m, ok := label.ParseMedia(pc.Target1Media)
		if !ok {
			p.Add(pcField, "must be one of %s, not %q", label.MediaNames(), pc.Target1Media)
		}
		media = m
	}
	sh := req.Shipment
	if sh == nil {
		p.Add("shipment", "is required")
		return nil, "", p.Err()
	}
	out := &parcelgate.Shipment{PrintMedia: string(media), Reference: strings.TrimSpace(sh.OrderNo)}
	if out.Reference == "" {
		out.Reference = strings.TrimSpace(sh.SenderRef)
	}
	for _, sp := range sh.SenderPartners {
		if strings.EqualFold(strings.TrimSpace(sp.ID), "POSTI") {
			out.ContractNumber = strings.TrimSpace(sp.CustNo)
		}
	}
	if sh.Sender == nil {
		p.Add("shipment.sender", "is required")
	} else {
		out.Sender = sh.Sender.address()
	}
	if sh.Receiver == nil {
		p.Add("shipment.receiver", "is required")
	} else {
		out.Receiver = sh.Receiver.address()
	}
	if sh.Service == nil {
		p.Add("shipment.service.id", "is required")
	} else {
		prod, serviceOK := parcelgate.ParseShippingServiceID(&p, "shipment.service.id", sh.Service.ID)
		out.ServiceCode = prod.Code
		if serviceOK {
			addons := make([]string, len(sh.Service.Addons))
			for i, a := range sh.Service.Addons {
				addons[i] = a.ID
			}
			out.AdditionalServices = parcelgate.CheckAdditionalServices(&p, "shipment.service.addons.id", prod, addons)
		}
	}
	total := 0
	switch {
	case len(sh.Parcels) == 0:
		p.Add("shipment.parcels", "at least one parcel is required")
	case len(sh.Parcels) > parcelgate.MaxParcelsPerShipment:
		p.Add("shipment.parcels", "at most %d entries, not %d", parcelgate.MaxParcelsPerShipment, len(sh.Parcels))
	}
	for i, sp := range sh.Parcels {
		if i >= parcelgate.MaxParcelsPerShipment {
			break
		}
		copies := 1
		if sp.Copies != nil {
			copies = *sp.Copies
		}
		if copies < 1 || copies > parcelgate.MaxParcelsPerShipment {
			p.AddAt(i, "shipment.parcels.copies", "must be 1 to %d, not %d", parcelgate.MaxParcelsPerShipment, copies)
			continue
		}
		if total += copies; total > parcelgate.MaxParcelsPerShipment {
			p.AddAt(i, "shipment.parcels.copies", "the shipment's parcels come to more than %d", parcelgate.MaxParcelsPerShipment)
			break
		}
		for range copies {
			out.Parcels = append(out.Parcels, parcelgate.Parcel{PackageCode: sp.PackageCode, Weight: sp.Weight, Length: sp.Length, Width: sp.Width, Height: sp.Height, Contents: sp.Contents})
		}
	}
	if p.Len() > 0 {
		return nil, "", p.Err()
	}
	if sh.Agent != nil {
		out.PickupPointID = sh.Agent.QuickID
	}
	return out, media, nil
}

// decodeLenient reads a JSON body into v, accepting unknown fields (the
// shipping API ignores them), through jsonin's limits.
func decodeLenient(r *http.Request, v any) error {
	if err := requireJSON(r, true); err != nil {
		return err
	}
	raw, err := readBody(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			var p parcelgate.Problems
			p.Add(te.Field, "must be a %s, not a JSON %s", te.Type.Kind(), te.Value)
			return p.Err()
		}
		return parcelgate.Errorf(parcelgate.EINVALID, "The body does not have the shipping API's shape: %s", err.Error())
	}
	return nil
}

// createShippingOrder answers 200 with one element: the shipment's parcel
// numbers and its labels, inline with returnFile=true; legacy is v1's
// shape.
func (s *Server) createShippingOrder(legacy bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.shippingOrder(w, r, legacy)
	}
}

func (s *Server) shippingOrder(w http.ResponseWriter, r *http.Request, legacy bool) error {
	var returnFile bool
	if v := r.URL.Query().Get("returnFile"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			var p parcelgate.Problems
			p.Add("returnFile", "must be true or false, not %q", v)
			return p.Err()
		}
		returnFile = b
	}
	sh, media, err := parseShippingOrder(r, legacy)
	if err != nil {
		return err
	}
	if err := s.shipments.CreateShippingOrder(r.Context(), caller(r), sh); err != nil {
		return err
	}
	ans := ShippingOrderAnswer{ID: sh.TrackingNumber, Status: "PRINTED", ShipmentNo: sh.TrackingNumber}
	for _, p := range sh.Parcels {
		ans.Parcels = append(ans.Parcels, ShippingNo{ParcelNo: p.ParcelID})
	}
	pr := ShippingPrint{
		ID: "ADDRESSLABEL-" + sh.TrackingNumber, Href: s.labelHref(r, legacy, sh.TrackingNumber, media),
		Description: "Address labels", Media: string(media), PdfType: "ADDRESSLABEL",
	}
	if returnFile {
		pdf, err := s.renderLabels(r, sh, media)
		if err != nil {
			return err
		}
		enc := base64.StdEncoding.EncodeToString(pdf)
		if legacy {
			pr.Pdf = enc
		} else {
			pr.Data = enc
		}
	}
	if legacy {
		ans.Pdfs = []ShippingPrint{pr}
	} else {
		ans.Prints = []ShippingPrint{pr}
	}
	writeJSON(w, http.StatusOK, []ShippingOrderAnswer{ans})
	return nil
}

func (s *Server) labelHref(r *http.Request, legacy bool, number string, media label.Media) string {
	v := "v2"
	if legacy {
		v = "v1"
	}
	return s.publicURL(r) + "/shippingapi/api/" + v + "/shipping/label/" + url.PathEscape(number) + "?media=" + url.QueryEscape(string(media))
}

// getShippingLabel serves the address labels of the caller's shipment (by
// its number or one of its parcels') as a PDF, in the medium asked for
// (media), else the one the shipment was made with. Codes the parcels hold
// by now are printed on them.
func (s *Server) getShippingLabel(w http.ResponseWriter, r *http.Request) error {
	sh, err := s.shipments.FindShippingOrder(r.Context(), caller(r), r.PathValue("number"))
	if err != nil {
		return err
	}
	media, ok := label.ParseMedia(sh.PrintMedia)
	if !ok {
		media = label.LaserA5
	}
	if v := r.URL.Query().Get("media"); v != "" {
		if media, ok = label.ParseMedia(v); !ok {
			var p parcelgate.Problems
			p.Add("media", "must be one of %s, not %q", label.MediaNames(), v)
			return p.Err()
		}
	}
	pdf, err := s.renderLabels(r, sh, media)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf("inline; filename=%q", sh.TrackingNumber+".pdf"))
	w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(pdf)
	return err
}

// renderLabels renders the labels of every parcel of sh with the codes its
// parcels hold now.
func (s *Server) renderLabels(r *http.Request, sh *parcelgate.Shipment, media label.Media) ([]byte, error) {
	codes, err := s.shipments.ShipmentCodes(r.Context(), caller(r), sh.TrackingNumber)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := label.Render(&buf, media, label.FromShipment(sh, codes, s.pickupPointOf(sh))); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
