package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
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
	// page's own snapshot for the page to stand (see inOneStatement); only
	// the one-statement read checks it.
	guard *filterSQL
	// fewRows: the list holds a handful of rows (a retailer's catalogs),
	// so SQLite reads its pages in one statement too (see inOneStatement).
	fewRows bool
	// keptTotal, when set, is the list's total from the kept counts
	// (kept_counts.go, decisions §52), read in the page's read
	// transaction instead of counting the rows.
	keptTotal func(ctx context.Context, r reader) (int64, error)
	// prepare, when set, runs first in the page's read transaction: a
	// list whose total is proven there, with where its walk may start
	// (orders by order dates, decisions §69), sets keptTotal and that
	// condition from what it reads, in the page's snapshot.
	prepare func(ctx context.Context, r reader) error
	// seek, when set, tells where a walk to the row at position pos (1:
	// the first) of the list without its held-back conditions may start
	// (a key before that row, possibly no row's own) and how many rows
	// it then skips: counts the database keeps that skip most of the
	// list (orderSeek, decisions §68). sql.ErrNoRows: fewer rows than
	// pos. Read in the page's read transaction, so it agrees with the
	// rows the walk reads.
	seek func(ctx context.Context, r reader, pos int64) (pageKey, int64, error)

	// head, when set, lets a page of the list be read in one statement
	// with its total (onepage.go): the pager adds the total's columns
	// after the list's and sets *head to their destinations, which scan
	// appends to its own (nil when the page is read otherwise).
	head *[]any
	// fallback, when set, is the query a page is read with when guard
	// does not hold (a catalog named by a remembered ID, catalogQuery).
	fallback func() (*keysetQuery, error)

	// The walk's parameters (decisions §64). The lists above are the
	// API's: ascending, counted, reached by page numbers as well as by
	// cursor, a page ending with a Next when it is full. A list that is
	// uncounted (the console's, the operator's, the journal, a product's
	// stock) has no total and no page numbers: a page reads size+1 rows
	// to learn whether more follow, and its cursors carry a direction.
	uncounted bool
	// positional: the list is reached by position alone (the Tracking
	// API's start=, decisions §59, §66): read as a counted list, but no
	// total is counted and no cursor handed out; a full page still
	// records where the next position starts.
	positional bool
	// subCol, when set, is a third key part after the id (a parcel's
	// place in its shipment): only a positional list has one, so it is
	// never in a cursor.
	subCol string
	// desc: the list is newest first (its key descending).
	desc bool
	// both: the list is paged both ways (Page.Prev).
	both bool
	// idCol is the id column's name when not "id"; textCol, when set, is
	// a text key (an expression) that alone orders the list and is unique
	// in its scope; textID: the key is a text then the id (a search,
	// whose keys come from keys).
	idCol, textCol string
	textID         bool
	// stmt, when set, is the list's statement of its own (a GROUP BY, or
	// the whole list in an order other than its key): complete with its
	// WHERE, the cursor's condition (afterKey) and ORDER BY, without
	// LIMIT; args are its arguments. Without stmt, args are table's own
	// (a subquery in it), before where's.
	stmt string
	args []any
	// keys, when set, reads up to n keys of the list past cur in its
	// direction, closest first: a list merged from several sets (the
	// console's products). Such a list is paged as Page[pageKey]; its
	// caller reads the rows of the page's keys.
	keys func(ctx context.Context, r reader, cur pageCursor, n int) ([]pageKey, error)
	// defaultSize is a page's size when the request's is 0 or above
	// maxSize; whole: a request of size 0 reads the whole list (the
	// operator API's whole lists), which unique says may also be paged.
	defaultSize, maxSize int
	whole, unique        bool
	// legacy is the encoding the list's cursors had before §64's;
	// badCursor the refusal of a cursor that is neither.
	legacy    legacyForm
	badCursor *parcelgate.Error
}

func (q *keysetQuery) stamp() string {
	if q.stampCol == "" {
		return q.col("modified_at")
	}
	return q.col(q.stampCol)
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

// pageKey is the position of a row in a list's order: its stamp (lists
// ordered by change or by a stamp first), its id, on lists keyed by
// text that text (a named list's key alone, or a search's text before
// the id), and on a list with a third part (subCol) that part.
type pageKey struct {
	modified int64
	id       int64
	text     string
	sub      int64
}

// col is the column name of q's table, with its alias.
func (q *keysetQuery) col(name string) string {
	if q.alias == "" {
		return name
	}
	return q.alias + "." + name
}

func (q *keysetQuery) idColumn() string {
	if q.idCol != "" {
		return q.col(q.idCol)
	}
	return q.col("id")
}

func (q *keysetQuery) keyCols() string {
	cols := q.idColumn()
	if q.byModified {
		cols = q.stamp() + ", " + cols
	}
	if q.subCol != "" {
		cols += ", " + q.subCol
	}
	return cols
}

// keyDest is where a row of keyCols is scanned to.
func (q *keysetQuery) keyDest(k *fastpath.PageKey) []any {
	dest := []any{&k.ID}
	if q.byModified {
		dest = []any{&k.Stamp, &k.ID}
	}
	if q.subCol != "" {
		dest = append(dest, &k.Sub)
	}
	return dest
}

// order is the ORDER BY of a walk of q: in the list's order, or against
// it (back).
func (q *keysetQuery) order(back bool) string {
	dir := " ASC"
	if q.desc != back {
		dir = " DESC"
	}
	if q.textCol != "" {
		return q.textCol + dir
	}
	if q.byModified {
		return q.stamp() + dir + ", " + q.idColumn() + dir
	}
	return q.idColumn() + dir
}

func (q *keysetQuery) after(k pageKey) (string, []any) { return q.past(k, false) }

// past is the condition that keeps the rows after k in a walk of q in
// its order, or before it (back).
func (q *keysetQuery) past(k pageKey, back bool) (string, []any) {
	op := ">"
	if q.desc != back {
		op = "<"
	}
	if q.textCol != "" {
		return q.textCol + " " + op + " ?", []any{k.text}
	}
	// Spelled out rather than as a row comparison, so that both engines
	// start the index range at the key. The id is unique, so the rows
	// sharing it (a shipment's parcels) are ordered by the third part.
	cond, args := q.idColumn()+" "+op+" ?", []any{k.id}
	if q.subCol != "" {
		cond, args = cond+" OR ("+q.idColumn()+" = ? AND "+q.subCol+" "+op+" ?)", append(args, k.id, k.sub)
	}
	if q.byModified {
		return q.stamp() + " " + op + "= ? AND (" + q.stamp() + " " + op + " ? OR " + cond + ")", append([]any{k.modified, k.modified}, args...)
	}
	return cond, args
}

// fastKey and slowKey convert a page key to and from the fast path's.
func fastKey(k pageKey) fastpath.PageKey {
	return fastpath.PageKey{Stamp: k.modified, ID: k.id, Sub: k.sub}
}
func slowKey(k fastpath.PageKey) pageKey { return pageKey{modified: k.Stamp, id: k.ID, sub: k.Sub} }

// boundaryScope names q's list for the boundary cache: its statement
// (table, with its own arguments, and key) and its conditions.
func (q *keysetQuery) boundaryScope() string {
	return fmt.Sprintf("%s|%v|%s|%s", q.table, q.args, q.keyCols(), q.where.scope.String())
}

// keysetPage reads one page of q: the store's one pager (decisions §64).
// cols and joins make the selected rows; scan reads one and returns its
// key (nil for a list whose keys come from q.keys, paged as
// Page[pageKey]).
//
// A counted list's total, the page's start and its rows are read in one
// read transaction (reader.readTx), so the page agrees with its own
// totals while writers run; a caller that reads more for the page's rows
// does so inside a read transaction of its own, which this one joins. A
// page that starts past the end of the list is empty, never an error.
// A counted list whose scan reads its total's columns (q.head) may be
// read in one statement instead (inOneStatement), and with q.fallback's
// query when its guard does not hold. An uncounted list is read by walk.
// These are one pager's three ways of running its statement, chosen by
// the query's parameters. A positional list (the Tracking API's
// searches) is read as a counted one without its total: its page has
// neither Total nor Next.
func keysetPage[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	if prepare := q.prepare; prepare != nil {
		q.prepare = nil
		var res parcelgate.Page[T]
		err := r.readTx(ctx, func(r reader) error {
			if err := prepare(ctx, r); err != nil {
				return err
			}
			var err error
			res, err = keysetPage(ctx, r, q, pr, cols, joins, scan)
			return err
		})
		return res, err
	}
	switch {
	case q.uncounted:
		return walk(ctx, r, q, pr, cols, joins, scan)
	case q.head != nil:
		res, err := inOneStatement(ctx, r, q, pr, cols, joins, scan)
		if errors.Is(err, errUnguarded) && q.fallback != nil {
			if q, err = q.fallback(); err != nil {
				return parcelgate.Page[T]{}, err
			}
			return keysetPage(ctx, r, q, pr, cols, joins, scan)
		}
		return res, err
	case q.positional:
		// No total to agree with: the start is a key once resolved, and
		// the rows after it are read in one statement, so a transaction
		// would only add its BEGIN and COMMIT to every lookup (a Tracking
		// search on PostgreSQL: 0.4 → 0.55 ms, decisions §66).
		return readCounted(ctx, r, q, pr, cols, joins, scan)
	}
	return inReadTx(ctx, r, q, pr, cols, joins, scan)
}

// inReadTx reads a page of a counted list in a read transaction.
func inReadTx[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	var res parcelgate.Page[T]
	err := r.readTx(ctx, func(r reader) error {
		var err error
		res, err = readCounted(ctx, r, q, pr, cols, joins, scan)
		return err
	})
	return res, err
}

func readCounted[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	var res parcelgate.Page[T]
	if pr.Size <= 0 {
		pr.Size = parcelgate.DefaultPageSize
	}
	epoch := r.pageEpoch()
	where := q.where.sql()
	if !q.positional {
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
	}
	scope := q.boundaryScope()
	start, hasStart, err := pageStart(ctx, r, q, pr, scope, epoch)
	if errors.Is(err, sql.ErrNoRows) {
		// Fewer entries than the page's offset: past the end.
		if moved(r, pr, epoch) {
			return readAgain(ctx, r, q, pr, cols, joins, scan)
		}
		return res, nil
	}
	if err != nil {
		return res, err
	}
	args := append(append([]any(nil), q.args...), q.where.args...)
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
	if res.Items, last, err = scanRows(rows, scan); err != nil {
		return res, err
	}
	if moved(r, pr, epoch) {
		rows.Close()
		return readAgain(ctx, r, q, pr, cols, joins, scan)
	}
	linkNext(r.db, q, &res, pr, scope, epoch, last)
	return res, nil
}

// moved reports whether a page read with r, which took epoch before its
// first statement (fastpath.Blind: it used and recorded no boundary), may
// have started from a boundary of data its snapshot
// no longer holds: its start was resolved from a position, and an
// operator's reset or restore moved the boundaries' epoch while it read
// (decisions §73). Only then is the boundary it used not known to be a
// key of its snapshot's rows; an atomic load, no statement.
func moved(r reader, pr parcelgate.PageRequest, epoch fastpath.Epoch) bool {
	return pr.After == "" && pr.Offset() > 0 && epoch != fastpath.Blind && !r.db.pages.Holds(epoch)
}

// readAgain reads a page whose epoch moved while it was read (moved)
// again, blind (its start found afresh, nothing recorded), in one read
// transaction (r's own when it is in one), so the walk that finds the
// start and the rows are of one snapshot.
func readAgain[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	r.blind = true
	return inReadTx(ctx, r, q, pr, cols, joins, scan)
}

// scanRows reads a page's rows with scan, and the key of its last row.
func scanRows[T any](rows *sql.Rows, scan func(*sql.Rows) (T, pageKey, error)) ([]T, pageKey, error) {
	var items []T
	var last pageKey
	for rows.Next() {
		item, k, err := scan(rows)
		if err != nil {
			return items, last, err
		}
		items = append(items, item)
		last = k
	}
	return items, last, rows.Err()
}

// linkNext gives a full page the cursor of the next one (none on a
// positional list), and records where that page starts (last, the key of
// this page's last row) in the page read's epoch (decisions §73), the one
// its start was looked up in.
func linkNext[T any](db *DB, q *keysetQuery, res *parcelgate.Page[T], pr parcelgate.PageRequest, scope string, epoch fastpath.Epoch, last pageKey) {
	if len(res.Items) == pr.Size {
		db.pages.Record(epoch, fastpath.BoundaryKey{Scope: scope, Position: pr.Offset() + int64(pr.Size)}, fastKey(last))
		if !q.positional {
			res.Next = q.encodeCursor(last, false)
		}
	}
}

// seekAfter is how many index entries a walk from a recorded boundary
// may skip before a list's seek (keysetQuery.seek) is read instead: a
// walk of a few pages costs less than reading the counts.
const seekAfter = 1000

// pageStart finds the key page pr starts after: the cursor, else the
// position pr.Offset() resolved by fastpath.Boundaries.Start (the
// recorded boundary, or one found by walking the list's index from the
// nearest boundary recorded before it). Position 0 has none. The walk
// reads keys only, from an index that holds the list's conditions and
// order (the held-back conditions of a poll window are left out of it:
// filterSQL.walk), so a cold position P costs an index-only walk of at
// most P entries, and of P−Q when position Q, a whole number of pages
// before, is known. A list with a seek walks from where its seek says
// when no boundary is recorded within seekAfter entries before P: a walk
// of at most one bucket's rows (decisions §68). Boundaries are looked up
// and recorded in epoch, the page read's (decisions §73).
func pageStart(ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, scope string, epoch fastpath.Epoch) (pageKey, bool, error) {
	if pr.After != "" {
		c, err := q.decodeCursor(pr.After)
		return c.key, err == nil, err
	}
	k, ok, err := r.db.pages.Start(epoch, fastpath.BoundaryKey{Scope: scope, Position: pr.Offset()}, int64(pr.Size), func(from fastpath.PageKey, fromSet bool, skip int64) (fastpath.PageKey, error) {
		var k fastpath.PageKey
		if q.seek != nil && (!fromSet || skip > seekAfter) {
			start, rest, err := q.seek(ctx, r, pr.Offset())
			if err != nil {
				return k, err
			}
			from, fromSet, skip = fastKey(start), true, rest
		}
		where, args := q.where.walk()
		args = append(append([]any(nil), q.args...), args...)
		if fromSet {
			cond, a := q.after(slowKey(from))
			where += " AND " + cond
			args = append(args, a...)
		}
		args = append(args, skip-1)
		err := r.QueryRow(ctx, `SELECT `+q.keyCols()+` FROM `+q.table+` WHERE `+where+` ORDER BY `+q.keyCols()+` LIMIT 1 OFFSET ?`, args...).Scan(q.keyDest(&k)...)
		return k, err
	})
	return slowKey(k), ok, err
}

// walk reads a page of an uncounted list: from its first row, or from
// the cursor pr.After onwards or back (the cursor says which), pr.Size
// rows (q.defaultSize when 0 or above q.maxSize; the whole list when 0 on
// a q.whole list), reading one row more to learn whether more follow.
// Next is the cursor of the rows after the page in the list's order, Prev
// (on a list paged both ways) of those before it; no total is counted.
func walk[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	page := parcelgate.Page[T]{Items: []T{}}
	limit := pr.Size
	switch {
	case q.whole && (limit < 0 || limit > 0 && !q.unique):
		return page, parcelgate.Errorf(parcelgate.EINVALID, "Only one organization's list is paged.")
	case q.whole && limit == 0:
	case limit <= 0 || (q.maxSize > 0 && limit > q.maxSize):
		limit = q.defaultSize
	}
	cur, err := q.decodeCursor(pr.After)
	if err != nil {
		return page, err
	}
	n := 0
	if limit > 0 {
		n = limit + 1
	}
	var keys []pageKey
	switch {
	case q.keys != nil:
		if keys, err = q.keys(ctx, r, cur, n); err != nil {
			return page, err
		}
		for _, k := range keys {
			page.Items = append(page.Items, any(k).(T))
		}
	default:
		stmt, args := q.stmt, append([]any(nil), q.args...)
		if stmt == "" {
			where := q.where.sql()
			args = append(args, q.where.args...)
			if cur.set {
				cond, a := q.past(cur.key, cur.back)
				where += " AND " + cond
				args = append(args, a...)
			}
			stmt = `SELECT ` + cols + ` FROM ` + q.table + ` ` + joins + ` WHERE ` + where + ` ORDER BY ` + q.order(cur.back)
		}
		if n > 0 {
			stmt += ` LIMIT ?`
			args = append(args, n)
		}
		rows, err := r.Query(ctx, stmt, args...)
		if err != nil {
			return page, err
		}
		defer rows.Close()
		for rows.Next() {
			item, k, err := scan(rows)
			if err != nil {
				return parcelgate.Page[T]{}, err
			}
			page.Items, keys = append(page.Items, item), append(keys, k)
		}
		if err := rows.Err(); err != nil {
			return parcelgate.Page[T]{}, err
		}
	}
	more := n > 0 && len(page.Items) > limit
	if more {
		page.Items, keys = page.Items[:limit], keys[:limit]
	}
	if cur.back {
		slices.Reverse(page.Items)
		slices.Reverse(keys)
	}
	if len(keys) == 0 {
		return page, nil
	}
	if q.both && ((cur.back && more) || (cur.set && !cur.back)) {
		page.Prev = q.encodeCursor(keys[0], true)
	}
	if more || cur.back {
		page.Next = q.encodeCursor(keys[len(keys)-1], false)
	}
	return page, nil
}

// afterKey keeps f to the rows whose text key col is after the cursor
// p.After of a named list (namedQuery), for a list with a statement of
// its own.
func afterKey(f *filterSQL, col string, p parcelgate.PageRequest) {
	if c, _ := namedQuery(false, "", nil).decodeCursor(p.After); c.set {
		f.add(col+" > ?", c.key.text)
	}
}

// namedQuery is a list ordered by a text key unique in the caller's
// organization (its gateway clients by client ID, its service accounts
// by username, its catalogs by external ID) read by its own statement
// stmt, whose filter afterKey has kept to the keys after the cursor and
// which ends with its ORDER BY; Next is the cursor of the page's last key
// when more follow. Size 0 reads the whole list in one answer (the
// operator API's lists, unpaged on the wire). A paged request needs a
// list whose key is unique in its scope (unique): one organization's
// credentials or catalogs, one environment's organizations; the whole
// list is ordered by business ID first, so the key alone orders only
// such a scope's rows. The key's column is the statement's; the query
// names "text" only for its cursors.
func namedQuery(unique bool, stmt string, args []any) *keysetQuery {
	return &keysetQuery{uncounted: true, textCol: "text", stmt: stmt, args: args, whole: true, unique: unique, legacy: legacyText}
}

// environmentQuery is namedQuery for one of the operator API's lists of
// an environment (decisions §53, §58): the organizations, gateway clients
// and service accounts, each by a key unique in its table, p.Size rows
// after the cursor. Only a caller of ScopeEnvironment pages so.
func environmentQuery(c *parcelgate.Caller, what, stmt string, args []any, p parcelgate.PageRequest) (*keysetQuery, error) {
	if c.Scope != parcelgate.ScopeEnvironment || p.Size < 1 {
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "Only one environment's %s are paged.", what)
	}
	return namedQuery(true, stmt, args), nil
}

// consoleBadCursor is a console list's refusal of a cursor.
var consoleBadCursor = &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The page link is not valid; start from the first page.",
	Fields: []parcelgate.FieldError{{Field: "page", Message: "is not a page of this list"}}}

// newestFirstQuery is a newest-first list (the console's orders,
// shipments and organizations, decisions §47): table from (alias its
// alias, "" for none) filtered by f, by stampCol (may be "": by id
// alone) and id descending, paged both ways, 50 rows a page when the
// request asks 0 or above 500.
func newestFirstQuery(f *filterSQL, from, alias, stampCol string) *keysetQuery {
	return &keysetQuery{table: from, alias: alias, where: *f, byModified: stampCol != "", stampCol: stampCol,
		uncounted: true, desc: true, both: true, defaultSize: 50, maxSize: 500, legacy: legacyConsole, badCursor: consoleBadCursor}
}
