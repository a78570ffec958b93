package httpapi

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The errand code API (interface §4.2) under /parcel/v1 (production) and
// /parcel-uat/v1 (test); the wrapper checks that the token's environment is
// the path's (decisions §3).

// ErrandCodes is the body of both errand code answers (interface §2.2).
type ErrandCodes struct {
	ErrandCodeResult []parcelgate.ErrandCodeResult `json:"ErrandCodeResult"`
}

// getErrandCode answers one parcel: 200 with its code; 400 in the gateway
// error shape when the ID is malformed; 404 with the result body, whose
// ResultText says why, when the caller has no shipment data for the parcel
// or the shipment has been delivered.
func (s *Server) getErrandCode(w http.ResponseWriter, r *http.Request) error {
	id := strings.TrimSpace(r.PathValue("parcelId"))
	if !parcelgate.ValidParcelID(parcelgate.NormalizeID(id)) {
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: fmt.Sprintf("Parcel ID %q is not 12-21 characters of A-Z and 0-9.", id),
			Fields: []parcelgate.FieldError{{Field: "parcelId", Message: "must be 12-21 characters of A-Z and 0-9"}}}
	}
	res, err := s.codes.ErrandCodes(r.Context(), caller(r), []string{id})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res[0].ResultText != parcelgate.ResultOK {
		status = http.StatusNotFound
	}
	writeJSON(w, status, ErrandCodes{res})
	return nil
}

// listErrandCodes answers 200 with one result per requested parcel ID, in
// request order. The IDs come from id, comma-separated; id may be repeated.
// Empty elements (a trailing comma) are skipped. No IDs, or more than
// MaxErrandCodeIDs, is 400.
func (s *Server) listErrandCodes(w http.ResponseWriter, r *http.Request) error {
	ids := commaValues(r.URL.Query(), "id")
	var p parcelgate.Problems
	switch {
	case len(ids) == 0:
		p.Add("id", "is required: a comma-separated list of parcel IDs")
	case len(ids) > parcelgate.MaxErrandCodeIDs:
		p.Add("id", "at most %d parcel IDs per request, not %d", parcelgate.MaxErrandCodeIDs, len(ids))
	}
	if err := p.Err(); err != nil {
		return err
	}
	res, err := s.codes.ErrandCodes(r.Context(), caller(r), ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ErrandCodes{res})
	return nil
}
