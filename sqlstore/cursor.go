package sqlstore

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate"
)

// One cursor encoding for every list (decisions §64). A cursor is the
// base64url (no padding) of the key's parts joined by dots, in this
// order, each present as the list's key shape says:
//
//	[direction "."] [stamp "."] [id] ["." text]
//
// where stamp and id are base 36 and text (a text key, the last part, so
// it may hold dots) is as stored. The direction, "f" (onwards in the
// list's order) or "b" (back towards its first page), is written on every
// list's cursor except the API's counted lists (keysetQuery.uncounted
// false), whose after= texts are the ones the ecom API has handed out
// since its first release; their cursors are unchanged.
//
// Each list decodes its cursors with its own shape, so a cursor of one
// list is not read as another's key shape. Cursors handed out before this
// encoding are still read (pageCursor's legacy forms): the console's
// newest-first ("o"/"n" + stamp + id), its product search ("sf"/"sb" +
// id + text), the operator's bare text keys, the journal's decimal entry
// IDs and the product stock's base-36 catalog IDs. A new cursor of a
// tagged list decodes to text starting "f." or "b.", whose base64 starts
// "Zi" or "Yi": none of the old forms but a bare text key can start so,
// and a bare key is only misread when it is itself the base64 of "f."
// followed by valid UTF-8 (a key starting "Zi4" to "Zi7"); such a key
// then starts its page elsewhere in the same tenant's list, never in
// another's.

// legacyForm is the encoding a list's cursors had before the one above.
type legacyForm int

const (
	legacyNone    legacyForm = iota
	legacyConsole            // base64 of "o|n.stamp36.id36" (newest-first lists, console products)
	legacySearch             // base64 of "sf|sb.id36.TEXT" (the console's product search)
	legacyText               // the text key as it is (the operator's and console's named lists)
	legacyDecimal            // the id in decimal (the journal)
	legacyBase36             // the id in base 36, bare (a product's stock by catalog)
)

// pageCursor is a decoded cursor: the key a page starts after, and
// whether it goes back towards the first page (a list paged both ways).
type pageCursor struct {
	key  pageKey
	back bool
	set  bool
}

// keyParts says which parts q's key has: a stamp, an id, a text.
func (q *keysetQuery) keyParts() (stamp, id, text bool) {
	return q.byModified, q.textCol == "", q.textCol != "" || q.textID
}

// encodeCursor is k as a cursor of q's list; back: the cursor of the rows
// before k (only on a list paged both ways).
func (q *keysetQuery) encodeCursor(k pageKey, back bool) string {
	stamp, id, text := q.keyParts()
	var parts []string
	if q.uncounted {
		parts = append(parts, map[bool]string{false: "f", true: "b"}[back])
	}
	if stamp {
		parts = append(parts, strconv.FormatInt(k.modified, 36))
	}
	if id {
		parts = append(parts, strconv.FormatInt(k.id, 36))
	}
	if text {
		parts = append(parts, k.text)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, ".")))
}

// decodeCursor is the cursor s of q's list ("" : none), in the encoding
// above or the list's legacy one; q.badCursor (or the ecom API's refusal)
// for anything else.
func (q *keysetQuery) decodeCursor(s string) (pageCursor, error) {
	if s == "" {
		return pageCursor{}, nil
	}
	if c, ok := q.parseCursor(s); ok {
		return c, nil
	}
	if c, ok := q.parseLegacy(s); ok {
		return c, nil
	}
	if q.badCursor != nil {
		return pageCursor{}, q.badCursor
	}
	return pageCursor{}, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The after parameter is not a cursor of this list; follow the next link as given.",
		Fields: []parcelgate.FieldError{{Field: "after", Message: "is not a cursor of this list"}}}
}

func (q *keysetQuery) parseCursor(s string) (pageCursor, bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || !utf8.Valid(b) {
		return pageCursor{}, false
	}
	stamp, id, text := q.keyParts()
	n := 0
	for _, p := range []bool{q.uncounted, stamp, id, text} {
		if p {
			n++
		}
	}
	parts := strings.SplitN(string(b), ".", n)
	if len(parts) != n {
		return pageCursor{}, false
	}
	c := pageCursor{set: true}
	if q.uncounted {
		switch parts[0] {
		case "f":
		case "b":
			if !q.both {
				return pageCursor{}, false
			}
			c.back = true
		default:
			return pageCursor{}, false
		}
		parts = parts[1:]
	}
	if stamp {
		if c.key.modified, err = parseBase36(parts[0]); err != nil {
			return pageCursor{}, false
		}
		parts = parts[1:]
	}
	if id {
		if c.key.id, err = parseBase36(parts[0]); err != nil {
			return pageCursor{}, false
		}
		parts = parts[1:]
	}
	if text {
		c.key.text = parts[0]
	}
	return c, true
}

// parseBase36 reads a key part: base 36, lowercase as written, no sign.
func parseBase36(s string) (int64, error) {
	if s == "" || strings.ContainsAny(s, "+-ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 36, 64)
}

// parseLegacy reads s in q's list's encoding before §64's.
func (q *keysetQuery) parseLegacy(s string) (pageCursor, bool) {
	switch q.legacy {
	case legacyConsole:
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			return pageCursor{}, false
		}
		parts := strings.Split(string(b), ".")
		if len(parts) != 3 || (parts[0] != "o" && parts[0] != "n") {
			return pageCursor{}, false
		}
		c := pageCursor{back: parts[0] == "n", set: true}
		if c.key.modified, err = strconv.ParseInt(parts[1], 36, 64); err != nil {
			return pageCursor{}, false
		}
		if c.key.id, err = strconv.ParseInt(parts[2], 36, 64); err != nil {
			return pageCursor{}, false
		}
		return c, true
	case legacySearch:
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			return pageCursor{}, false
		}
		parts := strings.SplitN(string(b), ".", 3)
		if len(parts) != 3 || (parts[0] != "sf" && parts[0] != "sb") || !utf8.ValidString(parts[2]) {
			return pageCursor{}, false
		}
		c := pageCursor{back: parts[0] == "sb", set: true, key: pageKey{text: parts[2]}}
		if c.key.id, err = strconv.ParseInt(parts[1], 36, 64); err != nil {
			return pageCursor{}, false
		}
		return c, true
	case legacyText:
		return pageCursor{key: pageKey{text: s}, set: true}, true
	case legacyDecimal:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return pageCursor{}, false
		}
		return pageCursor{key: pageKey{id: n}, set: true}, true
	case legacyBase36:
		n, err := strconv.ParseInt(s, 36, 64)
		if err != nil || n < 0 {
			return pageCursor{}, false
		}
		return pageCursor{key: pageKey{id: n}, set: true}, true
	}
	return pageCursor{}, false
}
