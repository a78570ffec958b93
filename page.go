package parcelgate

// Paging of list queries (spec 2.6, spec 4.4 GET rule 1, decisions §8).
const (
	// MaxPageSize caps every page: at most 2000 objects (spec 8).
	MaxPageSize = 2000
	// DefaultPageSize is the page size of product, balance and catalog lists.
	DefaultPageSize = 2000
	// DefaultOrderPageSize is the page size of order lists (spec 4.3 rule 3).
	DefaultOrderPageSize = 200
)

// PageRequest asks for one page of a list. Number is zero-based.
//
// After, when set, is the opaque cursor of the page's first row, as carried
// by the "next" link of the previous page. A store resolves it by key, so
// following next links costs the same on the last page as on the first and
// never skips or repeats a row when others change meanwhile. A bare page
// number is resolved by position.
type PageRequest struct {
	Number int
	Size   int
	After  string
}

// Offset is the position of the page's first row.
func (p PageRequest) Offset() int64 { return int64(p.Number) * int64(p.Size) }

// PageOf is one page of a list.
type PageOf[T any] struct {
	Items []T
	// Total is the number of rows of the whole list.
	Total int64
	// Next is the cursor of the next page; empty on the last page.
	Next string
}
