package jsonin

import (
	"encoding/json"

	"github.com/parcelgate/parcelgate"
)

// Reader picks typed values out of a tree from Decode leniently, as the ecom
// surface needs (existing integrations send numbers where strings are
// expected, null for absent, and fields we do not know). A value of a wrong
// type is a problem of its field, recorded in Problems, and reading goes on,
// so that a body is answered with every problem at once. Null and absent are
// the same everywhere.
type Reader struct {
	Problems parcelgate.Problems
}

// Object returns v as an object. nil is absent: (nil, false) and no
// problem; any other non-object is a problem at path.
func (rd *Reader) Object(v any, path string) (map[string]any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return v, true
	default:
		rd.Problems.Add(path, "must be an object, not %s", Kind(v))
		return nil, false
	}
}

// Obj returns member key of obj as an object (see Object).
func (rd *Reader) Obj(obj map[string]any, key, path string) (map[string]any, bool) {
	return rd.Object(obj[key], path)
}

// Array returns member key of obj as an array; nil when absent or not an
// array (a problem at path in the latter case).
func (rd *Reader) Array(obj map[string]any, key, path string) []any {
	switch v := obj[key].(type) {
	case nil:
		return nil
	case []any:
		return v
	default:
		rd.Problems.Add(path, "must be an array, not %s", Kind(v))
		return nil
	}
}

// String returns member key of obj as a string; a number is taken as its
// text (serviceCode 2103). Absent, null and wrong types give "".
func (rd *Reader) String(obj map[string]any, key, path string) string {
	s, _ := rd.OptString(obj, key, path)
	return s
}

// OptString is String that also reports whether a string (or number) was
// present.
func (rd *Reader) OptString(obj map[string]any, key, path string) (string, bool) {
	switch v := obj[key].(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	default:
		rd.Problems.Add(path, "must be a string, not %s", Kind(v))
		return "", false
	}
}

// Bool returns member key of obj as a boolean, and whether one was present.
func (rd *Reader) Bool(obj map[string]any, key, path string) (bool, bool) {
	switch v := obj[key].(type) {
	case nil:
		return false, false
	case bool:
		return v, true
	default:
		rd.Problems.Add(path, "must be true or false, not %s", Kind(v))
		return false, false
	}
}

// Number returns member key of obj as a JSON number, and whether one was
// present. A string holding digits is a problem: numbers are numbers.
func (rd *Reader) Number(obj map[string]any, key, path string) (json.Number, bool) {
	switch v := obj[key].(type) {
	case nil:
		return "", false
	case json.Number:
		return v, true
	default:
		rd.Problems.Add(path, "must be a number, not %s", Kind(v))
		return "", false
	}
}

// Kind names the JSON type of a decoded value for messages.
func Kind(v any) string {
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
