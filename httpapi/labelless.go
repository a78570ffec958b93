package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/parcelgate/parcelgate"
)

// codeRoutes registers the gateway's shipment data, sending code (spec
// 4.1) and errand code (interface §4.2) routes, the operator call that delivers a
// shipment, and the metric of the code space.
func (s *Server) codeRoutes() {
	s.handle("POST /{version}/shipments", s.gateway(s.createShipment))
	s.handle("GET /{version}/shipments/{trackingNumber}", s.gateway(s.getShipment))
	s.handle("POST /{version}/labelless", s.gateway(s.createSendingCode))
	s.handle("GET /{version}/labelless/{trackingNumber}", s.gateway(s.getSendingCode))
	s.handle("GET /{version}/labelless/shipment/{sendingCode}", s.gateway(s.getShipmentBySendingCode))
	for env, seg := range map[parcelgate.Environment]string{parcelgate.Production: "parcel", parcelgate.Test: "parcel-uat"} {
		s.handle("GET /"+seg+"/v1/errandCodes/{parcelId}", s.errand(env, s.getErrandCode))
		s.handle("GET /"+seg+"/v1/errandCodes", s.errand(env, s.listErrandCodes))
	}
	s.handle("POST /admin/v1/shipments/status", s.admin(s.setShipmentStatus))
	s.registerCodeMetric()
}

// registerCodeMetric exposes how full each environment's code space is
// (codemetric.go).
func (s *Server) registerCodeMetric() {
	s.reg.MustRegister(newCodeCounts(s.cfg.ActiveCodesMaxAge,
		func(ctx context.Context, env parcelgate.Environment) (int64, error) {
			return s.codes.ActiveCodes(ctx, parcelgate.EnvironmentOperator(env))
		},
		func(env parcelgate.Environment, err error) {
			s.log.Warn("counting active codes", "environment", env, "err", err)
		}))
}

// sendingCodeRequest is the body of POST /{version}/labelless (interface §4.1).
type sendingCodeRequest struct {
	SearchCriteria *struct {
		TrackingNumber string `json:"trackingNumber"`
	} `json:"searchCriteria"`
	Validation *struct {
		NoEdiCheck bool `json:"noEdiCheck"`
	} `json:"validation"`
}

// SendingCodeRecord is one element of the sending code answers: the record
// of interface §2.1 and, looked up by code, the shipment details held for it
// (decisions §5).
type SendingCodeRecord struct {
	TrackingNumber string                    `json:"trackingNumber"`
	SendingCode    string                    `json:"sendingCode"`
	CreatedAt      time.Time                 `json:"createdAt"`
	ExpiresAt      time.Time                 `json:"expiresAt"`
	Status         parcelgate.ShipmentStatus `json:"status,omitempty"`
	ServiceCode    string                    `json:"serviceCode,omitempty"`
	Sender         *PartySummary             `json:"sender,omitempty"`
	Receiver       *PartySummary             `json:"receiver,omitempty"`
	Parcels        []parcelgate.Parcel       `json:"parcels,omitempty"`
	ShipmentAt     *time.Time                `json:"shipmentCreatedAt,omitempty"`
}

// PartySummary is the part of a sender's or receiver's address a sending
// code lookup shows: enough to recognise the shipment at a counter, without
// street address or contact details.
type PartySummary struct {
	Name       string `json:"name,omitempty"`
	PostalCode string `json:"postalCode,omitempty"`
	PostOffice string `json:"postOffice,omitempty"`
	Country    string `json:"country,omitempty"`
}

// SendingCodes is the body of every sending code answer (interface §4.1).
type SendingCodes struct {
	Shipments []SendingCodeRecord `json:"shipments"`
}

func summary(a parcelgate.Address) *PartySummary {
	return &PartySummary{Name: a.Name, PostalCode: a.PostalCode, PostOffice: a.PostOffice, Country: a.Country}
}

func record(sc *parcelgate.SendingCode) SendingCodeRecord {
	rec := SendingCodeRecord{TrackingNumber: sc.TrackingNumber, SendingCode: sc.SendingCode, CreatedAt: sc.CreatedAt, ExpiresAt: sc.ExpiresAt}
	if sh := sc.Shipment; sh != nil {
		rec.Status, rec.ServiceCode, rec.Parcels = sh.Status, sh.ServiceCode, sh.Parcels
		rec.Sender, rec.Receiver = summary(sh.Sender), summary(sh.Receiver)
		rec.ShipmentAt = &sh.CreatedAt
	}
	return rec
}

// createSendingCode answers 200 with the tracking number's sending code,
// the same one on every call while it is active (interface §4.1).
func (s *Server) createSendingCode(w http.ResponseWriter, r *http.Request) error {
	var req sendingCodeRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var tn string
	if req.SearchCriteria != nil {
		tn = parcelgate.NormalizeID(req.SearchCriteria.TrackingNumber)
	}
	var p parcelgate.Problems
	parcelgate.CheckTrackingNumber(&p, "searchCriteria.trackingNumber", tn, true)
	if err := p.Err(); err != nil {
		return err
	}
	noEdiCheck := req.Validation != nil && req.Validation.NoEdiCheck
	sc, err := s.codes.CreateSendingCode(r.Context(), caller(r), tn, noEdiCheck)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}

func (s *Server) getSendingCode(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.codes.FindSendingCode(r.Context(), caller(r), r.PathValue("trackingNumber"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}

func (s *Server) getShipmentBySendingCode(w http.ResponseWriter, r *http.Request) error {
	sc, err := s.codes.FindSendingCodeByCode(r.Context(), caller(r), r.PathValue("sendingCode"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}
