package sqlstore

import (
	"context"
	"database/sql"

	"github.com/parcelgate/parcelgate"
)

// environmentPage is a page of one of the operator API's lists of an
// environment (decisions §53, §58): the organizations, gateway clients
// and service accounts, each by a key unique in its table, p.Size rows
// after the key p.After (the caller adds that condition), with Next the
// page's last key while more follow. stmt is ordered by that key and has
// no LIMIT. Only a caller of ScopeEnvironment pages so; namedPage pages
// one organization's lists, so the page's extra row is asked for and cut
// here.
func environmentPage[T any](ctx context.Context, r reader, c *parcelgate.Caller, what, stmt string, args []any, p parcelgate.PageRequest, scan func(*sql.Rows) (T, string, error)) (parcelgate.Page[T], error) {
	if c.Scope != parcelgate.ScopeEnvironment || p.Size < 1 {
		return parcelgate.Page[T]{Items: []T{}}, parcelgate.Errorf(parcelgate.EINVALID, "Only one environment's %s are paged.", what)
	}
	var keys []string
	page, err := namedPage(ctx, r, c, stmt+` LIMIT ?`, append(append([]any(nil), args...), p.Size+1), parcelgate.PageRequest{}, func(rows *sql.Rows) (T, string, error) {
		item, key, err := scan(rows)
		keys = append(keys, key)
		return item, key, err
	})
	if err == nil && len(page.Items) > p.Size {
		page.Items = page.Items[:p.Size]
		page.Next = keys[p.Size-1]
	}
	return page, err
}
