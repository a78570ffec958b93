package httpapi

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// The text rule on the URL, and the shortcut past it: a
// path with no percent-escape and no query is passed without splitting it,
// so a NUL or a byte that is not UTF-8 must never reach the path unescaped.
// Raw bytes on the request line are escaped by EscapedPath, and refused
// like their escapes.
func TestCheckURLRawBytesOnTheRequestLine(t *testing.T) {
	const pattern = "GET /ecommerce/v3/orders/{id}"
	for _, c := range []struct {
		line string
		bad  bool
	}{
		{"GET /ecommerce/v3/orders/1234567-1-A1 HTTP/1.1", false},
		{"GET /ecommerce/v3/orders/\xc1 HTTP/1.1", true},
		{"GET /ecommerce/v3/orders/a\xed\xa0\x80b HTTP/1.1", true},
		{"GET /ecommerce/v3/orders/%00 HTTP/1.1", true},
		{"GET /ecommerce/v3/orders/A1?x=%00 HTTP/1.1", true},
		{"GET /ecommerce/v3/orders/A1?x=1 HTTP/1.1", false},
	} {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(c.line + "\r\nHost: x\r\n\r\n")))
		if err != nil {
			t.Fatalf("%q does not parse: %v", c.line, err)
		}
		err = checkURL(r, pattern)
		if (err != nil) != c.bad {
			t.Errorf("%q: %v", c.line, err)
		}
		if c.bad && err != nil && !strings.Contains(err.Error(), "id:") && !strings.Contains(err.Error(), "x:") {
			t.Errorf("%q: refused without naming the parameter: %v", c.line, err)
		}
	}
}
