package httpapi

import (
	"bufio"
	"bytes"
	"errors"
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
// strict (the gateway, interface §4: "the sending-code API needs Content-Type
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
		return missingHeader{parcelgate.Errorf(parcelgate.EUNSUPPORTED, "The Content-Type header is required: application/json.")}
	}
	return parcelgate.Errorf(parcelgate.EUNSUPPORTED, "Content-Type must be application/json, not %s.", ct)
}

// missingHeader marks a required header that is absent, which the gateway
// answers 400 MISSING_HEADER (the provider's code) and the operator API 415.
type missingHeader struct{ err *parcelgate.Error }

func (e missingHeader) Error() string { return e.err.Error() }
func (e missingHeader) Unwrap() error { return e.err }

// The two readers of request bodies, both through internal/jsonin (one
// pass that stops at the first breach of jsonin.Default's limits, so a
// hostile body costs its size and no more, refusing invalid UTF-8 and NUL
// in every string and key, every problem naming the JSON path of its
// value), then encoding/json into the request's typed struct:
//
//   - decodeStrict, of the gateway and operator surfaces, decodes into a
//     struct and refuses unknown fields;
//   - readBody (and readOptionalBody), of the ecom surface, returns the
//     checked body, which the routes' decoders decode leniently into
//     structs of jsonin's lenient types, ignoring unknown fields (decisions
//     §8) and reporting every field problem at once.

// decodeStrict reads the request body into v: Content-Type must be JSON
// (interface §4) and every field must be one of v's.
func decodeStrict(r *http.Request, v any) error {
	if err := requireJSON(r, true); err != nil {
		return err
	}
	return bodyError(jsonin.DecodeStrict(r.Body, v, jsonin.Default))
}

// readBody reads a lenient ecom JSON body, checked within the limits of
// every body, for the decoders of orders, inventory and balances.
func readBody(r *http.Request) ([]byte, error) {
	if err := requireJSON(r, false); err != nil {
		return nil, err
	}
	body, err := jsonin.Read(r.Body, jsonin.Default)
	return body, bodyError(err)
}

// readOptionalBody is readBody for a route whose body is optional: an
// empty body (or only white space), and a body that is JSON null or the
// empty string "", are no body, present false. A client library that
// JSON-encodes "no data" sends "" (the provider's PHP library reopening an
// order does), and null is the other spelling of nothing (decisions §19).
func readOptionalBody(r *http.Request) (body []byte, present bool, err error) {
	br := bufio.NewReader(r.Body)
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil, false, nil
		}
		if err != nil {
			// The reader hands a read failure, the body cap among them,
			// to jsonin, which names it.
			br = bufio.NewReader(errReader{err})
			break
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			br.UnreadByte()
			break
		}
	}
	if err := requireJSON(r, false); err != nil {
		return nil, false, err
	}
	body, err = jsonin.Read(br, jsonin.Default)
	if err != nil {
		return nil, false, bodyError(err)
	}
	// Read has checked the body is one JSON value between white space.
	if v := string(bytes.TrimSpace(body)); v == "null" || v == `""` {
		return nil, false, nil
	}
	return body, true, nil
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

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
