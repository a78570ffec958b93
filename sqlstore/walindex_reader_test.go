package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// issue 39: an operator's sqlite3 on the live database broke writes
// ("begin: disk I/O error (8714)", SQLITE_IOERR_IN_PAGE). Another process
// that opens the database file — the sqlite3 shell, read-only or not, or
// a second program on SQLite — must never cost the server a write: while
// writers run through the store, the shell (when installed) and a second
// process of this test binary read the file again and again, and every
// write succeeds.
func TestAnotherProcessReadingTheFileCostsNoWrite(t *testing.T) {
	ctx := context.Background()
	db, dsn := testdb.OpenDSN(t, "sqlite", nil)
	path := strings.TrimPrefix(dsn, "sqlite:")
	if !db.HasWALIndexForTest() {
		t.Fatal("a SQLite file database maps no WAL index")
	}
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	orders := sqlstore.NewOrderService(db)
	// The cause, checked directly: while the store is open, this process
	// holds its lock on the -shm file's DMS byte, as every process using
	// the database must, so another process that opens the file knows it
	// is not alone.
	if runtime.GOOS == "linux" {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PARCELGATE_TEST_SHM_DMS="+path+"-shm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("asking another process for the -shm lock: %v", err)
		}
		if string(out) != strconv.Itoa(os.Getpid()) {
			t.Fatalf("the -shm file's DMS byte is held by pid %q, not this process (%d): another process would truncate the file under the store", out, os.Getpid())
		}
	}

	var readers []func() error
	if shell, err := exec.LookPath("sqlite3"); err == nil {
		for _, args := range [][]string{
			{"-readonly", path, "select count(*) from orders"},
			{path, "select count(*) from orders"},
		} {
			readers = append(readers, func() error {
				out, err := exec.Command(shell, args...).CombinedOutput()
				if err != nil {
					return fmt.Errorf("sqlite3 %v: %v: %s", args, err, out)
				}
				return nil
			})
		}
	} else {
		t.Log("no sqlite3 shell installed: reading from a second process of this binary only")
	}
	readers = append(readers, func() error {
		return runElsewhere(path, "SELECT count(*) FROM orders")
	})

	var (
		stop   atomic.Bool
		wg     sync.WaitGroup
		writes atomic.Int64
		mu     sync.Mutex
		failed []error
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if _, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, fmt.Sprintf("W%d-%d", w, i))); err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
					continue
				}
				writes.Add(1)
			}
		})
	}
	for round := range 4 {
		for _, read := range readers {
			if err := read(); err != nil {
				t.Errorf("round %d: %v", round, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	stop.Store(true)
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d of %d writes failed while another process read the file; first: %v", len(failed), int(writes.Load())+len(failed), failed[0])
	}
	if writes.Load() == 0 {
		t.Fatal("no write ran while the file was read")
	}
	// The store still answers, and the file is whole.
	if _, err := orders.CreateOrder(ctx, c, testOrderRequest(t, c, "after")); err != nil {
		t.Fatalf("a write after the readers left: %v", err)
	}
	if err := runElsewhere(path, "PRAGMA integrity_check"); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d writes, %d reads by other processes", writes.Load(), 4*len(readers))
}
