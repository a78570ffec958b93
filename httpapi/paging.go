package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// Page is the list envelope of interface §2.6: links, content and page.
type Page[T any] struct {
	Links   []PageLink `json:"links"`
	Content []T        `json:"content"`
	Page    PageInfo   `json:"page"`
}

// encode is the page as encodeJSON writes it, byte for byte, without
// encoding/json's second pass over every balance: the package compacts and
// validates whatever a MarshalJSON method returns, and for a page of 2,000
// balances that pass was more than half the cost of encoding the page
// (the walk of a catalog of 412,638 balances). A balance's MarshalJSON output (AppendJSON)
// is json.Marshal's, already compact and valid, and is written as it is,
// into the page's own buffer; every other item goes through the encoder
// (TestPageEncodeIsEncodeJSON).
func (p Page[T]) encode() ([]byte, error) {
	var buf pageBuffer
	if err := buf.head(p.Links); err != nil {
		return nil, err
	}
	for i, item := range p.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := buf.item(item); err != nil {
			return nil, err
		}
	}
	if err := buf.tail(p.Page); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// pageBuffer is where a page is encoded, with one encoder for the items
// that go through encoding/json. Its head, item and tail are
// Page.encode's parts, which a page written as it is read
// (inventoryAnswer) writes in turn: the links and the content's opening,
// one item, the content's end and the page's information.
type pageBuffer struct {
	bytes.Buffer
	enc *json.Encoder
}

// put writes v as encodeJSON does, without its newline.
func (b *pageBuffer) put(v any) error {
	if b.enc == nil {
		b.enc = json.NewEncoder(&b.Buffer)
		b.enc.SetEscapeHTML(false)
	}
	if err := b.enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

func (b *pageBuffer) head(links []PageLink) error {
	b.WriteString(`{"links":`)
	if err := b.put(links); err != nil {
		return err
	}
	b.WriteString(`,"content":[`)
	return nil
}

func (b *pageBuffer) item(item any) error {
	if bal, ok := item.(*parcelgate.Balance); ok && bal != nil {
		js, err := bal.AppendJSON(b.AvailableBuffer())
		if err != nil {
			return err
		}
		b.Write(js)
		return nil
	}
	if it, ok := item.(*parcelgate.InventoryItem); ok && it != nil {
		return encodeInventoryItem(&b.Buffer, it)
	}
	if raw, ok := item.(json.RawMessage); ok {
		// Already encoded by encodeJSON (see rawItems).
		b.Write(raw)
		return nil
	}
	return b.put(item)
}

func (b *pageBuffer) tail(info PageInfo) error {
	b.WriteString(`],"page":`)
	if err := b.put(info); err != nil {
		return err
	}
	b.WriteString("}\n")
	return nil
}

// encodeInventoryItem writes it as encoding/json does (Product's
// MarshalJSON output compacted, each balance as AppendJSON writes it),
// without the encoder's reflection and its second pass over each
// balance: a page of the big merchant's inventory holds about 19,000 of
// them.
func encodeInventoryItem(buf *bytes.Buffer, it *parcelgate.InventoryItem) error {
	buf.WriteString(`{"product":`)
	if it.Product == nil {
		buf.WriteString("null")
	} else {
		js, err := it.Product.MarshalJSON()
		if err != nil {
			return err
		}
		if err := json.Compact(buf, js); err != nil {
			return err
		}
	}
	buf.WriteString(`,"balances":`)
	if it.Balances == nil {
		buf.WriteString("null}")
		return nil
	}
	buf.WriteByte('[')
	for i, b := range it.Balances {
		if i > 0 {
			buf.WriteByte(',')
		}
		if b == nil {
			buf.WriteString("null")
			continue
		}
		js, err := b.AppendJSON(buf.AvailableBuffer())
		if err != nil {
			return err
		}
		buf.Write(js)
	}
	buf.WriteString("]}")
	return nil
}

// writePage writes a page of a list.
func writePage[T any](w http.ResponseWriter, p Page[T]) {
	body, err := p.encode()
	writeEncoded(w, http.StatusOK, body, err)
}

// PageLink is one link of a list envelope; Rel is self, first, prev, next
// or last (decisions §8).
type PageLink struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

// PageInfo describes the page: its size, zero-based number, and the totals
// of the whole list.
type PageInfo struct {
	Size          int   `json:"size"`
	TotalElements int64 `json:"totalElements"`
	TotalPages    int64 `json:"totalPages"`
	Number        int   `json:"number"`
}

// parsePage reads page (default 0) and size (default def; above
// MaxPageSize it is lowered to it) and the cursor "after" from the query,
// and maps them onto the keyset: the one place the ecom API's page
// numbers become a store's request (parcelgate.PageAt).
// Text that is not a whole number, and a number PageRequest.Validate
// refuses, is 400 naming the parameter, before any arithmetic is done on it.
func parsePage(r *http.Request, def int) (parcelgate.PageRequest, error) {
	q := r.URL.Query()
	var p parcelgate.Problems
	number, size := 0, def
	if v := q.Get("page"); v != "" {
		n, err := strconv.ParseInt(v, 10, strconv.IntSize)
		if err != nil {
			p.Add("page", "must be a whole number from 0 to %d, not %q", parcelgate.MaxPageNumber, v)
		} else {
			number = int(n)
		}
	}
	if v := q.Get("size"); v != "" {
		n, err := strconv.ParseInt(v, 10, strconv.IntSize)
		if errors.Is(err, strconv.ErrRange) && n > 0 {
			err = nil // too large for an int is still just large: lowered to the cap
		}
		if err != nil {
			p.Add("size", "must be a whole number from 1 to %d, not %q", parcelgate.MaxPageSize, v)
		} else {
			size = int(min(n, parcelgate.MaxPageSize))
		}
	}
	pr := parcelgate.PageRequest{Number: number, Size: size, After: q.Get("after")}
	if len(pr.After) > 200 {
		p.Add("after", "is not a cursor this server made")
	}
	p.AddFields(parcelgate.ErrorFields(pr.Validate())...)
	if p.Len() > 0 {
		return pr, p.Err()
	}
	// The page number onto the keyset (decisions §59): the store reads
	// the cursor when the request carries one, else the position of the
	// page's first row, which it resolves by key.
	keyset := parcelgate.PageAt(number, size)
	keyset.After = pr.After
	return keyset, nil
}

// newPage builds the envelope of one page of items. Links keep every query
// parameter of the request; the next link also carries the cursor of the
// next page, so a client that follows it pays the same for every page.
func newPage[T any](s *Server, r *http.Request, pr parcelgate.PageRequest, res parcelgate.Page[T]) Page[T] {
	pages := (res.Total + int64(pr.Size) - 1) / int64(pr.Size)
	link := func(rel string, number int64, after string) PageLink {
		q := r.URL.Query()
		q.Set("page", strconv.FormatInt(number, 10))
		q.Set("size", strconv.Itoa(pr.Size))
		q.Del("after")
		if after != "" {
			q.Set("after", after)
		}
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		return PageLink{Rel: rel, Href: s.publicURL(r) + u.String()}
	}
	links := []PageLink{link("self", int64(pr.Number), pr.After), link("first", 0, "")}
	if pr.Number > 0 && int64(pr.Number) <= pages {
		links = append(links, link("prev", int64(pr.Number-1), ""))
	}
	if int64(pr.Number)+1 < pages {
		links = append(links, link("next", int64(pr.Number+1), res.Next))
	}
	if pages > 0 {
		links = append(links, link("last", pages-1, ""))
	}
	items := res.Items
	if items == nil {
		items = []T{}
	}
	return Page[T]{Links: links, Content: items, Page: PageInfo{Size: pr.Size, TotalElements: res.Total, TotalPages: pages, Number: pr.Number}}
}

// parseTime reads a timestamp query parameter (decisions §8): RFC 3339 with or
// without fractional seconds, Z or an offset; a space where the offset's '+'
// was (an unencoded '+') reads as '+'.
func parseTime(q url.Values, name string, p *parcelgate.Problems) (t time.Time, ok bool) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, false
	}
	fixed := v
	if i := strings.LastIndexByte(fixed, ' '); i > 0 && i >= len(fixed)-6 {
		fixed = fixed[:i] + "+" + fixed[i+1:]
	}
	t, err := time.Parse(time.RFC3339Nano, fixed)
	if err != nil {
		p.Add(name, "must be an ISO 8601 timestamp such as 2025-04-01T12:00:00Z or 2025-04-01T15:00:00.123+03:00, not %q", v)
		return time.Time{}, false
	}
	return t, true
}
