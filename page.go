package parcelgate

// Paging of list queries (interface §2.6, interface §4.4 GET rule 1, decisions §8).
const (
	// MaxPageSize caps every page: at most 2000 objects (interface §8).
	MaxPageSize = 2000
	// DefaultPageSize is the page size of product, balance and catalog lists.
	DefaultPageSize = 2000
	// DefaultOrderPageSize is the page size of order lists (interface §4.3 rule 3).
	DefaultOrderPageSize = 200
	// MaxPageNumber bounds the page number a client may ask for. No list
	// comes near it (at one object a page it is over two billion objects),
	// and with it neither the position of a page's first row
	// (MaxPageNumber × MaxPageSize < 2^43) nor the number of the next page
	// can overflow, on any engine.
	MaxPageNumber = 1<<31 - 1
)

// PageRequest asks for one page of a list: the one form every list of
// the services is asked for in (decisions §47, §59). A store reads it as
// a keyset request only: the page after the cursor After, else the page
// starting at the position Offset(), which the store resolves to a key
// through its recorded page boundaries (one function), never by OFFSET
// over the rows.
//
// After, when set, is the opaque cursor a page handed out (its Next, or
// on a list paged both ways its Prev), as carried by the "next" link of
// the previous page. A store resolves it by key, so
// following next links costs the same on the last page as on the first and
// never skips or repeats a row when others change meanwhile.
//
// The surfaces that publish page numbers (the ecom API's page=) or a
// start position (the Tracking API's start=) map them at their edge with
// PageAt and PageFrom. Number is the published page number, kept for the
// edge's own links; every surface asks through PageAt or PageFrom
// (decisions §64), and Offset reads Number only for a request built
// with it alone.
type PageRequest struct {
	Number int
	Size   int
	After  string
	// Start is the position of the page's first row (0: the first row).
	Start int64
}

// PageAt is page number (zero-based) of size rows, as the position of its
// first row: how the ecom API's edge maps page= onto the keyset.
func PageAt(number, size int) PageRequest {
	return PageRequest{Number: number, Size: size, Start: int64(number) * int64(size)}
}

// PageFrom is the limit rows from position start: how the Tracking API's
// edge maps start= and limit= onto the keyset.
func PageFrom(start int64, limit int) PageRequest {
	return PageRequest{Size: limit, Start: start}
}

// Validate checks the page request a client made: Number from 0 to
// MaxPageNumber and Size from 1 to MaxPageSize (interface §2.6: pages are
// zero-based; interface §8: at most 2000 objects a page). Every problem names its
// query parameter, page or size. It is checked before any arithmetic on the
// two numbers.
func (p PageRequest) Validate() error {
	var probs Problems
	if p.Number < 0 || p.Number > MaxPageNumber {
		probs.Add("page", "must be a whole number from 0 to %d, not %d", MaxPageNumber, p.Number)
	}
	if p.Size < 1 || p.Size > MaxPageSize {
		probs.Add("size", "must be a whole number from 1 to %d, not %d", MaxPageSize, p.Size)
	}
	return probs.Err()
}

// Offset is the position of the page's first row: Start, or for a
// request that names only a page number, Number×Size. It does not
// overflow for a request that passed Validate.
func (p PageRequest) Offset() int64 {
	if p.Start > 0 {
		return p.Start
	}
	return int64(p.Number) * int64(p.Size)
}

// Page is one page of a list: the one shape every list of the services
// answers in, the API's, the console's, the operator's and the journal's.
// Next and Prev are opaque cursors that the list that made them resolves;
// a caller hands one back to get the neighbouring page.
type Page[T any] struct {
	Items []T
	// Total is the number of rows of the whole list, on lists that count
	// them (the API's paged lists, interface §2.6 page.totalElements); 0 on
	// the others.
	Total int64
	// Next is the cursor of the page after this one in the list's order
	// (for a newest-first list: the older rows); empty on the last page.
	Next string
	// Prev is the cursor of the page before this one (the newer rows of a
	// newest-first list); empty on the first page and on lists that are
	// read forwards only.
	Prev string
}
