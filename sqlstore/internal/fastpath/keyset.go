package fastpath

import (
	"sync"
	"sync/atomic"
	"time"
)

// Lists are paged by key, never by OFFSET over the rows (decisions §8): a
// page is "the next size rows whose key is greater than the last key of
// the page before", read from an index in key order. The store builds the
// SQL; this file keeps the keys: a page's cursor (the next link's after=),
// and the boundaries of pages asked for by number.

// PageKey is the position of a row in a list's order: its ID, and for a
// list ordered by change (a change feed) its change stamp first; Sub
// orders the rows that share a stamp and an ID (the Tracking API's
// parcels of one shipment, by their place in it), and is never in a
// cursor (those lists hand out none).
type PageKey struct {
	Stamp, ID, Sub int64
}

// Boundaries remembers where recently served pages end, so that a client
// that names a page by its position -- an ecom page=N, which the API's
// edge maps to the position N×size, or a Tracking API start= -- reads it
// by key like a client following the next links: serving the rows from
// position P to P+n-1 records where position P+n starts. On a miss (a
// jump, or another instance served the page before) the store finds the
// boundary once by walking the list's index and records it.
//
// A boundary is a hint of where to start, not an answer: a page read
// from it is read afresh by key, and its total is kept exact apart (Counts).
// An entry lives BoundaryTTL, so rows removed meanwhile cannot leave a
// position pointing at a stale key for long, and at most
// BoundaryEntries are held. A lost entry costs one index-only walk.
//
// A boundary is a key of the data it was read from. A client's own
// writes restamp a row or two, and a page read by a boundary found before
// them is what a client following the next links reads (decisions §8);
// an operator's reset and restore rewrite a tenant's rows wholesale (a
// restore stamps every order anew), and a boundary found before them
// names a position among rows that are gone, so a page read from it
// starts before every restored row. So boundaries are kept per epoch of
// the data (decisions §73): a page read takes the epoch (Epoch) before
// its snapshot and hands it to every lookup (Start) and record (Record);
// a commit that rewrites listed rows moves it (Moving, around the
// commit on this instance; Moved, when another instance's is seen);
// a boundary of another epoch is never used, and a read whose epoch has
// moved since it was taken (Holds) records nothing and is read again.
type Boundaries struct {
	mu sync.Mutex
	m  map[BoundaryKey]boundary
	// state is the epoch (above epochStep) and how many commits that
	// move it are under way (below).
	state atomic.Uint64
	// For readers of a replica (NotReplayed): movedPos is the highest
	// WAL position of the primary known to be at or after the commit of a
	// move (0: none known); unknownAt is when a move whose position is not
	// known last moved the epoch (Unix nanoseconds by now; 0: never). Both
	// are set before the move's epoch is, so a read that takes the epoch
	// after a move sees them.
	movedPos  atomic.Uint64
	unknownAt atomic.Int64
	// now is the clock, time.Now when nil (tests set it).
	now func() time.Time
}

// Epoch is the state of the listed data a page read starts from
// (Boundaries.Epoch). Two page reads that took the same epoch, and found
// it still held after their last statement (Boundaries.Holds), read
// snapshots that hold the same commits of every move: a boundary one of
// them found is a key of the other's rows.
type Epoch uint64

// Blind is the epoch of a read that neither uses nor records a boundary
// (one whose epoch moved while it read, read again): it never holds.
const Blind Epoch = 1

// epochStep is one move of the epoch; the bits below it count the
// moving commits under way, during which no epoch holds.
const epochStep = 1 << 20

// Epoch is the epoch a page read takes before its snapshot (before the
// first statement of its read transaction, or of the page when it reads
// outside one). While a moving commit is under way it is one that never
// holds: such a read cannot tell whether its snapshot will hold the
// commit, so it finds its start afresh and records nothing.
func (c *Boundaries) Epoch() Epoch { return Epoch(c.state.Load()) }

// Holds reports whether e is still the epoch: no moving commit was under
// way when it was taken and none has begun since. A page read that used
// a boundary stands only if its epoch holds after its last statement;
// every commit of a move then ended before the read's first statement
// (its snapshot holds it) or begins after its last (it holds none).
func (c *Boundaries) Holds(e Epoch) bool {
	return e%epochStep == 0 && c.state.Load() == uint64(e)
}

// Moving marks the start of a commit that rewrites listed rows (an
// operator's reset or restore batch), and returns what marks its end, to
// be called once the commit has returned (committed or not), with a WAL
// position of the primary at or after the commit (NoPosition when none is
// known). Both move the epoch: a read that took it before the commit
// began cannot hold after, and one that takes it while the commit is
// under way holds nothing, so no read both sees the commit and uses a
// boundary found without it. The end forgets every boundary.
func (c *Boundaries) Moving() (end func(at uint64)) {
	c.state.Add(epochStep + 1)
	var once sync.Once
	return func(at uint64) {
		once.Do(func() {
			c.noteMove(at)
			c.state.Add(epochStep - 1)
			c.forget()
		})
	}
}

// Moved moves the epoch for a commit made elsewhere (another instance's
// reset or restore, seen in the database), at is a WAL position of the
// primary at or after that commit (NoPosition when none is known), and
// forgets every boundary.
func (c *Boundaries) Moved(at uint64) {
	c.noteMove(at)
	c.state.Add(epochStep)
	c.forget()
}

// NoPosition is the WAL position of a move when none is known (no
// replicas to read it for, or its read failed).
const NoPosition uint64 = 0

// noteMove records a move's WAL position (the highest is kept: moves may
// end in any order), or when it moved when its position is not known.
// Called before the move changes the epoch.
func (c *Boundaries) noteMove(at uint64) {
	if at == NoPosition {
		c.unknownAt.Store(c.clock().UnixNano())
		return
	}
	for {
		old := c.movedPos.Load()
		if at <= old || c.movedPos.CompareAndSwap(old, at) {
			return
		}
	}
}

// NotReplayed reports whether a replica whose replay position is replayed
// (as last seen; it only grows, so an old one errs blind) may not have
// replayed every move of the epoch a read took just before (decisions
// §73): it has not replayed the highest position known at or after a
// move's commit, or a move whose position is not known was less than
// window ago (the replica's lag limit and the monitor's slack: the
// fallback). A page read there would take the new epoch over the rows of
// before, so it neither uses nor records a boundary. Call it after taking
// the epoch: the positions of every move that epoch follows are then seen.
func (c *Boundaries) NotReplayed(replayed uint64, window time.Duration) bool {
	if replayed < c.movedPos.Load() {
		return true
	}
	at := c.unknownAt.Load()
	return at != 0 && c.clock().Sub(time.Unix(0, at)) < window
}

func (c *Boundaries) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}

const (
	// BoundaryTTL is how long a page's boundary is trusted.
	BoundaryTTL = 5 * time.Minute
	// BoundaryEntries is how many boundaries a Boundaries holds at most.
	BoundaryEntries = 50000
)

// BoundaryKey names the key the row at Position of a list comes after;
// Scope is the list's table, order and filters (the store scopes it to
// the caller, leaving out only arguments that move with the clock, since
// a boundary stays a valid key whatever they are). Positions, not page
// numbers: pages of different sizes that start at one row share it.
type BoundaryKey struct {
	Scope    string
	Position int64
}

type boundary struct {
	key   PageKey
	at    time.Time
	epoch Epoch
}

func (c *Boundaries) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// NearestProbes is how many pages before a missed position Start looks
// at for a recorded boundary to walk from.
const NearestProbes = 64

// Start returns the key the row at k.Position comes after, and false for
// position 0, which starts at the beginning: the boundary recorded in
// epoch e, else the one find walks to on the list's index (recorded for
// the next request while e holds). This is the one way a position is
// resolved to a key. find is
// given where to walk from: the nearest recorded boundary among the
// NearestProbes positions k.Position-step, k.Position-2×step, ... (a
// client paging by step rows records exactly those; fromSet false: the
// beginning of the list), and how many entries to skip from there, at
// least 1 (its result is the skip-th key after from). find's error is
// returned as it is (sql.ErrNoRows: fewer rows than the position). When
// e does not hold, nothing is looked up nor recorded: find walks from the
// beginning.
func (c *Boundaries) Start(e Epoch, k BoundaryKey, step int64, find func(from PageKey, fromSet bool, skip int64) (PageKey, error)) (PageKey, bool, error) {
	if k.Position <= 0 {
		return PageKey{}, false, nil
	}
	if key, ok := c.get(e, k); ok {
		return key, true, nil
	}
	var from PageKey
	fromSet := false
	skip := k.Position
	if step > 0 && c.Holds(e) {
		for i := int64(1); i <= NearestProbes && k.Position-i*step > 0; i++ {
			if key, ok := c.get(e, BoundaryKey{k.Scope, k.Position - i*step}); ok {
				from, fromSet, skip = key, true, i*step
				break
			}
		}
	}
	key, err := find(from, fromSet, skip)
	if err != nil {
		return key, false, err
	}
	c.put(e, k, key)
	return key, true, nil
}

// Record records, in epoch e, that the row at k.Position comes after
// last: a full page from k.Position-n to k.Position-1 ends with last.
// Nothing is recorded when e no longer holds.
func (c *Boundaries) Record(e Epoch, k BoundaryKey, last PageKey) { c.put(e, k, last) }

func (c *Boundaries) get(e Epoch, k BoundaryKey) (PageKey, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[k]
	if !ok || b.epoch != e || !c.Holds(e) || c.clock().Sub(b.at) > BoundaryTTL {
		return PageKey{}, false
	}
	return b.key, true
}

// put records key at k in epoch e while e holds; checked under the lock
// that forget takes after a move, so an entry of a moved epoch is never
// left behind.
func (c *Boundaries) put(e Epoch, k BoundaryKey, key PageKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.Holds(e) {
		return
	}
	now := c.clock()
	if c.m == nil {
		c.m = map[BoundaryKey]boundary{}
	}
	if len(c.m) >= BoundaryEntries {
		for k, b := range c.m {
			if now.Sub(b.at) > BoundaryTTL {
				delete(c.m, k)
			}
		}
		if len(c.m) >= BoundaryEntries {
			clear(c.m)
		}
	}
	c.m[k] = boundary{key, now, e}
}

// OnePageRows is the longest page read in one statement with its total
// (decisions §25) on an engine whose statements cost a round trip, the
// break-even measured with cmd/loadtest on PostgreSQL: one statement saves
// a page its four other round trips (a catalog page of 100: 2,244 -> 2,992
// req/s), but the columns the total adds to every row cost about as much
// again per hundred rows (a walk's pages of 2,000: 2.4-2.5 s in a read
// transaction, 3.3-3.5 s in one statement).
const OnePageRows = 100

// OneStatement reports whether a page of size rows is read in one
// statement with its total rather than in a read transaction. roundTrips:
// the engine's statements cost a round trip (PostgreSQL); fewRows: the
// list holds a handful of rows. On SQLite a statement costs no round trip,
// so only a list of a few rows (the catalogs list) is worth it there:
// 23,200 req/s in one statement against 18,400, while a catalog page of
// 100 is the same either way (4,400-4,750) and a walk's pages of 2,000
// take 1.9 s in a read transaction against 2.3 s.
func OneStatement(roundTrips, fewRows bool, size int) bool {
	return fewRows || roundTrips && size <= OnePageRows
}
