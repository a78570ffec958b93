package sqlstore

import (
	"math"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// The lists' key shapes, as the store builds them.
func cursorShapes() map[string]*keysetQuery {
	return map[string]*keysetQuery{
		"ecom by id":       {},
		"ecom by change":   {byModified: true},
		"newest first":     newestFirstQuery(&filterSQL{}, "shipments", "", ""),
		"newest by stamp":  newestFirstQuery(&filterSQL{}, "orders o", "o", "updated_at"),
		"named":            namedQuery(true, "", nil),
		"search":           searchQuery(nil, parcelgate.ProductScope{}, ""),
		"journal":          {uncounted: true, desc: true, legacy: legacyDecimal},
		"product's stock":  {uncounted: true, idCol: "catalog_id", legacy: legacyBase36},
		"console products": {uncounted: true, desc: true, both: true, legacy: legacyConsole},
	}
}

// A cursor decodes, on its own list, to the key and direction it was made
// from (decisions §64: one encoding for every list).
func TestCursorsRoundTrip(t *testing.T) {
	keys := []pageKey{{id: 1}, {modified: 1764000000000000, id: 412638, text: "WH1"}, {modified: math.MaxInt64, id: math.MaxInt64, text: "a.b.c ÅÄÖ"}, {id: 0, text: ""}}
	for name, q := range cursorShapes() {
		stamp, id, text := q.keyParts()
		for _, k := range keys {
			want := pageKey{}
			if stamp {
				want.modified = k.modified
			}
			if id {
				want.id = k.id
			}
			if text {
				want.text = k.text
			}
			for _, back := range []bool{false, true} {
				if back && !q.both {
					continue
				}
				cur := q.encodeCursor(k, back)
				got, err := q.decodeCursor(cur)
				if err != nil || !got.set || got.key != want || got.back != back {
					t.Errorf("%s: %v (back %v) as %q decodes to %+v %v", name, k, back, cur, got, err)
				}
			}
		}
	}
}

// The ecom API's cursors are unchanged by §64: clients hold them in next
// links, and the golden answers record them.
func TestEcomCursorTextIsUnchanged(t *testing.T) {
	byChange := &keysetQuery{byModified: true}
	if got := byChange.encodeCursor(pageKey{modified: 36, id: 35}, false); got != "MTAueg" { // base64 of "10.z"
		t.Errorf("ecom cursor by change: %q, want MTAueg", got)
	}
	if got := (&keysetQuery{}).encodeCursor(pageKey{id: 5}, false); got != "NQ" { // base64 of "5"
		t.Errorf("ecom cursor by id: %q, want NQ", got)
	}
}

// Every cursor a client may hold from before §64 is still read as the key
// it named: literal strings the old encoders wrote.
func TestOldCursorsAreRead(t *testing.T) {
	shapes := cursorShapes()
	for _, tc := range []struct {
		list, cursor string
		want         pageKey
		back         bool
	}{
		// The ecom after= (base64 of "[stamp36.]id36"), from the golden answers.
		{"ecom by id", "NQ", pageKey{id: 5}, false},
		{"ecom by change", "aGdpcXcyeDU0dy41", pageKey{modified: 1764000000000000 + 0, id: 5}, false},
		// The console's newest-first links: base64 of "o|n.stamp36.id36".
		{"newest first", "by4wLjU", pageKey{id: 5}, false},
		{"newest first", "bi4wLjU", pageKey{id: 5}, true},
		{"newest by stamp", "by4xa2YuMnM", pageKey{modified: 36*36 + 20*36 + 15, id: 2*36 + 28}, false},
		{"console products", "bi4wLjU", pageKey{id: 5}, true},
		// The console's product search: base64 of "sf|sb.id36.TEXT".
		{"search", "c2YuNS5BQkMuRA", pageKey{id: 5, text: "ABC.D"}, false},
		{"search", "c2IuYS5Y", pageKey{id: 10, text: "X"}, true},
		// The operator's and the console's named lists: the key itself.
		{"named", "1234567-1", pageKey{text: "1234567-1"}, false},
		{"named", "WH1", pageKey{text: "WH1"}, false},
		{"named", "golden-user", pageKey{text: "golden-user"}, false},
		{"named", "pg_yejfvrrlo5nqzjtluowz", pageKey{text: "pg_yejfvrrlo5nqzjtluowz"}, false},
		// The journal's next: the oldest entry's id in decimal.
		{"journal", "149", pageKey{id: 149}, false},
		// A product's stock: the last catalog id in base 36; "eg" is also
		// the base64 of "z", which is no cursor of the new encoding.
		{"product's stock", "1a", pageKey{id: 46}, false},
		{"product's stock", "eg", pageKey{id: 14*36 + 16}, false},
	} {
		q := shapes[tc.list]
		if tc.list == "ecom by change" {
			// hgiqw2x54w.5, whatever the stamp: compare with its parse.
			tc.want.modified = mustBase36(t, "hgiqw2x54w")
		}
		got, err := q.decodeCursor(tc.cursor)
		if err != nil || !got.set || got.key != tc.want || got.back != tc.back {
			t.Errorf("%s: old cursor %q decodes to %+v %v, want %+v back %v", tc.list, tc.cursor, got, err, tc.want, tc.back)
		}
	}
}

func mustBase36(t *testing.T, s string) int64 {
	n, err := parseBase36(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Text that no encoder made is refused, in the list's own words, and a
// cursor of one list is not read as another's shape.
func TestBadCursorsAreRefused(t *testing.T) {
	shapes := cursorShapes()
	for _, list := range []string{"ecom by id", "ecom by change", "newest first", "newest by stamp", "search", "journal", "product's stock"} {
		q := shapes[list]
		for _, bad := range []string{"!!", "bm90IGEgbnVtYmVy", strings.Repeat("A", 40), "-5"} {
			if c, err := q.decodeCursor(bad); err == nil {
				t.Errorf("%s: %q decodes to %+v, want refused", list, bad, c)
			}
		}
	}
	// A back cursor on a list paged onwards only.
	newest := shapes["newest first"]
	if _, err := shapes["journal"].decodeCursor(newest.encodeCursor(pageKey{id: 5}, true)); err == nil {
		t.Error("the journal read a cursor going back")
	}
	// An ecom cursor by change is not a cursor of a list by id.
	if _, err := shapes["ecom by id"].decodeCursor("MTAueg"); err == nil {
		t.Error("a list by id read a cursor by change")
	}
}
