package parcelgate

import (
	"strings"
	"unicode/utf8"
)

// TextProblem says why s cannot be taken as text of a request, or "" when
// it can. Text is valid UTF-8 without U+0000 (NUL): PostgreSQL refuses both
// in a text value, and SQLite would store the bytes and later serve them in
// answers that are not valid JSON, to the caller and to everyone the object
// is published to. Every text a request carries (path and query values,
// form fields, credentials, JSON strings) is held to this once, where it
// enters; past that boundary text is known to be storable.
func TextProblem(s string) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8 text"
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "must not contain the NUL character (U+0000)"
	}
	return ""
}
