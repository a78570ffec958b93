package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
	// backfill, when set, runs after the migration's statements, a batch
	// at a time (see Backfill); the migration is recorded once it is done.
	backfill Backfill
}

// A Backfill fills what a migration added (a column's values, say) in
// batches of bounded size, each in a transaction of its own, so that no
// transaction holds a populated table's writers for longer than a batch
// takes. Each call handles the rows after cursor (in an order of the
// author's choosing, usually the table's id), at most limit of them, and
// returns the cursor to continue from and whether the rows are all done.
// The cursor is stored with the batch's writes, in the same transaction:
// an interrupted backfill resumes at the last committed batch, and a batch
// is never applied twice. A backfill runs after every statement of its
// migration, on both engines.
type Backfill func(ctx context.Context, tx *Tx, cursor int64, limit int) (next int64, done bool, err error)

// backfills are the Go steps of the migrations that have one, by the
// migration's number (registered by the file that owns the table).
var backfills = map[int]Backfill{}

// backfillBatch is how many rows a batch of a backfill handles at most.
const backfillBatch = 5000

func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []migration
	for _, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with its number", base)
		}
		b, err := migrationFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b), backfill: backfills[v]})
	}
	return out, nil
}

// migrationLockID is the key of the transaction-scoped advisory lock that
// every migrating transaction on PostgreSQL takes ("parcel"), as runners
// before the lease did, so a runner of an older build starting beside this
// one takes turns with it too.
const migrationLockID = 0x70617263656c

// Migrate applies the embedded migrations that the database lacks
// (decisions §55).
//
// On SQLite each migration is one transaction, as it always was: one
// writer, and no index build to run beside writers.
//
// On PostgreSQL a database that already holds migrations is a populated
// one, and each pending migration runs online: every CREATE [UNIQUE]
// INDEX statement is built CONCURRENTLY (outside any transaction: writers
// go on while it builds), IF NOT EXISTS, and an INVALID index that an
// interrupted concurrent build left is dropped and built again; DROP INDEX
// is DROP INDEX CONCURRENTLY. The statements between them run in a
// transaction each (a step), and every finished step is recorded, so a
// migration interrupted anywhere resumes at its first unfinished step. A
// new, empty database takes every migration in one transaction each: there
// is nothing to build concurrently and no writer to wait for.
//
// Instances that start together take turns through a lease, a row of
// schema_migration_lease that one instance holds at a time and renews while
// it migrates: a CONCURRENTLY build cannot run inside the transaction that
// a transaction-scoped advisory lock lasts for, and a session lock would
// stay on whichever server connection of a pooler in transaction mode took
// it. Each step's transaction also records the step under a primary key
// and takes the transaction-scoped advisory lock, so a step is applied
// once even by an instance that lost its lease.
func (db *DB) Migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if err := db.migrate(ctx, ms); err != nil {
		return err
	}
	// A restarted sandbox keeps its time: the stored offsets are read
	// before the first request, and followed from then on.
	if err := db.RefreshClock(ctx); err != nil {
		return fmt.Errorf("environment clock: %w", err)
	}
	db.watchClock()
	if err := db.keepStatistics(ctx); err != nil {
		return fmt.Errorf("statistics: %w", err)
	}
	return nil
}

// migrate applies the migrations of ms that the database lacks.
func (db *DB) migrate(ctx context.Context, ms []migration) error {
	pg := db.dialect.name == "postgres"
	err := db.lockedTx(ctx, func(tx *sql.Tx) error {
		stmts := []string{
			`CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)`,
			// The finished steps of a migration under way, and a
			// backfill's cursor (decisions §55).
			`CREATE TABLE IF NOT EXISTS schema_migration_steps (version BIGINT NOT NULL, step INTEGER NOT NULL, cursor BIGINT NOT NULL DEFAULT 0, done INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (version, step))`,
		}
		if pg {
			stmts = append(stmts, `CREATE TABLE IF NOT EXISTS schema_migration_lease (id INTEGER PRIMARY KEY, holder TEXT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)`)
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	applied, err := db.appliedMigrations(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !slices.ContainsFunc(ms, func(m migration) bool { return !applied[m.version] }) {
		return nil // the common start: nothing to do, nothing to wait for
	}
	if pg {
		lease, err := db.takeMigrationLease(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer lease.release()
		ctx = lease.ctx
		// Another instance may have migrated while this one waited.
		if applied, err = db.appliedMigrations(ctx); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	online := pg && len(applied) > 0
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if err := db.applyMigration(ctx, m, online); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	return nil
}

func (db *DB) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	applied := map[int]bool{}
	rows, err := db.write.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// lockedTx runs fn in a transaction that, on PostgreSQL, first takes the
// migration's transaction-scoped advisory lock.
func (db *DB) lockedTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if db.dialect.name == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLockID); err != nil {
			tx.Rollback()
			return fmt.Errorf("lock: %w", err)
		}
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// A migrationStep is a part of a migration applied as one: statements run
// in one transaction (tx), or one index statement run on its own
// (concurrent), or the migration's backfill.
type migrationStep struct {
	stmts      []string
	concurrent *indexStatement
	backfill   Backfill
}

// indexStatement is a CREATE [UNIQUE] INDEX or a DROP INDEX of a
// migration, as PostgreSQL runs it online.
type indexStatement struct {
	name string
	drop bool
	sql  string // CONCURRENTLY, IF [NOT] EXISTS
}

var (
	createIndexRE = regexp.MustCompile(`(?is)^CREATE\s+(UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+NOT\s+EXISTS\s+)?("?[A-Za-z_][A-Za-z0-9_]*"?)\s+(ON\s.*)$`)
	dropIndexRE   = regexp.MustCompile(`(?is)^DROP\s+INDEX\s+(?:CONCURRENTLY\s+)?(?:IF\s+EXISTS\s+)?("?[A-Za-z_][A-Za-z0-9_]*"?)\s*;?\s*$`)
)

// onlineIndex reports whether stmt is an index statement that PostgreSQL
// runs CONCURRENTLY, and how.
func onlineIndex(stmt string) (*indexStatement, bool) {
	if m := createIndexRE.FindStringSubmatch(stmt); m != nil {
		unique := ""
		if m[1] != "" {
			unique = "UNIQUE "
		}
		return &indexStatement{name: strings.Trim(m[2], `"`), sql: "CREATE " + unique + "INDEX CONCURRENTLY IF NOT EXISTS " + m[2] + " " + strings.TrimSuffix(strings.TrimSpace(m[3]), ";")}, true
	}
	if m := dropIndexRE.FindStringSubmatch(stmt); m != nil {
		return &indexStatement{name: strings.Trim(m[1], `"`), drop: true, sql: "DROP INDEX CONCURRENTLY IF EXISTS " + m[1]}, true
	}
	return nil, false
}

// migrationSteps divides m into its steps: online, each index statement
// is a step of its own and the statements between them one step each;
// otherwise every statement is one step. A backfill is the last step.
func (db *DB) migrationSteps(m migration, online bool) []migrationStep {
	var steps []migrationStep
	var cur []string
	for _, stmt := range splitStatements(db.dialect.schema(m.sql)) {
		if online {
			if ix, ok := onlineIndex(stmt); ok {
				if len(cur) > 0 {
					steps = append(steps, migrationStep{stmts: cur})
					cur = nil
				}
				steps = append(steps, migrationStep{concurrent: ix})
				continue
			}
		}
		cur = append(cur, stmt)
	}
	if len(cur) > 0 || len(steps) == 0 {
		steps = append(steps, migrationStep{stmts: cur})
	}
	if m.backfill != nil {
		steps = append(steps, migrationStep{backfill: m.backfill})
	}
	return steps
}

// applyMigration applies m's steps that are not done yet and records m.
func (db *DB) applyMigration(ctx context.Context, m migration, online bool) error {
	steps := db.migrationSteps(m, online)
	done := map[int]bool{}
	rows, err := db.write.QueryContext(ctx, db.dialect.rebind(`SELECT step FROM schema_migration_steps WHERE version = ? AND done = 1`), m.version)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s int
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		done[s] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i, st := range steps {
		if done[i] {
			continue
		}
		last := i == len(steps)-1
		switch {
		case st.concurrent != nil:
			if err := db.buildIndexOnline(ctx, st.concurrent); err != nil {
				return err
			}
			err = db.lockedTx(ctx, func(tx *sql.Tx) error { return db.finishStep(ctx, tx, m, i, last) })
		case st.backfill != nil:
			err = db.runBackfill(ctx, m, i, st.backfill)
		default:
			err = db.lockedTx(ctx, func(tx *sql.Tx) error {
				// Applied meanwhile (by an instance whose lease this
				// one took over)? The step's record is the fence.
				var n int
				if err := tx.QueryRowContext(ctx, db.dialect.rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil || n > 0 {
					return err
				}
				if err := tx.QueryRowContext(ctx, db.dialect.rebind(`SELECT COUNT(*) FROM schema_migration_steps WHERE version = ? AND step = ? AND done = 1`), m.version, i).Scan(&n); err != nil || n > 0 {
					return err
				}
				for _, stmt := range st.stmts {
					if _, err := tx.ExecContext(ctx, stmt); err != nil {
						return fmt.Errorf("%w\n%s", err, stmt)
					}
				}
				return db.finishStep(ctx, tx, m, i, last)
			})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// finishStep records step i of m as done in tx; the last step records m
// itself and forgets its steps.
func (db *DB) finishStep(ctx context.Context, tx *sql.Tx, m migration, i int, last bool) error {
	if last {
		if _, err := tx.ExecContext(ctx, db.dialect.rebind(`DELETE FROM schema_migration_steps WHERE version = ?`), m.version); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migrations (version, name) VALUES (?, ?) ON CONFLICT (version) DO NOTHING`), m.version, m.name)
		return err
	}
	_, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migration_steps (version, step, done) VALUES (?, ?, 1)
		ON CONFLICT (version, step) DO UPDATE SET done = 1`), m.version, i)
	return err
}

// buildIndexOnline runs ix on PostgreSQL outside a transaction. An index of
// that name left INVALID by a concurrent build that failed or was
// interrupted (PostgreSQL keeps it, unusable but maintained by every
// write) is dropped first and built again; IF NOT EXISTS lets a valid one
// stand. It fails if the index is not valid afterwards.
func (db *DB) buildIndexOnline(ctx context.Context, ix *indexStatement) error {
	valid := func() (exists, ok bool, err error) {
		err = db.write.QueryRowContext(ctx, `SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
			WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`, ix.name).Scan(&ok)
		if errors.Is(err, sql.ErrNoRows) {
			return false, false, nil
		}
		return err == nil, ok, err
	}
	if !ix.drop {
		exists, ok, err := valid()
		if err != nil {
			return err
		}
		if exists && ok {
			return nil
		}
		if exists {
			if _, err := db.write.ExecContext(ctx, `DROP INDEX CONCURRENTLY IF EXISTS `+ix.name); err != nil {
				return fmt.Errorf("dropping the invalid index %s: %w", ix.name, err)
			}
		}
	}
	if _, err := db.write.ExecContext(ctx, ix.sql); err != nil {
		return fmt.Errorf("%w\n%s", err, ix.sql)
	}
	if ix.drop {
		return nil
	}
	exists, ok, err := valid()
	if err == nil && (!exists || !ok) {
		err = fmt.Errorf("index %s is not valid after its build", ix.name)
	}
	return err
}

// runBackfill runs m's backfill (step i) from its stored cursor, a batch a
// transaction, until it reports done; the last batch records m.
func (db *DB) runBackfill(ctx context.Context, m migration, i int, fill Backfill) error {
	for {
		finished := false
		err := db.lockedTx(ctx, func(stx *sql.Tx) error {
			var cursor int64
			err := stx.QueryRowContext(ctx, db.dialect.rebind(`SELECT cursor FROM schema_migration_steps WHERE version = ? AND step = ?`), m.version, i).Scan(&cursor)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			tx := &Tx{tx: stx, d: db.dialect, db: db}
			next, done, err := fill(ctx, tx, cursor, backfillBatch)
			if err != nil {
				return fmt.Errorf("backfill after %d: %w", cursor, err)
			}
			if done {
				finished = true
				return db.finishStep(ctx, stx, m, i, true)
			}
			_, err = stx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migration_steps (version, step, cursor) VALUES (?, ?, ?)
				ON CONFLICT (version, step) DO UPDATE SET cursor = excluded.cursor`), m.version, i, next)
			return err
		})
		if err != nil || finished {
			return err
		}
	}
}

// The lease's timing: a holder renews it every leaseRenew, and gives up
// (its migrating context ends) when it could not for leaseGiveUp, well
// before another instance may take it over at leaseTTL.
const (
	leaseTTL     = 30 * time.Second
	leaseRenew   = 5 * time.Second
	leaseGiveUp  = 15 * time.Second
	leaseWaitFor = 250 * time.Millisecond
)

// migrationLease is this instance's hold on schema_migration_lease.
type migrationLease struct {
	ctx     context.Context
	release func()
}

// takeMigrationLease waits until this instance holds the migration lease
// (the row is absent, expired, or already this holder's) and keeps it
// renewed until release. Each statement is a transaction of its own, so
// the lease works through a pooler in transaction mode; its times are the
// database's, so instances' clocks need not agree.
func (db *DB) takeMigrationLease(ctx context.Context) (*migrationLease, error) {
	holder := rand.Text()
	ttl := leaseTTL.Seconds()
	for {
		var got string
		err := db.write.QueryRowContext(ctx, `INSERT INTO schema_migration_lease (id, holder, expires_at) VALUES (1, $1, clock_timestamp() + make_interval(secs => $2))
			ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE schema_migration_lease.expires_at < clock_timestamp() RETURNING holder`, holder, ttl).Scan(&got)
		if err == nil {
			break
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("migration lease: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(leaseWaitFor):
		}
	}
	lctx, cancel := context.WithCancelCause(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(leaseRenew)
		defer t.Stop()
		renewed := time.Now()
		for {
			select {
			case <-lctx.Done():
				return
			case <-t.C:
			}
			res, err := db.write.ExecContext(lctx, `UPDATE schema_migration_lease SET expires_at = clock_timestamp() + make_interval(secs => $2) WHERE id = 1 AND holder = $1`, holder, ttl)
			if err == nil {
				if n, _ := res.RowsAffected(); n == 0 {
					cancel(errors.New("migration lease: taken over by another instance"))
					return
				}
				renewed = time.Now()
			} else if time.Since(renewed) > leaseGiveUp {
				cancel(fmt.Errorf("migration lease: not renewed for %s: %w", leaseGiveUp, err))
				return
			}
		}
	}()
	release := func() {
		cancel(nil)
		<-stopped
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		db.write.ExecContext(rctx, `DELETE FROM schema_migration_lease WHERE id = 1 AND holder = $1`, holder)
	}
	return &migrationLease{ctx: lctx, release: release}, nil
}

// splitStatements splits a migration at semicolons that end a line; comment
// lines are dropped. Migrations hold no semicolons inside literals.
func splitStatements(s string) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "--") {
			continue
		}
		cur.WriteString(line)
		if strings.HasSuffix(t, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		out = append(out, rest)
	}
	return out
}
