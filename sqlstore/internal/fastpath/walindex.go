package fastpath

import (
	"fmt"
	"io"
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
// WALIndex maps that header read-only, so the store can ask "has anything
// been committed since?" with a few memory loads instead of a read
// transaction (two fcntl locks on the -shm file, a B-tree seek and the
// driver's work: two thirds of GET one order on SQLite). The answer cache
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
type WALIndex struct {
	mem []byte // the -shm file's first page, mapped read-only
	// keep holds one connection to the database open for as long as the
	// mapping is used: SQLite deletes the -shm file when the last
	// connection closes, and a new one would be a different file from the
	// one mapped here.
	keep io.Closer
	// release lets the -shm file's descriptor go (see mapShm): only after
	// keep, and every other connection of the store, is closed.
	release func()
}

// WALStamp is the WAL-index header: equal stamps, no commit in between.
// The zero WALStamp is never one SQLite writes (its first word is the
// format), so it stands for "not known".
type WALStamp [walHeaderWords]uint32

const (
	walHeaderWords = 12      // 48 bytes
	walIndexFormat = 3007000 // WALINDEX_MAX_VERSION, the header's first word
)

// MapWALIndex maps the WAL index at shmPath (the database's real path
// with "-shm"), which a read transaction on keep, a connection held open
// for as long as the index is used, has created. keep is closed by Close,
// or here when the file cannot be mapped.
//
// The -shm file is opened outside SQLite, so its descriptor stays open
// until Close (mapShm has why: closing it would release SQLite's locks on
// the file for the whole process). The caller closes its other
// connections to the database before Close.
func MapWALIndex(shmPath string, keep io.Closer) (*WALIndex, error) {
	mem, release, err := mapShm(shmPath)
	if err != nil {
		keep.Close()
		if release != nil {
			release()
		}
		return nil, err
	}
	w := &WALIndex{mem: mem, keep: keep, release: release}
	if _, ok := w.Stamp(); !ok {
		unmapShm(mem)
		w.Close()
		return nil, fmt.Errorf("%s: not a WAL index of format %d", shmPath, walIndexFormat)
	}
	runtime.AddCleanup(w, unmapShm, mem)
	return w, nil
}

// Stamp reads the header: ok is false when it is not one a reader may
// trust (a writer is midway through it, or its format is not the one
// known here).
func (w *WALIndex) Stamp() (s WALStamp, ok bool) {
	base := unsafe.Pointer(unsafe.SliceData(w.mem))
	var second WALStamp
	for i := range s {
		s[i] = atomic.LoadUint32((*uint32)(unsafe.Add(base, 4*i)))
	}
	for i := range second {
		second[i] = atomic.LoadUint32((*uint32)(unsafe.Add(base, 4*(walHeaderWords+i))))
	}
	// w, and with it the mapping (see Close), lives until the loads are
	// done.
	runtime.KeepAlive(w)
	return s, s == second && s[0] == walIndexFormat
}

// Close lets the held connection go, then the -shm file's descriptor: it
// is called after the store's other connections to the database are
// closed. The mapping is removed once no reader can still be using it:
// when w is unreachable (the cleanup set by MapWALIndex), since a reader
// that loaded w keeps it alive until its loads are done.
func (w *WALIndex) Close() error {
	err := w.keep.Close()
	w.release()
	return err
}
