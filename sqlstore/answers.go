package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// Reading one order is the API's hottest read. Answering it decodes the
// stored document, lays the status columns over it and encodes the result:
// a quarter of the work of the request, redone for an order that has not
// changed since the last read. FindOrderAnswer keeps the encoded answer of
// each recently read order version instead (fastpath.Answers), and writes
// it out as it is while the stored row is the same.
//
// "The same" is checked on every read, never assumed: the row is read as
// always (one indexed query, scoped to the caller's organization), and the
// encoded answer is reused only for the row's key and change stamp it was
// encoded from, by the same encoding. Every write of an order gives it a
// new stamp (TestEveryOrderWriteMovesItsStamp), so a change made by any
// writer, on any instance, to any column is a different version and is
// encoded afresh. On SQLite the read itself is skipped when nothing at all
// has been committed since the answer was last read (fastpath.WALIndex):
// the same answer, known without asking.

// answerVersion is the version of the answer row makes: its key and
// change stamp.
func answerVersion(row *orderRow) fastpath.Version {
	return fastpath.Version{PK: row.rec.pk, Stamp: row.rec.updatedAt}
}

// FindOrderAnswer returns the caller's order id (service ID or
// externalId) as enc (the HTTP layer's encoding) encodes it, from the
// answer enc encoded of the same stored version when there is one.
// Another tenant's order is not found, like a missing one. Only a caller
// that may ActionReadOrders (interface §5.2), asked before the cache is:
// a cached answer is no way around it.
func (s *OrderService) FindOrderAnswer(ctx context.Context, c *parcelgate.Caller, id string, enc parcelgate.OrderEncoding) ([]byte, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) ([]byte, error) {
		id = strings.TrimSpace(id)
		key := fastpath.AnswerKey{Encoding: enc.Name, Org: c.OrgID, ID: id}
		// The header is read before the row: a commit between the two makes
		// the entry's stamp older than what was read, which costs the next
		// request a read, never a stale answer.
		var stamp fastpath.WALStamp // zero: not known
		if w := s.db.wal.Load(); w != nil {
			if ws, ok := w.Stamp(); ok {
				if body, ok := s.db.answers.Unchanged(key, ws); ok {
					return body, nil
				}
				stamp = ws
			}
		}
		// The columns of the answer, as FindOrder reads them; on a miss the
		// record is decoded from this very row.
		// On PostgreSQL the read may go in one statement with others
		// (answer_batch.go).
		var row orderRow
		found, err := readAnswerRow(ctx, r, pointKey{org: c.OrgID, id: id, own: orderKey(c.BusinessID, id)}, &row)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
		}
		v := answerVersion(&row)
		if body, ok := s.db.answers.Get(key, v, stamp); ok {
			return body, nil
		}
		row.env = string(c.Environment)
		rec, err := row.record()
		if err != nil {
			return nil, err
		}
		body, err := enc.Encode(rec.view())
		if err != nil {
			return nil, err
		}
		s.db.answers.Put(key, v, body, stamp)
		return body, nil
	})
}

// pointReadContext is the context for a read of one row by key. On SQLite
// such a read cannot wait for anything: there is no network, and in WAL
// mode a reader never waits for a writer. Watching the request's
// cancellation would still cost database/sql and the driver a goroutine
// each per query, a quarter of the read (BenchmarkFindOrderAnswer: 10.8
// against 14.6 µs), so the read runs to its end, microseconds later, even
// when the request is gone. On PostgreSQL a read can hang on the network,
// and keeps the request's deadline.
func pointReadContext(ctx context.Context, db *DB) context.Context {
	if db.dialect.name == "sqlite" {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// answerColumns are the columns an order's answer is made of (what view
// reads): the rest of orderColumns (the organization, the allocation, the
// content hash, the own ID, readiness) never shows in it, and every column
// read costs the driver allocations, its name's among them.
const answerColumns = `o.id, o.status, o.status_at, o.reason, o.auto_submit, o.doc, o.inserted_at, o.updated_at`

func (o *orderRow) answerDest() []any {
	r := &o.rec
	return []any{&r.pk, &o.status, &r.statusAt, &r.reason, &o.autoSubmit, &o.doc, &r.insertedAt, &r.updatedAt}
}

// ListOrderAnswers is ListOrders with each order as enc encodes it, from
// the answer enc encoded of the same stored version when there is one:
// a page of 100 orders decoded and encoded every time was nine tenths of
// its cost. Each row is read as ListOrders reads it, in the page's read
// transaction, and its answer reused only for the row's version (as for a
// point read); the WAL-index shortcut of a point read is never taken
// here. The list's entries carry no WAL-index header, so a point read
// never skips its read on one. Only a caller that may ActionReadOrders
// (interface §5.2).
func (s *OrderService) ListOrderAnswers(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest, enc parcelgate.OrderEncoding) (parcelgate.Page[[]byte], error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return parcelgate.Page[[]byte]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[[]byte], error) {
		ks, err := s.orderListQuery(ctx, r, c, q)
		if err != nil {
			return parcelgate.Page[[]byte]{}, err
		}
		return keysetPage(ctx, r, ks.keysetQuery, p, orderColumns, "", func(rows *sql.Rows) ([]byte, pageKey, error) {
			var row orderRow
			if err := rows.Scan(row.dest()...); err != nil {
				return nil, pageKey{}, err
			}
			k := pageKey{modified: row.rec.updatedAt, id: row.rec.pk}
			key := fastpath.AnswerKey{Encoding: enc.Name, Org: c.OrgID, PK: row.rec.pk}
			v := answerVersion(&row)
			if body, ok := s.db.answers.Get(key, v, fastpath.WALStamp{}); ok {
				return body, k, nil
			}
			rec, err := row.record()
			if err != nil {
				return nil, k, err
			}
			body, err := enc.Encode(rec.view())
			if err != nil {
				return nil, k, err
			}
			s.db.answers.Put(key, v, body, fastpath.WALStamp{})
			return body, k, nil
		})
	})
}
