package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// pollWindow is the window of a change poll after from in env
// (parcelgate.PollWindow), with what this store sees now of the writers
// that may still commit a change (see stamp.go). On PostgreSQL that is
// read on the poll's own connection, in its read transaction when there is
// one, in one statement: the snapshot first (the transaction's, or the
// statement's), then the transactions running and those holding or
// waiting for env's change clock. On a hot standby the primary's locks are not to be seen, and
// the window is the snapshot's oldest running transaction. The poll's rows
// must be read with the same reader (decisions §22: the look and the read
// on one server).
func pollWindow(ctx context.Context, r reader, env parcelgate.Environment, from time.Time) (parcelgate.ChangeWindow, error) {
	if r.db.dialect.name != "postgres" {
		return parcelgate.PollWindow(from, nil), nil
	}
	// Outside a read transaction (every poll so far), the page is read in
	// one begun after this statement, so its snapshot is later than the
	// look.
	w := parcelgate.Writers{ReadAfter: r.tx == nil}
	var inProgress, running, stamping string
	err := r.QueryRow(ctx, `SELECT pg_is_in_recovery(), pg_snapshot_xmin(s)::text::bigint, pg_snapshot_xmax(s)::text::bigint,
		COALESCE((SELECT string_agg(x::text, ',') FROM pg_snapshot_xip(s) x), ''),
		COALESCE((SELECT string_agg(backend_xid::text, ',') FROM pg_stat_activity WHERE backend_xid IS NOT NULL), ''),
		COALESCE((SELECT string_agg(a.backend_xid::text, ',') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.classid = `+clockLockClass+` AND l.objid = (`+clockLockKey+`)::oid AND l.objsubid = 2 AND a.backend_xid IS NOT NULL), '')
		FROM pg_current_snapshot() s`, string(env)).Scan(&w.Standby, &w.Xmin, &w.Xmax, &inProgress, &running, &stamping)
	if err != nil {
		return parcelgate.ChangeWindow{}, err
	}
	if w.InProgress, err = parseIDs[int64](inProgress, 64); err == nil {
		if w.Running, err = parseIDs[uint32](running, 32); err == nil {
			w.Stamping, err = parseIDs[uint32](stamping, 32)
		}
	}
	if err != nil {
		return parcelgate.ChangeWindow{}, err
	}
	return parcelgate.PollWindow(from, &w), nil
}

// parseIDs reads a comma-separated list of transaction IDs.
func parseIDs[T int64 | uint32](s string, bits int) ([]T, error) {
	if s == "" {
		return nil, nil
	}
	var out []T
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseUint(f, 10, bits)
		if err != nil {
			return nil, err
		}
		out = append(out, T(n))
	}
	return out, nil
}

// addWindow adds the conditions of w on the rows of alias, whose stamp is
// column stamp; the stamp's bound only when after (a list without a
// cursor keeps only the bound on tickets).
func addWindow(f *filterSQL, alias, stamp string, w parcelgate.ChangeWindow, after bool) {
	if after {
		f.add(alias+"."+stamp+" > ?", w.After)
	}
	if w.SettledBelow > 0 {
		// Left out of the boundary cache's name: a change it holds back
		// sorts after every change it lets through (its ticket, and so its
		// stamp, is larger), so a boundary found under one bound is one
		// under any later bound.
		f.addHeldBack(alias+".changed_xid < ?", w.SettledBelow)
	}
}
