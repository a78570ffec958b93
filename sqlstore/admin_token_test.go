package sqlstore_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// The first generated admin token's hash is kept: a later start (or an
// instance starting at the same time) with a token of its own gets the
// first one back, so it prints nothing and the printed token keeps working.
func TestAdminTokenKeepsTheFirst(t *testing.T) {
	testdb.Each(t, nil, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		s := sqlstore.NewAdminTokenService(db)
		hashes := make([][]byte, 8)
		kept := make([][]byte, 8)
		var wg sync.WaitGroup
		for i := range hashes {
			hashes[i] = bytes.Repeat([]byte{byte(i + 1)}, 32)
			wg.Go(func() {
				var err error
				if kept[i], err = s.Keep(ctx, hashes[i]); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		winners := 0
		for i := range kept {
			if !bytes.Equal(kept[i], kept[0]) {
				t.Fatalf("instances starting together kept different tokens: %x and %x", kept[0], kept[i])
			}
			if bytes.Equal(kept[i], hashes[i]) {
				winners++
			}
		}
		if winners != 1 {
			t.Errorf("%d instances would print their token as the kept one, want 1", winners)
		}
		later, err := s.Keep(ctx, bytes.Repeat([]byte{0xff}, 32))
		if err != nil || !bytes.Equal(later, kept[0]) {
			t.Errorf("a later start kept %x, %v; want the first %x", later, err, kept[0])
		}
	})
}
