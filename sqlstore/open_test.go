package sqlstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parcelgate/parcelgate"
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

// --db memory (and sqlite::memory:) is a full database, private
// to the store that opened it and gone when it is closed.
func TestOpenMemory(t *testing.T) {
	ctx := context.Background()
	for _, dsn := range []string{"memory", "sqlite::memory:"} {
		a, err := sqlstore.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		if err := a.Migrate(ctx); err != nil {
			t.Fatalf("%s: migrate: %v", dsn, err)
		}
		o := &parcelgate.Organization{Environment: parcelgate.Test, BusinessID: "1234567-1", Name: "A"}
		if err := sqlstore.NewOrganizationService(a).CreateOrganization(ctx, parcelgate.EnvironmentOperator(o.Environment), o); err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		// The reader pool sees what the writer wrote: one database.
		if _, err := sqlstore.NewOrganizationService(a).FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), "1234567-1"); err != nil {
			t.Fatalf("%s: written organization not read back: %v", dsn, err)
		}
		// A second memory store is another database.
		b, err := sqlstore.Open(ctx, dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := sqlstore.NewOrganizationService(b).FindOrganization(ctx, parcelgate.EnvironmentOperator(parcelgate.Test), "1234567-1"); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
			t.Fatalf("%s: a second memory store shares data: %v", dsn, err)
		}
		a.Close()
		b.Close()
	}
}
