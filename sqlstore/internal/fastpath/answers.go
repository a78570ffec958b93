package fastpath

import "sync"

// Answers keeps encoded answers, so that an answer read again while its
// stored row is unchanged is written out as it is instead of decoded and
// encoded afresh (for GET one order, a quarter of the request's work).
//
// An answer is found only by its whole key and the version of the row it
// was rendered from: the encoding that made it (one encoding's bytes are
// never another's), the caller's organization (one organization's answers
// are never found by another) and the row as the caller named it; and the
// row's key and change stamp. Every write of a row gives it a change stamp
// it never had (the store's never-miss rule of change polls rests on the
// same), so an answer is reused only for the very row it was made from,
// whatever column a later change touches.
//
// It holds up to AnswerBytes of answers; when full it starts over. A lost
// entry costs one render.
type Answers struct {
	mu    sync.RWMutex
	m     map[AnswerKey]answerEntry
	bytes int
}

// AnswerBytes is how many bytes of answers an Answers holds at most.
const AnswerBytes = 32 << 20

// AnswerKey names an answer. A point read names its row by the ID the
// caller gave (ID); a list's entries by the row's key (PK), with no ID, so
// a list never meets the entries of a point read, nor they its.
type AnswerKey struct {
	Encoding string
	Org      int64
	ID       string
	PK       int64
}

// Version is the version of the stored row an answer was rendered from:
// its key and its change stamp.
type Version struct {
	PK, Stamp int64
}

type answerEntry struct {
	version Version
	body    []byte
	// wal is the WAL-index header the entry was last confirmed under; zero
	// when none was known.
	wal WALStamp
}

// Unchanged returns the answer of k confirmed under the WAL-index header
// now (a trusted one): nothing has been committed since it was read.
func (c *Answers) Unchanged(k AnswerKey, now WALStamp) ([]byte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.m[k]
	if !ok || e.wal != now {
		return nil, false
	}
	return e.body, true
}

// Get returns the answer of k rendered from version v of its row, and
// records that it was confirmed under the WAL-index header under (zero:
// none known).
func (c *Answers) Get(k AnswerKey, v Version, under WALStamp) ([]byte, bool) {
	c.mu.RLock()
	e, ok := c.m[k]
	c.mu.RUnlock()
	if !ok || e.version != v {
		return nil, false
	}
	if under != (WALStamp{}) && e.wal != under {
		e.wal = under
		c.put(k, e)
	}
	return e.body, true
}

// Put keeps body, the answer of k rendered from version v of its row read
// under the WAL-index header under (zero: none known).
func (c *Answers) Put(k AnswerKey, v Version, body []byte, under WALStamp) {
	c.put(k, answerEntry{version: v, body: body, wal: under})
}

func (c *Answers) put(k AnswerKey, e answerEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.bytes+len(e.body) > AnswerBytes {
		c.m, c.bytes = map[AnswerKey]answerEntry{}, 0
	}
	if old, ok := c.m[k]; ok {
		c.bytes -= len(old.body)
	}
	c.m[k] = e
	c.bytes += len(e.body)
}
