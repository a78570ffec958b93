package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parcelgate/parcelgate/sqlstore"
)

// --db sqlite:PATH opens exactly PATH, whatever characters it holds: in a
// file: URI an unescaped '#' or '?' would cut it short.
func TestOpenSQLiteUsesTheExactPath(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a#b.db", "c?d.db", "e%20f.db", "g h.db", "sub/dir/x.db"} {
		path := filepath.Join(dir, name)
		db, err := sqlstore.Open(context.Background(), "sqlite:"+path, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		db.Close()
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("%s: database not at its path: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if e.Name() == "a" || e.Name() == "c" {
			t.Errorf("a database was opened at a cut-short path %s", e.Name())
		}
	}
}
