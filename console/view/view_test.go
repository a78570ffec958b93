package view_test

import (
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console/view"
)

// decisions §18: the console's order filter is checked by the root's rule
// (ValidConsoleOrderFilter), which names the console's fields; the view
// only carries the texts to it.
func TestOrderFilterValidateIsTheRootRule(t *testing.T) {
	for _, f := range []view.OrderFilter{
		{},
		{Reference: strings.Repeat("r", parcelgate.MaxConsoleReference), Warehouse: strings.Repeat("w", parcelgate.MaxConsoleWarehouse)},
		{Reference: strings.Repeat("r", parcelgate.MaxConsoleReference+1)},
		{Warehouse: strings.Repeat("w", parcelgate.MaxConsoleWarehouse+1)},
		{Reference: strings.Repeat("r", parcelgate.MaxConsoleReference+1), Warehouse: strings.Repeat("w", parcelgate.MaxConsoleWarehouse+1)},
	} {
		got, want := parcelgate.ErrorFields(f.Validate()), parcelgate.ErrorFields(parcelgate.ValidConsoleOrderFilter(f.Reference, f.Warehouse))
		if len(got) != len(want) {
			t.Fatalf("%d/%d bytes: %+v, want the root's %+v", len(f.Reference), len(f.Warehouse), got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%d/%d bytes: %+v, want the root's %+v", len(f.Reference), len(f.Warehouse), got, want)
			}
		}
	}
}
