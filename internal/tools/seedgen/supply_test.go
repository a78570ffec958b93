package seedgen

import (
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

// TestSmallTenantSuppliesAListOfItsOwn: at issue 39's full size the
// smallest organization, the load's small tenant, is a supplier with
// shipments in every status a shipment in progress or ended with its
// order can have, its Created ones filling two pages of the load's equal
// size (10) and the default page (20), so its supplier list is compared
// with the big merchant's at equal pages (decisions §75, §61) — and it
// stays a small supplier beside the big one.
func TestSmallTenantSuppliesAListOfItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("plans issue 39's 300,000 orders")
	}
	g := newModel(Config{Sizes: Large, Seed: 1, Now: time.Now(), Span: 180 * 24 * time.Hour})
	small, big := g.supplied[len(g.orgs)-1], g.supplied[0]
	for _, st := range parcelgate.DropshipStatuses {
		if st != parcelgate.DropshipError && small[st] == 0 {
			t.Errorf("the small tenant supplies no %s shipment: %v", st, small)
		}
	}
	if small[parcelgate.DropshipCreated] < 20 {
		t.Errorf("the small tenant supplies %d Created shipments, want a full default page (20): %v", small[parcelgate.DropshipCreated], small)
	}
	sum := func(m map[parcelgate.DropshipStatus]int) (n int) {
		for _, v := range m {
			n += v
		}
		return n
	}
	if sum(small)*5 > sum(big) {
		t.Errorf("the small tenant supplies %d shipments, the big merchant %d: not a small supplier", sum(small), sum(big))
	}
	t.Logf("small %v, big %v", small, big)
}
