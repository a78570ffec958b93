package client

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strconv"
)

// Page is one page of a list (interface §2.6): its items, the links to the other
// pages and the totals of the whole list.
type Page[T any] struct {
	Links   []Link   `json:"links"`
	Content []T      `json:"content"`
	Page    PageInfo `json:"page"`
}

// Link is one link of a page; Rel is self, first, prev, next or last.
type Link struct {
	Rel  string `json:"rel"`
	Href string `json:"href"`
}

// PageInfo describes a page: its size and zero-based number, and the totals
// of the whole list.
type PageInfo struct {
	Size          int   `json:"size"`
	TotalElements int64 `json:"totalElements"`
	TotalPages    int64 `json:"totalPages"`
	Number        int   `json:"number"`
}

// Link returns the address of the page's link rel, or "".
func (p *Page[T]) Link(rel string) string {
	for _, l := range p.Links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

// Paging selects one page of a list. Page is zero-based; a zero Size means
// the server's default (2000, or 200 for orders; interface §8).
type Paging struct {
	Page int
	Size int
}

func (p Paging) set(q url.Values) {
	if p.Page > 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	if p.Size > 0 {
		q.Set("size", strconv.Itoa(p.Size))
	}
}

// getPage fetches the page r names.
func getPage[T any](ctx context.Context, c *Client, r request) (*Page[T], error) {
	var p Page[T]
	if err := c.do(ctx, r, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// all returns an iterator over every item of the list whose first wanted
// page r names. It follows each page's next link, which carries the
// server's cursor, so that every page costs what the first does and no item
// is skipped or repeated when others change meanwhile; without links it
// asks for the next page number. It stops at page.totalPages.
func all[T any](ctx context.Context, c *Client, r request) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		for {
			p, err := getPage[T](ctx, c, r)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, item := range p.Content {
				if !yield(item, nil) {
					return
				}
			}
			if len(p.Content) == 0 || int64(p.Page.Number)+1 >= p.Page.TotalPages {
				return
			}
			next, err := c.nextPage(r, p.Link("next"), p.Page.Number+1)
			if err != nil {
				yield(zero, err)
				return
			}
			if seen[next.url] {
				yield(zero, fmt.Errorf("client: the list's next link %s leads back to a page already read", next.url))
				return
			}
			seen[next.url] = true
			r = next
		}
	}
}

// nextPage is the request for the page after r: the next link's address,
// else r with the page number n. Credentials go only to the configured
// address: a link to another host keeps its path and query but is sent to
// the configured scheme and host.
func (c *Client) nextPage(r request, href string, n int) (request, error) {
	cur, err := url.Parse(r.url)
	if r.url == "" {
		cur, err = url.Parse(c.base(r.surface) + r.path + "?" + r.query.Encode())
	}
	if err != nil {
		return r, fmt.Errorf("client: %w", err)
	}
	var next *url.URL
	if href == "" {
		next = new(url.URL)
		*next = *cur
		q := next.Query()
		q.Set("page", strconv.Itoa(n))
		next.RawQuery = q.Encode()
	} else {
		if next, err = cur.Parse(href); err != nil {
			return r, fmt.Errorf("client: the list's next link %q: %w", href, err)
		}
		base, _ := url.Parse(c.base(r.surface))
		if base != nil {
			next.Scheme, next.Host, next.User = base.Scheme, base.Host, nil
		}
	}
	return request{surface: r.surface, method: r.method, url: next.String(), idempotent: r.idempotent}, nil
}
