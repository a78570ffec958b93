package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// pagedList serves the numbers 0..total-1 in pages of size; with links it
// writes a next link carrying a cursor (to host, when not empty), else none.
func pagedList(t *testing.T, total, size int, links bool, host string) (http.HandlerFunc, *[]string) {
	var asked []string
	return func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Host+" "+r.URL.RequestURI())
		start := 0
		if a := r.URL.Query().Get("after"); a != "" {
			start, _ = strconv.Atoi(a)
		} else if p := r.URL.Query().Get("page"); p != "" {
			n, _ := strconv.Atoi(p)
			start = n * size
		}
		page := Page[int]{Content: []int{}, Page: PageInfo{Size: size, TotalElements: int64(total), TotalPages: int64((total + size - 1) / size), Number: start / size}}
		for i := start; i < min(start+size, total); i++ {
			page.Content = append(page.Content, i)
		}
		if links && start+size < total {
			h := host
			if h == "" {
				h = "http://" + r.Host
			}
			page.Links = []Link{{Rel: "self", Href: h + r.URL.RequestURI()}, {Rel: "next", Href: fmt.Sprintf("%s/list?page=%d&size=%d&after=%d", h, start/size+1, size, start+size)}}
		}
		json.NewEncoder(w).Encode(page)
	}, &asked
}

func collect[T any](t *testing.T, seq iter.Seq2[T, error]) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// Interface §4.4 GET rule 1: every page is read, up to page.totalPages.
func TestIteratorFollowsNextLinks(t *testing.T) {
	h, asked := pagedList(t, 7, 3, true, "")
	c, _, _ := scripted(t, h, Config{})
	got := collect(t, all[int](context.Background(), c, request{surface: ecom, method: "GET", path: "/list"}))
	if fmt.Sprint(got) != "[0 1 2 3 4 5 6]" {
		t.Fatalf("items %v", got)
	}
	if len(*asked) != 3 || (*asked)[2][len((*asked)[2])-7:] != "after=6" {
		t.Errorf("requests %q: want three, the last by cursor", *asked)
	}
}

// Without links, the iterator asks for page=1, page=2, ... .
func TestIteratorWithoutLinks(t *testing.T) {
	h, asked := pagedList(t, 5, 2, false, "")
	c, _, _ := scripted(t, h, Config{})
	got := collect(t, all[int](context.Background(), c, request{surface: ecom, method: "GET", path: "/list"}))
	if fmt.Sprint(got) != "[0 1 2 3 4]" || len(*asked) != 3 {
		t.Fatalf("items %v, requests %q", got, *asked)
	}
}

// A next link to another host is followed on the configured one: the
// credentials never leave it.
func TestIteratorKeepsHost(t *testing.T) {
	h, asked := pagedList(t, 4, 2, true, "https://elsewhere.example")
	c, _, _ := scripted(t, h, Config{})
	got := collect(t, all[int](context.Background(), c, request{surface: ecom, method: "GET", path: "/list"}))
	if fmt.Sprint(got) != "[0 1 2 3]" || len(*asked) != 2 {
		t.Fatalf("items %v, requests %q", got, *asked)
	}
}

func TestIteratorStopsEarlyAndOnError(t *testing.T) {
	h, asked := pagedList(t, 100, 2, true, "")
	c, _, _ := scripted(t, h, Config{})
	for v := range all[int](context.Background(), c, request{surface: ecom, method: "GET", path: "/list"}) {
		if v == 2 {
			break
		}
	}
	if len(*asked) != 2 {
		t.Errorf("%d requests after breaking on the second page", len(*asked))
	}

	failOn := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "1" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"status":400,"error":"Bad Request","message":"no"}`)
			return
		}
		h(w, r)
	}
	c, _, _ = scripted(t, failOn, Config{})
	var n int
	var last error
	for _, err := range all[int](context.Background(), c, request{surface: ecom, method: "GET", path: "/list"}) {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	if e, ok := last.(*Error); !ok || e.StatusCode != 400 || n != 2 {
		t.Errorf("%d items then %v", n, last)
	}
}

// stamped is an item of a list polled by modification time.
type stamped struct {
	id int
	at time.Time
}

// fakeList lists the items changed strictly after a time, in modification
// order, like the server.
func fakeList(items *[]stamped) func(context.Context, time.Time) iter.Seq2[stamped, error] {
	return func(_ context.Context, after time.Time) iter.Seq2[stamped, error] {
		return func(yield func(stamped, error) bool) {
			for _, it := range *items {
				if it.at.After(after) && !yield(it, nil) {
					return
				}
			}
		}
	}
}

func TestSync(t *testing.T) {
	t0 := time.Date(2025, 4, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	items := []stamped{{1, at(1)}, {2, at(2)}, {3, at(2)}, {4, at(3)}}
	s := &Sync[stamped]{list: fakeList(&items), stamp: func(v stamped) time.Time { return v.at }, sorted: true}
	ids := func() []int {
		var out []int
		for v := range s.Changes(context.Background()) {
			out = append(out, v.id)
		}
		return out
	}
	if got := ids(); fmt.Sprint(got) != "[1 2 3 4]" || !s.Cursor.Equal(at(3)) {
		t.Fatalf("first poll %v, cursor %v", got, s.Cursor)
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("second poll with no changes: %v", got)
	}
	items = append(items, stamped{5, at(4)}, stamped{6, at(5)})
	if got := ids(); fmt.Sprint(got) != "[5 6]" || !s.Cursor.Equal(at(5)) {
		t.Fatalf("third poll %v, cursor %v", got, s.Cursor)
	}

	// Stopping early keeps the cursor at what was consumed; an item that
	// shares its time with one not yet consumed comes again, none is
	// missed.
	s.Cursor = time.Time{}
	for v := range s.Changes(context.Background()) {
		if v.id == 2 {
			break
		}
	}
	if !s.Cursor.Equal(at(1)) {
		t.Fatalf("cursor after stopping at 2 (tied with 3): %v, want %v", s.Cursor, at(1))
	}
	if got := ids(); fmt.Sprint(got) != "[2 3 4 5 6]" {
		t.Fatalf("resumed poll %v", got)
	}
	s.Cursor = time.Time{}
	for v := range s.Changes(context.Background()) {
		if v.id == 3 {
			break
		}
	}
	if got := ids(); fmt.Sprint(got) != "[4 5 6]" {
		t.Fatalf("resumed poll after 3: %v", got)
	}

	// A list not in modification order moves the cursor only when read to
	// its end.
	u := &Sync[stamped]{list: fakeList(&items), stamp: func(v stamped) time.Time { return v.at }}
	for range u.Changes(context.Background()) {
		break
	}
	if !u.Cursor.IsZero() {
		t.Fatalf("unsorted cursor moved on an early stop: %v", u.Cursor)
	}
	for range u.Changes(context.Background()) {
	}
	if !u.Cursor.Equal(at(5)) {
		t.Fatalf("unsorted cursor %v", u.Cursor)
	}
}
