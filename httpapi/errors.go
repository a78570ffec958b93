package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// surface selects the error body shape of a route.
type surface int

const (
	// gatewaySurface: sending codes, shipment data, errand codes, pick-up
	// points, estimates (decisions §5, §32): {"errorCode","message","details"}.
	gatewaySurface surface = iota
	// ecomSurface: orders, products, catalogs, the ecom token service and the
	// operator API (decisions §8): {"timestamp","status","error","message","path","errors"}.
	ecomSurface
)

// surfaceOf tells which error shape a path's surface uses, for answers given
// before any route is chosen (404, 405, 413, panics).
func surfaceOf(path string) surface {
	for _, p := range []string{"/ecommerce/", "/v3/", "/auth/", "/oauth/", "/admin/"} {
		if strings.HasPrefix(path, p) {
			return ecomSurface
		}
	}
	return gatewaySurface
}

// gatewayCode is the errorCode of the gateway error body for a status.
func gatewayCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "VALIDATION_ERROR"
	case http.StatusUnauthorized:
		return "UNAUTHORIZED"
	case http.StatusForbidden:
		return "FORBIDDEN"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		return "METHOD_NOT_ALLOWED"
	case http.StatusConflict:
		return "CONFLICT"
	case http.StatusRequestEntityTooLarge:
		return "PAYLOAD_TOO_LARGE"
	case http.StatusUnsupportedMediaType:
		return "UNSUPPORTED_MEDIA_TYPE"
	case http.StatusTooManyRequests:
		return "TOO_MANY_REQUESTS"
	case http.StatusRequestHeaderFieldsTooLarge:
		return "REQUEST_HEADER_FIELDS_TOO_LARGE"
	case http.StatusServiceUnavailable:
		return "SERVICE_UNAVAILABLE"
	}
	return "INTERNAL_SERVER_ERROR"
}

// GatewayError is the error body of every gateway route (decisions §5,
// §32), the provider's: {"errorCode","message","details"}, all three keys
// always present, details null when no field is at fault. The codes:
// UNAUTHORIZED (401, no token), EXPIRED and INVALID_TOKEN (401),
// FORBIDDEN (403, a token whose targets lack the API or version),
// VALIDATION_ERROR (400, a body or parameter against the schema, an
// unknown field among them), JSON_DECODE_ERROR (400, no JSON),
// MISSING_HEADER (400, a required header absent), NOT_FOUND (404), and
// INTERNAL_SERVER_ERROR (500); the rest by status (gatewayCode).
type GatewayError struct {
	ErrorCode string                  `json:"errorCode"`
	Message   string                  `json:"message"`
	Details   []parcelgate.FieldError `json:"details"`
}

// EcomError is the error body of the ecom surfaces and the operator API
// (decisions §8).
type EcomError struct {
	Timestamp string                  `json:"timestamp"`
	Status    int                     `json:"status"`
	Error     string                  `json:"error"`
	Message   string                  `json:"message"`
	Path      string                  `json:"path"`
	Errors    []parcelgate.FieldError `json:"errors,omitempty"`
}

// decodeError marks a body that is not valid JSON for its target, so the
// gateway can answer JSON_DECODE_ERROR rather than VALIDATION_ERROR.
type decodeError struct{ err *parcelgate.Error }

func (e decodeError) Error() string { return e.err.Error() }
func (e decodeError) Unwrap() error { return e.err }

// writeError answers err in the shape of surface sf. Internal errors are
// logged with the request ID and answered without their cause.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, sf surface, err error) {
	err = s.unavailable(w, err)
	code := parcelgate.ErrorCode(err)
	status := parcelgate.ErrorStatus(err) // the console's mapping too
	msg := parcelgate.ErrorMessage(err)
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", slog.String("request_id", requestID(r.Context())), slog.String("path", r.URL.Path), slog.Any("err", err))
		if code == parcelgate.EINTERNAL {
			msg = "Internal error; the request ID is " + requestID(r.Context()) + "."
		}
	}
	if _, ok := errors.AsType[decodeError](err); ok && sf == gatewaySurface {
		s.writeErrorBody(w, r, sf, status, "JSON_DECODE_ERROR", msg, parcelgate.ErrorFields(err))
		return
	}
	if _, ok := errors.AsType[missingHeader](err); ok && sf == gatewaySurface {
		s.writeErrorBody(w, r, sf, http.StatusBadRequest, "MISSING_HEADER", msg, nil)
		return
	}
	s.writeErrorBody(w, r, sf, status, "", msg, parcelgate.ErrorFields(err))
}

// writeGatewayError answers err in the gateway's error shape: the one
// writer of every gateway route's errors (sending codes, pick-up points,
// estimates, shipping), whatever wrapper serves it.
func (s *Server) writeGatewayError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeError(w, r, gatewaySurface, err)
}

// writeErrorBody writes an error body; gwCode overrides the gateway
// errorCode that status implies.
func (s *Server) writeErrorBody(w http.ResponseWriter, r *http.Request, sf surface, status int, gwCode, msg string, fields []parcelgate.FieldError) {
	if sf == gatewaySurface {
		if gwCode == "" {
			gwCode = gatewayCode(status)
		}
		writeJSON(w, status, GatewayError{ErrorCode: gwCode, Message: msg, Details: fields})
		return
	}
	writeJSON(w, status, EcomError{
		Timestamp: parcelgate.FormatStamp(s.now(r)),
		Status:    status,
		Error:     http.StatusText(status),
		Message:   msg,
		Path:      r.URL.Path,
		Errors:    fields,
	})
}

// writeJSON writes v as the JSON body with status.
// Bodies are encoded whole before the status is written, so an encoding
// failure can still be answered as a 500. HTML escaping is off: '&' in a
// link is '&', not \u0026.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := encodeJSON(v)
	writeEncoded(w, status, body, err)
}

// writeEncoded writes a body encoded for the answer, or a 500 when encoding
// it failed.
func writeEncoded(w http.ResponseWriter, status int, body []byte, err error) {
	if err != nil {
		http.Error(w, `{"message":"response encoding failed"}`, http.StatusInternalServerError)
		return
	}
	writeBody(w, status, body)
}

// encodeJSON is v as writeJSON answers it.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeBody writes a JSON body already encoded by encodeJSON.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// writeAnswer is writeBody of an answer the store hands out to every
// request that reuses it (FindOrderAnswer): shared, so never written
// after it is made, and the request journal may keep it by reference
// instead of copying it (recorder.writeShared).
func writeAnswer(w http.ResponseWriter, status int, body []byte) {
	rec, ok := w.(*recorder)
	if !ok {
		writeBody(w, status, body)
		return
	}
	rec.Header()["Content-Type"] = jsonContentType[:1:1] // Set, shared
	rec.WriteHeader(status)
	rec.writeShared(body)
}
