package jsonin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
)

func field(err error) string {
	if fs := parcelgate.ErrorFields(err); len(fs) > 0 {
		return fs[0].Field
	}
	return ""
}

// Every breach is refused with its code and the path of the value at fault
// (hostile-input rule: a clear 4xx naming the field, decided while decoding).
func TestDecodeRefuses(t *testing.T) {
	lim := Limits{MaxDepth: 4, MaxArray: 3, MaxMembers: 3, MaxString: 8, MaxValues: 50, Arrays: map[string]int{"rows": 2, "[].balances": 1}}
	tests := []struct {
		name, body, code, field string
	}{
		{"empty", "  ", parcelgate.EINVALID, "(body)"},
		{"not JSON", "{", parcelgate.EINVALID, "(body)"},
		{"two values", "{} {}", parcelgate.EINVALID, "(body)"},
		{"raw invalid UTF-8 in a value", "{\"a\":\"x\xc1y\"}", parcelgate.EINVALID, "a"},
		{"surrogate bytes in a value", "{\"a\":[\"\xed\xa0\x80\"]}", parcelgate.EINVALID, "a[0]"},
		{"invalid UTF-8 in a key", "{\"\xff\":1}", parcelgate.EINVALID, "\ufffd"},
		{"escaped NUL", `{"ref":{"v":"a\u0000b"}}`, parcelgate.EINVALID, "ref.v"},
		// decisions §21: a lone surrogate escape would be stored as U+FFFD.
		{"lone high surrogate", `{"s":"Mäkelä \ud800"}`, parcelgate.EINVALID, "s"},
		{"lone low surrogate", `{"s":["\uDC00x"]}`, parcelgate.EINVALID, "s[0]"},
		{"high then not low", `{"s":"\ud800\u0041"}`, parcelgate.EINVALID, "s"},
		{"high at the end", `{"s":"a\ud83d"}`, parcelgate.EINVALID, "s"},
		{"reversed pair", `{"s":"\ude00\ud83d"}`, parcelgate.EINVALID, "s"},
		{"lone surrogate in a key", `{"k\ud800":1}`, parcelgate.EINVALID, "k\ufffd"},
		{"deep", `[[[[[1]]]]]`, parcelgate.ETOOLARGE, "[0][0][0][0]"},
		{"long array", `{"a":[1,2,3,4]}`, parcelgate.ETOOLARGE, "a"},
		{"named array", `{"rows":[{},{},{}]}`, parcelgate.ETOOLARGE, "rows"},
		{"named nested array", `[{"balances":[1,2]}]`, parcelgate.ETOOLARGE, "[0].balances"},
		{"many members", `{"a":1,"b":2,"c":3,"d":4}`, parcelgate.ETOOLARGE, "(body)"},
		{"long string", `{"a":"123456789"}`, parcelgate.ETOOLARGE, "a"},
		{"long key", `{"123456789":1}`, parcelgate.ETOOLARGE, "123456789"},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.body), lim)
		if parcelgate.ErrorCode(err) != tt.code || field(err) != tt.field {
			t.Errorf("%s: %v (field %q), want %s at %q", tt.name, err, field(err), tt.code, tt.field)
		}
	}
	many := "[" + strings.Repeat("1,", 60) + "1]"
	if _, err := Read(strings.NewReader(many), Limits{MaxValues: 50}); parcelgate.ErrorCode(err) != parcelgate.ETOOLARGE {
		t.Errorf("values over MaxValues: %v", err)
	}
}

// Lenient decoding keeps numbers exact, null and absent alike; text that
// is merely unusual (U+FFFD itself, escaped or not, a surrogate pair,
// non-ASCII letters) is accepted.
func TestDecodeLenientValues(t *testing.T) {
	body, err := Read(strings.NewReader(`{"n": 12345678901234567890, "s": "Mäkelä \ufffd", "p": "\ud83d\ude00 \\ud800 �", "a": [true, null, {"x": "y"}], "z": null}`), Default)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		N Number `json:"n"`
		S Text   `json:"s"`
		P Text   `json:"p"`
		A Array[Object[struct {
			X Text `json:"x"`
		}]] `json:"a"`
		Z    Text `json:"z"`
		None Text `json:"none"`
	}
	if err := DecodeLenient(body, &v); err != nil {
		t.Fatal(err)
	}
	if v.N.V != "12345678901234567890" || v.S.V != "Mäkelä \ufffd" || v.P.V != "\U0001F600 \\ud800 \ufffd" {
		t.Errorf("%+v", v)
	}
	if len(v.A.V) != 3 || v.A.V[0].Set || v.A.V[0].Kind() != "a boolean" || v.A.V[1].Kind() != "null" || v.A.V[2].V.X.V != "y" {
		t.Errorf("%+v", v.A)
	}
	if v.Z.Set || v.Z.Kind() != "null" || v.None.Set || v.None.Kind() != "" {
		t.Errorf("null %+v, absent %+v", v.Z, v.None)
	}
	var p parcelgate.Problems
	Problems(&v, BodyPath, &p)
	if got := parcelgate.ErrorFields(p.Err()); len(got) != 1 || got[0].Field != "a[0]" || got[0].Message != "must be an object, not a boolean" {
		t.Errorf("problems %+v", got)
	}
}

// A body over the cap is ETOOLARGE, found while reading.
func TestDecodeBodyCap(t *testing.T) {
	r := httptest.NewRequest("PUT", "/", strings.NewReader(`{"a":"`+strings.Repeat("x", 100)+`"}`))
	body := http.MaxBytesReader(httptest.NewRecorder(), r.Body, 10)
	if _, err := Read(body, Default); parcelgate.ErrorCode(err) != parcelgate.ETOOLARGE {
		t.Errorf("over the cap: %v", err)
	}
}

// The strict reader of the gateway and operator surfaces refuses unknown
// fields and wrong types by name, after the same limits and text checks.
func TestDecodeStrict(t *testing.T) {
	type in struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
	}
	var v in
	if err := DecodeStrict(strings.NewReader(`{"name":"a","count":2}`), &v, Default); err != nil || v != (in{"a", 2}) {
		t.Fatalf("%v %v", v, err)
	}
	for body, want := range map[string]string{
		`{"name":"a","extra":1}`:              "extra",
		`{"count":"two"}`:                     "count",
		`{"name":"a\u0000"}`:                  "name",
		"{\"name\":\"\xc1\"}":                 "name",
		`{"name":"x`:                          "name",
		`[` + strings.Repeat(`1,`, 10) + `1]`: "(body)",
	} {
		err := DecodeStrict(strings.NewReader(body), &v, Limits{MaxArray: 5})
		if err == nil || field(err) != want {
			t.Errorf("%q: %v (field %q), want field %q", body, err, field(err), want)
		}
	}
}

// The lenient types record a problem per wrong type and decoding reads
// on; Problems lists them in the order of the struct's fields.
func TestDecodeLenientProblems(t *testing.T) {
	var v struct {
		Code Text                             `json:"code"`
		Name Text                             `json:"name"`
		Flag Bool                             `json:"flag"`
		Obj  Object[struct{}]                 `json:"obj"`
		Arr  Array[Text]                      `json:"arr"`
		N    Number                           `json:"n"`
		OK   Bool                             `json:"ok"`
		Null Text                             `json:"null"`
		Tags Object[map[string]Array[String]] `json:"tags"`
	}
	body := `{"code": 2103, "name": "x", "flag": "yes", "obj": [], "arr": {}, "n": "1", "ok": true, "null": null, "tags": {"b": [1], "a": ["x", null]}}`
	if err := DecodeLenient([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if v.Code.V != "2103" || v.Name.V != "x" || v.Flag.Set || !v.OK.V || !v.OK.Set || v.Null.Set || v.Null.V != "" {
		t.Errorf("%+v", v)
	}
	var p parcelgate.Problems
	Problems(&v, BodyPath, &p)
	var got []string
	for _, f := range p.List() {
		got = append(got, f.Field+" "+f.Message)
	}
	want := []string{"flag must be true or false, not a string", "obj must be an object, not an array", "arr must be an array, not an object",
		"n must be a number, not a string", "tags.a[1] must be a string, not null", "tags.b[0] must be a string, not a number"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("problems %q", got)
	}
}

// Hostile-input rule: an error body lists at most MaxProblems field errors
// and says how many more there were.
func TestProblemsBounded(t *testing.T) {
	var p parcelgate.Problems
	for i := range 250 {
		p.AddAt(i, "rows", "is bad")
	}
	fs := parcelgate.ErrorFields(p.Err())
	if len(fs) != parcelgate.MaxProblems+1 || fs[len(fs)-1].Message != "and 150 more problems" {
		t.Fatalf("%d fields, last %+v", len(fs), fs[len(fs)-1])
	}
	if !strings.Contains(parcelgate.ErrorMessage(p.Err()), "and 249 more") {
		t.Errorf("message %q", parcelgate.ErrorMessage(p.Err()))
	}
}

// Hostile-input rule 4: a 16 MiB body of empty rows stops at the limit.
func BenchmarkDecodeHostileRows(b *testing.B) {
	body := []byte(`{"rows":[` + strings.Repeat(`{},`, 16<<20/3) + `{}]}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(body), Default); parcelgate.ErrorCode(err) != parcelgate.ETOOLARGE {
			b.Fatal(err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",{"b":null}]`, "{\"a\":\"\xc1\"}", `{"a":"\u0000"}`, `[[[[[[]]]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checked, err := Read(bytes.NewReader(body), Limits{MaxDepth: 8, MaxArray: 16, MaxMembers: 16, MaxString: 64, MaxValues: 256})
		if err != nil {
			if c := parcelgate.ErrorCode(err); c != parcelgate.EINVALID && c != parcelgate.ETOOLARGE {
				t.Fatalf("code %s", c)
			}
			return
		}
		// What is accepted decodes, and re-encodes as valid JSON with no
		// NUL.
		var v any
		if err := json.Unmarshal(checked, &v); err != nil {
			t.Fatalf("%q accepted, then %v", body, err)
		}
		out, err := json.Marshal(v)
		if err != nil || !json.Valid(out) || bytes.Contains(out, []byte(`\u0000`)) {
			t.Fatalf("%q -> %q %v", body, out, err)
		}
	})
}

// HexDigits reads exactly n hex digits of either case, and nothing past
// the end: the lone-surrogate check and the journal's redaction rely on
// a short or malformed escape reading as no escape.
func TestHexDigits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		want int
		ok   bool
	}{
		{`\ud800`, 2, 4, 0xD800, true},
		{`\uDC0f`, 2, 4, 0xDC0F, true},
		{`%3A`, 1, 2, 0x3A, true},
		{`\ud80`, 2, 4, 0, false},
		{`\u00g1`, 2, 4, 0, false},
		{`%`, 1, 2, 0, false},
		{`%+1`, 1, 2, 0, false},
	} {
		got, ok := HexDigits([]byte(tc.in), tc.i, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("HexDigits(%q, %d, %d) = %#x, %v; want %#x, %v", tc.in, tc.i, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}

// clean errs only towards the checker: a body it passes is one the
// checker passes too, under tight limits and the default ones.
func FuzzCleanAgreesWithTheChecker(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",{"b":null}]`, "{\"a\":\"\xc1\"}", `{"a":"\u0000"}`, `[[[[[[]]]]]]`, `{"s":"\ud800"}`,
		`{"s":"\ud83d\ude00"}`, `{"a":[1,2,3,4]}`, `{"a":1,"b":2,"c":3,"d":4}`, `{"k":"123456789"}`, `{"123456789":1}`, `[true,false,null,-1.5e3]`, `"x" `, ` 1`, `{"a" : "b\\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, lim := range []Limits{{MaxDepth: 4, MaxArray: 3, MaxMembers: 3, MaxString: 8, MaxValues: 12}, Default} {
			if clean(body, lim) {
				if err := check(body, lim); err != nil {
					t.Fatalf("%q: clean, but %v", body, err)
				}
			}
		}
	})
}

// An ordinary body, unusual text and escapes included, takes the clean
// pass alone; what may be a problem goes to the checker.
func TestCleanPassesOrdinaryBodies(t *testing.T) {
	for _, s := range []string{`{"externalId":"A-1","rows":[{"quantity":2,"x":null,"ok":true}],"n":-1.5e3}`, `[{"s":"Mäkelä \ud83d\ude00 \" \\ \n"}]`, ` "x" `} {
		if !clean([]byte(s), Default) {
			t.Errorf("%s: not clean", s)
		}
	}
	for _, s := range []string{`{"s":"\ud800"}`, `{"s":"a\u0000"}`, "{\"s\":\"\xc1\"}", `{`, `{} {}`} {
		if clean([]byte(s), Default) {
			t.Errorf("%s: clean", s)
		}
	}
}

// A strict body's unknown member is named by its whole path, through
// nested objects, arrays and embedded structs (the provider's gateway
// names the member it refuses), not by its key alone.
func TestDecodeStrictNamesUnknownPath(t *testing.T) {
	type Inner struct {
		Postcode string `json:"postcode"`
	}
	type Embedded struct {
		Limit int `json:"limit"`
	}
	type body struct {
		Embedded
		Search *struct {
			Location *Inner  `json:"location"`
			Items    []Inner `json:"items"`
		} `json:"searchCriteria"`
	}
	for in, want := range map[string]string{
		`{"searchCriteria":{"location":{"postalCode":"00100"}}}`:                   "searchCriteria.location.postalCode",
		`{"searchCriteria":{"items":[{"postcode":"1"},{"zip":"2"}]}}`:              "searchCriteria.items[1].zip",
		`{"limit":1,"extra":true}`:                                                 "extra",
		`{"searchCriteria":{"location":{"postcode":"00100"}},"serviceFilters":{}}`: "serviceFilters",
	} {
		var b body
		err := DecodeStrict(strings.NewReader(in), &b, Default)
		if field(err) != want || !strings.Contains(parcelgate.ErrorMessage(err), want) {
			t.Errorf("%s: %v (field %q), want %s", in, err, field(err), want)
		}
	}
}
