package parcelgate

import (
	"math"
	"testing"
)

// interface §2.6 (zero-based pages), interface §8 (at most 2000 objects a page), and
// A page number that would overflow the offset
// arithmetic is refused naming page; a bad size names size.
func TestPageRequestValidate(t *testing.T) {
	for _, tc := range []struct {
		pr     PageRequest
		fields []string
	}{
		{PageRequest{Number: 0, Size: 1}, nil},
		{PageRequest{Number: MaxPageNumber, Size: MaxPageSize}, nil},
		{PageRequest{Number: -1, Size: 10}, []string{"page"}},
		{PageRequest{Number: MaxPageNumber + 1, Size: 10}, []string{"page"}},
		{PageRequest{Number: 4611686018427387904, Size: 2}, []string{"page"}},
		{PageRequest{Number: math.MaxInt, Size: 10}, []string{"page"}},
		{PageRequest{Number: 0, Size: 0}, []string{"size"}},
		{PageRequest{Number: 0, Size: MaxPageSize + 1}, []string{"size"}},
		{PageRequest{Number: math.MinInt, Size: math.MinInt}, []string{"page", "size"}},
	} {
		err := tc.pr.Validate()
		var got []string
		for _, f := range ErrorFields(err) {
			got = append(got, f.Field)
		}
		if len(got) != len(tc.fields) || (err != nil && ErrorCode(err) != EINVALID) {
			t.Errorf("%+v: %v, want problems with %v", tc.pr, err, tc.fields)
			continue
		}
		for i := range got {
			if got[i] != tc.fields[i] {
				t.Errorf("%+v: problems with %v, want %v", tc.pr, got, tc.fields)
			}
		}
	}
	// The largest valid request: its offset and the next page's number are
	// positive and exact.
	last := PageRequest{Number: MaxPageNumber, Size: MaxPageSize}
	if off := last.Offset(); off <= 0 || off != int64(MaxPageNumber)*MaxPageSize || last.Number+1 <= 0 {
		t.Fatalf("offset %d", off)
	}
}
