package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// Reads on PostgreSQL streaming replicas (decisions §20).
//
// A read a caller makes may be served by a replica (readOnReplica); everything
// else — writes, the reads inside them, token issuance, lockout counting,
// the operator's reads — stays on the primary. No reader is fooled by lag:
//
//   - Read-your-writes. After every write transaction made for a caller
//     (parcelgate.CallerFrom(ctx)) commits, the instance records the
//     primary's WAL insert position in replica_floors, keyed by the
//     caller's organization, before the write is acknowledged. A read for
//     that organization first reads the floor from the primary (one key
//     lookup) and uses a replica only once the replica has replayed past
//     it; otherwise it reads on the primary. The insert position after
//     commit is at or past the end of the commit record, and a standby
//     makes a transaction visible to new snapshots once it has replayed
//     its commit record, so a snapshot the replica takes after reporting
//     replay ≥ floor contains the write. The replay position is read
//     before the read's snapshot is taken, never in the same statement.
//     The floor lives in the database, so every instance of a fleet
//     agrees on it, whichever one took the write.
//   - Change polling. A replica's snapshot is a prefix of the primary's
//     WAL. Writers of the environment's feed (suppliers' products and
//     balances) take their stamps under one lock held until they commit,
//     so their commits are in stamp order; an organization's order
//     writers take stamps in a short critical section and commit in any
//     order, and a poll bounds what it returns by the oldest transaction
//     its snapshot still sees running (PollWindow, decisions §22; on a
//     standby, the snapshot's xmin). Either way a poller's cursor never
//     passes a change the replica has not replayed yet.
//   - Lag. A monitor samples the primary's WAL position and each
//     replica's replay position; a replica is used only while it answers
//     and its lag — the age of the oldest sample of the primary's
//     position it has not replayed yet — is within the limit. A replica that fails a
//     read is marked down at once and the read is run again on the
//     primary.

// DefaultReplicaMaxLag is how far behind the primary a replica may be and
// still serve reads when ReplicaMaxLag does not say.
const DefaultReplicaMaxLag = 5 * time.Second

// Replica adds a PostgreSQL streaming replica (a hot standby of the
// database) that may serve reads; give it once per replica. Ignored on
// SQLite.
func Replica(dsn string) Option {
	return func(o *options) { o.replicas = append(o.replicas, dsn) }
}

// ReplicaMaxLag is how far behind the primary a replica may fall before
// reads skip it (0: DefaultReplicaMaxLag).
func ReplicaMaxLag(d time.Duration) Option {
	return func(o *options) { o.replicaMaxLag = d }
}

// Pooler declares that the database is reached through a pooler in
// transaction mode (PgBouncer's pool_mode = transaction): a server
// connection belongs to the client only for one transaction, so the store
// keeps no named prepared statement across transactions (pgx's
// cache_describe mode: unnamed statements, their descriptions cached).
// The store holds no session state otherwise: its advisory locks are
// transaction-scoped and it sets no session settings. A DSN that names its
// own default_query_exec_mode keeps it.
func Pooler() Option {
	return func(o *options) { o.pooler = true }
}

// withPoolerMode returns dsn with pgx's default_query_exec_mode set to
// cache_describe unless it names one.
func withPoolerMode(dsn string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	q := u.Query()
	if !q.Has("default_query_exec_mode") {
		q.Set("default_query_exec_mode", "cache_describe")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// replicaSet is the replicas of a store and their monitor.
type replicaSet struct {
	list   []*replica
	maxLag time.Duration
	next   atomic.Uint64 // round robin among usable replicas
	stop   context.CancelFunc
	done   chan struct{}

	// samples are the primary's recent WAL positions, newest last, from
	// which each replica's lag is read.
	mu      sync.Mutex
	samples []lsnSample
}

type lsnSample struct {
	at  time.Time
	lsn uint64
}

// replica is one replica's pool and what the monitor last saw of it.
type replica struct {
	name string // host:port, no credentials
	pool *sql.DB

	replayed atomic.Uint64 // replay position last seen
	lagNanos atomic.Int64
	reads    atomic.Uint64 // reads served
	failures atomic.Uint64 // reads that failed here and ran again on the primary
	usable   atomic.Bool
	mu       sync.Mutex
	state    string // "ok", "lagging", "down", "not a replica"
}

// ReplicaStatus is what /readyz and /metrics report of one replica.
type ReplicaStatus struct {
	Name  string        // host:port
	State string        // ok, lagging, down or not a replica
	Lag   time.Duration // behind the primary, as last measured
	// Reads is how many reads it served; Failures how many failed there
	// and ran again on the primary.
	Reads, Failures uint64
}

func openReplicas(dsns []string, maxLag time.Duration, maxConns int, connectTimeout time.Duration, pooler bool) (*replicaSet, error) {
	if maxLag <= 0 {
		maxLag = DefaultReplicaMaxLag
	}
	rs := &replicaSet{maxLag: maxLag}
	for _, dsn := range dsns {
		u, err := url.Parse(dsn)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			rs.closePools()
			return nil, errors.New("database replica: want a postgres:// URL")
		}
		if dsn, err = withConnectTimeout(dsn, connectTimeout); err == nil && pooler {
			dsn, err = withPoolerMode(dsn)
		}
		if err != nil {
			rs.closePools()
			return nil, errors.New("database replica: the postgres:// URL does not parse")
		}
		p, err := openPostgresPool(dsn, maxConns)
		if err != nil {
			rs.closePools()
			return nil, err
		}
		rs.list = append(rs.list, &replica{name: u.Host, pool: p, state: "down"})
	}
	return rs, nil
}

func (rs *replicaSet) closePools() error {
	var err error
	for _, r := range rs.list {
		err = errors.Join(err, r.pool.Close())
	}
	return err
}

// monitorEvery is how often the monitor samples: a quarter of the lag
// allowed, within [50ms, 1s].
func (rs *replicaSet) monitorEvery() time.Duration {
	return min(max(rs.maxLag/4, 50*time.Millisecond), time.Second)
}

// startReplicaMonitor starts sampling the replicas; Close stops it.
func (db *DB) startReplicaMonitor() {
	rs := db.replicas
	if rs == nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	rs.stop, rs.done = stop, make(chan struct{})
	// The first sample is taken before Open returns, so reads can use the
	// replicas at once.
	rs.check(ctx, db.write)
	go rs.run(ctx, db.write)
}

// run samples until ctx ends.
func (rs *replicaSet) run(ctx context.Context, primary *sql.DB) {
	defer close(rs.done)
	t := time.NewTicker(rs.monitorEvery())
	defer t.Stop()
	for {
		rs.check(ctx, primary)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check samples the primary's position, then each replica's.
func (rs *replicaSet) check(ctx context.Context, primary *sql.DB) {
	ctx, cancel := context.WithTimeout(ctx, max(rs.monitorEvery(), time.Second))
	defer cancel()
	var pos string
	if err := primary.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&pos); err == nil {
		if lsn, ok := parseLSN(pos); ok {
			rs.addSample(lsnSample{time.Now(), lsn})
		}
	}
	var wg sync.WaitGroup
	for _, r := range rs.list {
		wg.Go(func() { rs.checkReplica(ctx, r) })
	}
	wg.Wait()
}

func (rs *replicaSet) addSample(s lsnSample) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.samples = append(rs.samples, s)
	// Keep what can tell a lag up to twice the limit.
	keep := 0
	for keep < len(rs.samples)-1 && s.at.Sub(rs.samples[keep].at) > 2*rs.maxLag+time.Second {
		keep++
	}
	rs.samples = rs.samples[keep:]
}

// lagOf is the age of the oldest sample of the primary's position past
// replayed: 0 when the replica has replayed the newest sample; the age of
// the oldest sample kept when it has replayed none. known is false when
// the replica has replayed no sample kept (or there is none): its lag is
// then at least that age, and may be far more — just after the monitor
// starts, or after the primary went unsampled for a while, the oldest
// sample is young whatever the replica's real lag, so such a replica must
// not be taken as within the limit.
func (rs *replicaSet) lagOf(replayed uint64, now time.Time) (lag time.Duration, known bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.samples) == 0 {
		return 0, false
	}
	for i := len(rs.samples) - 1; i >= 0; i-- {
		if rs.samples[i].lsn <= replayed {
			if i == len(rs.samples)-1 {
				return 0, true
			}
			// Caught up with sample i, not with i+1: behind since i+1.
			return now.Sub(rs.samples[i+1].at), true
		}
	}
	return now.Sub(rs.samples[0].at), false
}

// withinLimit reports whether a replica that has replayed replayed may
// serve reads at now, with its lag as measured: only a lag that is known
// and within the limit.
func (rs *replicaSet) withinLimit(replayed uint64, now time.Time) (time.Duration, bool) {
	lag, known := rs.lagOf(replayed, now)
	return lag, known && lag <= rs.maxLag
}

func (rs *replicaSet) checkReplica(ctx context.Context, r *replica) {
	var pos sql.NullString
	err := r.pool.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&pos)
	switch {
	case err != nil:
		r.markDown()
		return
	case !pos.Valid:
		// The server is not in recovery: not a standby of anything.
		r.set("not a replica", false)
		return
	}
	lsn, _ := parseLSN(pos.String)
	r.advance(lsn)
	lag, ok := rs.withinLimit(r.replayed.Load(), time.Now())
	r.lagNanos.Store(int64(lag))
	if !ok {
		r.set("lagging", false)
		return
	}
	r.set("ok", true)
}

// advance raises the replay position seen; it never goes back (a
// standby's replay position does not).
func (r *replica) advance(lsn uint64) {
	for {
		old := r.replayed.Load()
		if lsn <= old || r.replayed.CompareAndSwap(old, lsn) {
			return
		}
	}
}

func (r *replica) set(state string, usable bool) {
	r.mu.Lock()
	r.state = state
	r.mu.Unlock()
	r.usable.Store(usable)
}

// markDown takes a replica out of use until the monitor finds it again,
// and forgets the replay position seen: a standby that crashed starts
// again from its last restartpoint and may come back short of what it had
// replayed, so a position seen before it went down no longer proves a
// floor replayed (pick asks the replica again).
func (r *replica) markDown() {
	r.set("down", false)
	r.replayed.Store(0)
}

// status reports each replica.
func (rs *replicaSet) status() []ReplicaStatus {
	out := make([]ReplicaStatus, 0, len(rs.list))
	for _, r := range rs.list {
		r.mu.Lock()
		st := r.state
		r.mu.Unlock()
		out = append(out, ReplicaStatus{Name: r.name, State: st, Lag: time.Duration(r.lagNanos.Load()), Reads: r.reads.Load(), Failures: r.failures.Load()})
	}
	return out
}

// pick returns a usable replica that has replayed floor, or nil. A
// replica whose last seen position is short of floor is asked again
// (one short query): under steady writes the monitor's position is always
// a little old.
func (rs *replicaSet) pick(ctx context.Context, floor uint64) *replica {
	n := len(rs.list)
	start := int(rs.next.Add(1))
	for i := range n {
		r := rs.list[(start+i)%n]
		if !r.usable.Load() {
			continue
		}
		if r.replayed.Load() >= floor {
			return r
		}
		var pos sql.NullString
		if err := r.pool.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&pos); err != nil {
			if ctx.Err() == nil {
				r.markDown()
			}
			continue
		}
		if lsn, ok := parseLSN(pos.String); ok && pos.Valid {
			r.advance(lsn)
			if lsn >= floor {
				return r
			}
		}
	}
	return nil
}

func (rs *replicaSet) anyUsable() bool {
	for _, r := range rs.list {
		if r.usable.Load() {
			return true
		}
	}
	return false
}

// parseLSN reads PostgreSQL's text form of a WAL position, "HI/LO" in hex.
func parseLSN(s string) (uint64, bool) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, false
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return h<<32 | l, true
}

// replicaFor is the reader for a read of c's organization: a usable
// replica that has replayed the organization's floor, else the primary.
func (db *DB) replicaFor(ctx context.Context, c *parcelgate.Caller) reader {
	rs := db.replicas
	if rs == nil || c == nil {
		return db.primary()
	}
	if !rs.anyUsable() {
		return db.primary() // no floor lookup when no replica could take the read
	}
	floor, err := db.readFloor(ctx, c.OrgID)
	if err != nil {
		return db.primary() // the primary answers, or fails the read as it would have
	}
	if r := rs.pick(ctx, floor); r != nil {
		return reader{db: db, replica: r}
	}
	return db.primary()
}

// replicaFailed reports whether err, met reading on a replica, means the
// read should run again on the primary: the replica is unreachable, shut
// down, or cancelled the read because replay needed its rows (a recovery
// conflict). A cancelled request's own context is not the replica's fault.
func replicaFailed(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	if e, ok := errors.AsType[*pgconn.PgError](err); ok {
		// 08: connection exception; 57P01-57P03: shutdown, cannot connect
		// now; 40001: canceled on conflict with recovery.
		return strings.HasPrefix(e.Code, "08") || strings.HasPrefix(e.Code, "57P") || e.Code == "40001"
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// recordFloor records, for the organization of the caller ctx carries,
// that its reads need the primary's current WAL position: called after a
// write transaction commits and before it is acknowledged. Without
// replicas, or without a caller, there is nothing to record.
func (db *DB) recordFloor(ctx context.Context) error {
	if db.replicas == nil {
		return nil
	}
	c := parcelgate.CallerFrom(ctx)
	if c == nil {
		return nil
	}
	// The write is committed: the record is made even if the request is
	// being abandoned, so a retry reads what the first attempt wrote.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, err := db.write.ExecContext(ctx, `INSERT INTO replica_floors (org_id, lsn) VALUES ($1, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint)
		ON CONFLICT (org_id) DO UPDATE SET lsn = GREATEST(replica_floors.lsn, excluded.lsn)`, c.OrgID)
	if err != nil {
		return fmt.Errorf("record read floor: %w", err)
	}
	return nil
}

// movePosition is, for a move of the page boundaries' epoch (decisions
// §73), the primary's WAL insert position read on conn once the moving
// commit has returned: at or after the commit's record even when it
// committed without waiting for the flush (a job's batches do), so a
// replica that has replayed it holds the commit. Without replicas no
// statement is run; on a failure the position is not known and reads on
// a replica fall back to the time since the move.
func (db *DB) movePosition(ctx context.Context, conn *sql.Conn) uint64 {
	if db.replicas == nil {
		return fastpath.NoPosition
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var pos string
	if err := conn.QueryRowContext(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&pos); err != nil {
		return fastpath.NoPosition
	}
	if lsn, ok := parseLSN(pos); ok {
		return lsn
	}
	return fastpath.NoPosition
}

// readFloor is the WAL position a replica must have replayed to serve
// org's reads, from the primary.
func (db *DB) readFloor(ctx context.Context, org int64) (uint64, error) {
	var lsn int64
	err := db.write.QueryRowContext(ctx, `SELECT lsn FROM replica_floors WHERE org_id = $1`, org).Scan(&lsn)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return uint64(lsn), err
}

// Replicas reports each replica's state and lag, in the order given; nil
// without replicas.
func (db *DB) Replicas() []ReplicaStatus {
	if db.replicas == nil {
		return nil
	}
	return db.replicas.status()
}

// The reads a replica may serve: a caller's point reads,
// list pages, catalog walks, change polls and the console's lists. Each
// runs on a replica that has replayed the caller's organization's floor,
// else on the primary; a replica that fails mid-read is taken out of use
// and the read runs again on the primary. Reads made inside a write
// transaction, and every other read, stay on the primary. A service method
// makes such a read with readOnReplica, and hands the reader it is given
// to every function the read calls.

// readOnReplica runs fn, a read for c, with the reader replicaFor chose;
// when a replica fails the read, it runs fn again with the primary's.
func readOnReplica[T any](ctx context.Context, db *DB, c *parcelgate.Caller, fn func(r reader) (T, error)) (T, error) {
	r := db.replicaFor(ctx, c)
	v, err := fn(r)
	if r.replica == nil {
		return v, err
	}
	if replicaFailed(ctx, err) {
		r.replica.failures.Add(1)
		r.replica.markDown()
		return fn(db.primary())
	}
	r.replica.reads.Add(1)
	return v, err
}
