package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"

	"github.com/parcelgate/parcelgate"
)

// Reading one order is the API's hottest read. Answering it decodes the
// stored document, lays the status columns over it and encodes the result:
// a quarter of the work of the request, redone for an order that has not
// changed since the last read. FindOrderAnswer keeps the rendered answer of
// each recently read order version instead, and writes it out as it is
// while the stored row is the same.
//
// "The same" is checked on every read, never assumed: the row is read as
// always (one indexed query, scoped to the caller's organization), and the
// rendered answer is reused only when every input of the answer is
// unchanged: the document, by a hash of its text, and the status, reason,
// stamps and preferences columns. A change made by any writer, on any
// instance, is a different row and is rendered afresh.

// answerVersion is every input of an order's answer.
type answerVersion struct {
	doc                           uint64 // maphash of the document
	status, reason                string
	statusAt, insertedAt, updated int64
	autoSubmit                    bool
}

type answerEntry struct {
	version answerVersion
	body    []byte
}

// answerCache holds rendered answers by order key, up to answerBytes in
// all; when full it starts over. A lost entry costs one render.
type answerCache struct {
	mu    sync.RWMutex
	m     map[int64]answerEntry
	bytes int
	seed  maphash.Seed
	once  sync.Once
}

const answerBytes = 32 << 20

func (c *answerCache) get(pk int64, v answerVersion) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[pk]
	if !ok || e.version != v {
		return nil, false
	}
	return e.body, true
}

func (c *answerCache) put(pk int64, v answerVersion, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(body) > answerBytes {
		c.m, c.bytes = map[int64]answerEntry{}, 0
	}
	if old, ok := c.m[pk]; ok {
		c.bytes -= len(old.body)
	}
	c.m[pk] = answerEntry{v, body}
	c.bytes += len(body)
}

func (c *answerCache) hash(doc string) uint64 {
	c.once.Do(func() { c.seed = maphash.MakeSeed() })
	return maphash.String(c.seed, doc)
}

// FindOrderAnswer returns the caller's order id (service ID or
// externalId) as render (the HTTP layer's encoding) encodes it, from the rendered answer of the same
// stored version when there is one. Another tenant's order is not found,
// like a missing one.
func (db *DB) FindOrderAnswer(ctx context.Context, c *parcelgate.Caller, id string, render func(*parcelgate.Order) ([]byte, error)) ([]byte, error) {
	id = strings.TrimSpace(id)
	// The row exactly as FindOrder reads it; its values are kept, so that
	// on a miss the record is decoded from this very row (replayRow).
	var row replayRow
	row.vals = make([]any, 14)
	for i := range row.vals {
		row.vals[i] = new(any)
	}
	err := db.queryRow(ctx, `SELECT `+orderColumns+orderByKey, c.OrgID, id, orderKey(c.BusinessID, id)).Scan(row.vals...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	// Columns of orderColumns: 0 id, 3 status, 4 status_at, 5 reason,
	// 6 auto_submit, 10 doc, 11 inserted_at, 12 updated_at.
	pk, ok := asInt(row.at(0))
	if !ok {
		return nil, fmt.Errorf("order: id %T", row.at(0))
	}
	v := answerVersion{doc: db.answers.hash(asText(row.at(10))), status: asText(row.at(3)), reason: asText(row.at(5))}
	v.statusAt, _ = asInt(row.at(4))
	v.insertedAt, _ = asInt(row.at(11))
	v.updated, _ = asInt(row.at(12))
	auto, _ := asInt(row.at(6))
	v.autoSubmit = auto == 1
	if body, ok := db.answers.get(pk, v); ok {
		return body, nil
	}
	rec, err := scanOrderRecord(&row)
	if err != nil {
		return nil, err
	}
	body, err := render(rec.view())
	if err != nil {
		return nil, err
	}
	db.answers.put(pk, v, body)
	return body, nil
}

// replayRow scans values already read, so a row read once can go through
// the store's own scan function.
type replayRow struct{ vals []any }

func (r *replayRow) at(i int) any { return *(r.vals[i].(*any)) }

func (r *replayRow) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("replay: %d columns, %d destinations", len(r.vals), len(dest))
	}
	for i, d := range dest {
		if err := convertAssign(d, r.at(i)); err != nil {
			return fmt.Errorf("replay column %d: %w", i, err)
		}
	}
	return nil
}

// convertAssign stores a driver value in one of the scan destinations the
// store uses.
func convertAssign(dest, v any) error {
	switch d := dest.(type) {
	case *int64:
		n, ok := asInt(v)
		if !ok {
			return fmt.Errorf("%T is not an integer", v)
		}
		*d = n
	case *int:
		n, ok := asInt(v)
		if !ok {
			return fmt.Errorf("%T is not an integer", v)
		}
		*d = int(n)
	case *string:
		*d = asText(v)
	default:
		return fmt.Errorf("destination %T", dest)
	}
	return nil
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int:
		return int64(n), true
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func asText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []byte:
		return string(t)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
