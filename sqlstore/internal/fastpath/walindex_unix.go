//go:build unix

package fastpath

import (
	"fmt"
	"os"
	"syscall"
)

// walHeaderBytes is the part of the -shm file mapped: both copies of the
// header.
const walHeaderBytes = 2 * 4 * walHeaderWords

// mapShm maps the start of the -shm file at path read-only and shared, so
// every commit's new header shows in it.
func mapShm(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The mapping outlives the descriptor.
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	// A page wholly past the end of the file would fault on reading; SQLite
	// grows the file to its first 32 KiB region before any reader uses it.
	if fi.Size() < walHeaderBytes {
		return nil, fmt.Errorf("%s: %d bytes, too short for a WAL index", path, fi.Size())
	}
	return syscall.Mmap(int(f.Fd()), 0, walHeaderBytes, syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapShm(mem []byte) { syscall.Munmap(mem) }
