package parcelgate

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MaxQuantity caps a stock quantity. Stock is counted in whole units: a
// warehouse order row's quantity is an integer (spec 2.3), and allocation
// moves whole units between quantity and allocated.
const MaxQuantity = 1_000_000_000

// Balance is the stock and price of one product in one retailer catalog
// (spec 2.5), keyed by (product, retailer, catalog). Quantity is available
// for new orders; Allocated is reserved by open orders. ModifiedAt is the
// modification stamp retailers poll with modifiedFromDate (decisions §6).
//
// Removed marks a balance whose product was removed from the catalog
// (spec 4.4 DELETE balances): only change polls list it, with quantity 0 and
// ModifiedAt the removal, so a poller learns of the removal like of any
// other change; every other read treats it as absent.
type Balance struct {
	ID                int64       `json:"-"`
	ProductExternalID string      `json:"productExternalId"`
	EANCode           string      `json:"eanCode,omitempty"`
	SupplierID        string      `json:"supplierId"`
	RetailerID        string      `json:"retailerId"`
	CatalogExternalID string      `json:"catalogExternalId"`
	Quantity          int64       `json:"quantity"`
	Allocated         int64       `json:"allocated"`
	WholesalePrice    json.Number `json:"wholesalePrice,omitempty"`
	Currency          string      `json:"currency,omitempty"`
	Removed           bool        `json:"removed,omitempty"`
	ModifiedAt        time.Time   `json:"-"`
}

// MarshalJSON writes modifiedDate with exactly six fractional digits, so a
// client that passes it back as modifiedFromDate names the exact stamp.
func (b *Balance) MarshalJSON() ([]byte, error) {
	type plain Balance
	return json.Marshal(struct {
		*plain
		ModifiedDate string `json:"modifiedDate"`
	}{(*plain)(b), FormatStamp(b.ModifiedAt)})
}

// FormatStamp writes an instant as RFC 3339 in UTC with microseconds, the
// precision of modification stamps.
func FormatStamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// BalanceInput is one validated balance entry of PUT /inventory/balances or
// of a PUT /inventory envelope. Nil fields were absent (or null) and stay
// unchanged.
type BalanceInput struct {
	// Index is the entry's position in the request array (the envelope's,
	// inside PUT /inventory); Prefix is prepended to its field names.
	Index             int
	Prefix            string
	ProductExternalID string
	// RetailerID may be empty: with CatalogExternalID, the one retailer
	// whose catalog of that ID is open to the supplier; without, every
	// retailer (spec 4.4 PUT balances rule 3).
	RetailerID string
	// CatalogExternalID empty means every catalog where the product is
	// published (spec 4.4 PUT balances rule 4).
	CatalogExternalID string
	Quantity          *int64
	// Allocated is only ever 0: it releases the allocations (spec 4.4 PUT
	// balances rule 5).
	Allocated      *int64
	WholesalePrice *string
	Currency       *string
}

// BalanceFilter narrows a balance or catalog list (spec 4.4 GET rules 2-3).
type BalanceFilter struct {
	ProductExternalIDs []string
	EANCodes           []string
	RetailerID         string // supplier reads only
	CatalogExternalID  string // supplier reads only
	// ModifiedAfter keeps balances changed strictly after it, by the
	// supplier or by orders; the list is then ordered by modification and
	// also holds the balances removed after it, marked Removed.
	ModifiedAfter time.Time
}

// CatalogRole selects the catalogs of GET /catalogs: those the caller owns
// as retailer, or those it may publish to as supplier.
type CatalogRole string

const (
	CatalogRoleRetailer CatalogRole = "RETAILER"
	CatalogRoleSupplier CatalogRole = "SUPPLIER"
)

// CatalogEntry is a catalog as GET /catalogs shows it (decisions §6).
// SupplierID is set when the caller reads as supplier: itself.
type CatalogEntry struct {
	ExternalID  string      `json:"externalId"`
	Name        string      `json:"catalogName"`
	Type        CatalogType `json:"catalogType"`
	RetailerID  string      `json:"retailerId"`
	SupplierID  string      `json:"supplierId,omitempty"`
	SupplierIDs []string    `json:"supplierIds"`
}

// CatalogReader is the retailer's side of catalogs. Every method acts for
// the Caller in ctx, the retailer that owns the catalogs. A caller with
// role retailer reads all of its catalogs; one with only role merchant
// reads its own Warehouse catalogs (in the warehouse service the merchant
// is its own retailer). A catalog of another retailer, or one the caller
// may not read, is ENOTFOUND.
type CatalogReader interface {
	// ListOwnCatalogs pages the caller's catalogs as retailer, or the
	// catalogs that list it as supplier; any ecom role may ask.
	ListOwnCatalogs(ctx context.Context, role CatalogRole, page PageRequest) (PageOf[*CatalogEntry], error)
	// ListCatalogBalances pages the balances of one catalog, or with an
	// empty catalogExternalID of all the caller's catalogs; a product
	// published to several catalogs appears once per catalog (spec 4.4 GET
	// rule 5). EOS products appear with quantity 0 for EOSVisibility after
	// their deletion, then no more. Balances removed from the catalog
	// appear only with f.ModifiedAfter, as Removed (decisions §6).
	ListCatalogBalances(ctx context.Context, catalogExternalID string, f BalanceFilter, page PageRequest) (PageOf[*Balance], error)
	// ListCatalogProducts pages the products published to one catalog,
	// each with its descriptions and this catalog's balance (spec 4.4); EOS
	// products and removed balances as in ListCatalogBalances (spec 3
	// rules 1-2).
	ListCatalogProducts(ctx context.Context, catalogExternalID string, f BalanceFilter, page PageRequest) (PageOf[*InventoryItem], error)
}

// ParseBalances reads and validates the body of PUT /inventory/balances:
// an array of balance objects (spec 4.4 PUT balances rules 1-5). Every
// problem is reported with its index; it never panics on any input.
func ParseBalances(body []byte) ([]BalanceInput, error) {
	raws, err := parseArray(body, MaxBalanceEntries, "balance objects")
	if err != nil {
		return nil, err
	}
	var p Problems
	out := make([]BalanceInput, len(raws))
	for i, raw := range raws {
		out[i] = parseBalance(i, "", raw, "", &p)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// parseBalance reads one balance object. Inside an envelope, product is
// the envelope's product and the entry may leave productExternalId out.
func parseBalance(i int, prefix string, raw json.RawMessage, product string, p *Problems) BalanceInput {
	in := BalanceInput{Index: i, Prefix: prefix}
	var m map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &m) != nil {
		p.AddAt(i, prefix+"(entry)", "must be a balance object")
		return in
	}
	str := func(name string) (string, bool) {
		v, ok := m[name]
		if !ok || isNull(v) {
			return "", false
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			p.AddAt(i, prefix+name, "must be a string")
			return "", false
		}
		return strings.TrimSpace(s), true
	}
	if s, ok := str("productExternalId"); ok {
		switch {
		case !ValidExternalID(s):
			p.AddAt(i, prefix+"productExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", s)
		case product != "" && s != product:
			p.AddAt(i, prefix+"productExternalId", "is %q but the balance is inside the envelope of product %q", s, product)
		}
		in.ProductExternalID = s
	} else if product != "" {
		in.ProductExternalID = product
	} else if _, present := m["productExternalId"]; !present || isNull(m["productExternalId"]) {
		p.AddAt(i, prefix+"productExternalId", "is required")
	}
	if s, ok := str("retailerId"); ok && s != "" {
		id, err := NormalizeBusinessID(s)
		if err != nil {
			p.AddAt(i, prefix+"retailerId", "%s", ErrorMessage(err))
		}
		in.RetailerID = id
	}
	if s, ok := str("catalogExternalId"); ok && s != "" {
		if !ValidExternalID(s) {
			p.AddAt(i, prefix+"catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", s)
		}
		in.CatalogExternalID = s
	}
	in.Quantity = wholeNumber(m["quantity"], i, prefix+"quantity", p)
	in.Allocated = wholeNumber(m["allocated"], i, prefix+"allocated", p)
	if in.Allocated != nil && *in.Allocated != 0 {
		p.AddAt(i, prefix+"allocated", "can only be set to 0, which releases the allocations (spec 4.4 PUT balances rule 5)")
	}
	if v, ok := m["wholesalePrice"]; ok && !isNull(v) {
		s := strings.TrimSpace(string(v))
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case s == "" || s[0] == '"' || err != nil:
			p.AddAt(i, prefix+"wholesalePrice", "must be a number, not %s", clip(s))
		case f < 0 || math.IsInf(f, 0) || f >= 1e12:
			p.AddAt(i, prefix+"wholesalePrice", "must be from 0 to under 10^12, not %s", s)
		default:
			in.WholesalePrice = &s
		}
	}
	if s, ok := str("currency"); ok {
		s = strings.ToUpper(s)
		if !currencyPattern.MatchString(s) {
			p.AddAt(i, prefix+"currency", "must be a three-letter ISO 4217 code such as EUR, not %q", s)
		}
		in.Currency = &s
	}
	if in.CatalogExternalID == "" && in.Quantity == nil && in.Allocated == nil && in.WholesalePrice == nil && in.Currency == nil {
		p.AddAt(i, prefix+"(entry)", "changes nothing: give catalogExternalId to publish, or quantity, allocated, wholesalePrice or currency to update")
	}
	return in
}

// wholeNumber reads a stock count: a JSON number that is a whole number
// from 0 to MaxQuantity ("2.0" is accepted). Absent or null is nil.
func wholeNumber(raw json.RawMessage, i int, field string, p *Problems) *int64 {
	if isNull(raw) {
		return nil
	}
	s := strings.TrimSpace(string(raw))
	if s[0] == '"' || s[0] == '{' || s[0] == '[' || s == "true" || s == "false" {
		p.AddAt(i, field, "must be a number, not %s", clip(s))
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !strings.Contains(err.Error(), "range"):
		p.AddAt(i, field, "must be a number, not %s", clip(s))
	case f < 0:
		p.AddAt(i, field, "must not be negative, not %s", s)
	case f > MaxQuantity || err != nil:
		p.AddAt(i, field, "must be at most %d, not %s", MaxQuantity, clip(s))
	case f != math.Trunc(f):
		p.AddAt(i, field, "must be a whole number: stock is counted in whole units, not %s", s)
	default:
		n := int64(f)
		return &n
	}
	return nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
