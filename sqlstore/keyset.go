package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
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
//   - By building page=N itself, as the spec's loop does. The API's edge
//     maps it onto the keyset (parcelgate.PageAt: the position N×size of
//     the page's first row, decisions §59), and the store resolves the
//     position to a key in one function (fastpath.Boundaries.Start)
//     through a cache of boundaries keyed by the query (its filters) and
//     the position: serving a full page records where the next position
//     starts, so a client looping page=0,1,2,... reads every page by key
//     and sees exactly what a cursor-follower sees. On a miss (the first
//     request for that position on this instance, e.g. a jump or a load
//     balancer moving the client) the boundary is found once by walking
//     the list's covering index from the nearest recorded page before it,
//     an index-only scan with no row reads, and recorded. The cache is
//     per instance and bounded; an entry lives fastpath.BoundaryTTL,
//     after which the position is found afresh, so rows deleted
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
	// keptTotal, when set, is the list's total from the kept counts
	// (kept_counts.go, decisions §52), read in the page's read
	// transaction instead of counting the rows.
	keptTotal func(ctx context.Context, r reader) (int64, error)
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
	// heldBack marks the conditions addHeldBack added; nargs is how many
	// arguments each condition has.
	heldBack []bool
	nargs    []int
}

func (f *filterSQL) add(cond string, args ...any) {
	f.push(cond, false, args)
	fmt.Fprintf(&f.scope, "%s%v;", cond, args)
}

func (f *filterSQL) addVolatile(cond string, args ...any) {
	f.push(cond, false, args)
	f.scope.WriteString(cond + ";")
}

// addHeldBack adds a poll window's condition (decisions §22): it holds
// back only rows that sort after every row it lets through, so it is left
// out of the boundary cache's name (as addVolatile) and out of the walk
// that finds where a page numbered by the client starts (walk): the
// N-th row of the list is the N-th row without it whenever the list has
// more than N rows, and a page that starts among the held-back rows is
// read, with the condition, as the empty page past the end it is.
func (f *filterSQL) addHeldBack(cond string, args ...any) {
	f.push(cond, true, args)
	f.scope.WriteString(cond + ";")
}

func (f *filterSQL) push(cond string, heldBack bool, args []any) {
	f.conds = append(f.conds, cond)
	f.args = append(f.args, args...)
	f.heldBack = append(f.heldBack, heldBack)
	f.nargs = append(f.nargs, len(args))
}

// walk is the conjunction without the held-back conditions, with its
// arguments.
func (f *filterSQL) walk() (string, []any) {
	var conds []string
	var args []any
	at := 0
	for i, c := range f.conds {
		if !f.heldBack[i] {
			conds = append(conds, c)
			args = append(args, f.args[at:at+f.nargs[i]]...)
		}
		at += f.nargs[i]
	}
	if len(conds) == 0 {
		return "1=1", args
	}
	return strings.Join(conds, " AND "), args
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
	if q.keptTotal != nil {
		res.Total, err = q.keptTotal(ctx, r)
	} else {
		res.Total, err = total(ctx, r, q)
	}
	if err != nil {
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
		res.Next = db.pages.Next(fastpath.BoundaryKey{Scope: scope, Position: pr.Offset() + int64(pr.Size)}, q.byModified, fastKey(last))
	}
}

// pageStart finds the key page pr starts after: the cursor, else the
// position pr.Offset() resolved by fastpath.Boundaries.Start (the
// recorded boundary, or one found by walking the list's index from the
// nearest boundary recorded before it). Position 0 has none. The walk
// reads keys only, from an index that holds the list's conditions and
// order (the held-back conditions of a poll window are left out of it:
// filterSQL.walk), so a cold position P costs an index-only walk of at
// most P entries, and of P−Q when position Q, a whole number of pages
// before, is known.
func pageStart(ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, scope string) (pageKey, bool, error) {
	if pr.After != "" {
		k, err := q.decode(pr.After)
		return k, err == nil, err
	}
	k, ok, err := r.db.pages.Start(fastpath.BoundaryKey{Scope: scope, Position: pr.Offset()}, int64(pr.Size), func(from fastpath.PageKey, fromSet bool, skip int64) (fastpath.PageKey, error) {
		var k fastpath.PageKey
		dest := []any{&k.ID}
		if q.byModified {
			dest = []any{&k.Stamp, &k.ID}
		}
		where, args := q.where.walk()
		if fromSet {
			cond, a := q.after(slowKey(from))
			where += " AND " + cond
			args = append(args, a...)
		}
		args = append(args, skip-1)
		err := r.QueryRow(ctx, `SELECT `+q.keyCols()+` FROM `+q.table+` WHERE `+where+` ORDER BY `+q.keyCols()+` LIMIT 1 OFFSET ?`, args...).Scan(dest...)
		return k, err
	})
	return slowKey(k), ok, err
}

// namedPage reads one page of a list ordered by a text key unique in the
// caller's organization (its gateway clients by client ID, its service
// accounts by username, its catalogs by external ID): p.Size rows of
// stmt, whose filter afterKey has kept to the keys after p.After and
// which ends with its ORDER BY; Next is the key of the page's last row
// when more follow. Size 0 reads the whole list in one answer (the
// operator API's lists, unpaged on the wire). A paged request needs a
// list whose key is unique in its scope (unique): one organization's
// credentials or catalogs, one environment's organizations; the whole
// list is ordered by business ID first, so the key alone orders only
// such a scope's rows.
func namedPage[T any](ctx context.Context, r reader, unique bool, stmt string, args []any, p parcelgate.PageRequest, scan func(*sql.Rows) (T, string, error)) (parcelgate.Page[T], error) {
	page := parcelgate.Page[T]{Items: []T{}}
	if p.Size < 0 || (p.Size > 0 && !unique) {
		return page, parcelgate.Errorf(parcelgate.EINVALID, "Only one organization's list is paged.")
	}
	args = append([]any(nil), args...)
	if p.Size > 0 {
		stmt += ` LIMIT ?`
		args = append(args, p.Size+1)
	}
	rows, err := r.Query(ctx, stmt, args...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	var last []string
	for rows.Next() {
		item, k, err := scan(rows)
		if err != nil {
			return parcelgate.Page[T]{}, err
		}
		page.Items, last = append(page.Items, item), append(last, k)
	}
	if err := rows.Err(); err != nil {
		return parcelgate.Page[T]{}, err
	}
	if p.Size > 0 && len(page.Items) > p.Size {
		page.Items = page.Items[:p.Size]
		page.Next = last[p.Size-1]
	}
	return page, nil
}

// afterKey keeps f to the rows whose text key col is after p.After, the
// key namedPage's previous page ended with.
func afterKey(f *filterSQL, col string, p parcelgate.PageRequest) {
	if p.After != "" {
		f.add(col+" > ?", p.After)
	}
}

// Newest-first lists (the console's orders, shipments and organizations)
// page by key in both directions, so the last page of 100,000 orders
// costs what the first does.

// consoleKey is a row's place in a newest-first list: a stamp (0 when the
// list is ordered by id alone) and the row's id.
type consoleKey struct {
	stamp, id int64
}

// consoleCursor is a parsed page cursor: the key the page starts after,
// and whether it goes towards newer rows.
type consoleCursor struct {
	key   consoleKey
	newer bool
	set   bool
}

func encodeConsoleCursor(k consoleKey, newer bool) string {
	dir := "o"
	if newer {
		dir = "n"
	}
	return base64.RawURLEncoding.EncodeToString([]byte(dir + "." + strconv.FormatInt(k.stamp, 36) + "." + strconv.FormatInt(k.id, 36)))
}

func parseConsoleCursor(s string) (consoleCursor, error) {
	if s == "" {
		return consoleCursor{}, nil
	}
	bad := &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The page link is not valid; start from the first page.",
		Fields: []parcelgate.FieldError{{Field: "page", Message: "is not a page of this list"}}}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return consoleCursor{}, bad
	}
	parts := strings.Split(string(b), ".")
	if len(parts) != 3 || (parts[0] != "o" && parts[0] != "n") {
		return consoleCursor{}, bad
	}
	c := consoleCursor{newer: parts[0] == "n", set: true}
	if c.key.stamp, err = strconv.ParseInt(parts[1], 36, 64); err != nil {
		return consoleCursor{}, bad
	}
	if c.key.id, err = strconv.ParseInt(parts[2], 36, 64); err != nil {
		return consoleCursor{}, bad
	}
	return c, nil
}

// newestFirstPage reads one page of a newest-first list (the console's
// lists, decisions §47): from the newest, or from the cursor p.After
// towards older or newer rows (the cursor says which), p.Size rows (50
// when 0 or above 500). stampCol may be "" for lists ordered by idCol
// alone. Next is the cursor of the older rows, Prev of the newer; no
// total is counted.
func newestFirstPage[T any](ctx context.Context, r reader, f *filterSQL, from, cols, stampCol, idCol string, p parcelgate.PageRequest, scan func(*sql.Rows) (T, consoleKey, error)) (parcelgate.Page[T], error) {
	var page parcelgate.Page[T]
	cur, err := parseConsoleCursor(p.After)
	if err != nil {
		return page, err
	}
	limit := p.Size
	if limit <= 0 || limit > 500 {
		limit = 50
	}
	where, args := f.sql(), append([]any(nil), f.args...)
	if cur.set {
		var cond string
		switch {
		case stampCol == "" && cur.newer:
			cond, args = idCol+" > ?", append(args, cur.key.id)
		case stampCol == "":
			cond, args = idCol+" < ?", append(args, cur.key.id)
		case cur.newer:
			cond = stampCol + " >= ? AND (" + stampCol + " > ? OR " + idCol + " > ?)"
			args = append(args, cur.key.stamp, cur.key.stamp, cur.key.id)
		default:
			cond = stampCol + " <= ? AND (" + stampCol + " < ? OR " + idCol + " < ?)"
			args = append(args, cur.key.stamp, cur.key.stamp, cur.key.id)
		}
		where += " AND " + cond
	}
	order := idCol + " DESC"
	if stampCol != "" {
		order = stampCol + " DESC, " + order
	}
	if cur.newer {
		order = strings.ReplaceAll(order, "DESC", "ASC")
	}
	rows, err := r.Query(ctx, `SELECT `+cols+` FROM `+from+` WHERE `+where+` ORDER BY `+order+` LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	var keys []consoleKey
	for rows.Next() {
		item, k, err := scan(rows)
		if err != nil {
			return page, err
		}
		page.Items = append(page.Items, item)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return page, err
	}
	more := len(page.Items) > limit
	if more {
		page.Items, keys = page.Items[:limit], keys[:limit]
	}
	if cur.newer {
		for i, j := 0, len(page.Items)-1; i < j; i, j = i+1, j-1 {
			page.Items[i], page.Items[j] = page.Items[j], page.Items[i]
			keys[i], keys[j] = keys[j], keys[i]
		}
	}
	if len(keys) == 0 {
		return page, nil
	}
	if (cur.newer && more) || (cur.set && !cur.newer) {
		page.Prev = encodeConsoleCursor(keys[0], true)
	}
	if more || cur.newer {
		page.Next = encodeConsoleCursor(keys[len(keys)-1], false)
	}
	return page, nil
}
