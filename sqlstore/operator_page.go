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
	// The key is unique in one environment, so namedPage may page by it.
	return namedPage(ctx, r, true, stmt, args, p, scan)
}

// envKeyed completes a credential table's statement (alias t, joined
// with its organizations o) for a page of c's environment by key, live
// ones (revoked_at = 0) after p.After, ordered by key. The key's unique
// index gives the order: the credential table drives the join (CROSS
// JOIN: SQLite keeps the tables in that order; for PostgreSQL it is a
// join like any) and the environment is its organization's, looked up
// per row, so neither engine starts from the environment's every
// organization and sorts their credentials. A page reads its rows and the
// other environment's (and revoked ones) between them.
func envKeyed(stmt, t, key string, c *parcelgate.Caller, p parcelgate.PageRequest) (string, []any) {
	var f filterSQL
	f.add("(SELECT e.environment FROM organizations e WHERE e.id = "+t+".org_id) = ?", string(c.Environment))
	f.add(t + ".revoked_at = 0")
	afterKey(&f, key, p)
	return stmt + ` AND ` + f.sql() + ` ORDER BY ` + key, f.args
}
