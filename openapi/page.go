package openapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed page.html.tmpl
var pageTemplate string

// Page is the API reference served at /docs, rendered from Spec when first
// asked for, so it always says what the YAML says. It is one HTML document
// with its style and its search script inline: it loads nothing from any
// host, since a sandbox may run without internet access.
var Page = sync.OnceValues(func() ([]byte, error) {
	doc, err := openapi3.NewLoader().LoadFromData(Spec)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return render(doc)
})

// The page's view of the document.
type (
	pageData struct {
		Title, Version, License string
		Description             template.HTML
		Tags                    []tagView
		Schemas                 []schemaView
		Operations              int
	}
	tagView struct {
		Name, Anchor string
		Description  template.HTML
		Ops          []opView
	}
	opView struct {
		ID, Method, Summary string
		Paths               []string // the path under each server prefix
		Description         template.HTML
		Security            []string
		Params              []paramView
		Body                *bodyView
		Responses           []responseView
		Search              string // what the filter matches, lower case
	}
	paramView struct {
		Name, In, Type string
		Required       bool
		Description    template.HTML
		// Example is the value the parameter's example gives ("" for
		// none); Examples its named ones, when it has several.
		Example  string
		Examples []namedExample
	}
	namedExample struct{ Name, Summary, Value string }
	bodyView     struct {
		Required    bool
		Description template.HTML
		Content     []contentView
	}
	responseView struct {
		Status      string
		Description template.HTML
		Content     []contentView
	}
	contentView struct {
		MediaType, Schema, SchemaAnchor, Example string
		Examples                                 []namedExample
		// Generated is set when Example was made from the schema, not
		// given by the document.
		Generated bool
	}
	schemaView struct {
		Name, Anchor, Type string
		Description        template.HTML
		Fields             []fieldView
	}
	fieldView struct {
		Name, Type, TypeAnchor string
		Required               bool
		Description            template.HTML
	}
)

func render(doc *openapi3.T) ([]byte, error) {
	tmpl, err := template.New("page").Funcs(template.FuncMap{"navPath": navPath}).Parse(pageTemplate)
	if err != nil {
		return nil, err
	}
	data := pageData{Title: doc.Info.Title, Version: doc.Info.Version, Description: markdown(doc.Info.Description)}
	if doc.Info.License != nil {
		data.License = doc.Info.License.Name
	}

	byTag := map[string]*tagView{}
	var tagOrder []string
	for _, t := range doc.Tags {
		byTag[t.Name] = &tagView{Name: t.Name, Anchor: anchor("tag", t.Name), Description: markdown(t.Description)}
		tagOrder = append(tagOrder, t.Name)
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		prefixes := []string{""}
		if len(item.Servers) > 0 {
			prefixes = prefixes[:0]
			for _, s := range item.Servers {
				prefixes = append(prefixes, strings.TrimRight(s.URL, "/"))
			}
		}
		for _, method := range []string{"GET", "PUT", "POST", "PATCH", "DELETE"} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			v := opView{ID: op.OperationID, Method: method, Summary: op.Summary, Description: markdown(op.Description)}
			for _, pre := range prefixes {
				v.Paths = append(v.Paths, pre+path)
			}
			v.Security = security(doc, op)
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if p.Value == nil {
					continue
				}
				pv := paramView{Name: p.Value.Name, In: p.Value.In, Required: p.Value.Required,
					Type: typeName(p.Value.Schema), Description: markdown(p.Value.Description)}
				pv.Example, pv.Examples = paramExamples(p.Value)
				v.Params = append(v.Params, pv)
			}
			if rb := op.RequestBody; rb != nil && rb.Value != nil {
				v.Body = &bodyView{Required: rb.Value.Required, Description: markdown(rb.Value.Description), Content: contents(rb.Value.Content, false)}
			}
			codes := slices.Sorted(maps.Keys(op.Responses.Map()))
			for _, code := range codes {
				r := op.Responses.Value(code)
				if r == nil || r.Value == nil {
					continue
				}
				desc := ""
				if r.Value.Description != nil {
					desc = *r.Value.Description
				}
				v.Responses = append(v.Responses, responseView{Status: code, Description: markdown(desc), Content: contents(r.Value.Content, true)})
			}
			v.Search = strings.ToLower(strings.Join(append([]string{method, op.OperationID, op.Summary, strings.Join(op.Tags, " ")}, v.Paths...), " "))
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			tv := byTag[tag]
			if tv == nil {
				tv = &tagView{Name: tag, Anchor: anchor("tag", tag)}
				byTag[tag] = tv
				tagOrder = append(tagOrder, tag)
			}
			tv.Ops = append(tv.Ops, v)
			data.Operations++
		}
	}
	for _, name := range tagOrder {
		if tv := byTag[name]; len(tv.Ops) > 0 {
			data.Tags = append(data.Tags, *tv)
		}
	}

	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			continue
		}
		s := ref.Value
		sv := schemaView{Name: name, Anchor: anchor("schema", name), Type: typeName(ref), Description: markdown(s.Description)}
		props := properties(s)
		required := requiredSet(s)
		for _, p := range slices.Sorted(maps.Keys(props)) {
			f := fieldView{Name: p, Type: typeName(props[p]), Required: required[p], Description: markdown(props[p].Value.Description)}
			if n := refName(props[p]); n != "" {
				f.TypeAnchor = anchor("schema", n)
			}
			sv.Fields = append(sv.Fields, f)
		}
		data.Schemas = append(data.Schemas, sv)
	}

	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// security names the credentials an operation takes ("none" for none).
func security(doc *openapi3.T, op *openapi3.Operation) []string {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	var out []string
	for _, req := range reqs {
		out = append(out, slices.Sorted(maps.Keys(req))...)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// contents describes the media types of a body. A request body shows only
// the example the document gives, sent as it is a real request (decisions
// §41); an answer without one shows a sample made from its schema
// (generated).
func contents(c openapi3.Content, generated bool) []contentView {
	var out []contentView
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		m := c[mt]
		cv := contentView{MediaType: mt}
		if m.Schema != nil {
			cv.Schema = typeName(m.Schema)
			if n := refName(m.Schema); n != "" {
				cv.SchemaAnchor = anchor("schema", n)
			}
		}
		switch {
		case m.Example != nil:
			cv.Example = showExample(mt, m.Example)
		case len(m.Examples) > 0:
			// Each named example, as the examples test sends each.
			for _, name := range slices.Sorted(maps.Keys(m.Examples)) {
				if e := m.Examples[name]; e != nil && e.Value != nil {
					cv.Examples = append(cv.Examples, namedExample{Name: name, Summary: e.Value.Summary, Value: showExample(mt, e.Value.Value)})
				}
			}
		case generated && m.Schema != nil && strings.Contains(mt, "json"):
			cv.Example, cv.Generated = showExample(mt, example(m.Schema, 0)), true
		}
		out = append(out, cv)
	}
	return out
}

// showExample writes an example value as it is sent: a form for
// application/x-www-form-urlencoded, else indented JSON.
func showExample(mediaType string, v any) string {
	if v == nil {
		return ""
	}
	if obj, ok := v.(map[string]any); ok && strings.Contains(mediaType, "x-www-form-urlencoded") {
		form := url.Values{}
		for k, x := range obj {
			form.Set(k, fmt.Sprint(x))
		}
		return form.Encode()
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// paramExamples is what a parameter's examples say: its one example (its
// own or its schema's), or each of its named ones.
func paramExamples(p *openapi3.Parameter) (string, []namedExample) {
	str := func(v any) string {
		if a, ok := v.([]any); ok {
			parts := make([]string, len(a))
			for i, x := range a {
				parts[i] = fmt.Sprint(x)
			}
			return strings.Join(parts, ",")
		}
		return fmt.Sprint(v)
	}
	switch {
	case p.Example != nil:
		return str(p.Example), nil
	case len(p.Examples) > 0:
		var out []namedExample
		for _, name := range slices.Sorted(maps.Keys(p.Examples)) {
			if e := p.Examples[name]; e != nil && e.Value != nil {
				out = append(out, namedExample{Name: name, Summary: e.Value.Summary, Value: str(e.Value.Value)})
			}
		}
		return "", out
	case p.Schema != nil && p.Schema.Value != nil && p.Schema.Value.Example != nil:
		return str(p.Schema.Value.Example), nil
	}
	return "", nil
}

// navPath writes a path for the sidebar whole, with a line-break
// opportunity after each slash, so a long path wraps instead of being cut.
func navPath(path string) template.HTML {
	parts := strings.Split(path, "/")
	for i := range parts {
		parts[i] = template.HTMLEscapeString(parts[i])
	}
	return template.HTML(strings.Join(parts, "/<wbr>"))
}

// example makes a sample value from a schema: its own example, else a
// default or the first enum value, else one built from its parts.
func example(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > 6 {
		return nil
	}
	s := ref.Value
	switch {
	case s.Example != nil:
		return s.Example
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return example(s.OneOf[0], depth+1)
	case len(s.AnyOf) > 0:
		return example(s.AnyOf[0], depth+1)
	}
	if len(s.AllOf) > 0 || s.Type.Is("object") || len(s.Properties) > 0 {
		props := properties(s)
		if len(props) == 0 && len(s.AllOf) > 0 {
			for _, part := range s.AllOf {
				if v := example(part, depth+1); v != nil {
					return v
				}
			}
		}
		obj := map[string]any{}
		required := requiredSet(s)
		for name, p := range props {
			// Deep down, only the required fields: the sample stays readable.
			if depth > 2 && !required[name] {
				continue
			}
			if v := example(p, depth+1); v != nil {
				obj[name] = v
			}
		}
		return obj
	}
	switch {
	case s.Type.Is("array"):
		if v := example(s.Items, depth+1); v != nil {
			return []any{v}
		}
		return []any{}
	case s.Type.Is("string"):
		switch s.Format {
		case "date-time":
			return "2025-04-01T12:00:00Z"
		case "binary":
			return nil
		}
		return "string"
	case s.Type.Is("integer"):
		return 0
	case s.Type.Is("number"):
		return 0.0
	case s.Type.Is("boolean"):
		return false
	}
	return nil
}

// properties gathers an object schema's properties, those of its allOf
// parts included.
func properties(s *openapi3.Schema) map[string]*openapi3.SchemaRef {
	out := map[string]*openapi3.SchemaRef{}
	for _, part := range s.AllOf {
		if part.Value != nil {
			maps.Copy(out, properties(part.Value))
		}
	}
	for name, p := range s.Properties {
		if p != nil && p.Value != nil {
			out[name] = p
		}
	}
	return out
}

func requiredSet(s *openapi3.Schema) map[string]bool {
	out := map[string]bool{}
	for _, part := range s.AllOf {
		if part.Value != nil {
			maps.Copy(out, requiredSet(part.Value))
		}
	}
	for _, r := range s.Required {
		out[r] = true
	}
	return out
}

func refName(ref *openapi3.SchemaRef) string {
	if ref == nil {
		return ""
	}
	if i := strings.LastIndex(ref.Ref, "/"); i >= 0 && strings.HasPrefix(ref.Ref, "#/components/schemas/") {
		return ref.Ref[i+1:]
	}
	if ref.Value != nil && ref.Value.Type.Is("array") {
		return refName(ref.Value.Items)
	}
	return ""
}

// typeName says a schema's type in a few words: a named schema by its name,
// an array by its items, a string by its format or pattern.
func typeName(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return ""
	}
	if n := refName(ref); n != "" && !ref.Value.Type.Is("array") {
		return n
	}
	s := ref.Value
	switch {
	case s.Type.Is("array"):
		return "array of " + typeName(s.Items)
	case len(s.OneOf) > 0:
		var parts []string
		for _, o := range s.OneOf {
			parts = append(parts, typeName(o))
		}
		return strings.Join(parts, " or ")
	case len(s.AllOf) == 1:
		return typeName(s.AllOf[0])
	case len(s.Enum) > 0:
		var vals []string
		for _, e := range s.Enum {
			vals = append(vals, fmt.Sprint(e))
		}
		return "one of " + strings.Join(vals, ", ")
	case s.Type == nil || len(*s.Type) == 0:
		return "any"
	}
	t := strings.Join(*s.Type, " or ")
	if s.Format != "" {
		t += " (" + s.Format + ")"
	}
	if s.Nullable {
		t += ", nullable"
	}
	return t
}

var nonAnchor = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func anchor(kind, name string) string { return kind + "-" + nonAnchor.ReplaceAllString(name, "-") }

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	bold     = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// markdown renders the little Markdown the descriptions use: paragraphs,
// "- " lists, `code` and **bold**. Text is escaped before any tag is added.
func markdown(s string) template.HTML {
	var b strings.Builder
	inline := func(t string) string {
		t = template.HTMLEscapeString(t)
		t = codeSpan.ReplaceAllString(t, "<code>$1</code>")
		return bold.ReplaceAllString(t, "<strong>$1</strong>")
	}
	for block := range strings.SplitSeq(strings.TrimSpace(s), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		if strings.HasPrefix(lines[0], "- ") {
			b.WriteString("<ul>")
			var item []string
			flush := func() {
				if len(item) > 0 {
					b.WriteString("<li>" + inline(strings.Join(item, " ")) + "</li>")
				}
				item = nil
			}
			for _, l := range lines {
				l = strings.TrimSpace(l)
				if rest, ok := strings.CutPrefix(l, "- "); ok {
					flush()
					l = rest
				}
				item = append(item, l)
			}
			flush()
			b.WriteString("</ul>")
			continue
		}
		for i := range lines {
			lines[i] = strings.TrimSpace(lines[i])
		}
		b.WriteString("<p>" + inline(strings.Join(lines, " ")) + "</p>")
	}
	return template.HTML(b.String())
}
