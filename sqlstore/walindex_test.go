package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// TestMain lets the test binary run one SQL statement against a SQLite
// file as a process of its own (PARCELGATE_TEST_SQLITE_FILE and
// PARCELGATE_TEST_SQLITE_EXEC), so a test can commit from outside the
// store, the way the sqlite3 shell or a second server would; or, as
// another process, say which process holds the lock on a -shm file's DMS
// byte (PARCELGATE_TEST_SHM_DMS, see shmDMSHolder).
func TestMain(m *testing.M) {
	if path := os.Getenv("PARCELGATE_TEST_SHM_DMS"); path != "" {
		pid, err := shmDMSHolder(path)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString(strconv.Itoa(pid))
		os.Exit(0)
	}
	if path := os.Getenv("PARCELGATE_TEST_SQLITE_FILE"); path != "" {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err == nil {
			_, err = db.Exec(os.Getenv("PARCELGATE_TEST_SQLITE_EXEC"))
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// commitElsewhere runs stmt against the SQLite file at path from another
// process.
func commitElsewhere(t *testing.T, path, stmt string) {
	t.Helper()
	if err := runElsewhere(path, stmt); err != nil {
		t.Fatalf("commit from another process: %v", err)
	}
}

// runElsewhere runs stmt against the SQLite file at path from another
// process (this test binary, as TestMain allows).
func runElsewhere(path, stmt string) error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PARCELGATE_TEST_SQLITE_FILE="+path, "PARCELGATE_TEST_SQLITE_EXEC="+stmt)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", stmt, err, out)
	}
	return nil
}

// GET one order on SQLite skips the read of an order whose
// answer was read while the database was as it is now, and only then. A
// commit by another process (or any connection) is seen by the very next
// read; a commit that leaves the order as it was costs one read and no
// render; another organization never gets the answer (spec: another
// tenant's object answers like a missing one).
func TestOrderAnswerSkipsReadOnlyWhileNothingCommitted(t *testing.T) {
	ctx := context.Background()
	db, dsn := testdb.OpenDSN(t, "sqlite", nil)
	path := strings.TrimPrefix(dsn, "sqlite:")
	if !db.HasWALIndexForTest() {
		t.Fatal("a SQLite file database maps no WAL index")
	}
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	other := testOrg(t, db, parcelgate.Production, "7654321-2")
	o, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, testOrderRequest(t, c, "A1"))
	if err != nil {
		t.Fatal(err)
	}
	renders := 0
	render := func(o *parcelgate.Order) ([]byte, error) {
		renders++
		return []byte(o.ID + " " + string(o.Status.Value)), nil
	}
	answer := func(c *parcelgate.Caller, id string) string {
		t.Helper()
		body, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, id, encoding("render", render))
		if err != nil {
			t.Fatalf("FindOrderAnswer(%s): %v", id, err)
		}
		return string(body)
	}
	first := answer(c, "A1")
	if !db.AnswerKnownUnchangedForTest(encoding("render", render), c, "A1") {
		t.Fatal("nothing committed since the read, yet the next read would ask the database")
	}
	if got := answer(c, "A1"); got != first || renders != 1 {
		t.Fatalf("unchanged: %q after %q, %d renders", got, first, renders)
	}
	if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, other, "A1", encoding("render", render)); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
		t.Fatalf("another organization read A1: %v", err)
	}
	if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, other, o.ID, encoding("render", render)); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
		t.Fatalf("another organization read %s: %v", o.ID, err)
	}
	if db.AnswerKnownUnchangedForTest(encoding("render", render), other, "A1") {
		t.Fatal("another organization holds A1's answer")
	}

	// A commit by another process that changes the order (and, as every
	// writer of an order does, its change stamp: answers are kept by it).
	commitElsewhere(t, path, "UPDATE orders SET status = 'Cancelled', updated_at = updated_at + 1 WHERE order_id = '"+o.ID+"'")
	if db.AnswerKnownUnchangedForTest(encoding("render", render), c, "A1") {
		t.Fatal("another process's commit went unnoticed")
	}
	if got := answer(c, "A1"); got != o.ID+" Cancelled" || renders != 2 {
		t.Fatalf("after another process cancelled it: %q, %d renders", got, renders)
	}

	// A commit that leaves the order as it was: read again, not rendered.
	commitElsewhere(t, path, "UPDATE organizations SET name = 'Renamed' WHERE id = "+strconv.FormatInt(other.OrgID, 10))
	if db.AnswerKnownUnchangedForTest(encoding("render", render), c, "A1") {
		t.Fatal("a commit elsewhere in the database went unnoticed")
	}
	if got := answer(c, "A1"); got != o.ID+" Cancelled" || renders != 2 {
		t.Fatalf("after an unrelated commit: %q, %d renders", got, renders)
	}
	if !db.AnswerKnownUnchangedForTest(encoding("render", render), c, "A1") {
		t.Fatal("the read after an unrelated commit did not confirm the answer")
	}

	// The store's own commits count the same.
	if _, err := sqlstore.NewOrderService(db).CreateOrder(ctx, c, testOrderRequest(t, c, "A2")); err != nil {
		t.Fatal(err)
	}
	if db.AnswerKnownUnchangedForTest(encoding("render", render), c, "A1") {
		t.Fatal("the store's own commit went unnoticed")
	}

	// Closed, the store asks the database, which refuses.
	db.Close()
	if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(ctx, c, "A1", encoding("render", render)); err == nil {
		t.Fatal("a closed store answered")
	}
}

// A database reached through a symbolic link maps the WAL index SQLite
// uses, next to the real file.
func TestWALIndexThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	link := filepath.Join(dir, "link.db")
	db, err := sqlstore.Open(context.Background(), "sqlite:"+real, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	db = testdb.OpenAt(t, "sqlite:"+link, nil)
	if !db.HasWALIndexForTest() {
		t.Fatal("no WAL index through a symbolic link")
	}
	c := testOrg(t, db, parcelgate.Production, "1234567-1")
	if _, err := sqlstore.NewOrderService(db).CreateOrder(context.Background(), c, testOrderRequest(t, c, "A1")); err != nil {
		t.Fatal(err)
	}
	render := func(o *parcelgate.Order) ([]byte, error) { return []byte(o.Status.Value), nil }
	if _, err := sqlstore.NewOrderService(db).FindOrderAnswer(context.Background(), c, "A1", encoding("render", render)); err != nil {
		t.Fatal(err)
	}
	commitElsewhere(t, real, "UPDATE orders SET status = 'Cancelled', updated_at = updated_at + 1")
	if body, err := sqlstore.NewOrderService(db).FindOrderAnswer(context.Background(), c, "A1", encoding("render", render)); err != nil || string(body) != "Cancelled" {
		t.Fatalf("through the link, after a commit to the real file: %q, %v", body, err)
	}
}
