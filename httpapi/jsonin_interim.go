package httpapi

// Interim stand-in for internal/jsonin (CONTRACT §1), with the same API;
// replaced by the real package when it lands on main.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/parcelgate/parcelgate"
)

type jsoninReader struct{ Problems parcelgate.Problems }

func jsoninDecode(r *http.Request) (any, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, jsonError(err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, jsonError(err)
	}
	if dec.More() {
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "The request body holds more than one JSON value.")
	}
	return v, nil
}

func jsoninKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func jsoninPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func jsoninIndex(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

func (rd *jsoninReader) Object(v any, path string) (map[string]any, bool) {
	if v == nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		rd.Problems.Add(path, "must be an object, not %s", jsoninKind(v))
	}
	return m, ok
}

func (rd *jsoninReader) Obj(obj map[string]any, key, path string) (map[string]any, bool) {
	return rd.Object(obj[key], jsoninPath(path, key))
}

func (rd *jsoninReader) Array(obj map[string]any, key, path string) []any {
	v := obj[key]
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		rd.Problems.Add(jsoninPath(path, key), "must be an array, not %s", jsoninKind(v))
	}
	return a
}

func (rd *jsoninReader) String(obj map[string]any, key, path string) string {
	s, _ := rd.OptString(obj, key, path)
	return s
}

func (rd *jsoninReader) OptString(obj map[string]any, key, path string) (string, bool) {
	switch v := obj[key].(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	default:
		rd.Problems.Add(jsoninPath(path, key), "must be a string, not %s", jsoninKind(v))
	}
	return "", false
}

func (rd *jsoninReader) Bool(obj map[string]any, key, path string) (bool, bool) {
	switch v := obj[key].(type) {
	case nil:
		return false, false
	case bool:
		return v, true
	default:
		rd.Problems.Add(jsoninPath(path, key), "must be a boolean, not %s", jsoninKind(v))
	}
	return false, false
}

func (rd *jsoninReader) Number(obj map[string]any, key, path string) (json.Number, bool) {
	switch v := obj[key].(type) {
	case nil:
		return "", false
	case json.Number:
		return v, true
	default:
		rd.Problems.Add(jsoninPath(path, key), "must be a number, not %s", jsoninKind(v))
	}
	return "", false
}
