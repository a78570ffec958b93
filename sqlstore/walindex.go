package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Every commit to a SQLite database in WAL mode updates the header of its
// WAL index: the -shm file that each connection, in every process, maps
// into memory and reads at the start of every read transaction to learn
// whether the database changed (SQLite's own page cache is kept or dropped
// on exactly this test). The header holds a counter of transactions, the
// last valid frame of the WAL, its checksum and the WAL's salts, so any
// commit, a WAL restart after a checkpoint included, gives it a new value.
//
// walIndex maps that header read-only, so the store can ask "has anything
// been committed since?" with a few memory loads instead of a read
// transaction (two fcntl locks on the -shm file, a B-tree seek and the
// driver's work: two thirds of GET one order on SQLite). FindOrderAnswer
// uses it to skip the read of an order whose answer it rendered while the
// database was as it is now. A commit by any connection of any process
// changes the header before any reader can see the commit, so the
// shortcut is exact, not a cache with a lifetime.
//
// The layout is SQLite's WAL-index format (version 3007000): two copies of
// a 48-byte header, written second copy first, so a reader that finds the
// copies equal has read a header no writer was midway through. Anything
// else (another version, copies that differ) sends the caller to the real
// read.
type walIndex struct {
	mem []byte // the -shm file's first page, mapped read-only
	// keep holds one connection to the database open for as long as the
	// mapping is used: SQLite deletes the -shm file when the last
	// connection closes, and a new one would be a different file from the
	// one mapped here.
	keep *heldConn
}

// walStamp is the WAL-index header: equal stamps, no commit in between.
type walStamp [walHeaderWords]uint32

const (
	walHeaderWords = 12      // 48 bytes
	walIndexFormat = 3007000 // WALINDEX_MAX_VERSION, the header's first word
)

// openWALIndex maps the WAL index of the SQLite database at path, opened
// as dsn (a file: URI with the store's pragmas). It returns an error when
// the database is not in WAL mode or the -shm file cannot be mapped; the
// store then reads every time.
func openWALIndex(ctx context.Context, dsn, path string) (*walIndex, error) {
	keep, err := holdConn(ctx, dsn)
	if err != nil {
		return nil, err
	}
	w := &walIndex{keep: keep}
	fail := func(err error) (*walIndex, error) {
		w.close()
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
	mem, err := mapShm(real + "-shm")
	if err != nil {
		return fail(err)
	}
	w.mem = mem
	if _, ok := w.stamp(); !ok {
		unmapShm(mem)
		return fail(fmt.Errorf("%s-shm: not a WAL index of format %d", real, walIndexFormat))
	}
	runtime.AddCleanup(w, unmapShm, mem)
	return w, nil
}

// stamp reads the header: ok is false when it is not one a reader may
// trust (a writer is midway through it, or its format is not the one
// known here).
func (w *walIndex) stamp() (s walStamp, ok bool) {
	base := unsafe.Pointer(unsafe.SliceData(w.mem))
	var second walStamp
	for i := range s {
		s[i] = atomic.LoadUint32((*uint32)(unsafe.Add(base, 4*i)))
	}
	for i := range second {
		second[i] = atomic.LoadUint32((*uint32)(unsafe.Add(base, 4*(walHeaderWords+i))))
	}
	// w, and with it the mapping (see close), lives until the loads are
	// done.
	runtime.KeepAlive(w)
	return s, s == second && s[0] == walIndexFormat
}

// close lets the held connection go. The mapping is removed once no
// reader can still be using it: when w is unreachable (the cleanup set by
// openWALIndex), since a reader that loaded w keeps it alive until its
// loads are done.
func (w *walIndex) close() { w.keep.Close() }
