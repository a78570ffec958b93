//go:build linux

package sqlstore_test

import (
	"fmt"
	"syscall"
)

// shmDMSHolder answers, as SQLite in another process asks it when it opens
// the database (unixLockSharedMemory), whether any process holds a lock on
// the "DMS" byte of the -shm file at path (byte 128): the pid of one that
// does, or 0 when it is free — which tells the asker it is the only user of
// the database and may truncate and rebuild the file.
func shmDMSHolder(path string) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	// This process holds no lock on the file, so closing it drops none.
	defer syscall.Close(fd)
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 128, Len: 1}
	if err := syscall.FcntlFlock(uintptr(fd), syscall.F_GETLK, &lk); err != nil {
		return 0, fmt.Errorf("F_GETLK: %w", err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0, nil
	}
	return int(lk.Pid), nil
}
