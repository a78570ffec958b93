package sqlstore

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// decisions §77: migration 0058's SQL is generated from Go when it runs;
// a database it migrated holds what that text made, so the text may not
// change when later levels are added (0059's eras have placeholders of
// their own). The digests are of the text at 3c7f536, where 0058 was
// merged.
func TestMigration0058Frozen(t *testing.T) {
	want := map[string][2]string{
		"sqlite":   {"ade649f17b1221b37bff2fd25f6b9d0389e664e87881c770dd13ea28fdeaae2e", "bc12dbb698b261ea7d9798c9a7d0ee32993e41c8c6946ecc9221a3d5b7143970"},
		"postgres": {"2f618c1f4594aba219aac48ec00744fec0a941b9257d203b3bea796ec3abbe77", "bc12dbb698b261ea7d9798c9a7d0ee32993e41c8c6946ecc9221a3d5b7143970"},
	}
	for _, d := range []dialect{sqliteDialect, postgresDialect} {
		for i, key := range []string{"{{kept_order_spans}}", "{{kept_order_spans_fill}}"} {
			if got := fmt.Sprintf("%x", sha256.Sum256([]byte(d.ddl[key]))); got != want[d.name][i] {
				t.Errorf("%s %s: the generated text of migration 0058 changed (sha256 %s):\n%s", d.name, key, got, d.ddl[key])
			}
		}
	}
}
