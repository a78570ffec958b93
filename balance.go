package parcelgate

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MaxQuantity caps a stock quantity. Stock is counted in whole units: a
// warehouse order row's quantity is an integer (interface §2.3), and allocation
// moves whole units between quantity and allocated.
const MaxQuantity = 1_000_000_000

// Balance is the stock and price of one product in one retailer catalog
// (interface §2.5), keyed by (product, retailer, catalog). Quantity is available
// for new orders; Allocated is reserved by open orders. ModifiedAt is the
// modification stamp retailers poll with modifiedFromDate (decisions §6).
//
// Removed marks a balance whose product was removed from the catalog
// (interface §4.4 DELETE balances): only change polls list it, with quantity 0 and
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
	return b.AppendJSON(make([]byte, 0, 256))
}

// AppendJSON appends the balance to dst as json.Marshal writes it with the
// fields in the order of the struct and modifiedDate last (the bytes of
// TestBalanceAppendJSONIsMarshal), without reflection: a catalog page of
// 2,000 balances spent a third of its encoding in it.
func (b *Balance) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"productExternalId":`...)
	dst = appendJSONString(dst, b.ProductExternalID)
	if b.EANCode != "" {
		dst = append(dst, `,"eanCode":`...)
		dst = appendJSONString(dst, b.EANCode)
	}
	dst = append(dst, `,"supplierId":`...)
	dst = appendJSONString(dst, b.SupplierID)
	dst = append(dst, `,"retailerId":`...)
	dst = appendJSONString(dst, b.RetailerID)
	dst = append(dst, `,"catalogExternalId":`...)
	dst = appendJSONString(dst, b.CatalogExternalID)
	dst = append(dst, `,"quantity":`...)
	dst = strconv.AppendInt(dst, b.Quantity, 10)
	dst = append(dst, `,"allocated":`...)
	dst = strconv.AppendInt(dst, b.Allocated, 10)
	if b.WholesalePrice != "" {
		dst = append(dst, `,"wholesalePrice":`...)
		if plainDecimal(string(b.WholesalePrice)) {
			dst = append(dst, b.WholesalePrice...)
		} else {
			n, err := json.Marshal(b.WholesalePrice)
			if err != nil {
				return nil, err
			}
			dst = append(dst, n...)
		}
	}
	if b.Currency != "" {
		dst = append(dst, `,"currency":`...)
		dst = appendJSONString(dst, b.Currency)
	}
	if b.Removed {
		dst = append(dst, `,"removed":true`...)
	}
	dst = append(dst, `,"modifiedDate":"`...)
	dst = appendStamp(dst, b.ModifiedAt)
	return append(dst, `"}`...), nil
}

// appendStamp appends t as FormatStamp writes it, with the digits placed by
// hand: time.Time.AppendFormat parses its layout on every call, and a
// catalog page of 100 balances spent a sixth of its encoding there. Years
// outside 0-9999 go through AppendFormat.
func appendStamp(dst []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(dst, "2006-01-02T15:04:05.000000Z07:00")
	}
	hour, minute, sec := t.Clock()
	us := t.Nanosecond() / 1000
	var b [27]byte
	putDigits(b[0:4], year)
	b[4] = '-'
	putDigits(b[5:7], int(month))
	b[7] = '-'
	putDigits(b[8:10], day)
	b[10] = 'T'
	putDigits(b[11:13], hour)
	b[13] = ':'
	putDigits(b[14:16], minute)
	b[16] = ':'
	putDigits(b[17:19], sec)
	b[19] = '.'
	putDigits(b[20:26], us)
	b[26] = 'Z'
	return append(dst, b[:]...)
}

// putDigits writes v's last len(b) decimal digits into b, zero-padded.
func putDigits(b []byte, v int) {
	for j := len(b) - 1; j >= 0; j-- {
		b[j] = byte('0' + v%10)
		v /= 10
	}
}

// appendJSONString appends s as json.Marshal quotes it: as it is when every
// byte is printable ASCII that needs no escape (HTML's <, > and & included,
// which json.Marshal escapes), else through json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(dst, q...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainDecimal reports whether s is -?(0|[1-9][0-9]*)(.[0-9]+)?, a JSON
// number json.Marshal writes as it is.
func plainDecimal(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	intPart, frac, dot := strings.Cut(s, ".")
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') || !allDigits(intPart) {
		return false
	}
	return !dot || (frac != "" && allDigits(frac))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatStamp writes an instant as RFC 3339 in UTC with microseconds, the
// precision of modification stamps.
func FormatStamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")
}

// BalanceInput is one balance entry of PUT /inventory/balances or of a PUT
// /inventory envelope, as read from the request. Nil fields were absent (or
// null) and stay unchanged.
type BalanceInput struct {
	ProductExternalID string
	// RetailerID may be empty: with CatalogExternalID, the one retailer
	// whose catalog of that ID is open to the supplier; without, every
	// retailer (interface §4.4 PUT balances rule 3).
	RetailerID string
	// CatalogExternalID empty means every catalog where the product is
	// published (interface §4.4 PUT balances rule 4).
	CatalogExternalID string
	Quantity          *int64
	// Allocated is only ever 0: it releases the allocations (interface §4.4 PUT
	// balances rule 5).
	Allocated *int64
	// WholesalePrice is the decimal as sent (ParsePrice).
	WholesalePrice *string
	Currency       *string
}

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// Validate normalizes the entry of supplier businessID and reports every
// problem with it, each field named as in the request object. Inside a PUT
// /inventory envelope the envelope fills ProductExternalID first.
func (in *BalanceInput) Validate(businessID string) error {
	var p Problems
	in.ProductExternalID = strings.TrimSpace(in.ProductExternalID)
	checkProductID(&p, "productExternalId", businessID, in.ProductExternalID)
	if in.RetailerID = strings.TrimSpace(in.RetailerID); in.RetailerID != "" {
		id, err := NormalizeBusinessID(in.RetailerID)
		if err != nil {
			p.Add("retailerId", "%s", ErrorMessage(err))
		}
		in.RetailerID = id
	}
	if in.CatalogExternalID = strings.TrimSpace(in.CatalogExternalID); in.CatalogExternalID != "" && !ValidExternalID(in.CatalogExternalID) {
		p.Add("catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", in.CatalogExternalID)
	}
	if in.Quantity != nil && (*in.Quantity < 0 || *in.Quantity > MaxQuantity) {
		p.Add("quantity", "must be from 0 to %d, not %d", MaxQuantity, *in.Quantity)
	}
	if in.Allocated != nil && *in.Allocated != 0 {
		p.Add("allocated", "can only be set to 0, which releases the allocations (interface §4.4 PUT balances rule 5)")
	}
	if in.WholesalePrice != nil {
		if _, err := ParsePrice(*in.WholesalePrice); err != nil {
			p.Add("wholesalePrice", "%s", ErrorMessage(err))
		}
	}
	if in.Currency != nil {
		c := strings.ToUpper(strings.TrimSpace(*in.Currency))
		in.Currency = &c
		if !currencyPattern.MatchString(c) {
			p.Add("currency", "must be a three-letter ISO 4217 code such as EUR, not %q", c)
		}
	}
	if in.CatalogExternalID == "" && in.Quantity == nil && in.Allocated == nil && in.WholesalePrice == nil && in.Currency == nil {
		p.Add("(entry)", "changes nothing: give catalogExternalId to publish, or quantity, allocated, wholesalePrice or currency to update")
	}
	return p.Err()
}

// CheckBalances normalizes the entries of a PUT /inventory/balances of
// supplier businessID and reports every problem with them (Validate), all
// or nothing: one EINVALID naming each field at its entry's position
// ("[1].quantity"), nil when there is none; more than MaxBalanceEntries
// entries are refused as a whole. PutBalances asks it (decisions §57); a
// front end asks it too only to show its own reading's problems with the
// rules' at once.
func CheckBalances(businessID string, entries []BalanceInput) error {
	if len(entries) == 0 {
		return Errorf(EINVALID, "A PUT /inventory/balances holds at least one entry.")
	}
	if len(entries) > MaxBalanceEntries {
		return Errorf(EINVALID, "A PUT /inventory/balances holds at most %d entries, not %d.", MaxBalanceEntries, len(entries))
	}
	var p Problems
	for i := range entries {
		for _, f := range ErrorFields(entries[i].Validate(businessID)) {
			p.AddAt(i, f.Field, "%s", f.Message)
		}
	}
	return p.Err()
}

// ParseStockCount reads a stock count given as the text of a JSON number:
// a whole number from 0 to MaxQuantity ("2.0" is accepted). Stock is
// counted in whole units: order rows allocate whole units.
func ParseStockCount(text string) (int64, error) {
	s := strings.TrimSpace(text)
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !strings.Contains(err.Error(), "range"):
		return 0, Errorf(EINVALID, "must be a number, not %s", clip(s))
	case f < 0:
		return 0, Errorf(EINVALID, "must not be negative, not %s", clip(s))
	case f > MaxQuantity || err != nil:
		return 0, Errorf(EINVALID, "must be at most %d, not %s", MaxQuantity, clip(s))
	case f != math.Trunc(f):
		return 0, Errorf(EINVALID, "must be a whole number: stock is counted in whole units, not %s", clip(s))
	}
	return int64(f), nil
}

// ParsePrice reads a wholesale price given as the text of a JSON number:
// from 0 to under 10^12. It is kept as the decimal text sent.
func ParsePrice(text string) (string, error) {
	s := strings.TrimSpace(text)
	f, err := strconv.ParseFloat(s, 64)
	switch {
	case s == "" || err != nil && !strings.Contains(err.Error(), "range"):
		return "", Errorf(EINVALID, "must be a number, not %s", clip(s))
	case f < 0 || math.IsInf(f, 0) || f >= 1e12:
		return "", Errorf(EINVALID, "must be from 0 to under 10^12, not %s", clip(s))
	}
	return s, nil
}

// BalanceFilter narrows a balance or catalog list (interface §4.4 GET rules 2-3).
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

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// ReadableCatalogTypes says which of its own catalogs c may read as
// retailer: nil means all of them (ActionReadAllCatalogs: role retailer);
// otherwise only those of the types listed: with ActionReadWarehouseCatalogs
// alone (a merchant, its own retailer in the warehouse service) its Posti
// catalogs. A caller that may read none gets an empty, non-nil list.
func ReadableCatalogTypes(c *Caller) []CatalogType {
	switch {
	case c.May(ActionReadAllCatalogs) == nil:
		return nil
	case c.May(ActionReadWarehouseCatalogs) == nil:
		return []CatalogType{CatalogPosti}
	}
	return []CatalogType{}
}
