package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// openWALIndex maps the WAL index of the SQLite database at path, opened
// as dsn (a file: URI with the store's pragmas), for the answer cache's
// shortcut (fastpath.WALIndex). It returns an error when the database is
// not in WAL mode or the -shm file cannot be mapped; the store then reads
// every time.
func openWALIndex(ctx context.Context, dsn, path string) (*fastpath.WALIndex, error) {
	keep, err := holdConn(ctx, dsn)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*fastpath.WALIndex, error) {
		keep.Close()
		return nil, err
	}
	var mode string
	if err := keep.conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fail(err)
	}
	if mode != "wal" {
		return fail(fmt.Errorf("journal mode %s, not wal", mode))
	}
	// A read transaction creates the -shm file of a new database and
	// writes its first header.
	var n int
	if err := keep.conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		return fail(err)
	}
	// SQLite names the -shm file after the database's real path, symbolic
	// links resolved.
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fail(err)
	}
	return fastpath.MapWALIndex(real+"-shm", keep)
}
