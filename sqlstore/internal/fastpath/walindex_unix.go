//go:build unix

package fastpath

import (
	"fmt"
	"sync"
	"syscall"
)

// walHeaderBytes is the part of the -shm file mapped: both copies of the
// header.
const walHeaderBytes = 2 * 4 * walHeaderWords

// The -shm file's descriptor is never closed while SQLite may be using the
// file in this process. SQLite coordinates processes with POSIX advisory
// (fcntl) locks on the -shm file, above all a shared lock on its "DMS"
// byte that every process using the database holds for as long as it has
// a connection open, and the kernel drops every POSIX lock a process holds
// on a file as soon as the process closes any descriptor of that file —
// not only the one the lock was taken through. A mapping that opened the
// file, mapped it and closed the descriptor (as this did until issue 39)
// silently released SQLite's DMS lock for the whole process: the next
// process to open the database (the sqlite3 shell, even -readonly) found
// the byte unlocked, concluded it was alone, truncated the -shm file under
// the server and rebuilt it, and the server's SQLite faulted on its own
// mapping of the file (SQLITE_IOERR_IN_PAGE, "disk I/O error (8714)") on
// every write thereafter.
//
// So each -shm file (by device and inode) is opened once per process and
// its descriptor kept until the last WALIndex over it is closed, which the
// store does after its own connections to the database are closed.
var shmFiles struct {
	sync.Mutex
	open map[shmKey]*shmFile
}

type shmKey struct{ dev, ino uint64 }

type shmFile struct {
	fd   int
	refs int
}

// mapShm maps the start of the -shm file at path read-only and shared, so
// every commit's new header shows in it. release lets this mapping's hold
// on the file's descriptor go; the descriptor is closed when no other
// mapping of this process holds it. release is non-nil whenever the file
// was opened, the mapping failed or not, and is to be called only after
// the connections that use the database are closed.
func mapShm(path string) (mem []byte, release func(), err error) {
	f, key, err := holdShm(path)
	if err != nil {
		return nil, nil, err
	}
	release = func() {
		shmFiles.Lock()
		defer shmFiles.Unlock()
		if f.refs--; f.refs == 0 {
			delete(shmFiles.open, key)
			syscall.Close(f.fd)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return nil, release, fmt.Errorf("%s: %w", path, err)
	}
	// A page wholly past the end of the file would fault on reading; SQLite
	// grows the file to its first 32 KiB region before any reader uses it.
	if st.Size < walHeaderBytes {
		return nil, release, fmt.Errorf("%s: %d bytes, too short for a WAL index", path, st.Size)
	}
	mem, err = syscall.Mmap(f.fd, 0, walHeaderBytes, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, release, fmt.Errorf("%s: %w", path, err)
	}
	return mem, release, nil
}

// holdShm opens the -shm file at path, or takes another hold of this
// process's descriptor of it.
func holdShm(path string) (*shmFile, shmKey, error) {
	shmFiles.Lock()
	defer shmFiles.Unlock()
	// The file is found by name before it is opened: a second descriptor
	// of a file already held would have to be closed again, and that
	// close is what drops the locks.
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil, shmKey{}, fmt.Errorf("%s: %w", path, err)
	}
	key := shmKey{uint64(st.Dev), uint64(st.Ino)}
	f := shmFiles.open[key]
	if f == nil {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, shmKey{}, fmt.Errorf("%s: %w", path, err)
		}
		// What was opened is kept under its own identity, should the name
		// have moved to another file in between.
		if err := syscall.Fstat(fd, &st); err == nil {
			key = shmKey{uint64(st.Dev), uint64(st.Ino)}
		}
		if f = shmFiles.open[key]; f == nil {
			f = &shmFile{fd: fd}
			if shmFiles.open == nil {
				shmFiles.open = map[shmKey]*shmFile{}
			}
			shmFiles.open[key] = f
		}
		// Else the name moved to a file already held; the descriptor just
		// opened stays open (closing it is what must not happen) and the
		// held one is used.
	}
	f.refs++
	return f, key, nil
}

func unmapShm(mem []byte) { syscall.Munmap(mem) }
