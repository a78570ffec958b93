package jsonin

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/parcelgate/parcelgate"
)

// Lenient reading, as the ecom surface needs (existing integrations send
// numbers where strings are expected, null for absent, and fields we do
// not know): a body Read has checked is decoded by encoding/json
// (DecodeLenient) into a struct whose members are of the types below.
// Each takes any JSON value: one of its kind is kept, null is absent, and
// any other is remembered as a problem of its member, so that decoding
// reads on and a body is answered with every problem at once. Problems
// then lists them, each at its member's JSON path (rows[1].quantity), in
// the order of the struct's fields. A type of the caller's takes part by
// having a Problem method (a value with a rule of its own, such as a
// quantity) or by embedding one of these.

// DecodeLenient decodes body, checked by Read, into v, a pointer to a
// struct of lenient members (or to one lenient value).
func DecodeLenient(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return typeError(err)
	}
	return nil
}

// A Checked value says what is wrong with it, "" when nothing.
type Checked interface{ Problem() string }

// container is a lenient value holding a value to walk on: an object's
// members, an array's elements; nil when it holds none.
type container interface{ inner() any }

// Problems adds the problems of v (a pointer to a decoded struct or
// lenient value) and of every value it holds to p, v's own at path, the
// others at theirs below it.
func Problems(v any, path string, p *parcelgate.Problems) {
	walk(reflect.ValueOf(v), &step{key: path}, p)
}

// step is a value's place: a member key or an array index below its
// parent's. Its path is spelled only for a value with a problem.
type step struct {
	parent  *step
	key     string
	index   int
	isIndex bool
}

func (s *step) path() string {
	if s.parent == nil {
		return s.key
	}
	if s.isIndex {
		return index(s.parent.path(), s.index)
	}
	return Path(s.parent.path(), s.key)
}

func walk(v reflect.Value, at *step, p *parcelgate.Problems) {
	if v.Kind() != reflect.Pointer {
		if !v.CanAddr() {
			return
		}
		v = v.Addr()
	}
	x := v.Interface()
	c, checked := x.(Checked)
	if checked {
		if msg := c.Problem(); msg != "" {
			p.Add(at.path(), "%s", msg)
		}
	}
	if c, ok := x.(container); ok {
		if in := c.inner(); in != nil {
			walk(reflect.ValueOf(in), at, p)
		}
		return
	}
	if checked {
		return // a value, nothing inside
	}
	switch v := v.Elem(); v.Kind() {
	case reflect.Struct:
		for _, f := range membersOf(v.Type()) {
			walk(v.Field(f.index), &step{parent: at, key: f.name}, p)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), &step{parent: at, index: i, isIndex: true}, p)
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			e := reflect.New(v.Type().Elem())
			e.Elem().Set(v.MapIndex(k))
			walk(e, &step{parent: at, key: k.String()}, p)
		}
	}
}

// Kind names the JSON type of the JSON value b for messages ("a string",
// "null").
func Kind(b []byte) string { return sent(b[0]).Kind() }

type member struct {
	index int
	name  string
}

// members holds membersOf's answers by struct type.
var members sync.Map // reflect.Type → []member

// membersOf returns the fields of struct type t that are JSON members, by
// their names, in order.
func membersOf(t reflect.Type) []member {
	if ms, ok := members.Load(t); ok {
		return ms.([]member)
	}
	var ms []member
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.Anonymous && f.IsExported() && name != "" && name != "-" {
			ms = append(ms, member{i, name})
		}
	}
	members.Store(t, ms)
	return ms
}

// sent is the first byte of the JSON value a lenient value was given, 0
// when it was given none (its member is absent).
type sent byte

// Kind names the JSON type of the value sent for messages ("a string",
// "null"); "" when none was.
func (s sent) Kind() string {
	switch s {
	case 0:
		return ""
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a number"
}

// wrong is the problem of a value of another kind than want; none for
// null, which is absent.
func (s sent) wrong(want string) string {
	if s == 'n' {
		return ""
	}
	return "must be " + want + ", not " + s.Kind()
}

func isNumber(b []byte) bool { return b[0] == '-' || b[0] >= '0' && b[0] <= '9' }

// unquote returns the text of the JSON string b (checked by Read).
func unquote(b []byte) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// Text is a string member: a string, or a number taken as its text
// (serviceCode 2103).
type Text struct {
	V   string // "" when absent, null or of another kind
	Set bool   // a string or a number was sent
	sent
	problem string
}

func (t *Text) UnmarshalJSON(b []byte) error {
	*t = Text{sent: sent(b[0])}
	switch {
	case b[0] == '"':
		var err error
		t.V, err = unquote(b)
		t.Set = err == nil
		return err
	case isNumber(b):
		t.V, t.Set = string(b), true
	default:
		t.problem = t.wrong("a string")
	}
	return nil
}

func (t *Text) Problem() string { return t.problem }

// String is a value that must be a JSON string, as the elements of a
// list of names: a number is a problem, and so is null.
type String struct {
	V   string
	Set bool
	sent
	problem string
}

func (s *String) UnmarshalJSON(b []byte) error {
	*s = String{sent: sent(b[0])}
	if b[0] != '"' {
		s.problem = "must be a string, not " + s.Kind()
		return nil
	}
	var err error
	s.V, err = unquote(b)
	s.Set = err == nil
	return err
}

func (s *String) Problem() string { return s.problem }

// Number is a member that must be a JSON number, kept as sent; a string
// holding digits is a problem: numbers are numbers.
type Number struct {
	V   json.Number
	Set bool
	sent
	problem string
}

func (n *Number) UnmarshalJSON(b []byte) error {
	*n = Number{sent: sent(b[0])}
	if isNumber(b) {
		n.V, n.Set = json.Number(b), true
	} else {
		n.problem = n.wrong("a number")
	}
	return nil
}

func (n *Number) Problem() string { return n.problem }

// Bool is a member that must be true or false.
type Bool struct {
	V   bool
	Set bool
	sent
	problem string
}

func (v *Bool) UnmarshalJSON(b []byte) error {
	*v = Bool{sent: sent(b[0])}
	switch b[0] {
	case 't', 'f':
		v.V, v.Set = b[0] == 't', true
	default:
		v.problem = v.wrong("true or false")
	}
	return nil
}

func (v *Bool) Problem() string { return v.problem }

// Object is a member that must be a JSON object, decoded into V (a struct
// of lenient members, or a map of them).
type Object[T any] struct {
	V   T
	Set bool // an object was sent
	sent
}

func (o *Object[T]) UnmarshalJSON(b []byte) error {
	*o = Object[T]{sent: sent(b[0])}
	if b[0] != '{' {
		return nil
	}
	o.Set = true
	return json.Unmarshal(b, &o.V)
}

func (o *Object[T]) Problem() string {
	if o.Set || o.sent == 0 {
		return ""
	}
	return o.wrong("an object")
}

func (o *Object[T]) inner() any {
	if !o.Set {
		return nil
	}
	return &o.V
}

// Array is a member that must be a JSON array, its elements decoded into
// V.
type Array[T any] struct {
	V   []T
	Set bool // an array was sent
	sent
}

// Sent reports whether the member was there at all, null included.
func (a *Array[T]) Sent() bool { return a.sent != 0 }

func (a *Array[T]) UnmarshalJSON(b []byte) error {
	*a = Array[T]{sent: sent(b[0])}
	if b[0] != '[' {
		return nil
	}
	a.Set = true
	return json.Unmarshal(b, &a.V)
}

func (a *Array[T]) Problem() string {
	if a.Set || a.sent == 0 {
		return ""
	}
	return a.wrong("an array")
}

func (a *Array[T]) inner() any {
	if !a.Set {
		return nil
	}
	return &a.V
}
