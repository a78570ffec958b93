package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// A page that needs nothing but its rows and its total is read in one
// statement (decisions §25): the page's rows carry, as extra columns, the
// list's total and what keeps it (counts.go): the scope's newest stamp and,
// when the total is counted afresh, the earliest end-of-sale stamp ahead of
// the cut-off. One statement sees one state of the database on both
// engines (PostgreSQL takes one snapshot per statement, its subqueries
// included; SQLite reads a statement in one implicit read transaction), so
// the rows agree with their total as they do in keysetPage's read
// transaction, without its BEGIN and ROLLBACK and with one round trip
// instead of three. A kept total is checked in the statement itself: its
// count is a CASE branch taken only when the scope's newest stamp is not
// the one the total was kept at, so a total still exact costs one index
// seek, as before.
//
// A statement that returns no row carries no total: an empty page (an
// empty list, or a page past its end) is answered by keysetPage instead,
// in its read transaction, exactly as before.
//
// A list is read so when its scan can read the columns that carry the
// total after its own (keysetQuery.head): the pager points them at
// their destinations before it reads the rows.

// oneStatement reports whether inOneStatement reads a page of size rows (0: the
// default) in one statement; fewRows is keysetQuery.fewRows
// (fastpath.OneStatement: one statement is worth it on PostgreSQL for
// pages of up to fastpath.OnePageRows, on SQLite only for a list of a few
// rows).
func oneStatement(db *DB, fewRows bool, size int) bool {
	if size <= 0 {
		size = parcelgate.DefaultPageSize
	}
	return fastpath.OneStatement(db.dialect.name == "postgres", fewRows, size)
}

// errUnguarded is oneStatement's refusal of a page whose q.guard it found
// false or could not check.
var errUnguarded = errors.New("sqlstore: the page's guard does not hold")

// inOneStatement reads one page of a counted list q whose scan reads
// the total's columns (q.head) as keysetPage does in its read
// transaction, in one statement when the page has rows; otherwise (a
// read transaction under way, a page too long to be worth it, an empty
// page) in the read transaction, with *q.head empty.
func inOneStatement[T any](ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
	var res parcelgate.Page[T]
	plain := func(ctx context.Context, r reader, q *keysetQuery, pr parcelgate.PageRequest, cols, joins string, scan func(*sql.Rows) (T, pageKey, error)) (parcelgate.Page[T], error) {
		*q.head = nil
		return inReadTx(ctx, r, q, pr, cols, joins, scan)
	}
	// A blind read (its epoch moved while it read, decisions §73) is read
	// again in a read transaction, as one inside a transaction is.
	inTx := r.tx != nil || r.blind
	if inTx && q.guard != nil {
		return res, errUnguarded
	}
	if inTx {
		return plain(ctx, r, q, pr, cols, joins, scan)
	}
	if pr.Size <= 0 {
		pr.Size = parcelgate.DefaultPageSize
	}
	if !oneStatement(r.db, q.fewRows, pr.Size) {
		if q.guard != nil {
			return res, errUnguarded
		}
		return plain(ctx, r, q, pr, cols, joins, scan)
	}
	epoch := r.pageEpoch()
	scope := q.boundaryScope()
	start, hasStart, err := pageStart(ctx, r, q, pr, scope, epoch)
	if errors.Is(err, sql.ErrNoRows) && q.guard != nil {
		return res, errUnguarded
	}
	if errors.Is(err, sql.ErrNoRows) {
		return plain(ctx, r, q, pr, cols, joins, scan)
	}
	if err != nil {
		return res, err
	}
	where := q.where.sql()
	head, headArgs, kept, key := totalColumns(r.db, q, where)
	if q.guard != nil {
		head += `, ` + q.guard.sql()
		headArgs = append(headArgs, q.guard.args...)
	}
	args := append(headArgs, q.where.args...)
	if hasStart {
		cond, a := q.after(start)
		where += " AND " + cond
		args = append(args, a...)
	}
	args = append(args, pr.Size)
	rows, err := r.Query(ctx, `SELECT `+cols+`, `+head+` FROM `+q.table+` `+joins+` WHERE `+where+` ORDER BY `+q.keyCols()+` LIMIT ?`, args...)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	var newest, total, cross, guard sql.NullInt64
	dest := []any{&total}
	if q.validity != nil {
		dest = []any{&newest, &total, &cross}
	}
	if q.guard != nil {
		dest = append(dest, &guard)
	}
	var last pageKey
	*q.head = dest
	if res.Items, last, err = scanRows(rows, scan); err != nil {
		return res, err
	}
	if moved(r, pr, epoch) {
		// Its start and its rows were read in two statements, a move
		// between them or before: read again, blind, as keysetPage
		// would (the guard's fallback included).
		rows.Close()
		r.blind = true
		return keysetPage(ctx, r, q, pr, cols, joins, scan)
	}
	if q.guard != nil && (len(res.Items) == 0 || !guard.Valid) {
		return parcelgate.Page[T]{}, errUnguarded
	}
	if len(res.Items) == 0 {
		return plain(ctx, r, q, pr, cols, joins, scan)
	}
	switch {
	case total.Valid:
		res.Total = total.Int64
		if q.validity != nil {
			r.db.counts.Keep(key, fastpath.Counted(total.Int64, newest.Int64, q.validity.cutoff, cross.Int64, cross.Valid))
		}
	case kept != nil && kept.Holds(newest.Int64, q.validity.cutoff):
		res.Total = kept.Total
	default:
		// Unreachable: the statement counts unless the newest stamp is
		// the kept one.
		return res, errors.New("sqlstore: a page's total was neither counted nor kept")
	}
	if pr.After == "" && pr.Offset() >= res.Total {
		// As keysetPage: a page numbered past the total is empty.
		return parcelgate.Page[T]{Total: res.Total}, nil
	}
	linkNext(r.db, q, &res, pr, scope, epoch, last)
	return res, nil
}

// totalColumns returns the columns that carry q's total in its page's
// statement, with their arguments: the total alone when q keeps no count;
// else the scope's newest stamp, the total and the earliest end-of-sale
// stamp after the cut-off, where the last two are NULL when kept is the
// total still exact (its stamp is the newest one: see counts.go). kept is
// the kept count the statement checks, nil when there is none usable.
func totalColumns(db *DB, q *keysetQuery, where string) (head string, args []any, kept *fastpath.Count, key fastpath.CountKey) {
	count := `(SELECT COUNT(*) FROM ` + q.table + ` WHERE ` + where + `)`
	v := q.validity
	if v == nil {
		return count, append([]any(nil), q.where.args...), nil, key
	}
	key = q.countKey()
	newest := `COALESCE((SELECT MAX(` + v.stamp + `) FROM ` + v.table + ` WHERE ` + v.scope + `), 0)`
	cross, crossArgs := `NULL`, []any(nil)
	if v.eos != "" {
		cross = `(SELECT MIN(` + v.eos + `) FROM ` + v.table + ` WHERE ` + v.scope + ` AND ` + v.eos + ` > ?)`
		crossArgs = append(append(crossArgs, v.args...), v.cutoff)
	}
	args = append(args, v.args...)
	if e, ok := db.counts.Kept(key, v.cutoff); ok {
		kept = &e
		stale := newest + ` <> ?`
		head = newest + `, CASE WHEN ` + stale + ` THEN ` + count + ` END, CASE WHEN ` + stale + ` THEN ` + cross + ` END`
		args = append(args, v.args...)
		args = append(args, e.Stamp)
		args = append(args, q.where.args...)
		args = append(args, v.args...)
		args = append(args, e.Stamp)
		args = append(args, crossArgs...)
		return head, args, kept, key
	}
	head = newest + `, ` + count + `, ` + cross
	args = append(args, q.where.args...)
	args = append(args, crossArgs...)
	return head, args, nil, key
}

// headScanner scans a row into dest followed by head.
type headScanner struct {
	rows *sql.Rows
	head []any
}

func (s headScanner) Scan(dest ...any) error { return s.rows.Scan(append(dest, s.head...)...) }
