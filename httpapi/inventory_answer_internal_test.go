package httpapi

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/prometheus/client_golang/prometheus"
)

// inventoryItems are n items of a page, each about 2 KB.
func testInventoryItems(n int) []*parcelgate.InventoryItem {
	at := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	var items []*parcelgate.InventoryItem
	for i := range n {
		doc := fmt.Sprintf(`{"externalId": "P-%d", "description": %q}`, i, strings.Repeat("Pää <b> & ", 200))
		items = append(items, &parcelgate.InventoryItem{
			Product: &parcelgate.Product{SupplierID: "1234567-1", Status: "ACTIVE", Document: []byte(doc)},
			Balances: []*parcelgate.Balance{{ProductExternalID: fmt.Sprintf("P-%d", i), SupplierID: "1234567-1", RetailerID: "0737546-2",
				CatalogExternalID: "SHOP", Quantity: int64(i), WholesalePrice: "7.90", Currency: "EUR", ModifiedAt: at}}})
	}
	items = append(items, &parcelgate.InventoryItem{}, &parcelgate.InventoryItem{Balances: []*parcelgate.Balance{nil}})
	return items
}

// decisions §61: a page written as it is read is byte for byte the page
// Page.encode writes (TestPageEncodeIsEncodeJSON), whatever its chunks
// and however often its buffer is sent; a read started again (Head once
// more, another database answering) before anything was sent starts the
// page again.
func TestInventoryAnswerIsPageEncode(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	items := testInventoryItems(40)
	r := httptest.NewRequest("GET", "/ecommerce/v3/inventory?size=100", nil)
	pr := parcelgate.PageAt(0, 100)
	res := parcelgate.Page[*parcelgate.InventoryItem]{Items: items, Total: 250, Next: "abc"}
	want, err := newPage(s, r, pr, res).encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, flushAt := range []int{1, 3000, 1 << 30} {
		for _, chunk := range []int{1, 7, 500} {
			w := httptest.NewRecorder()
			a := &inventoryAnswer{s: s, w: w, r: r, pr: pr, flushAt: flushAt}
			if flushAt == 1<<30 {
				// Nothing sent yet: a read started again is a new page.
				a.Head(9, "")
				a.Items(items[:3])
			}
			if err := a.Head(res.Total, res.Next); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(items); i += chunk {
				if err := a.Items(items[i:min(i+chunk, len(items))]); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.end(); err != nil {
				t.Fatal(err)
			}
			if got := w.Body.String(); got != string(want) || w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("flush at %d, chunks of %d: %d %q\n%.300s\nwant\n%.300s", flushAt, chunk, w.Code, w.Header().Get("Content-Type"), got, want)
			}
			if flushAt == 1 {
				if err := a.Head(res.Total, res.Next); err == nil {
					t.Fatal("a read started again after the page's start was sent was taken")
				}
			}
		}
	}
}

// decisions §61: an error of the read after the page's start was sent
// (the status 200 with it) breaks the answer — the client's read of the
// body fails, plain or gzip-compressed — rather than ending it as a page
// that reads as whole; an error before anything was sent is answered as
// any error is.
func TestInventoryAnswerBrokenAfterItsStart(t *testing.T) {
	s := &Server{log: slog.New(slog.DiscardHandler)}
	items := testInventoryItems(400) // about 800 KB: past the send buffer
	fail := errors.New("the database deadline passed")
	var failAfter int
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := s.writeInventory(w, r, parcelgate.PageAt(0, 2000), func(a parcelgate.InventoryWriter) error {
			if err := a.Head(int64(len(items)), ""); err != nil {
				return err
			}
			if err := a.Items(items[:failAfter]); err != nil {
				return err
			}
			return fail
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		}
	})
	srv := httptest.NewServer(newGzip()(h))
	defer srv.Close()
	get := func(zip bool) (int, []byte, error) {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if zip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var rd io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				return resp.StatusCode, nil, err
			}
			rd = zr
		}
		body, err := io.ReadAll(rd)
		return resp.StatusCode, body, err
	}
	failAfter = len(items)
	for _, zip := range []bool{false, true} {
		status, body, err := get(zip)
		if err == nil {
			t.Fatalf("gzip %v: the broken answer read whole: %d, %d bytes", zip, status, len(body))
		}
		if status != 200 || len(body) < 256<<10 {
			t.Fatalf("gzip %v: %d, %d bytes before the break (%v)", zip, status, len(body), err)
		}
	}
	failAfter = 3 // about 6 KB: nothing sent yet
	for _, zip := range []bool{false, true} {
		status, body, err := get(zip)
		if err != nil || status != http.StatusServiceUnavailable || !strings.Contains(string(body), fail.Error()) {
			t.Fatalf("gzip %v: an error before the start: %d %q %v", zip, status, body, err)
		}
	}
}

// An answer broken after its start (decisions §61) says 200 on the wire,
// so the middleware must still count it apart, journal it and log it as
// an error: an operator reading the metrics would otherwise see a served
// page where the client saw a broken one.
func TestAbortedAnswerIsCountedAndLogged(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, nil)), cfg: Config{MaxBodyBytes: 1 << 20, MaxHeaderBytes: 1 << 20}, mux: http.NewServeMux(), reg: prometheus.NewRegistry(), gzip: newGzip()}
	s.metric = newMetrics(s.reg)
	items := testInventoryItems(400)
	s.handle("GET /broken", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := s.writeInventory(w, r, parcelgate.PageAt(0, 2000), func(a parcelgate.InventoryWriter) error {
			if err := a.Head(int64(len(items)), ""); err != nil {
				return err
			}
			if err := a.Items(items); err != nil {
				return err
			}
			return errors.New("the database deadline passed")
		})
		if err != nil {
			t.Errorf("an error after the start returned instead of aborting: %v", err)
		}
	}))
	srv := httptest.NewServer(s.middleware(s.mux))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/broken")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("the broken answer read whole")
	}
	srv.Close() // the handler has returned: its log line is written
	families, err := s.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var counted float64
	for _, f := range families {
		if f.GetName() == "parcelgate_http_answers_aborted_total" {
			for _, m := range f.GetMetric() {
				counted += m.GetCounter().GetValue()
			}
		}
	}
	if counted != 1 {
		t.Fatalf("aborted answers counted %v, want 1", counted)
	}
	if !strings.Contains(logs.String(), `"aborted":true`) || !strings.Contains(logs.String(), `"level":"ERROR","msg":"request"`) {
		t.Fatalf("no error log line marked aborted:\n%s", logs.String())
	}
}
