// Package jsonin is the one reader of JSON request bodies.
//
// Every body is first read and checked by Read, in one streaming pass that
// stops at the first breach of Limits, so a hostile body costs at most its
// size, never the gigabytes a naive decode of millions of empty objects
// takes, and refuses invalid UTF-8, lone surrogate escapes and U+0000 in
// any string or key: none may reach a database (PostgreSQL rejects them,
// SQLite would store them and serve broken JSON back). encoding/json then
// decodes the checked body into the request's typed struct: strictly for
// the gateway and operator surfaces (DecodeStrict: unknown fields are
// refused), leniently for the ecom surface (the types of lenient.go).
//
// Errors are *parcelgate.Error: EINVALID for a malformed body, ETOOLARGE for
// a limit or the body cap, each with one FieldError naming the JSON path
// (rows[3].externalProductId) or "(body)".
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
)

// Limits bound what one body may hold. They are checked while decoding, so
// decoding stops at the first value over a limit.
type Limits struct {
	MaxDepth   int // nesting of arrays and objects
	MaxArray   int // elements of any one array
	MaxMembers int // members of any one object
	MaxString  int // bytes of one string or key
	// MaxValues bounds every value of the body together, which bounds the
	// memory of the decoded tree whatever its shape.
	MaxValues int
	// Arrays caps named arrays more tightly than MaxArray, by their path
	// with indexes left out: "rows" for an order's rows, "(body)" for a
	// top-level array, "[].balances" for the balances of each element of one.
	Arrays map[string]int
}

// Default are the limits of every surface unless it asks for others. A tree
// within them takes at most a few tens of MiB whatever the body's shape.
var Default = Limits{MaxDepth: 32, MaxArray: 10000, MaxMembers: 1000, MaxString: 64 << 10, MaxValues: 500_000}

// BodyPath names the body itself in field errors.
const BodyPath = "(body)"

// Read reads exactly one JSON value from r and returns it as sent, once
// it is within lim and its every string and key is text. The caller caps
// r's size (an *http.MaxBytesError from r is answered as ETOOLARGE).
func Read(r io.Reader, lim Limits) ([]byte, error) {
	body, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return body, check(body, lim)
}

// DecodeStrict reads exactly one JSON value from r into v, refusing fields v
// does not have, with the limits and checks of Read.
func DecodeStrict(r io.Reader, v any, lim Limits) error {
	body, err := Read(r, lim)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		err = typeError(err)
		if e, ok := errors.AsType[*parcelgate.Error](err); ok && len(e.Fields) == 1 && e.Fields[0].Message == unknownFieldProblem {
			// encoding/json names an unknown member by its key alone;
			// the problem names its whole path.
			var tree any
			if json.Unmarshal(body, &tree) == nil {
				if path, found := unknownPath(tree, reflect.TypeOf(v), BodyPath); found {
					return invalid(path, fmt.Sprintf("Unknown field %q.", path), unknownFieldProblem)
				}
			}
		}
		return err
	}
	return nil
}

// unknownFieldProblem is the field message of a member the request does
// not have.
const unknownFieldProblem = "is not a field of this request"

// unknownPath finds the first member of tree (in key order) that type t
// has no field for, and returns its path.
func unknownPath(tree any, t reflect.Type, parent string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := tree.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return "", false
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			f, ok := jsonField(t, k)
			if !ok {
				return Path(parent, k), true
			}
			if p, found := unknownPath(v[k], f.Type, Path(parent, k)); found {
				return p, true
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return "", false
		}
		for i, e := range v {
			if p, found := unknownPath(e, t.Elem(), index(parent, i)); found {
				return p, true
			}
		}
	}
	return "", false
}

// jsonField is the field of struct type t that JSON member key decodes
// into (by its tag, else its name, case-insensitively as encoding/json
// matches), through embedded structs.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if sf, ok := jsonField(ft, key); ok {
					return sf, true
				}
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func readAll(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(r)
	if err != nil {
		if maxErr, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, tooLarge(BodyPath, fmt.Sprintf("The request body is over the limit of %d bytes.", maxErr.Limit), "is over the body size limit")
		}
		return nil, invalid(BodyPath, "The request body could not be read.", "could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, invalid(BodyPath, "The request body is empty; a JSON value is required.", "is required")
	}
	return body, nil
}

// clean reports whether body is certainly one JSON value within lim with
// only text in its strings and keys, in one pass over its bytes that
// allocates nothing, then json.Valid; false when it may not be (it errs
// only that way, and stops as soon as a limit may be broken),
// and the checker then finds the first problem and names it, or finds
// none. Nearly every body is clean: the checker's token stream costs
// several times more.
func clean(body []byte, lim Limits) bool {
	const maxStack = 64
	if len(lim.Arrays) > 0 || lim.MaxDepth <= 0 || lim.MaxDepth > maxStack {
		return false
	}
	type level struct {
		n     int // elements or members so far
		array bool
	}
	var stack [maxStack]level
	depth, values := 0, 0
	// value counts a value (not a key) in its container.
	value := func() bool {
		values++
		if lim.MaxValues > 0 && values > lim.MaxValues {
			return false
		}
		if depth > 0 && stack[depth-1].array {
			stack[depth-1].n++
			return lim.MaxArray <= 0 || stack[depth-1].n <= lim.MaxArray
		}
		return true
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
		case '{', '[':
			if !value() || depth == lim.MaxDepth {
				return false
			}
			stack[depth] = level{array: c == '['}
			depth++
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
		case '"':
			j, escU := i+1, false
			for j < len(body) && body[j] != '"' {
				if body[j] == '\\' && j+1 < len(body) {
					escU = escU || body[j+1] == 'u'
					j++
				}
				j++
			}
			if j >= len(body) {
				return false
			}
			raw := body[i : j+1]
			k := j + 1
			for k < len(body) && (body[k] == ' ' || body[k] == '\t' || body[k] == '\r' || body[k] == '\n') {
				k++
			}
			if k < len(body) && body[k] == ':' { // a key
				if depth == 0 {
					return false
				}
				stack[depth-1].n++
				if lim.MaxMembers > 0 && stack[depth-1].n > lim.MaxMembers {
					return false
				}
			} else if !value() {
				return false
			}
			if lim.MaxString > 0 && len(raw)-2 > lim.MaxString || !utf8.Valid(raw) ||
				escU && (bytes.Contains(raw, []byte(`\u0000`)) || loneSurrogate(raw)) {
				return false
			}
			i = j
		default: // a number, true, false or null
			if !value() {
				return false
			}
			for i+1 < len(body) && !strings.ContainsRune(" \t\r\n,]}", rune(body[i+1])) {
				i++
			}
		}
	}
	// Within every limit so far: whether it is JSON at all is for the
	// standard library's scanner to say.
	return json.Valid(body)
}

// checker walks the token stream once, checking every limit as it goes.
type checker struct {
	body   []byte
	dec    *json.Decoder
	lim    Limits
	values int
	last   int64 // input offset after the previous token
}

func check(body []byte, lim Limits) error {
	if clean(body, lim) {
		return nil
	}
	d := &checker{body: body, dec: json.NewDecoder(bytes.NewReader(body)), lim: lim}
	d.dec.UseNumber()
	if err := d.value(BodyPath, "(body)", 0); err != nil {
		return err
	}
	if _, err := d.dec.Token(); !errors.Is(err, io.EOF) {
		return invalid(BodyPath, "The request body holds more than one JSON value.", "must hold exactly one JSON value")
	}
	return nil
}

// token returns the next token and the raw bytes it was read from, so that
// strings can be checked for invalid UTF-8 (which encoding/json would
// silently replace with U+FFFD).
func (d *checker) token(path string) (json.Token, []byte, error) {
	t, err := d.dec.Token()
	if err != nil {
		return nil, nil, d.syntax(err, path)
	}
	off := d.dec.InputOffset()
	raw := d.body[d.last:off]
	d.last = off
	return t, raw, nil
}

func (d *checker) syntax(err error, path string) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return invalid(path, "The request body is not valid JSON: it ends too early.", "is cut short")
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return invalid(path, fmt.Sprintf("The request body is not valid JSON at byte %d: %s.", se.Offset, se.Error()), "is not valid JSON")
	}
	return invalid(path, "The request body is not valid JSON: "+strings.TrimPrefix(err.Error(), "json: ")+".", "is not valid JSON")
}

// value reads one value at path; shape is the path with indexes left out.
func (d *checker) value(path, shape string, depth int) error {
	t, raw, err := d.token(path)
	if err != nil {
		return err
	}
	return d.valueFrom(t, raw, path, shape, depth)
}

func (d *checker) valueFrom(t json.Token, raw []byte, path, shape string, depth int) error {
	if d.values++; d.lim.MaxValues > 0 && d.values > d.lim.MaxValues {
		return tooLarge(path, fmt.Sprintf("The request body holds more than %d JSON values.", d.lim.MaxValues), fmt.Sprintf("the body holds more than %d values", d.lim.MaxValues))
	}
	switch t := t.(type) {
	case json.Delim:
		if depth+1 > d.lim.MaxDepth && d.lim.MaxDepth > 0 {
			return tooLarge(path, fmt.Sprintf("%s: nests deeper than %d levels.", path, d.lim.MaxDepth), fmt.Sprintf("nests deeper than %d levels", d.lim.MaxDepth))
		}
		if t == '[' {
			return d.array(path, shape, depth+1)
		}
		return d.object(path, shape, depth+1)
	case string:
		return d.checkString(t, raw, path)
	}
	return nil // json.Number, bool, nil
}

func (d *checker) array(path, shape string, depth int) error {
	max := d.lim.MaxArray
	if n, ok := d.lim.Arrays[shape]; ok {
		max = n
	}
	elemShape := "[]"
	if shape != BodyPath {
		elemShape = shape + "[]"
	}
	for i := 0; ; i++ {
		t, raw, err := d.token(path)
		if err != nil {
			return err
		}
		if t == json.Delim(']') {
			return nil
		}
		if max > 0 && i >= max {
			return tooLarge(path, fmt.Sprintf("%s: must hold at most %d items.", path, max), fmt.Sprintf("must hold at most %d items", max))
		}
		if err := d.valueFrom(t, raw, index(path, i), elemShape, depth); err != nil {
			return err
		}
	}
}

func (d *checker) object(path, shape string, depth int) error {
	for n := 0; ; n++ {
		t, raw, err := d.token(path)
		if err != nil {
			return err
		}
		if t == json.Delim('}') {
			return nil
		}
		key, _ := t.(string)
		if d.lim.MaxMembers > 0 && n >= d.lim.MaxMembers {
			return tooLarge(path, fmt.Sprintf("%s: must hold at most %d members.", path, d.lim.MaxMembers), fmt.Sprintf("must hold at most %d members", d.lim.MaxMembers))
		}
		child := Path(path, key)
		if err := d.checkString(key, raw, child); err != nil {
			return err
		}
		childShape := key
		if shape != BodyPath {
			childShape = shape + "." + key
		}
		if err := d.value(child, childShape, depth); err != nil {
			return err
		}
	}
}

func (d *checker) checkString(s string, raw []byte, path string) error {
	// raw holds the token as sent: invalid UTF-8 is replaced in s.
	if !utf8.Valid(raw) {
		return invalid(path, fmt.Sprintf("%s: is not valid UTF-8.", path), "must be valid UTF-8 text")
	}
	// A lone surrogate escape (\ud800) is decoded to U+FFFD too: the text
	// would be stored altered, so it is refused (decisions §21). Only a
	// string holding U+FFFD can have had one.
	if strings.ContainsRune(s, utf8.RuneError) && loneSurrogate(raw) {
		return invalid(path, fmt.Sprintf("%s: holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair), which is no character.", path),
			"must not hold a lone surrogate escape such as \\ud800")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalid(path, fmt.Sprintf("%s: must not contain the NUL character (\\u0000).", path), "must not contain the NUL character")
	}
	if d.lim.MaxString > 0 && len(s) > d.lim.MaxString {
		return tooLarge(path, fmt.Sprintf("%s: is longer than %d bytes.", path, d.lim.MaxString), fmt.Sprintf("must be at most %d bytes", d.lim.MaxString))
	}
	return nil
}

// loneSurrogate reports whether the raw JSON string token raw has a \u
// escape of a UTF-16 surrogate that is not a high surrogate followed by a
// low one.
func loneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		r, ok := HexDigits(raw, i+2, 4)
		if !ok {
			continue
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r < 0xDC00:
			lo, ok := 0, false
			if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				lo, ok = HexDigits(raw, i+8, 4)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

// HexDigits reads the n hex digits at b[i:] as a number; false when b
// ends first or one is no hex digit. It reads JSON's \uXXXX escapes here
// and, for the journal's redaction, URL escapes (%XX) too.
func HexDigits(b []byte, i, n int) (int, bool) {
	if i < 0 || i+n > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+n] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

func typeError(err error) error {
	// A field's own decoder (an UnmarshalJSON) may read its value with
	// DecodeStrict: its refusal already names the field.
	if e, ok := errors.AsType[*parcelgate.Error](err); ok {
		return e
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := te.Field
		if field == "" {
			field = BodyPath
		}
		msg := fmt.Sprintf("must be %s, not %s", parcelgate.JSONTypeName(te.Type.Kind().String()), te.Value)
		return invalid(field, fmt.Sprintf("%s: %s.", field, msg), msg)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return invalid(f, fmt.Sprintf("Unknown field %q.", f), unknownFieldProblem)
	}
	return invalid(BodyPath, "The request body does not fit this request: "+strings.TrimPrefix(err.Error(), "json: ")+".", "does not fit this request")
}

func invalid(field, message, fieldMessage string) error {
	return &parcelgate.Error{Code: parcelgate.EINVALID, Message: message, Fields: []parcelgate.FieldError{{Field: field, Message: fieldMessage}}}
}

func tooLarge(field, message, fieldMessage string) error {
	return &parcelgate.Error{Code: parcelgate.ETOOLARGE, Message: message, Fields: []parcelgate.FieldError{{Field: field, Message: fieldMessage}}}
}

// Path names member key of the value at parent.
func Path(parent, key string) string {
	if parent == "" || parent == BodyPath {
		return key
	}
	return parent + "." + key
}

// index names element i of the array at parent.
func index(parent string, i int) string {
	if parent == BodyPath {
		parent = ""
	}
	return parent + "[" + strconv.Itoa(i) + "]"
}
