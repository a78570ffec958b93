// Package sqlstore implements parcelgate's services on SQL: SQLite (pure Go,
// embedded, the default) and PostgreSQL (pgx). The SQL is written once, with
// '?' placeholders and a few {{tokens}} in the schema; a small dialect layer
// turns it into each engine's form.
//
// SQLite runs in WAL mode with synchronous=FULL and one writer connection
// beside a reader pool: writers queue in Go instead of failing with "database
// is locked", readers never wait for writers, and a commit is on disk before
// it is acknowledged. PostgreSQL uses one pool for both.
package sqlstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// DB is a parcelgate database. Its methods implement the services of the
// root package.
type DB struct {
	dialect dialect
	write   *sql.DB // SQLite: one connection; PostgreSQL: the pool
	read    *sql.DB // SQLite: a pool of read-only connections; PostgreSQL: the pool
	clock   parcelgate.Clock
	codes   codeConfig
	pages   fastpath.Boundaries // see keysetPage
	counts  fastpath.Counts     // see total
	cats    catalogCache        // see retailerQuery
	answers fastpath.Answers    // see FindOrderAnswer
	// wal is the SQLite database's WAL index, nil where there is none to
	// map (PostgreSQL, a memory database, a system without mmap).
	wal atomic.Pointer[fastpath.WALIndex]
	// stmts holds the prepared statements of the reader pool and the
	// writer, on engines whose driver keeps none (dialect.prepare).
	readStmts, writeStmts stmtCache

	// watchOnce starts the environment clock's refresh (see watchClock);
	// stopWatch ends it.
	watchOnce sync.Once
	stopWatch context.CancelFunc

	// optimizeOnce starts a SQLite store's periodic PRAGMA optimize (see
	// keepStatistics); stopOptimize ends it.
	optimizeOnce sync.Once
	stopOptimize func()
	// statsMu orders the optimizes (on open, hourly, at close);
	// statsLoaded is the digest of the sqlite_stat1 every connection was
	// last made to load (reloadStatistics).
	statsMu     sync.Mutex
	statsLoaded string

	// keep holds a memory database open until Close.
	keep *heldConn

	// replicas serve a caller's reads when they have replayed far enough
	// (replica.go); nil without any.
	replicas *replicaSet

	// turns orders the write transactions waiting for a connection.
	turns fastpath.Turns

	// points coalesces point reads of orders on PostgreSQL
	// (answer_batch.go), whose statements run within timeout.
	points  fastpath.Coalescer[pointKey, orderRow]
	timeout time.Duration
	// pointsOff reads every point read alone (tests).
	pointsOff bool

	// jobRun runs the operator jobs of this store (control_job.go),
	// made at first use.
	jobsOnce sync.Once
	jobRun   *jobRunner

	// due wakes the background engines at a write that may make
	// something due sooner (wake.go).
	due wakeSignal
}

// Open connects to the database named by dsn: "sqlite:PATH" (or a path
// ending in .db), "memory" (or "sqlite::memory:": a database in this
// process's memory, gone when it is closed) or a "postgres://" URL. It does
// not migrate; call Migrate.
func Open(ctx context.Context, dsn string, clock parcelgate.Clock, opts ...Option) (*DB, error) {
	if clock == nil {
		clock = parcelgate.SystemClock{}
	}
	o := options{connectTimeout: DefaultConnectTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	var db *DB
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		if dsn, err = withConnectTimeout(dsn, o.connectTimeout); err != nil {
			// Not the parser's error: it would quote the URL, password and all.
			return nil, errors.New("database: the postgres:// URL does not parse")
		}
		if o.pooler {
			dsn, _ = withPoolerMode(dsn)
		}
		db, err = openPostgres(dsn, o.maxConns)
		if err == nil && len(o.replicas) > 0 {
			if db.replicas, err = openReplicas(o.replicas, o.replicaMaxLag, o.maxConns, o.connectTimeout, o.pooler); err != nil {
				db.Close()
				return nil, err
			}
		}
	case dsn == "memory" || dsn == "sqlite::memory:":
		db, err = openMemory()
	case strings.HasPrefix(dsn, "sqlite:"):
		db, err = openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"))
	default:
		return nil, fmt.Errorf("database %q: want sqlite:PATH, memory or a postgres:// URL", dsn)
	}
	if err != nil {
		return nil, err
	}
	db.clock = clock
	db.timeout = cmp.Or(o.timeout, DefaultDBTimeout)
	db.codes.retention = o.codeRetention
	db.points.Fetch = func(ctx context.Context, keys []pointKey, out []orderRow, found []bool) error {
		return fetchPoints(ctx, db, keys, out, found)
	}
	db.points.Timeout = db.timeout
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.startReplicaMonitor()
	return db, nil
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	// The path is escaped: in a file: URI a bare '#' or '?' would end it,
	// and the database would silently be opened somewhere else.
	uri := "file:" + (&url.URL{Path: path}).EscapedPath()
	// Immediate transactions take the write lock at BEGIN, so a transaction
	// that reads then writes can never fail to upgrade its lock.
	// The writer's ANALYZE (PRAGMA optimize, statistics.go) samples each
	// index instead of reading it whole.
	w, err := sql.Open("sqlite", uri+"?"+pragmas+"&_txlock=immediate&_pragma=analysis_limit("+strconv.Itoa(sqliteAnalysisLimit)+")")
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", uri+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()*2))
	r.SetMaxIdleConns(max(4, runtime.NumCPU()*2))
	db := &DB{dialect: sqliteDialect, write: w, read: r}
	if db.dialect.prepare {
		db.readStmts.pool, db.writeStmts.pool = r, w
	}
	// Without the mapping every read asks the database, as on PostgreSQL:
	// slower, never wrong. The held connection has the writer's pragmas, so
	// it puts a new database in WAL mode itself; it never writes.
	if wal, err := openWALIndex(ctx, uri+"?"+pragmas, path); err == nil {
		db.wal.Store(wal)
	}
	return db, nil
}

// openMemory opens a new SQLite database in memory, for CI runs and tests
// that want a full server whose data is gone when it stops. The writer and
// the reader pool are connections to one shared-cache memory database of a
// unique name; the database lives while a connection to it is open, so one
// connection (keep) is held until Close. In shared-cache mode a reader
// waits for a table the writer holds (the driver waits on SQLite's unlock
// notification) instead of reading a snapshot as under WAL: slower under
// contention, the same answers.
func openMemory() (*DB, error) {
	uri := "file:parcelgate-" + rand.Text() + "?mode=memory&cache=shared&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	keep, err := holdConn(context.Background(), uri)
	if err != nil {
		return nil, fmt.Errorf("sqlite memory: %w", err)
	}
	w, err := sql.Open("sqlite", uri+"&_txlock=immediate")
	if err != nil {
		keep.Close()
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", uri+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		keep.Close()
		return nil, err
	}
	r.SetMaxOpenConns(max(4, runtime.NumCPU()*2))
	r.SetMaxIdleConns(max(4, runtime.NumCPU()*2))
	return &DB{dialect: sqliteDialect, write: w, read: r, keep: keep}, nil
}

// heldConn is one SQLite connection held open until Close. SQLite frees a
// memory database, and deletes a file database's WAL index (the -shm
// file), when the last connection to it closes.
type heldConn struct {
	db   *sql.DB
	conn *sql.Conn
}

func holdConn(ctx context.Context, dsn string) (*heldConn, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &heldConn{db, conn}, nil
}

func (h *heldConn) Close() error { return errors.Join(h.conn.Close(), h.db.Close()) }

// DefaultMaxConns is how many PostgreSQL connections an instance opens at
// most when MaxConns does not say: four per CPU of the instance, at least
// four.
//
// Fewer connections do more work. On a 2-core machine running the
// database too, 32 clients creating orders through a pool of 32
// connections (16 kept idle) made 342–424 orders/s; through 8, kept open,
// 657–670; one merchant's orders, which wait for each other on the
// organization's clock, went from 152–217 to 352–360 (docs/performance.md). Past a few busy connections per core the database spends its
// time switching between backends and waking lock waiters, and a pool
// that closes idle connections beyond a smaller bound opens new ones (a
// process start in PostgreSQL) under every burst. Requests beyond the pool
// wait in the instance for a connection, within their --db-timeout.
func DefaultMaxConns() int { return max(4, 4*runtime.GOMAXPROCS(0)) }

// MaxConns bounds the PostgreSQL connections this store opens (0: the
// default, DefaultMaxConns). All of them are kept open once opened, for
// up to five idle minutes. Several instances on one database add up:
// keep their sum under the server's max_connections. SQLite ignores it.
func MaxConns(n int) Option {
	return func(o *options) { o.maxConns = n }
}

func openPostgres(dsn string, maxConns int) (*DB, error) {
	p, err := openPostgresPool(dsn, maxConns)
	if err != nil {
		return nil, err
	}
	return &DB{dialect: postgresDialect, write: p, read: p}, nil
}

// openPostgresPool opens a pool of at most maxConns connections (0:
// DefaultMaxConns), all kept open once opened, for the primary and for
// each replica alike.
func openPostgresPool(dsn string, maxConns int) (*sql.DB, error) {
	p, err := openPgxPool(dsn)
	if err != nil {
		return nil, err
	}
	if maxConns <= 0 {
		maxConns = DefaultMaxConns()
	}
	p.SetMaxOpenConns(maxConns)
	p.SetMaxIdleConns(maxConns)
	p.SetConnMaxIdleTime(5 * time.Minute)
	return p, nil
}

// Dialect names the engine: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect.name }

// Clock returns the clock the store stamps rows with.
func (db *DB) Clock() parcelgate.Clock { return db.clock }

// Ping checks that the database answers; /readyz uses it.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.write.PingContext(ctx); err != nil {
		return fmt.Errorf("%s: %w", db.dialect.name, err)
	}
	if db.read != db.write {
		if err := db.read.PingContext(ctx); err != nil {
			return fmt.Errorf("%s: %w", db.dialect.name, err)
		}
	}
	return nil
}

// Close closes every connection.
func (db *DB) Close() error {
	// The operator jobs running here stop first (they keep their lease:
	// another instance resumes them).
	db.stopJobs()
	// The WAL index goes last (after the pools below): its -shm
	// descriptor must outlive every connection that uses the file
	// (fastpath.MapWALIndex). Readers stop using it now.
	wal := db.wal.Swap(nil)
	if wal != nil {
		defer wal.Close()
	}
	db.readStmts.close()
	db.writeStmts.close()
	if db.stopWatch != nil {
		db.stopWatch()
	}
	var err error
	if db.stopOptimize != nil {
		// As SQLite recommends, statistics are brought up to date as the
		// store closes, when the writer is idle.
		db.stopOptimize()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.optimize(ctx, false)
		cancel()
	}
	err = errors.Join(err, db.write.Close())
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	if db.keep != nil {
		err = errors.Join(err, db.keep.Close())
	}
	if rs := db.replicas; rs != nil {
		if rs.stop != nil {
			rs.stop()
			<-rs.done
		}
		err = errors.Join(err, rs.closePools())
	}
	return err
}

// Tx is a write transaction. Its methods take '?' placeholders.
type Tx struct {
	tx   *sql.Tx
	conn *sql.Conn // the connection tx runs on
	d    dialect
	db   *DB
	// wake: the commit wakes the background engines (wakesEngines).
	wake bool
	// rewrites: the transaction rewrites a tenant's listed rows wholesale
	// (a batch of an operator's reset or restore), so its commit moves the
	// page boundaries' epoch (decisions §73).
	rewrites bool
}

func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := tx.db.writeStmts.inTx(q); st != nil {
		return tx.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.tx.ExecContext(ctx, tx.d.rebind(q), args...)
}

func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := tx.db.writeStmts.inTx(q); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, tx.d.rebind(q), args...)
}

func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := tx.db.writeStmts.inTx(q); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, tx.d.rebind(q), args...)
}

// querier runs reads either where a reader reads or inside a write
// transaction (*Tx), so one read function serves both.
type querier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// rowScanner is a *sql.Row or *sql.Rows, so one scan function reads a row
// of either.
type rowScanner interface{ Scan(...any) error }

// errBeginIO marks a write transaction that SQLite could not begin for an
// I/O error (isSQLiteIOError): nothing was written, so inTx tries it
// again. An I/O error after the transaction began is not retried — a
// failed commit may have reached the WAL — and is answered as the database
// being unavailable (Unavailable), never as a fault.
var errBeginIO = errors.New("before the transaction began")

// relaxedCommitKey marks a context whose write transactions commit
// without waiting for the disk (SQLite synchronous=NORMAL, PostgreSQL
// synchronous_commit=off): an operator job's batches (decisions §60),
// whose loss in a crash is consistent (a batch's rows and the progress
// that counts them commit together, and the job redoes it) and which no
// client was told of. Everything acknowledged to a client commits as
// before, and a later such commit makes the earlier batches durable too.
type relaxedCommitKey struct{}

// inTx runs fn in a write transaction and commits it; fn's error, or a
// failed commit, rolls it back. A transaction that lost a race to a
// concurrent one, or could not begin for an I/O error, is run again, a few
// times, so fn must not have effects outside the transaction.
func (db *DB) inTx(ctx context.Context, fn func(tx *Tx) error) error {
	const attempts = 5
	var err error
	for i := range attempts {
		err = db.tryTx(ctx, fn)
		if err == nil {
			return db.recordFloor(ctx)
		}
		if !isRetryable(err) && !errors.Is(err, errBeginIO) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(1<<i) * 5 * time.Millisecond)
	}
	return err
}

func (db *DB) tryTx(ctx context.Context, fn func(tx *Tx) error) (err error) {
	release, err := db.turns.Take(ctx, func() int { return db.write.Stats().MaxOpenConnections })
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer release()
	db.writeStmts.prepareQueued(ctx)
	// The transaction runs on a connection of its own, so that its
	// pipelines (Tx.pipeline) reach the driver's connection.
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer conn.Close()
	relaxed := ctx.Value(relaxedCommitKey{}) != nil
	if relaxed && db.dialect.name == "sqlite" {
		// Set on the connection, put back after the commit: the next
		// transaction's commit (FULL) syncs the WAL with this one's frames.
		if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`)
	}
	stx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		if isSQLiteIOError(err) {
			// Nothing was written: the transaction is tried again.
			return fmt.Errorf("begin: %w (%w)", err, errBeginIO)
		}
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			stx.Rollback()
			panic(p)
		}
	}()
	if relaxed && db.dialect.name == "postgres" {
		if _, err := stx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			stx.Rollback()
			return fmt.Errorf("begin: %w", err)
		}
	}
	tx := &Tx{tx: stx, conn: conn, d: db.dialect, db: db}
	if err := fn(tx); err != nil {
		stx.Rollback()
		return err
	}
	if tx.rewrites {
		// The epoch moves as the commit begins and again once it has
		// returned, so no page read both sees it and uses a boundary
		// found without it (decisions §73); before the second, the
		// primary's WAL position after the commit, for reads on a replica.
		end := db.pages.Moving()
		defer func() { end(db.movePosition(ctx, conn)) }()
	}
	if err := stx.Commit(); err != nil {
		// A deadline that passes just before the commit makes
		// database/sql roll the transaction back by itself, and Commit
		// then says only ErrTxDone: the deadline is the cause (nothing
		// was committed), so the request is answered 503, not 500.
		if errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
			err = ctx.Err()
		}
		return fmt.Errorf("commit: %w", err)
	}
	if tx.wake {
		db.due.notify()
	}
	return nil
}

// query and queryRow run a read on the primary, outside any transaction
// (db.primary()): the reads of the operator, of authentication, of what a
// write reads before its transaction. A read that may go to a replica, or
// must share a snapshot with others, takes a reader instead.
func (db *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return db.primary().Query(ctx, q, args...)
}

func (db *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return db.primary().QueryRow(ctx, q, args...)
}

// exec runs a single statement on the writer.
func (db *DB) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := db.writeStmts.get(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return db.write.ExecContext(ctx, db.dialect.rebind(q), args...)
}

// stmtCache keeps one prepared statement per SQL text for a pool:
// database/sql prepares it on each connection the first time it runs there
// and reuses it afterwards, so SQLite parses and plans each statement once
// per connection instead of on every call (the parse was a fifth of the CPU
// of an order read). Only short texts with few placeholders are kept, and
// at most stmtCacheEntries of them: multi-row writes, long IN lists and,
// once the cache is full, any other new text run unprepared, as
// everything did before. Nothing is evicted: a statement in use must stay
// open. A nil pool caches nothing.
//
// Preparing takes a connection of the pool. Inside a write transaction the
// writer's one connection is the transaction's, so a statement first met
// there runs unprepared and is queued; the next transaction prepares the
// queue before it begins (prepareQueued).
type stmtCache struct {
	pool   *sql.DB
	mu     sync.RWMutex
	m      map[string]*sql.Stmt
	queued map[string]bool
	full   bool
}

const (
	stmtCacheEntries   = 512
	stmtCacheMaxText   = 4096
	stmtCacheMaxParams = 32
)

// get returns the prepared statement of q, preparing it on first use, or
// nil when q is not to be cached (or could not be prepared: the caller
// then runs it unprepared and meets the error there).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if st, known := c.lookup(q); known {
		return st
	}
	return c.prepare(ctx, q)
}

// inTx returns the prepared statement of q for a transaction, or nil and
// queues q to be prepared before the next one.
func (c *stmtCache) inTx(q string) *sql.Stmt {
	if st, known := c.lookup(q); known {
		return st
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[q] == nil && !c.full && len(c.queued) < stmtCacheEntries {
		if c.queued == nil {
			c.queued = map[string]bool{}
		}
		c.queued[q] = true
	}
	return c.m[q]
}

// lookup answers from the cache alone: the statement, or whether q is
// never to be prepared (known with a nil statement).
func (c *stmtCache) lookup(q string) (*sql.Stmt, bool) {
	if c.pool == nil || len(q) > stmtCacheMaxText || strings.Count(q, "?") > stmtCacheMaxParams {
		return nil, true
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	st := c.m[q]
	return st, st != nil || c.full
}

// prepareQueued prepares the statements transactions met unprepared. It
// runs outside any transaction of the pool.
func (c *stmtCache) prepareQueued(ctx context.Context) {
	if c.pool == nil {
		return
	}
	c.mu.Lock()
	var qs []string
	for q := range c.queued {
		qs = append(qs, q)
	}
	clear(c.queued)
	c.mu.Unlock()
	for _, q := range qs {
		c.prepare(ctx, q)
	}
}

// prepare prepares q and keeps it. The lock is not held while preparing:
// that waits for a free connection, and the queries holding the
// connections may need the cache meanwhile.
func (c *stmtCache) prepare(ctx context.Context, q string) *sql.Stmt {
	if st, known := c.lookup(q); known {
		return st
	}
	st, err := c.pool.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if have := c.m[q]; have != nil || c.full || len(c.m) >= stmtCacheEntries {
		c.full = c.full || len(c.m) >= stmtCacheEntries
		st.Close()
		return have
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// micros and fromMicros store instants as integer microseconds since the
// Unix epoch: exact, ordered and the same on both engines.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// WithSearchPath returns a PostgreSQL DSN whose connections use schema.
func WithSearchPath(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
