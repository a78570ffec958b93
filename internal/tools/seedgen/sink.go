package seedgen

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// sink writes rows in bulk: COPY on PostgreSQL, prepared multi-row
// INSERTs in one transaction a table on SQLite. A table is filled by a
// function that hands the rows one by one, each as its column values.
type sink interface {
	engine() string
	fill(ctx context.Context, table string, cols []string, rows func(emit func(vals ...any) error) error) (int64, error)
	exec(ctx context.Context, q string) error
	queryRow(ctx context.Context, q string, dest ...any) error
	// secondaryIndexes are the definitions of the indexes the fill may
	// drop and build again afterwards: those of the migrations that
	// enforce nothing (not a primary key, not unique, no constraint's).
	secondaryIndexes(ctx context.Context) ([]index, error)
	// finish sets the change clocks and identity counters past what was
	// written (nowUS: the end of the history) and analyzes the tables.
	finish(ctx context.Context, nowUS int64) error
	close()
}

func openSink(ctx context.Context, dsn string) (sink, error) {
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		// During the fill only: a rollback journal in memory, not the
		// WAL (each page would be written twice, to the WAL and back),
		// and no sync; finish puts the database back in WAL mode, as the
		// server opens it. A fill that fails leaves a database to
		// throw away, as it is new.
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(MEMORY)&_pragma=synchronous(OFF)&_pragma=cache_size(-262144)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		return &sqliteSink{db: db}, nil
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("seed: postgres: %w", err)
	}
	// The fill's own session: no synchronous commit (nothing is lost but
	// the fill itself if the server stops), more memory for index builds.
	if _, err := conn.Exec(ctx, `SET synchronous_commit = off; SET maintenance_work_mem = '256MB'`); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return &pgSink{conn: conn}, nil
}

// index is a secondary index: its name and the statement that builds it.
type index struct{ name, def string }

// serialTables are the tables whose id the fill writes itself; their
// counters must be moved past it.
var serialTables = []string{"organizations", "catalogs", "products", "balances", "orders", "shipments", "codes", "tracking_moves", "supplier_shipments", "request_journal"}

type pgSink struct{ conn *pgx.Conn }

func (p *pgSink) engine() string { return "postgres" }

func (p *pgSink) fill(ctx context.Context, table string, cols []string, rows func(emit func(vals ...any) error) error) (int64, error) {
	// COPY reads from a source; the rows come from a producer goroutine
	// in batches, so the generator and the database work at once.
	batches := make(chan [][]any, 4)
	done := make(chan struct{})
	var perr error
	go func() {
		defer close(batches)
		var cur [][]any
		perr = rows(func(vals ...any) error {
			cur = append(cur, vals)
			if len(cur) == 4096 {
				select {
				case batches <- cur:
				case <-done:
					return context.Canceled
				}
				cur = nil
			}
			return nil
		})
		if perr == nil && len(cur) > 0 {
			select {
			case batches <- cur:
			case <-done:
			}
		}
	}()
	// The first batch goes in alone and the table is analyzed before the
	// rest: a statement-level trigger (the kept counts, decisions §52,
	// §63) is planned when its COPY ends, and over a table never analyzed
	// its correlated look-ups into the table itself are sequential scans,
	// one per group of the transition table — quadratic in the rows
	// (order_rows: 130,000 rows took 101 s at scale 0.2, and the full
	// size did not end in 15 minutes). Analyzed on a first batch, the
	// table's statistics scale with its pages and the look-ups use its
	// key (order_rows: 1.5 s at scale 0.2).
	var n int64
	var err error
	if first, ok := <-batches; ok {
		n, err = p.conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(first))
		if err == nil {
			_, err = p.conn.Exec(ctx, `ANALYZE `+pgx.Identifier{table}.Sanitize())
		}
		if err == nil {
			var rest int64
			rest, err = p.conn.CopyFrom(ctx, pgx.Identifier{table}, cols, &chanSource{ch: batches})
			n += rest
		}
	}
	close(done)
	for range batches { // let the producer end
	}
	if err != nil {
		return n, fmt.Errorf("copy %s: %w", table, err)
	}
	if perr != nil {
		return n, perr
	}
	// Statistics now, before the next table's COPY: its foreign keys are
	// checked row by row by a plan made at its first row, which for a
	// table never analyzed (relpages 0) is a sequential scan. Without
	// this, order_rows' check of orders read all 300,000 orders per row
	// at the full size whenever autovacuum had not come by in between
	// (ten minutes for 130,000 rows).
	if _, err := p.conn.Exec(ctx, `ANALYZE `+pgx.Identifier{table}.Sanitize()); err != nil {
		return n, fmt.Errorf("analyze %s: %w", table, err)
	}
	return n, nil
}

// chanSource is a pgx.CopyFromSource over batches of rows.
type chanSource struct {
	ch    chan [][]any
	batch [][]any
	i     int
}

func (s *chanSource) Next() bool {
	s.i++
	for s.i >= len(s.batch) {
		b, ok := <-s.ch
		if !ok {
			return false
		}
		s.batch, s.i = b, 0
	}
	return true
}

func (s *chanSource) Values() ([]any, error) { return s.batch[s.i], nil }
func (s *chanSource) Err() error             { return nil }

func (p *pgSink) exec(ctx context.Context, q string) error {
	_, err := p.conn.Exec(ctx, q)
	return err
}

func (p *pgSink) queryRow(ctx context.Context, q string, dest ...any) error {
	return p.conn.QueryRow(ctx, q).Scan(dest...)
}

func (p *pgSink) secondaryIndexes(ctx context.Context) ([]index, error) {
	rows, err := p.conn.Query(ctx, `SELECT quote_ident(c.relname), pg_get_indexdef(i.indexrelid) FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND NOT i.indisprimary AND NOT i.indisunique
		AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY c.relname`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (index, error) {
		var x index
		return x, r.Scan(&x.name, &x.def)
	})
}

func (p *pgSink) finish(ctx context.Context, nowUS int64) error {
	stmts := []string{
		fmt.Sprintf(`UPDATE change_clock SET last_us = GREATEST(last_us, %d) WHERE environment = 'production'`, nowUS),
		fmt.Sprintf(`SELECT setval('change_stamp_production', GREATEST(%d, (SELECT last_value FROM change_stamp_production)))`, nowUS),
	}
	for _, t := range serialTables {
		stmts = append(stmts, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', 'id'), GREATEST(1, (SELECT COALESCE(MAX(id), 0) FROM %s)))`, t, t))
	}
	for _, q := range stmts {
		if _, err := p.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	// As autovacuum would after the load: statistics for the planner and
	// the visibility map for index-only scans, of this schema's tables
	// only (a bare VACUUM would walk every schema of the database).
	rows, err := p.conn.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		return nil
	}
	_, err = p.conn.Exec(ctx, `VACUUM ANALYZE `+strings.Join(tables, ", "))
	return err
}

func (p *pgSink) close() { p.conn.Close(context.Background()) }

type sqliteSink struct{ db *sql.DB }

func (s *sqliteSink) engine() string { return "sqlite" }

func (s *sqliteSink) fill(ctx context.Context, table string, cols []string, rows func(emit func(vals ...any) error) error) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// Rows per statement: SQLite binds at most 32,766 parameters; a few
	// hundred rows a statement is where the gain levels off.
	per := min(256, 32766/len(cols))
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	head := `INSERT INTO ` + table + ` (` + strings.Join(cols, ", ") + `) VALUES `
	full, err := tx.PrepareContext(ctx, head+strings.TrimSuffix(strings.Repeat(one+", ", per), ", "))
	if err != nil {
		return 0, err
	}
	defer full.Close()
	args := make([]any, 0, per*len(cols))
	var n int64
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		var err error
		if len(args) == per*len(cols) {
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, head+strings.TrimSuffix(strings.Repeat(one+", ", len(args)/len(cols)), ", "), args...)
		}
		args = args[:0]
		return err
	}
	err = rows(func(vals ...any) error {
		args = append(args, vals...)
		n++
		if len(args) == per*len(cols) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return n, fmt.Errorf("insert %s: %w", table, err)
	}
	return n, tx.Commit()
}

func (s *sqliteSink) exec(ctx context.Context, q string) error {
	_, err := s.db.ExecContext(ctx, q)
	return err
}

func (s *sqliteSink) queryRow(ctx context.Context, q string, dest ...any) error {
	return s.db.QueryRowContext(ctx, q).Scan(dest...)
}

func (s *sqliteSink) secondaryIndexes(ctx context.Context) ([]index, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT '"' || replace(name, '"', '""') || '"', sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []index
	for rows.Next() {
		var x index
		if err := rows.Scan(&x.name, &x.def); err != nil {
			return nil, err
		}
		// sqlite_master keeps the statement as written: a unique index
		// stays, as it checks the fill.
		if strings.HasPrefix(strings.ToUpper(strings.Join(strings.Fields(x.def), " ")), "CREATE UNIQUE") {
			continue
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

func (s *sqliteSink) finish(ctx context.Context, nowUS int64) error {
	// AUTOINCREMENT counters follow explicit ids by themselves.
	for _, q := range []string{
		fmt.Sprintf(`UPDATE change_clock SET last_us = MAX(last_us, %d) WHERE environment = 'production'`, nowUS),
		`ANALYZE`,
		`PRAGMA journal_mode=WAL`,
	} {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return nil
}

func (s *sqliteSink) close() { s.db.Close() }
