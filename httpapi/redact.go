package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// The journal's redaction (decisions §21). It must not be bypassable by
// how a name is written, so:
//
//   - names are compared decoded (after JSON unescaping, after URL
//     unescaping), lower-case, without '_', '-', '.' and spaces, and a name
//     is secret when it contains one of the families (secretFamilies):
//     client_secret, X-Api-Key, bearerToken and pass\u0077ord all are;
//   - a query parameter's value is redacted wherever a query is kept: the
//     entry's query, form bodies, and every URL in a JSON body (the paging
//     links echo the caller's query);
//   - a JSON body is redacted token by token, so one cut by the journal's
//     cap or invalid part-way keeps the redacted part before the cut, and
//     never the value of a secret name it saw; a body that is not JSON at
//     all and might hold a secret is not kept.

// secretFamilies are the name parts that make a field or parameter
// secret, in the normalized form of normalizeName.
var secretFamilies = []string{"secret", "password", "passwd", "passphrase", "token", "apikey", "privatekey", "authorization", "cookie"}

// normalizeName is a name as redaction compares it: lower-case, without
// the separators a name may be written with. A character past ASCII is
// taken as the least of its case-folding set, lower-cased: encoding/json
// matches a member name to a field so (the long s, U+017F, is an s to it,
// the Kelvin sign a k), and so must redaction.
func normalizeName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		if r >= utf8.RuneSelf {
			return unicode.ToLower(foldRune(r))
		}
		return r
	}, strings.ToLower(name))
}

// foldRune is the least rune of r's case-folding set, as encoding/json
// folds member names.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// isSecret reports whether a field or parameter named name holds a
// secret: its normalized name contains a secret family.
func isSecret(name string) bool {
	return containsFamily(normalizeName(name))
}

const redacted = "[redacted]"

// notKept replaces a body that could not be redacted.
const notKept = "[body not kept: it could not be read as JSON and may hold a secret]"

// mayHoldSecret reports whether b may hold a secret name at all: its
// normalized text contains a family, or it has an escape that could spell
// part of one. A body that may not is kept as it is, unparsed. This is
// sound: a name written without such escapes appears in b as its own
// characters, and normalized it is a part of b normalized. Only escapes
// of what a family is made of count — letters, the separators
// normalization drops, and any non-ASCII character (one may lower-case to
// an ASCII letter, as the Kelvin sign does to k) — so the escapes bodies
// are full of (\n, \", \u0026, %3A in a timestamp) keep them on the
// fast path.
func mayHoldSecret(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				if r, ok := jsonin.HexDigits(b, i+2, 4); !ok || mayBeNamePart(rune(r), true) {
					return true
				}
			}
			i++
		case '%':
			// A '%' without two hex digits escapes nothing.
			if r, ok := jsonin.HexDigits(b, i+1, 2); ok && mayBeNamePart(rune(r), false) {
				return true
			}
		}
	}
	return holdsFamily(b)
}

// holdsFamily reports whether b, normalized as names are (and without
// '+', a space in a query), contains a secret family. An ASCII body is
// normalized in one pass.
func holdsFamily(b []byte) bool {
	n := make([]byte, 0, len(b))
	for _, c := range b {
		switch {
		case c >= 0x80:
			// Lower-casing is rune by rune past ASCII.
			return containsFamily(normalizeName(strings.ReplaceAll(string(b), "+", "")))
		case c >= 'A' && c <= 'Z':
			n = append(n, c+'a'-'A')
		case c == '_', c == '-', c == '.', c == ' ', c == '+':
		default:
			n = append(n, c)
		}
	}
	return containsFamily(string(n))
}

func containsFamily(n string) bool {
	for _, f := range secretFamilies {
		if strings.Contains(n, f) {
			return true
		}
	}
	return false
}

// mayBeNamePart reports whether an escaped character could be part of a
// secret family's name once decoded, lower-cased and normalized. A JSON
// escape may also spell what a URL inside the string decodes again: '+'
// (a space) and '%' (an escape).
func mayBeNamePart(r rune, json bool) bool {
	switch {
	case r >= 0x80, r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	}
	switch r {
	case '_', '-', '.', ' ':
		return true
	case '+', '%':
		return json
	}
	return false
}

// redactBody replaces the values of secret fields in a JSON or form body.
func redactBody(b []byte, contentType string) string {
	if len(b) == 0 {
		return ""
	}
	// A form is read as one, unless it is JSON: curl -d sends JSON with a
	// form's Content-Type.
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") && !looksJSON(b) {
		return redactQuery(string(b))
	}
	if !mayHoldSecret(b) {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	out, ok := redactJSON(b, 0)
	if !ok {
		return notKept
	}
	return out
}

// looksJSON reports whether b starts as a JSON object or array does.
func looksJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// maxNesting bounds how deep redactText looks into text held in text.
const maxNesting = 8

// redactText redacts a text held inside a body or a query — a JSON
// string, a form or query value — that may itself be JSON, a URL or a
// query (a client's payload=JSON, a stored request): the values of its
// secret names are replaced as in a body. Text that may hold no secret is
// returned as it is, the fast path of every ordinary value. depth is how
// deep the text is nested; past maxNesting, text that may hold a secret is
// not kept.
func redactText(s string, depth int) string {
	if !mayHoldSecret([]byte(s)) {
		return s
	}
	if depth >= maxNesting {
		return redacted
	}
	if looksJSON([]byte(s)) {
		out, ok := redactJSON([]byte(s), depth+1)
		if !ok {
			return redacted
		}
		return out
	}
	if strings.ContainsAny(s, "?#") {
		return redactURL(s, depth+1)
	}
	if strings.Contains(s, "=") {
		return redactQueryAt(s, depth+1)
	}
	return s
}

// redactJSON re-encodes the JSON values in b with the values of secret
// names replaced and the URLs' secret parameters redacted. It stops at
// the first token that does not decode (a body cut by the cap, or
// invalid) and returns what came before; ok is false when not even one
// token decoded. depth is how deep b is nested in other text (redactText).
func redactJSON(b []byte, depth int) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	w := redactWriter{depth: depth}
	tokens := 0
	for {
		t, err := dec.Token()
		if err != nil {
			// io.EOF after whole values, or the first token that does
			// not decode: either way what came before is redacted.
			return w.out.String(), tokens > 0
		}
		tokens++
		w.token(t)
	}
}

// redactWriter writes a stream of JSON tokens back as JSON, replacing the
// value after a secret name.
type redactWriter struct {
	out   strings.Builder
	stack []redactFrame
	// skip > 0 while the tokens of a redacted value are dropped: the depth
	// of its containers.
	skip int
	// redactNext is set after a secret name: its value is dropped.
	redactNext bool
	top        int // values written at the top level
	depth      int // how deep the body is nested in other text
	buf        bytes.Buffer
	enc        *json.Encoder
}

type redactFrame struct {
	object bool
	n      int  // members or elements written
	value  bool // in an object: the next token is a member's value
}

func (w *redactWriter) token(t json.Token) {
	if w.skip > 0 {
		switch t {
		case json.Delim('{'), json.Delim('['):
			w.skip++
		case json.Delim('}'), json.Delim(']'):
			w.skip--
			if w.skip == 0 {
				w.valueDone()
			}
		}
		return
	}
	if d, ok := t.(json.Delim); ok && (d == '}' || d == ']') {
		w.out.WriteByte(byte(d))
		w.stack = w.stack[:len(w.stack)-1]
		w.valueDone()
		return
	}
	// A member name.
	if n := len(w.stack); n > 0 && w.stack[n-1].object && !w.stack[n-1].value {
		f := &w.stack[n-1]
		if f.n > 0 {
			w.out.WriteByte(',')
		}
		name, _ := t.(string)
		w.writeString(name)
		w.out.WriteByte(':')
		f.value = true
		w.redactNext = isSecret(name)
		return
	}
	// A value: separated from the one before it in an array, or at the
	// top level.
	if n := len(w.stack); n == 0 {
		if w.top > 0 {
			w.out.WriteByte('\n')
		}
	} else if f := w.stack[n-1]; !f.object && f.n > 0 {
		w.out.WriteByte(',')
	}
	if w.redactNext {
		w.redactNext = false
		w.writeString(redacted)
		if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
			w.skip = 1
			return
		}
		w.valueDone()
		return
	}
	switch v := t.(type) {
	case json.Delim:
		w.out.WriteByte(byte(v))
		w.stack = append(w.stack, redactFrame{object: v == '{'})
		return
	case string:
		w.writeString(redactText(v, w.depth))
	case json.Number:
		w.out.WriteString(string(v))
	case bool:
		if v {
			w.out.WriteString("true")
		} else {
			w.out.WriteString("false")
		}
	case nil:
		w.out.WriteString("null")
	}
	w.valueDone()
}

// valueDone counts a finished value in its container.
func (w *redactWriter) valueDone() {
	n := len(w.stack)
	if n == 0 {
		w.top++
		return
	}
	f := &w.stack[n-1]
	f.n++
	f.value = false
}

// writeString writes s as a JSON string, leaving <, > and & as they are
// (the console escapes what it shows).
func (w *redactWriter) writeString(s string) {
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
	}
	w.buf.Reset()
	w.enc.Encode(s)
	w.out.Write(bytes.TrimSuffix(w.buf.Bytes(), []byte{'\n'}))
}

// redactURL redacts the secret parameters of the query of a string that
// holds a URL (a paging link), and returns any other string as it is.
func redactURL(s string, depth int) string {
	i := strings.IndexAny(s, "?#")
	if i < 0 || !strings.Contains(s[i:], "=") {
		return s
	}
	if s[i] == '#' {
		return s[:i+1] + redactFrag(s[i+1:], depth)
	}
	q, frag, hasFrag := strings.Cut(s[i+1:], "#")
	out := s[:i+1] + redactQueryAt(q, depth)
	if hasFrag {
		out += "#" + redactFrag(frag, depth)
	}
	return out
}

// redactFrag redacts a fragment that is written as a query (the implicit
// OAuth2 flow's #access_token=...).
func redactFrag(f string, depth int) string {
	if strings.Contains(f, "=") {
		return redactQueryAt(f, depth)
	}
	return f
}

// redactQuery replaces the values of secret parameters of a query string,
// keeping every other pair as it was written. A parameter is secret by
// its name as written and as decoded, so neither an escape in its name nor
// a malformed pair elsewhere in the query lets its value through. Any
// other value (or a pair that is only a name) is redacted as text that may
// hold JSON or a query itself (redactText).
func redactQuery(q string) string { return redactQueryAt(q, 0) }

func redactQueryAt(q string, depth int) string {
	if q == "" {
		return ""
	}
	pairs := strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' })
	changed := false
	for i, p := range pairs {
		k, v, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if hasValue && (isSecret(k) || err == nil && isSecret(name)) {
			pairs[i] = k + "=" + url.QueryEscape(redacted)
			changed = true
			continue
		}
		text := v
		if !hasValue {
			text = k
		}
		if plain, err := url.QueryUnescape(text); err == nil {
			text = plain
		}
		if out := redactText(text, depth); out != text {
			if hasValue {
				pairs[i] = k + "=" + url.QueryEscape(out)
			} else {
				pairs[i] = url.QueryEscape(out)
			}
			changed = true
		}
	}
	if changed {
		q = strings.Join(pairs, "&")
	}
	if !utf8.ValidString(q) {
		q = strings.ToValidUTF8(q, "\uFFFD")
	}
	return q
}
