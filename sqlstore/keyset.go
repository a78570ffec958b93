package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// Lists are paged by key, never by OFFSET over the rows (decisions §8, interface §4.4
// GET rule 1): a page is "the next size rows whose key is greater than the
// last key of the page before", read from an index in key order, so page
// 206 of a catalog of 412,638 balances costs what page 0 costs.
//
// The key is immutable (the row's id), so updates never move a row between
// pages. Change feeds (modifiedFromDate) are ordered by (modified_at, id)
// instead: a row changed while a client pages moves past every row it has
// read, so the client meets it again later on, and a client that pages to
// the end and then polls from the newest stamp it saw misses nothing.
//
// A client may reach page N two ways:
//
//   - By following the envelope's next link, which carries the last key of
//     the page before as an opaque cursor (after=...). Exact and O(page) on
//     every instance.
//   - By building page=N itself, as the spec's loop does. Its first key is
//     then looked up in a cache of page boundaries keyed by the query (its
//     filters and page size): serving page N-1 records where page N starts,
//     so a client looping page=0,1,2,... reads every page by key and sees
//     exactly what a cursor-follower sees. On a miss (the first request for
//     page N on this instance, e.g. a jump or a load balancer moving the
//     client) the boundary is found once by counting N*size entries of the
//     list's covering index, an index-only scan with no row reads, and
//     recorded. The cache is per instance and bounded; an entry lives
//     fastpath.BoundaryTTL, after which page N is found afresh, so rows deleted
//     meanwhile cannot leave a page number pointing at a stale key for
//     long. Totals are exact and read in the same read transaction as the
//     page (see keysetPage): counted afresh, or kept while the store can
//     prove them unchanged (counts.go).
type keysetQuery struct {
	// table is "balances b" or "products p"; alias is its alias.
	table, alias string
	where        filterSQL
	byModified   bool
	// stampCol is the modification stamp column of a change feed;
	// "modified_at" when empty.
	stampCol string
	// validity, when set, lets the list's total be kept between pages
	// (see counts.go).
	validity *countValidity
	// guard, when set, is a scalar subquery that must return a row in the
	// page's own snapshot for the page to stand (see onePage); only
	// onePage reads such a query.
	guard *filterSQL
	// fewRows: the list holds a handful of rows (a retailer's catalogs),
	// so SQLite reads its pages in one statement too (see onePage).
	fewRows bool
}

func (q *keysetQuery) stamp() string {
	if q.stampCol == "" {
		return q.alias + ".modified_at"
	}
	return q.alias + "." + q.stampCol
}

// filterSQL is a conjunction of conditions on the listed table. scope
// names the list for the boundary cache; conditions whose arguments move
// with the clock (the EOS visibility cut-off) are left out of it, since a
// boundary stays a valid key whatever the cut-off.
type filterSQL struct {
	conds []string
	args  []any
	scope strings.Builder
}

func (f *filterSQL) add(cond string, args ...any) {
	f.conds = append(f.conds, cond)
	f.args = append(f.args, args...)
	fmt.Fprintf(&f.scope, "%s%v;", cond, args)
}

func (f *filterSQL) addVolatile(cond string, args ...any) {
	f.conds = append(f.conds, cond)
	f.args = append(f.args, args...)
	f.scope.WriteString(cond + ";")
}

// in adds "col IN (?, ...)" for vals.
func (f *filterSQL) in(col string, vals []any) {
	f.add(col+" IN ("+placeholders(len(vals))+")", vals...)
}

func (f *filterSQL) sql() string {
	if len(f.conds) == 0 {
		return "1=1"
	}
	return strings.Join(f.conds, " AND ")
}

// pageKey is the position of a row in a list's order.
type pageKey struct {
	modified int64
	id       int64
}

func (q *keysetQuery) keyCols() string {
	if q.byModified {
		return q.stamp() + ", " + q.alias + ".id"
	}
	return q.alias + ".id"
}

func (q *keysetQuery) after(k pageKey) (string, []any) {
	if q.byModified {
		// Spelled out rather than as a row comparison, so that both engines
		// start the index range at the key.
		return q.stamp() + " >= ? AND (" + q.stamp() + " > ? OR " + q.alias + ".id > ?)", []any{k.modified, k.modified, k.id}
	}
	return q.alias + ".id > ?", []any{k.id}
}

// fastKey and slowKey convert a page key to and from the fast path's.
func fastKey(k pageKey) fastpath.PageKey { return fastpath.PageKey{Stamp: k.modified, ID: k.id} }
func slowKey(k fastpath.PageKey) pageKey { return pageKey{modified: k.Stamp, id: k.ID} }

// decode is the key of a cursor of q's list (fastpath.Cursor).
func (q *keysetQuery) decode(cursor string) (pageKey, error) {
	k, ok := fastpath.ParseCursor(cursor, q.byModified)
	if !ok {
		return pageKey{}, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The after parameter is not a cursor of this list; follow the next link as given.",
			Fields: []parcelgate.FieldError{{Field: "after", Message: "is not a cursor of this list"}}}
	}
	return slowKey(k), nil
}

// keysetPage reads one page of q. cols and joins make the selected rows;
// scan reads one and returns its key.
//
// The total, the page's start and its rows are read in one read
// transaction (reader.readTx), so the page agrees with its own totals while
// writers run; a caller that reads more for the page's rows does so inside
// a read transaction of its own, which this one joins. A page that starts
// past the end of the list is empty, never an error.
func keysetPage[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	var res parcelgate.Page[T]
	err := r.readTx(ctx, func(r reader) error {
		var err error
		res, err = readKeysetPage(ctx, r, q, pr, cols, joins, scan)
		return err
	})
	return res, err
}

func readKeysetPage[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	var res parcelgate.Page[T]
	if pr.Size <= 0 {
		pr.Size = parcelgate.DefaultPageSize
	}
	where := q.where.sql()
	var err error
	if res.Total, err = total(ctx, r, q); err != nil {
		return res, err
	}
	if pr.After == "" && pr.Offset() >= res.Total {
		return res, nil
	}
	scope := q.table + "|" + q.keyCols() + "|" + q.where.scope.String()
	start, hasStart, err := pageStart(ctx, r, q, pr, scope)
	if errors.Is(err, sql.ErrNoRows) {
		// Fewer entries than the page's offset: past the end.
		return res, nil
	}
	if err != nil {
		return res, err
	}
	args := append([]any(nil), q.where.args...)
	if hasStart {
		cond, a := q.after(start)
		where += " AND " + cond
		args = append(args, a...)
	}
	args = append(args, pr.Size)
	rows, err := r.Query(ctx, `SELECT `+cols+` FROM `+q.table+` `+joins+` WHERE `+where+` ORDER BY `+q.keyCols()+` LIMIT ?`, args...)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	var last pageKey
	if res.Items, last, err = readPage(rows, func() (T, pageKey, error) { return scan(rows) }); err != nil {
		return res, err
	}
	linkNext(r.db, q, &res, pr, scope, last)
	return res, nil
}

// readPage reads a page's rows with scan, and the key of its last row.
func readPage[T any](rows *sql.Rows, scan func() (T, pageKey, error)) ([]T, pageKey, error) {
	var items []T
	var last pageKey
	for rows.Next() {
		item, k, err := scan()
		if err != nil {
			return items, last, err
		}
		items = append(items, item)
		last = k
	}
	return items, last, rows.Err()
}

// linkNext gives a full page the cursor of the next one, and records
// where that page starts (last, the key of this page's last row).
func linkNext[T any](db *DB, q *keysetQuery, res *parcelgate.Page[T], pr parcelgate.PageRequest, scope string, last pageKey) {
	if len(res.Items) == pr.Size {
		res.Next = db.pages.Next(fastpath.BoundaryKey{Scope: scope, Size: pr.Size, Number: pr.Number}, q.byModified, fastKey(last))
	}
}

// pageStart finds the key page pr starts after: the cursor, the recorded
// boundary, or the (Number*Size)-th key counted on the index
// (fastpath.Boundaries). Page 0 has none.
func pageStart(ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, scope string) (pageKey, bool, error) {
	if pr.After != "" {
		k, err := q.decode(pr.After)
		return k, err == nil, err
	}
	k, ok, err := r.db.pages.Start(fastpath.BoundaryKey{Scope: scope, Size: pr.Size, Number: pr.Number}, func() (fastpath.PageKey, error) {
		var k fastpath.PageKey
		dest := []any{&k.ID}
		if q.byModified {
			dest = []any{&k.Stamp, &k.ID}
		}
		args := append(append([]any(nil), q.where.args...), pr.Offset()-1)
		err := r.QueryRow(ctx, `SELECT `+q.keyCols()+` FROM `+q.table+` WHERE `+q.where.sql()+` ORDER BY `+q.keyCols()+` LIMIT 1 OFFSET ?`, args...).Scan(dest...)
		return k, err
	})
	return slowKey(k), ok, err
}
