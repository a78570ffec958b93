package httpapi

import (
	"context"
	"net/http"
	"strings"
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
	// Mock marks a record answered for x-test-environment: true: mock
	// data, no code held (decisions §39; the member is invented).
	Mock bool `json:"mock,omitempty"`
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

// testEnvironmentHeader asks the Sending Code API for mock data (the
// provider answers it on its production host too).
const testEnvironmentHeader = "X-Test-Environment"

// mockRequested reads x-test-environment: true asks for mock data; false
// or no header for the real thing; any other value is refused naming the
// header, since a client that sends it means one or the other.
func mockRequested(r *http.Request) (bool, error) {
	v := strings.TrimSpace(r.Header.Get(testEnvironmentHeader))
	switch strings.ToLower(v) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	var p parcelgate.Problems
	p.Add("x-test-environment", "must be true or false, not %q", v)
	return false, p.Err()
}

// writeMockCode answers a mock request (decisions §39) with the record of
// tracking number tn and sending code code, marked as mock by the mock
// member and by x-test-environment: true on the answer. byCode adds the
// mock shipment details a lookup by code shows. Nothing is read from or
// written to the store.
func (s *Server) writeMockCode(w http.ResponseWriter, r *http.Request, tn, code string, byCode bool) {
	created, expires := parcelgate.MockCodeTimes(s.now(r))
	rec := SendingCodeRecord{TrackingNumber: tn, SendingCode: code, CreatedAt: created, ExpiresAt: expires, Mock: true}
	if byCode {
		rec.Status, rec.ServiceCode = parcelgate.ShipmentCreated, parcelgate.ServiceToPickupPoint
		rec.Sender = &PartySummary{Name: "Test Sender", PostalCode: "00100", PostOffice: "HELSINKI", Country: "FI"}
		rec.Receiver = &PartySummary{Name: "Test Receiver", PostalCode: "33100", PostOffice: "TAMPERE", Country: "FI"}
		rec.Parcels = []parcelgate.Parcel{{ParcelID: tn, LockerSize: parcelgate.LockerS}}
		rec.ShipmentAt = &created
	}
	w.Header().Set(testEnvironmentHeader, "true")
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{rec}})
}

// createSendingCode answers 200 with the tracking number's sending code,
// the same one on every call while it is active (interface §4.1). With
// x-test-environment: true it answers the number's mock code.
func (s *Server) createSendingCode(w http.ResponseWriter, r *http.Request) error {
	mock, err := mockRequested(r)
	if err != nil {
		return err
	}
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
	if mock {
		s.writeMockCode(w, r, tn, parcelgate.MockSendingCode(tn), false)
		return nil
	}
	noEdiCheck := req.Validation != nil && req.Validation.NoEdiCheck
	sc, err := s.codes.CreateSendingCode(r.Context(), caller(r), tn, noEdiCheck)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}

// getSendingCode answers the tracking number's active sending code; with
// x-test-environment: true its mock code, for a well-formed number.
func (s *Server) getSendingCode(w http.ResponseWriter, r *http.Request) error {
	mock, err := mockRequested(r)
	if err != nil {
		return err
	}
	if mock {
		tn := parcelgate.NormalizeID(r.PathValue("trackingNumber"))
		var p parcelgate.Problems
		parcelgate.CheckTrackingNumber(&p, "trackingNumber", tn, true)
		if err := p.Err(); err != nil {
			return err
		}
		s.writeMockCode(w, r, tn, parcelgate.MockSendingCode(tn), false)
		return nil
	}
	sc, err := s.codes.FindSendingCode(r.Context(), caller(r), r.PathValue("trackingNumber"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}

// getShipmentBySendingCode answers the shipment an active sending code is
// for; with x-test-environment: true a mock shipment of its own for a
// well-formed code (MockTrackingNumber).
func (s *Server) getShipmentBySendingCode(w http.ResponseWriter, r *http.Request) error {
	mock, err := mockRequested(r)
	if err != nil {
		return err
	}
	if mock {
		code := parcelgate.NormalizeCode(r.PathValue("sendingCode"))
		if !parcelgate.ValidCode(code) {
			var p parcelgate.Problems
			p.Add("sendingCode", "must be 6 characters of 0-9 and A-F, not %q", code)
			return p.Err()
		}
		s.writeMockCode(w, r, parcelgate.MockTrackingNumber(code), code, true)
		return nil
	}
	sc, err := s.codes.FindSendingCodeByCode(r.Context(), caller(r), r.PathValue("sendingCode"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, SendingCodes{[]SendingCodeRecord{record(sc)}})
	return nil
}
