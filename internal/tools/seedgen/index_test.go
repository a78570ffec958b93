package seedgen

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// TestFillBuildsEveryIndexAgain: the fill drops the migrations' secondary
// indexes while the rows go in and builds them again, so a filled
// database has every index a migrated one has, with the same definition.
func TestFillBuildsEveryIndexAgain(t *testing.T) {
	for _, engine := range testdb.Engines {
		if engine == "memory" {
			continue
		}
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			dsn := func(name string) string {
				if engine == "postgres" {
					return testdb.PostgresSchema(t)
				}
				return "sqlite:" + filepath.Join(t.TempDir(), name)
			}
			indexes := func(dsn string) []index {
				out, err := openSink(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer out.close()
				idx, err := out.secondaryIndexes(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return idx
			}
			migrated := dsn("migrated.db")
			db, err := sqlstore.Open(ctx, migrated, parcelgate.SystemClock{})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			db.Close()
			want := indexes(migrated)
			if len(want) < 10 {
				t.Fatalf("a migrated database has %d secondary indexes; the catalog query finds too few", len(want))
			}
			filled := dsn("filled.db")
			if _, err := Run(ctx, Config{DSN: filled, Sizes: Sizes{Orgs: 6, Products: 60, PerShop: 10, Orders: 60, Shipments: 80, Journal: 30}, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			got := indexes(filled)
			// PostgreSQL's definitions name the schema, one per test.
			strip := func(x []index) []string {
				var names []string
				for _, i := range x {
					names = append(names, i.name)
				}
				return names
			}
			if !slices.Equal(strip(got), strip(want)) {
				t.Fatalf("indexes after the fill:\n%v\nwant\n%v", strip(got), strip(want))
			}
			if engine == "sqlite" && !slices.Equal(got, want) {
				t.Fatalf("index definitions changed by the fill:\n%v\nwant\n%v", got, want)
			}
		})
	}
}
