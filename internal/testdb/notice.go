package testdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
// skipped, and the command that would run them. go test hides the output
// of passing packages (t.Skipf's message shows only with -v), so the notice
// goes to the terminal itself; without one (CI, a pipe) there is nobody to
// tell, and under CI such tests fail instead of skipping. The first test
// binary of a run to get here prints it: the marker file is keyed by the go
// command's process ID, the test binaries' parent.
func Notice(key, text string) {
	tty, terr := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if terr != nil {
		return
	}
	defer tty.Close()
	marker := filepath.Join(os.TempDir(), "parcelgate-"+key+"-"+strconv.Itoa(os.Getppid()))
	f, ferr := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if ferr != nil {
		return // another package of this run has said it
	}
	f.Close()
	fmt.Fprintf(tty, "NOTE: %s\n", text)
}
