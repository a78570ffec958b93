package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// The supplier's side of products and stock (interface §4.4, decisions §6).
func (s *Server) inventoryRoutes() {
	// Each route's service decides who may act, before the input
	// (decisions §57): ask hands it what the handler could not read.
	s.handle("PUT /ecommerce/v3/inventory", s.ecomReading(s.askPutInventory, s.putInventory))
	s.handle("GET /ecommerce/v3/inventory", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.inventory.ListInventory(ctx, c, parcelgate.InventoryFilter{}, parcelgate.PageRequest{})
		return err
	}, s.listInventory))
	s.handle("DELETE /ecommerce/v3/inventory", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.inventory.EndOfSale(ctx, c, nil)
		return err
	}, s.endOfSale))
	s.handle("GET /ecommerce/v3/inventory/{externalId}", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.inventory.FindInventoryItem(ctx, c, "")
		return err
	}, s.getInventoryItem))
	s.handle("PUT /ecommerce/v3/inventory/balances", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.inventory.PutBalances(ctx, c, nil)
		return err
	}, s.putBalances))
	s.handle("GET /ecommerce/v3/inventory/balances", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.inventory.ListSupplierBalances(ctx, c, parcelgate.BalanceFilter{}, parcelgate.PageRequest{})
		return err
	}, s.listSupplierBalances))
	s.handle("DELETE /ecommerce/v3/inventory/balances", s.ecomReading(s.askRemoveFromCatalogs, s.deleteBalances))
	s.handle("POST /ecommerce/v3/inventory/migrate", s.ecomService(s.migrateProductIDs))
}

// EntryError is one entry of a batch that was not applied (PUT /inventory,
// DELETE /inventory/balances with a body), as the warehouse plugin reads
// it: Index is the entry's position in the request array; Field and
// Message are its first problem, Errors all of them, fields named within
// the entry. The entries not listed were applied.
type EntryError struct {
	Index   int                     `json:"index"`
	Field   string                  `json:"field"`
	Message string                  `json:"message"`
	Errors  []parcelgate.FieldError `json:"errors"`
}

// entryErrors lists the entries that were not applied, in request order:
// those with problems of their own (bad, by request position) and those
// the store refused (failed, by position in applied, whose request
// positions pos gives). A store problem with an Index names a balance of
// the entry.
func entryErrors(bad entryProblems, failed parcelgate.InventoryFailures, pos []int) []EntryError {
	all := map[int][]parcelgate.FieldError{}
	for i, ps := range bad {
		all[i] = ps
	}
	for k, err := range failed {
		var fs []parcelgate.FieldError
		for _, f := range err.Fields {
			field := f.Field
			if f.Index != nil {
				field = "balances[" + strconv.Itoa(*f.Index) + "]." + field
			}
			fs = append(fs, parcelgate.FieldError{Field: field, Message: f.Message})
		}
		if len(fs) == 0 {
			fs = []parcelgate.FieldError{{Field: "(entry)", Message: err.Message}}
		}
		all[pos[k]] = fs
	}
	out := []EntryError{}
	for _, i := range slices.Sorted(maps.Keys(all)) {
		out = append(out, EntryError{Index: i, Field: all[i][0].Field, Message: all[i][0].Message, Errors: all[i]})
	}
	return out
}

func (s *Server) askPutInventory(ctx context.Context, c *parcelgate.Caller) error {
	_, err := s.inventory.PutInventory(ctx, c, nil)
	return err
}

func (s *Server) askRemoveFromCatalogs(ctx context.Context, c *parcelgate.Caller) error {
	_, err := s.inventory.RemoveFromCatalogs(ctx, c, nil)
	return err
}

// putInventory applies each valid entry and answers the list of the
// entries not applied (decisions §6; the warehouse plugin reads index).
func (s *Server) putInventory(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	body, err := readBody(r)
	if err != nil {
		return err
	}
	entries, bad, err := readInventory(body)
	if err != nil {
		return err
	}
	var apply []parcelgate.InventoryInput
	var pos []int
	for i, e := range entries {
		if bad[i] == nil {
			apply = append(apply, e)
			pos = append(pos, i)
		}
	}
	var failed parcelgate.InventoryFailures
	if len(apply) > 0 {
		if failed, err = s.inventory.PutInventory(r.Context(), c, apply); err != nil {
			return err
		}
	} else if err := mayAct(r.Context(), c, s.askPutInventory); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, entryErrors(bad, failed, pos))
	return nil
}

func (s *Server) listInventory(w http.ResponseWriter, r *http.Request) error {
	pr, f, err := parseBalanceQuery(r, true)
	if err != nil {
		return err
	}
	filter := parcelgate.InventoryFilter{ProductExternalIDs: f.ProductExternalIDs, EANCodes: f.EANCodes, RetailerID: f.RetailerID, CatalogExternalID: f.CatalogExternalID}
	return s.writeInventory(w, r, pr, func(a parcelgate.InventoryWriter) error {
		return s.inventory.WriteInventory(r.Context(), caller(r), filter, pr, a)
	})
}

// writeInventory answers the page that read hands to its writer, as it
// is read (inventoryAnswer). An error before anything was sent is
// returned, to be answered as any error is. After the status (200) and
// the start of the page are sent, the client must see a broken answer,
// never a page cut short that reads as whole (decisions §61): the
// handler ends with http.ErrAbortHandler, which closes the connection
// without the answer's end (HTTP/1.1: no last chunk; HTTP/2: the stream
// reset), after a log line with the cause.
func (s *Server) writeInventory(w http.ResponseWriter, r *http.Request, pr parcelgate.PageRequest, read func(parcelgate.InventoryWriter) error) error {
	a := &inventoryAnswer{s: s, w: w, r: r, pr: pr, flushAt: answerFlushBytes}
	err := read(a)
	if err == nil {
		err = a.end()
	}
	if err != nil && a.started {
		s.log.ErrorContext(r.Context(), "answer aborted after its start was sent", slog.String("request_id", requestID(r.Context())), slog.String("path", r.URL.Path), slog.Int64("bytes_sent", a.sent), slog.Any("error", err))
		panic(http.ErrAbortHandler)
	}
	return err
}

// inventoryAnswer writes a page of GET /inventory as the store reads it
// (decisions §61): the page's bytes are those Page.encode writes, kept
// in a buffer that is sent each time it passes answerFlushBytes, so a
// page of any size costs the memory of one chunk of its products, not
// the page's. Until the first send nothing is written, so an error
// before it is answered as any error is.
type inventoryAnswer struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	pr      parcelgate.PageRequest
	flushAt int // answerFlushBytes
	buf     pageBuffer
	info    PageInfo
	items   int
	// started: the status and headers are written; sent counts the
	// bytes written after them.
	started bool
	sent    int64
}

// answerFlushBytes is how much of a page written as it is read is
// buffered before it is sent: past a few dozen products of the big
// merchant's, far below a chunk's (InventoryChunk products), so the
// store's chunk, not this buffer, bounds the memory.
const answerFlushBytes = 256 << 10

var errAnswerSent = errors.New("httpapi: the answer's start was sent; it cannot be read again")

func (a *inventoryAnswer) Head(total int64, next string) error {
	if a.started {
		return errAnswerSent
	}
	a.buf.Reset()
	a.items = 0
	p := newPage(a.s, a.r, a.pr, parcelgate.Page[*parcelgate.InventoryItem]{Total: total, Next: next})
	a.info = p.Page
	return a.buf.head(p.Links)
}

func (a *inventoryAnswer) Items(items []*parcelgate.InventoryItem) error {
	for _, it := range items {
		if a.items > 0 {
			a.buf.WriteByte(',')
		}
		a.items++
		if err := a.buf.item(it); err != nil {
			return err
		}
		if a.buf.Len() >= a.flushAt {
			if err := a.send(); err != nil {
				return err
			}
		}
	}
	return nil
}

// end writes the page's end and sends what is left.
func (a *inventoryAnswer) end() error {
	if err := a.buf.tail(a.info); err != nil {
		return err
	}
	return a.send()
}

// send writes the buffer to the client, the status and headers first
// (as writeBody writes them).
func (a *inventoryAnswer) send() error {
	if !a.started {
		a.started = true
		a.w.Header().Set("Content-Type", "application/json")
		a.w.WriteHeader(http.StatusOK)
	}
	n, err := a.w.Write(a.buf.Bytes())
	a.sent += int64(n)
	a.buf.Reset()
	return err
}

func (s *Server) getInventoryItem(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("externalId")
	if !parcelgate.ValidExternalID(id) {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", id)
	}
	item, err := s.inventory.FindInventoryItem(r.Context(), caller(r), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, item)
	return nil
}

func (s *Server) endOfSale(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	body, err := readBody(r)
	if err != nil {
		return err
	}
	ids, err := readEndOfSale(body, c.BusinessID)
	if err != nil {
		return err
	}
	items, err := s.inventory.EndOfSale(r.Context(), c, ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, items)
	return nil
}

func (s *Server) putBalances(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	body, err := readBody(r)
	if err != nil {
		return err
	}
	entries, err := readBalances(body, c.BusinessID)
	if err != nil {
		return err
	}
	bals, err := s.inventory.PutBalances(r.Context(), c, entries)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bals)
	return nil
}

func (s *Server) listSupplierBalances(w http.ResponseWriter, r *http.Request) error {
	pr, f, err := parseBalanceQuery(r, true)
	if err != nil {
		return err
	}
	res, err := s.inventory.ListSupplierBalances(r.Context(), caller(r), f, pr)
	if err != nil {
		return err
	}
	writePage(w, newPage(s, r, pr, res))
	return nil
}

// deleteBalances removes a product from catalogs (interface §4.4 DELETE balances
// rules 1-2). The query form (productExternalId, and optionally
// catalogExternalId and/or retailerId: without them, every catalog that
// matches the rest) answers the removed balances. The body form, an array
// of {productExternalId, catalogExternalId, retailerId} as the warehouse
// plugin sends it, applies each entry on its own and answers the entries
// not applied, as PUT /inventory does. A body of "" or null is no body.
func (s *Server) deleteBalances(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	q := r.URL.Query()
	var raw []byte
	var body bool
	if !q.Has("productExternalId") {
		var err error
		if raw, body, err = readOptionalBody(r); err != nil {
			return err
		}
	}
	if body {
		rs, bad, err := readRemovals(raw, c.BusinessID)
		if err != nil {
			return err
		}
		var apply []parcelgate.BalanceRemoval
		var pos []int
		for i, rm := range rs {
			if bad[i] == nil {
				apply = append(apply, rm)
				pos = append(pos, i)
			}
		}
		var failed parcelgate.InventoryFailures
		if len(apply) > 0 {
			if failed, err = s.inventory.RemoveFromCatalogs(r.Context(), c, apply); err != nil {
				return err
			}
		} else if err := mayAct(r.Context(), c, s.askRemoveFromCatalogs); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, entryErrors(bad, failed, pos))
		return nil
	}
	rm := parcelgate.BalanceRemoval{ProductExternalID: q.Get("productExternalId"), RetailerID: q.Get("retailerId"), CatalogExternalID: q.Get("catalogExternalId")}
	if err := rm.Validate(c.BusinessID); err != nil {
		return err
	}
	removed, err := s.inventory.DeleteBalances(r.Context(), c, rm)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, removed)
	return nil
}

// migrateProductIDs performs the provider's ID migration for the caller:
// products {businessId}-{x} become {x}. The warehouse plugin posts it with
// the body "" and reads only the status; the answer lists what was renamed
// and what was not.
func (s *Server) migrateProductIDs(w http.ResponseWriter, r *http.Request) error {
	res, err := s.inventory.MigrateProductIDs(r.Context(), caller(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// placeParams checks retailerId and catalogExternalId and returns the
// normalized retailer business ID.
func placeParams(q url.Values, p *parcelgate.Problems) string {
	retailer := strings.TrimSpace(q.Get("retailerId"))
	if retailer != "" {
		id, err := parcelgate.NormalizeBusinessID(retailer)
		if err != nil {
			p.Add("retailerId", "%s", parcelgate.ErrorMessage(err))
		}
		retailer = id
	}
	if c := strings.TrimSpace(q.Get("catalogExternalId")); c != "" && !parcelgate.ValidExternalID(c) {
		p.Add("catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", c)
	}
	return retailer
}

// parseBalanceQuery reads the paging and the filters of a product or
// balance list (interface §4.4 GET rules 1-3): productExternalId and eanCode (one
// value or a comma-separated list, also repeated), modifiedFromDate, and on
// the supplier's lists retailerId and catalogExternalId. Every bad value is
// reported at once.
func parseBalanceQuery(r *http.Request, supplier bool) (parcelgate.PageRequest, parcelgate.BalanceFilter, error) {
	q := r.URL.Query()
	var p parcelgate.Problems
	pr, err := parsePage(r, parcelgate.DefaultPageSize)
	p.AddFields(parcelgate.ErrorFields(err)...)
	var f parcelgate.BalanceFilter
	f.ProductExternalIDs = listParam(q, "productExternalId", &p, func(v string) bool { return parcelgate.ValidExternalID(v) })
	f.EANCodes = listParam(q, "eanCode", &p, func(v string) bool { return len(v) <= 64 })
	if t, ok := parseTime(q, "modifiedFromDate", &p); ok {
		f.ModifiedAfter = t
	}
	if supplier {
		f.RetailerID = placeParams(q, &p)
		f.CatalogExternalID = strings.TrimSpace(q.Get("catalogExternalId"))
	}
	return pr, f, p.Err()
}

// listParam reads a filter given as one value, a comma-separated list, or
// repeated parameters.
func listParam(q url.Values, name string, p *parcelgate.Problems, valid func(string) bool) []string {
	var out []string
	for _, item := range commaValues(q, name) {
		if !valid(item) {
			p.Add(name, "%q is not a valid value", item)
			continue
		}
		out = append(out, item)
	}
	if len(out) > parcelgate.MaxListFilterValues {
		p.Add(name, "lists %d values; at most %d are allowed", len(out), parcelgate.MaxListFilterValues)
	}
	return out
}
