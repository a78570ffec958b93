package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// handlerFunc is a handler that returns its error for the surface wrapper
// to answer in the surface's shape.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// requireJSON refuses a body whose Content-Type is not JSON with 415. With
// strict (the gateway, spec 4: "the sending-code API needs Content-Type
// application/json") a missing Content-Type is refused too; the lenient ecom
// surface accepts it, since existing integrations omit it.
func requireJSON(r *http.Request, strict bool) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" && !strict {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	if ct == "" {
		ct = "none"
	}
	return parcelgate.Errorf(parcelgate.EUNSUPPORTED, "Content-Type must be application/json, not %s.", ct)
}

// decodeJSON reads the request body into v. strict refuses unknown fields
// (the gateway and operator surfaces); the ecom surface ignores them (decisions
// §8). An empty body, trailing data, a body over the cap and a value of the
// wrong type each get their own clear message.
func decodeJSON(r *http.Request, v any, strict bool) error {
	if err := requireJSON(r, strict); err != nil {
		return err
	}
	dec := json.NewDecoder(r.Body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if maxErr, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return parcelgate.Errorf(parcelgate.ETOOLARGE, "The request body is over the limit of %d bytes.", maxErr.Limit)
		}
		return decodeError{parcelgate.Errorf(parcelgate.EINVALID, "The request body holds more than one JSON value.")}
	}
	return nil
}

// readBody reads a lenient ecom JSON body whole, for the domain's parsers,
// which report every field problem at once.
func readBody(r *http.Request) ([]byte, error) {
	var raw json.RawMessage
	if err := decodeJSON(r, &raw, false); err != nil {
		return nil, err
	}
	return raw, nil
}

// commaValues reads a query parameter given as one value, a comma-separated
// list, or repeated; items are trimmed and empty ones skipped.
func commaValues(q url.Values, name string) []string {
	var out []string
	for _, v := range q[name] {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

func jsonError(err error) error {
	if maxErr, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return parcelgate.Errorf(parcelgate.ETOOLARGE, "The request body is over the limit of %d bytes.", maxErr.Limit)
	}
	if errors.Is(err, io.EOF) {
		return decodeError{parcelgate.Errorf(parcelgate.EINVALID, "The request body is empty; a JSON value is required.")}
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := te.Field
		if field == "" {
			field = "(body)"
		}
		e := &parcelgate.Error{Code: parcelgate.EINVALID,
			Message: fmt.Sprintf("%s: must be %s, not %s.", field, parcelgate.JSONTypeName(te.Type.Kind().String()), te.Value),
			Fields:  []parcelgate.FieldError{{Field: field, Message: fmt.Sprintf("must be %s, not %s", parcelgate.JSONTypeName(te.Type.Kind().String()), te.Value)}}}
		return decodeError{e}
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return decodeError{parcelgate.Errorf(parcelgate.EINVALID, "The request body is not valid JSON at byte %d: %s.", se.Offset, se.Error())}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return &parcelgate.Error{Code: parcelgate.EINVALID, Message: fmt.Sprintf("Unknown field %q.", f),
			Fields: []parcelgate.FieldError{{Field: f, Message: "is not a field of this request"}}}
	}
	return decodeError{parcelgate.Errorf(parcelgate.EINVALID, "The request body is not valid JSON: %s.", strings.TrimPrefix(msg, "json: "))}
}
