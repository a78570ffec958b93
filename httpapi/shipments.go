package httpapi

import (
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The shipment data (EDI) service (decisions §5): the spec's "separate
// shipment-creation service" (interface §2.2 rule 2, interface §4.2 rule 2), so that the
// sending and errand codes have real shipments behind them.

// shipmentRequest is the body of POST /{version}/shipments.
type shipmentRequest struct {
	TrackingNumber string              `json:"trackingNumber"`
	ServiceCode    string              `json:"serviceCode"`
	Sender         *parcelgate.Address `json:"sender"`
	Receiver       *parcelgate.Address `json:"receiver"`
	Parcels        []parcelRequest     `json:"parcels"`
}

type parcelRequest struct {
	ParcelID    string `json:"parcelId"`
	PackageCode string `json:"packageCode"`
	// PackageQuantity.Type is the other place shipment data carries the
	// package type code (interface §2.2 rule 2).
	PackageQuantity *struct {
		Type string `json:"type"`
	} `json:"packageQuantity"`
	Weight *float64 `json:"weight"`
	Length *float64 `json:"length"`
	Width  *float64 `json:"width"`
	Height *float64 `json:"height"`
}

// parseShipmentRequest reads a shipment registration, with every problem
// of the body's shape in one EINVALID error.
func parseShipmentRequest(r *http.Request) (*parcelgate.Shipment, error) {
	var req shipmentRequest
	if err := decodeStrict(r, &req); err != nil {
		return nil, err
	}
	var p parcelgate.Problems
	s := &parcelgate.Shipment{TrackingNumber: req.TrackingNumber, ServiceCode: req.ServiceCode}
	if req.Sender == nil {
		p.Add("sender", "is required")
	} else {
		s.Sender = *req.Sender
	}
	if req.Receiver == nil {
		p.Add("receiver", "is required")
	} else {
		s.Receiver = *req.Receiver
	}
	for i, pr := range req.Parcels {
		code := strings.TrimSpace(pr.PackageCode)
		if pr.PackageQuantity != nil {
			qt := strings.TrimSpace(pr.PackageQuantity.Type)
			if code != "" && qt != "" && !strings.EqualFold(code, qt) {
				p.AddAt(i, "parcels.packageQuantity.type", "is %q but packageCode is %q; give one, or the same in both", qt, code)
			}
			if code == "" {
				code = qt
			}
		}
		s.Parcels = append(s.Parcels, parcelgate.Parcel{ParcelID: pr.ParcelID, PackageCode: code, Weight: pr.Weight, Length: pr.Length, Width: pr.Width, Height: pr.Height})
	}
	if p.Len() > 0 {
		// Every problem at once: the shipment's own rules with the body's.
		// A body of the right shape is the service's to validate.
		p.AddFields(parcelgate.ErrorFields(s.Validate())...)
	}
	return s, p.Err()
}

// relisted is the service's refusal of a registration's fields as this
// route has always listed them: gathered in one Problems, as the body's
// own problems are (past MaxProblems, its "(more)" entry counts as one).
func relisted(err error) error {
	if fs := parcelgate.ErrorFields(err); parcelgate.ErrorCode(err) == parcelgate.EINVALID && len(fs) > 0 {
		var p parcelgate.Problems
		p.AddFields(fs...)
		return p.Err()
	}
	return err
}

// createShipment answers 201 with the stored shipment, or 200 with it when
// the same registration was made before (a retry).
func (s *Server) createShipment(w http.ResponseWriter, r *http.Request) error {
	sh, err := parseShipmentRequest(r)
	if err != nil {
		return err
	}
	created, err := s.shipments.CreateShipment(r.Context(), caller(r), sh)
	if err != nil {
		return relisted(err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, sh)
	return nil
}

func (s *Server) getShipment(w http.ResponseWriter, r *http.Request) error {
	sh, err := s.shipments.FindShipment(r.Context(), caller(r), r.PathValue("trackingNumber"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}

type deliverShipmentRequest struct {
	Environment    string `json:"environment"`
	BusinessID     string `json:"businessId"`
	TrackingNumber string `json:"trackingNumber"`
	Value          string `json:"value"`
}

// setShipmentStatus is the operator's way to deliver a shipment, which
// frees its codes (decisions §5). Delivered is the only status a shipment
// moves to.
func (s *Server) setShipmentStatus(w http.ResponseWriter, r *http.Request) error {
	var req deliverShipmentRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := operatorTarget(&p, req.Environment, req.BusinessID, "trackingNumber", req.TrackingNumber)
	if !strings.EqualFold(strings.TrimSpace(req.Value), string(parcelgate.ShipmentDelivered)) {
		p.Add("value", "must be %q, not %q", parcelgate.ShipmentDelivered, req.Value)
	}
	if err := p.Err(); err != nil {
		return err
	}
	org, err := s.orgs.FindOrganization(r.Context(), parcelgate.EnvironmentOperator(env), req.BusinessID)
	if err != nil {
		return err
	}
	sh, err := s.shipments.DeliverShipment(r.Context(), parcelgate.OperatorCaller(org), req.TrackingNumber)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sh)
	return nil
}
