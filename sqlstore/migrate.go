package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

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
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	return out, nil
}

// Migrate applies the embedded migrations that the database lacks, each in
// its own transaction. On PostgreSQL instances that start together take
// turns: each transaction first takes a transaction-scoped advisory lock
// and looks again whether its migration is applied, so each migration runs
// once. The lock is a transaction's, never the session's, so migrating
// works through a pooler in transaction mode, where a session lock would
// stay on whichever server connection took it.
func (db *DB) Migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	const lockID = 0x70617263656c // "parcel"
	// inTurn runs fn in a transaction that holds the migration lock.
	inTurn := func(fn func(tx *sql.Tx) error) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if db.dialect.name == "postgres" {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", lockID); err != nil {
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
	err = inTurn(func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		err := inTurn(func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, db.dialect.rebind(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil // applied, maybe by another instance meanwhile
			}
			for _, stmt := range splitStatements(db.dialect.schema(m.sql)) {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("%w\n%s", err, stmt)
				}
			}
			_, err := tx.ExecContext(ctx, db.dialect.rebind(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`), m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	// A restarted sandbox keeps its time: the stored offsets are read
	// before the first request, and followed from then on.
	if err := db.RefreshClock(ctx); err != nil {
		return fmt.Errorf("environment clock: %w", err)
	}
	db.watchClock()
	return nil
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
