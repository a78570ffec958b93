package apitest

import (
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
)

// PolledBalance is a balance as a change poller reads it:
// parcelgate.Balance writes its stamp as modifiedDate but does not read it
// back.
type PolledBalance struct {
	parcelgate.Balance
	ModifiedDate string `json:"modifiedDate"`
}

// PollBalances is one round of the change poll of decisions §6 (interface §4.4
// GET rule 3), as a retailer's integration runs it: it reads every page,
// by number and of the given size, of the balance list at path (a
// catalog's balances) changed since cursor (all of them when cursor is
// empty), each answered 200, hands each balance read to seen in order,
// and returns the newest modifiedDate seen (cursor when none is newer).
// The cursor moves only after the last page: moving it between pages of
// one loop would shift the pages under the loop.
func (e *Env) PollBalances(path, bearer string, size int, cursor string, seen func(PolledBalance)) (newest string) {
	e.T.Helper()
	query := ""
	if cursor != "" {
		query = "&modifiedFromDate=" + url.QueryEscape(cursor)
	}
	newest = cursor
	for page := 0; ; page++ {
		var p httpapi.Page[PolledBalance]
		e.Do(Request{Method: "GET", Path: fmt.Sprintf("%s?size=%d&page=%d%s", path, size, page, query), Bearer: bearer}).Expect(200).JSON(&p)
		for _, b := range p.Content {
			seen(b)
			newest = max(newest, b.ModifiedDate)
		}
		if int64(page+1) >= p.Page.TotalPages {
			return newest
		}
	}
}

// PollDuring runs the race that a change poller must win (decisions §6):
// poll once before any write, then over and over while n writers run
// write(0) … write(n-1) at once, then once more after the last writer
// ended, so that what the poller saw last is the final state.
func PollDuring(n int, write func(w int), poll func()) {
	poll()
	var done atomic.Bool
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() { write(w) })
	}
	go func() { wg.Wait(); done.Store(true) }()
	for !done.Load() {
		poll()
	}
	poll()
}
