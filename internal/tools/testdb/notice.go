package testdb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

var noticeOnce sync.Once

// noticeSkipped tells the person running the tests, once per "go test" run,
// that the PostgreSQL halves are being skipped.
func noticeSkipped(err error) {
	noticeOnce.Do(func() {
		Notice("pg-skip", fmt.Sprintf("PostgreSQL is not reachable at %s (%v): the PostgreSQL half of every store test is SKIPPED; only SQLite is tested. Set PARCELGATE_TEST_POSTGRES to a reachable server, or CI=1 to fail instead.", PostgresDSN(), err))
	})
}

// Notice tells the person running the tests something they would
// otherwise miss, once per "go test" run and key: that tests are being
// skipped, and the command that would run them. The first test binary of a
// run to get here prints it: the marker file is keyed by the go command's
// process ID, the test binaries' parent.
//
// go test hides the output of passing packages (t.Skipf's message shows
// only with -v), so the line goes to the run's own standard error: the go
// command's, when it runs this binary and that is a terminal, a pipe or a
// file written at its end ("2>>log", nohup's). Otherwise (another parent,
// a file go writes at its own offset, a system without /proc) it goes to
// this binary's standard error, which go test shows with -v or when the
// package fails, and to the terminal, when there is one and it is not
// that standard error already.
func Notice(key, text string) {
	marker := filepath.Join(os.TempDir(), "parcelgate-"+key+"-"+strconv.Itoa(os.Getppid()))
	f, ferr := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if ferr != nil {
		return // another package of this run has said it
	}
	f.Close()
	line := "NOTE: " + text + "\n"
	if w := goStderr(); w != nil {
		io.WriteString(w, line)
		w.Close()
		return
	}
	io.WriteString(os.Stderr, line)
	if target, _ := os.Readlink("/proc/self/fd/2"); isTerminal(target) {
		return
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		io.WriteString(tty, line)
		tty.Close()
	}
}

// goStderr opens the standard error of the go command running this test
// binary, when writing to it cannot overwrite what go writes: a terminal,
// a pipe or socket, or a file opened for appending. nil otherwise.
func goStderr() *os.File {
	proc := "/proc/" + strconv.Itoa(os.Getppid())
	if comm, err := os.ReadFile(proc + "/comm"); err != nil || strings.TrimSpace(string(comm)) != "go" {
		return nil
	}
	target, err := os.Readlink(proc + "/fd/2")
	if err != nil {
		return nil
	}
	if !isTerminal(target) && !strings.HasPrefix(target, "pipe:") && !strings.HasPrefix(target, "socket:") && !appending(proc+"/fdinfo/2") {
		return nil
	}
	f, err := os.OpenFile(proc+"/fd/2", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}

// isTerminal says whether a file descriptor's link names a terminal.
func isTerminal(target string) bool {
	return strings.HasPrefix(target, "/dev/pts/") || strings.HasPrefix(target, "/dev/tty")
}

// appending says whether the descriptor of an fdinfo file was opened with
// O_APPEND (its "flags:" line, octal).
func appending(fdinfo string) bool {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&0o2000 != 0 // O_APPEND on Linux
		}
	}
	return false
}
