package sqlstore

import (
	"github.com/parcelgate/parcelgate"
)

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
