package openapi_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/parcelgate/parcelgate/openapi"
)

// The reference page says what the YAML says: every operation, with its
// paths under every server prefix, its parameters and its answers.
func TestPageHasEveryOperation(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			id := `id="op-` + op.OperationID + `"`
			if strings.Count(html, id) != 1 {
				t.Errorf("%s %s: operation %s appears %d times", method, path, op.OperationID, strings.Count(html, id))
			}
			if !strings.Contains(html, ">"+method+"</span>") {
				t.Errorf("no %s operation shown", method)
			}
			for _, p := range op.Parameters {
				if p.Value != nil && !strings.Contains(html, "<code>"+p.Value.Name+"</code>") {
					t.Errorf("%s: parameter %s not shown", op.OperationID, p.Value.Name)
				}
			}
			for code := range op.Responses.Map() {
				if !strings.Contains(html, "<code>"+code+"</code>") {
					t.Errorf("%s: answer %s not shown", op.OperationID, code)
				}
			}
			for _, srv := range item.Servers {
				full := strings.TrimRight(srv.URL, "/") + path
				if !strings.Contains(html, full) {
					t.Errorf("%s: path %s not shown", op.OperationID, full)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d operations in the document", n)
	}
	for name := range doc.Components.Schemas {
		if !strings.Contains(html, `id="schema-`+name+`"`) {
			t.Errorf("schema %s not shown", name)
		}
	}
	// A request body's example is shown, made from the schema.
	if !strings.Contains(html, "&#34;searchCriteria&#34;") {
		t.Error("no example body for POST /labelless")
	}
}

// Nothing on the page comes from another host: no external script, style,
// image, font or frame, and no link off the server.
func TestPageLoadsNothingFromElsewhere(t *testing.T) {
	page, err := openapi.Page()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bsrc\s*=`),
		regexp.MustCompile(`(?i)<link\b`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)url\(`),
		regexp.MustCompile(`(?i)<(iframe|img|object|embed)\b`),
		regexp.MustCompile(`(?i)href\s*=\s*"(https?:)?//`),
		regexp.MustCompile(`(?i)\bfetch\(|XMLHttpRequest`),
	} {
		if m := re.FindString(html); m != "" {
			t.Errorf("page has %q", m)
		}
	}
	if !strings.Contains(html, `<input id="q" type="search"`) || !strings.Contains(html, `addEventListener("input"`) {
		t.Error("no search filter")
	}
}
