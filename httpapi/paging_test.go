package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

// interface §2.6, 4.4 GET rule 1, decisions §8: page from 0, size capped at 2000,
// bad values 400 naming the parameter; decisions §59: the page number is
// mapped onto the keyset here, as the position of the page's first row.
func TestParsePage(t *testing.T) {
	for q, want := range map[string]parcelgate.PageRequest{
		"":                  {Number: 0, Size: 2000},
		"page=3&size=10":    {Number: 3, Size: 10, Start: 30},
		"size=5000":         {Number: 0, Size: 2000},
		"page=1&after=abcd": {Number: 1, Size: 2000, After: "abcd", Start: 2000},
	} {
		got, err := parsePage(httptest.NewRequest("GET", "/x?"+q, nil), 2000)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", q, got, err, want)
		}
	}
	for _, q := range []string{"page=-1", "page=x", "size=0", "size=-5", "size=1.5", "page=1e3"} {
		_, err := parsePage(httptest.NewRequest("GET", "/x?"+q, nil), 2000)
		if parcelgate.ErrorCode(err) != parcelgate.EINVALID || len(parcelgate.ErrorFields(err)) != 1 {
			t.Errorf("%q: %v", q, err)
		}
	}
}

// interface §4.4 GET rule 1: 412638 balances at 2000 a page are 207 pages; the
// links name first, prev, next and last.
func TestNewPageLinks(t *testing.T) {
	s := &Server{cfg: Config{PublicURL: "https://api.example.com"}}
	r := httptest.NewRequest("GET", "/v3/catalogs/C1/balances?page=5&eanCode=123", nil)
	p := newPage(s, r, parcelgate.PageRequest{Number: 5, Size: 2000}, parcelgate.Page[int]{Total: 412638, Next: "cur"})
	if p.Page.TotalPages != 207 || p.Page.Number != 5 || p.Content == nil {
		t.Fatalf("%+v", p.Page)
	}
	rels := map[string]string{}
	for _, l := range p.Links {
		rels[l.Rel] = l.Href
	}
	if rels["next"] != "https://api.example.com/v3/catalogs/C1/balances?after=cur&eanCode=123&page=6&size=2000" || rels["last"] == "" || rels["prev"] == "" || rels["first"] == "" || rels["self"] == "" {
		t.Fatalf("links %v", rels)
	}
	last := newPage(s, r, parcelgate.PageRequest{Number: 206, Size: 2000}, parcelgate.Page[int]{Total: 412638})
	for _, l := range last.Links {
		if l.Rel == "next" {
			t.Fatalf("next link on the last page")
		}
	}
	empty := newPage(s, r, parcelgate.PageRequest{Number: 0, Size: 2000}, parcelgate.Page[int]{})
	if empty.Page.TotalPages != 0 || len(empty.Content) != 0 {
		t.Fatalf("empty %+v", empty)
	}
}

// decisions §8: timestamps in query strings, with an unencoded '+' read back.
func TestParseTime(t *testing.T) {
	want := time.Date(2025, 4, 1, 9, 0, 0, 0, time.UTC)
	for _, v := range []string{"2025-04-01T09:00:00Z", "2025-04-01T12:00:00+03:00", "2025-04-01T12:00:00 03:00", "2025-04-01T09:00:00.000Z"} {
		var p parcelgate.Problems
		got, ok := parseTime(url.Values{"t": {v}}, "t", &p)
		if !ok || !got.Equal(want) || p.Len() != 0 {
			t.Errorf("%q: %v %v %v", v, got, ok, p)
		}
	}
	var p parcelgate.Problems
	if _, ok := parseTime(url.Values{"t": {"yesterday"}}, "t", &p); ok || p.Len() != 1 || p.List()[0].Field != "t" {
		t.Errorf("bad time: %v", p)
	}
}

// A page is written byte for byte as encodeJSON writes it, the
// balances' own encoding spliced in without encoding/json's second pass:
// text with characters encoding/json escapes for HTML (kept as in encodeJSON),
// non-ASCII text, empty and omitted fields, removed balances, an empty page,
// and pages of items that are not balances.
func TestPageEncodeIsEncodeJSON(t *testing.T) {
	at := time.Date(2026, 11, 23, 7, 0, 0, 123456000, time.UTC)
	balances := []*parcelgate.Balance{
		{ProductExternalID: "1234567-1-P<1>&\"x\"", SupplierID: "1234567-1", RetailerID: "0737546-2", CatalogExternalID: "BIG",
			Quantity: 5, Allocated: 2, WholesalePrice: "7.90", Currency: "EUR", ModifiedAt: at},
		{ProductExternalID: "1234567-1-Pää\u2028", EANCode: "6412345678901", SupplierID: "1234567-1", RetailerID: "0737546-2", CatalogExternalID: "BIG",
			Removed: true, ModifiedAt: at.Add(time.Second)},
	}
	links := []PageLink{{Rel: "self", Href: "https://api.example.com/v3/catalogs/BIG/balances?page=0&size=2000"}}
	info := PageInfo{Size: 2000, TotalElements: 2, TotalPages: 1}
	check := func(name string, want func() ([]byte, error), got func() ([]byte, error)) {
		t.Helper()
		w, err1 := want()
		g, err2 := got()
		if err1 != nil || err2 != nil || string(w) != string(g) {
			t.Errorf("%s:\nencodeJSON %s (%v)\nencode     %s (%v)", name, w, err1, g, err2)
		}
	}
	for name, p := range map[string]Page[*parcelgate.Balance]{
		"balances": {Links: links, Content: balances, Page: info},
		"empty":    {Links: links, Content: []*parcelgate.Balance{}, Page: PageInfo{Size: 2000}},
	} {
		check(name, func() ([]byte, error) { return encodeJSON(p) }, p.encode)
	}
	entries := Page[*parcelgate.CatalogEntry]{Links: links, Content: []*parcelgate.CatalogEntry{{ExternalID: "C<1>", Name: "Ä & B", Type: parcelgate.CatalogDropship}}, Page: info}
	check("catalog entries", func() ([]byte, error) { return encodeJSON(entries) }, entries.encode)
	items := Page[*parcelgate.InventoryItem]{Links: links, Content: []*parcelgate.InventoryItem{{
		Product:  &parcelgate.Product{SupplierID: "1234567-1", Status: "ACTIVE", Document: []byte(`{"externalId": "1234567-1-P1", "name": "<b>"}`)},
		Balances: balances}, {
		Product:  &parcelgate.Product{SupplierID: "1234567-1", Status: "ACTIVE", Document: []byte(` { "externalId" : "P2" ,	"descriptions": {"fi": {"name": "Pää \u2028"}}} `)},
		Balances: []*parcelgate.Balance{}}, {Product: nil, Balances: nil}, {Balances: []*parcelgate.Balance{nil, balances[0]}}}, Page: info}
	check("inventory items", func() ([]byte, error) { return encodeJSON(items) }, items.encode)
}

// TestOrderListIsItsOrders: a page of orders written from the orders'
// rendered answers (rawItems) is byte for byte the page encodeJSON makes of
// the orders themselves, so GET /orders answers what it answered before the
// answers were reused (and what GET /orders/{id} answers for each order).
func TestOrderListIsItsOrders(t *testing.T) {
	at := time.Date(2026, 11, 23, 7, 0, 0, 123456000, time.UTC)
	orders := []*parcelgate.Order{
		{ID: "a<1>", ExternalID: "Ä & \u2028 \"x\"", OrderDate: at, ServiceCode: "2103",
			Rows: []parcelgate.OrderRow{{ExternalID: "1"}}, Status: parcelgate.OrderState{Value: parcelgate.OrderCreated, Timestamp: at}},
		{ID: "b", ExternalID: "SO-2", OrderDate: at.Add(time.Hour)},
	}
	links := []PageLink{{Rel: "self", Href: "https://api.example.com/ecommerce/v3/orders?page=0&size=30"}}
	info := PageInfo{Size: 30, TotalElements: 2, TotalPages: 1}
	var answers [][]byte
	for _, o := range orders {
		b, err := renderOrder(o)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, b)
	}
	for name, items := range map[string][]*parcelgate.Order{"orders": orders, "empty": {}} {
		want, err := encodeJSON(Page[*parcelgate.Order]{Links: links, Content: items, Page: info})
		if err != nil {
			t.Fatal(err)
		}
		raw := rawItems(parcelgate.Page[[]byte]{Items: answers[:len(items)]}).Items
		if raw == nil {
			raw = []json.RawMessage{}
		}
		got, err := Page[json.RawMessage]{Links: links, Content: raw, Page: info}.encode()
		if err != nil || string(got) != string(want) {
			t.Errorf("%s:\nencodeJSON %s\nencode     %s (%v)", name, want, got, err)
		}
	}
}
