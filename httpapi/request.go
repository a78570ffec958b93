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
	"github.com/parcelgate/parcelgate/internal/jsonin"
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

// decodeJSON reads the request body into v, through jsonin: one pass that
// stops at the first breach of jsonin.Default's limits (so a hostile body
// costs its size and no more), refusing invalid UTF-8 and NUL in every
// string and key. strict refuses unknown fields (the gateway and operator
// surfaces); the ecom surface ignores them (decisions §8). Every problem names
// the JSON path of its value.
func decodeJSON(r *http.Request, v any, strict bool) error {
	if !strict {
		raw, err := readBody(r)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return jsonError(err)
		}
		return nil
	}
	if err := requireJSON(r, strict); err != nil {
		return err
	}
	return bodyError(jsonin.DecodeStrict(r.Body, v, jsonin.Default))
}

// readBody reads a lenient ecom JSON body whole, checked by jsonin (limits,
// UTF-8, NUL) while it is read, for the domain's parsers, which report
// every field problem at once.
func readBody(r *http.Request) ([]byte, error) {
	if err := requireJSON(r, false); err != nil {
		return nil, err
	}
	// Into a RawMessage, strictness refuses nothing more; the bytes come
	// back only once every limit and text check has passed.
	var raw json.RawMessage
	if err := jsonin.DecodeStrict(r.Body, &raw, jsonin.Default); err != nil {
		return nil, bodyError(err)
	}
	return raw, nil
}

// readTree reads a lenient ecom JSON body into jsonin's tree, with the
// limits of every body, for the decoders that pick typed inputs out of it
// (orders, inventory, balances) and report every field problem at once.
func readTree(r *http.Request) (any, error) {
	if err := requireJSON(r, false); err != nil {
		return nil, err
	}
	v, err := jsonin.Decode(r.Body, jsonin.Default)
	return v, bodyError(err)
}

// The field messages of jsonin's two refusals of a value inside
// well-formed JSON (TestJSONBodyErrors pins them).
const (
	unknownFieldProblem = "is not a field of this request"
	nulProblem          = "must not contain the NUL character"
)

// bodyError marks what jsonin refused as a body that cannot be read as the
// request's JSON (the gateway answers JSON_DECODE_ERROR), except the
// refusals of a value inside well-formed JSON, which stay validation
// errors naming their field: an unknown field, and a string holding NUL.
// Limits stay ETOOLARGE (413).
func bodyError(err error) error {
	e, ok := errors.AsType[*parcelgate.Error](err)
	if !ok || e.Code != parcelgate.EINVALID {
		return err
	}
	for _, f := range e.Fields {
		if f.Message == unknownFieldProblem || strings.HasPrefix(f.Message, nulProblem) {
			return err
		}
	}
	return decodeError{e}
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
