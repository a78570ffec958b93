package apitest

import (
	"fmt"
	"net/url"

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

// PollBalances is one round of the change poll of decisions §6 (spec 4.4
// GET rule 3), as a retailer's integration runs it: it reads every page,
// by number and of the given size, of the balance list at path (a
// catalog's balances) changed since cursor (all of them when cursor is
// empty), each answered 200, and returns what it read in order and the
// newest modifiedDate seen (cursor when none is newer). The cursor moves
// only after the last page: moving it between pages of one loop would
// shift the pages under the loop.
func (e *Env) PollBalances(path, bearer string, size int, cursor string) (read []PolledBalance, newest string) {
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
			read = append(read, b)
			newest = max(newest, b.ModifiedDate)
		}
		if int64(page+1) >= p.Page.TotalPages {
			return read, newest
		}
	}
}
