package httpapi_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §59: the Tracking API's start is mapped onto the keyset at
// the handler's edge. Whatever order a client asks for its starts in --
// consecutive (the boundary the page before recorded), a jump back, a
// cold start between recorded ones, a start past the end -- each page is
// the start-th to the (start+limit)-th parcel of the whole answer, as
// LIMIT ? OFFSET ? gave it. A boundary recorded for one organization's
// search is never another's: another shop's same search, with the same
// starts, answers its own parcels only.
func TestTrackingStartIsResolvedByKey(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		const shop, other = "1234567-1", retailerR
		for range 4 {
			shipToTampere(t, e, shop, "SO-KEY") // 2 parcels each
		}
		shipToTampere(t, e, other, "SO-KEY")
		get := func(bid, path string) []string {
			got := trackingCodes(track(t, e, parcelgate.Production, bid, path))
			if got == "" {
				return nil
			}
			return strings.Split(got, ",")
		}
		for _, route := range []string{"senderreference/SO-KEY", "find/SO-KEY"} {
			all := get(shop, route+"?limit=100")
			if len(all) != 8 {
				t.Fatalf("%s: %d parcels, want 8", route, len(all))
			}
			want := func(start, limit int) string {
				return strings.Join(all[min(start, len(all)):min(start+limit, len(all))], ",")
			}
			for _, sl := range [][2]int{{0, 3}, {3, 3}, {6, 3}, {9, 3}, {0, 2}, {2, 2}, {4, 2}, {6, 2}, {1, 2}, {5, 3}, {3, 3}, {7, 1}, {8, 1}, {100, 5}, {3, 100}} {
				path := fmt.Sprintf("%s?start=%d&limit=%d", route, sl[0], sl[1])
				if got := strings.Join(get(shop, path), ","); got != want(sl[0], sl[1]) {
					t.Errorf("%s: %q, want %q", path, got, want(sl[0], sl[1]))
				}
			}
			mine := get(other, route+"?limit=100")
			if len(mine) != 2 {
				t.Fatalf("%s, the other shop: %d parcels, want its own 2", route, len(mine))
			}
			for _, sl := range [][2]int{{0, 3}, {3, 3}, {2, 2}, {1, 2}} {
				path := fmt.Sprintf("%s?start=%d&limit=%d", route, sl[0], sl[1])
				got := get(other, path)
				wantOther := mine[min(sl[0], 2):min(sl[0]+sl[1], 2)]
				if strings.Join(got, ",") != strings.Join(wantOther, ",") {
					t.Errorf("the other shop's %s: %v, want %v (its own)", path, got, wantOther)
				}
			}
		}
	})
}

// decisions §59: an ecom page number is the position of the page's first
// row, mapped at the edge, and resolved by key through the boundaries the
// pages before recorded -- by position, so pages of different sizes that
// start at one row share them. Every page, asked for in an order that
// mixes sizes, jumps and following next links, holds the rows the whole
// list puts there (interface §4.4 GET rule 1), and its next link's cursor
// reads the same rows as the next page number.
func TestPageNumbersAreResolvedByPosition(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e0 *apitest.Env) {
		e := newInventoryEnv(t, e0)
		e.publishNumbered(23, func(int) int { return 1 })
		ids := func(p httpapi.Page[inventoryItemAnswer]) []string {
			var out []string
			for _, it := range p.Content {
				out = append(out, it.Product.ExternalID)
			}
			return out
		}
		list := func(q string) httpapi.Page[inventoryItemAnswer] {
			var p httpapi.Page[inventoryItemAnswer]
			e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/inventory?" + q, Bearer: e.supplier}).Expect(200).JSON(&p)
			return p
		}
		all := ids(list("size=100"))
		if len(all) != 23 {
			t.Fatalf("%d products, want 23", len(all))
		}
		for _, pq := range [][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 2}, {4, 2}, {7, 3}, {1, 6}, {3, 6}, {10, 2}, {11, 2}, {12, 2}, {5, 5}, {4, 5}, {40, 1}} {
			page, size := pq[0], pq[1]
			p := list(fmt.Sprintf("page=%d&size=%d", page, size))
			want := all[min(page*size, len(all)):min((page+1)*size, len(all))]
			if got := ids(p); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("page=%d&size=%d: %v, want %v", page, size, got, want)
			}
			for _, l := range p.Links {
				if l.Rel != "next" {
					continue
				}
				u, _ := url.Parse(l.Href)
				next := list(u.RawQuery)
				want := all[min((page+1)*size, len(all)):min((page+2)*size, len(all))]
				if got := ids(next); strings.Join(got, ",") != strings.Join(want, ",") || u.Query().Get("after") == "" {
					t.Errorf("next of page=%d&size=%d (%s): %v, want %v", page, size, u.RawQuery, got, want)
				}
			}
		}
	})
}

// inventoryItemAnswer is the part of an inventory item these tests read.
type inventoryItemAnswer struct {
	Product struct {
		ExternalID string `json:"externalId"`
	} `json:"product"`
}
