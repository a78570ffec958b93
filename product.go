package parcelgate

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
)

// ProductStatus is the server-owned status of a product (spec 2.4, spec 3).
type ProductStatus string

const (
	ProductActive ProductStatus = "ACTIVE"
	// ProductEOS is end of sale: the product was deleted by its supplier.
	ProductEOS ProductStatus = "EOS"
)

// EOSVisibility is how long retailers still see an EOS product, with status
// EOS and balance 0, in their catalog reads (spec 3 rules 1-2, spec 8).
const EOSVisibility = 14 * 24 * time.Hour

// Request limits of the inventory API (DESIGN §8: arrays are capped).
const (
	// MaxInventoryEntries caps the envelopes of PUT /inventory and the
	// entries of DELETE /inventory.
	MaxInventoryEntries = 2000
	// MaxBalanceEntries caps the balance entries of one request, counted
	// over every envelope of a PUT /inventory.
	MaxBalanceEntries = 10000
	// MaxListFilterValues caps a comma-separated filter of a list query.
	MaxListFilterValues = 2000
)

// Product is keyed by (supplier, ExternalID) (spec 2.4, DESIGN §6). It is
// stored as the JSON document the supplier sent, so fields parcelgate does
// not model round-trip; the server owns supplierId and status.
type Product struct {
	ID         int64
	ExternalID string
	SupplierID string
	EANCode    string
	Status     ProductStatus
	// Document is the product object as sent, without supplierId and
	// status and without null members.
	Document   json.RawMessage
	DeletedAt  time.Time
	ModifiedAt time.Time
}

// MarshalJSON writes the document with the server-owned fields in front.
// Document never holds them, so splicing them in cannot duplicate a key.
func (p *Product) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"supplierId":`)
	sid, _ := json.Marshal(p.SupplierID)
	b.Write(sid)
	b.WriteString(`,"status":`)
	st, _ := json.Marshal(p.Status)
	b.Write(st)
	doc := bytes.TrimSpace(p.Document)
	if len(doc) > 2 {
		b.WriteByte(',')
		b.Write(doc[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// InventoryItem is the envelope of the inventory API: a product with its
// balances (spec 4.4 PUT /inventory rule 2).
type InventoryItem struct {
	Product  *Product   `json:"product"`
	Balances []*Balance `json:"balances"`
}

// InventoryInput is one validated envelope of PUT /inventory.
type InventoryInput struct {
	Product  *Product
	Balances []BalanceInput
}

// InventoryFilter narrows the supplier's product list (GET /inventory).
type InventoryFilter struct {
	ProductExternalIDs []string
	EANCodes           []string
	// RetailerID and CatalogExternalID keep the products published there,
	// and of their balances only those.
	RetailerID        string
	CatalogExternalID string
}

// InventoryService is the supplier's side of products and stock. Every
// method acts for the Caller in ctx, whose organization is the supplier;
// the HTTP layer lets a caller with role supplier or merchant (in the
// warehouse service the merchant is its own supplier) call them. Products
// and balances of other suppliers, and of the other environment, answer
// exactly like missing ones.
type InventoryService interface {
	// PutInventory creates or fully replaces each product (spec 4.4 PUT
	// /inventory rule 1) and applies its balances as PutBalances does
	// (rule 2). A product that was EOS becomes ACTIVE again. The request
	// is all-or-nothing: every entry that cannot be applied is reported
	// with its index (EINVALID) and nothing is stored.
	PutInventory(ctx context.Context, entries []InventoryInput) ([]*InventoryItem, error)
	// ListInventory pages the caller's ACTIVE products with their
	// balances, ordered by creation.
	ListInventory(ctx context.Context, f InventoryFilter, page PageRequest) (PageOf[*InventoryItem], error)
	// FindInventoryItem returns one ACTIVE product with its balances, or
	// ENOTFOUND (also for an EOS product: spec 3 rule 3).
	FindInventoryItem(ctx context.Context, externalID string) (*InventoryItem, error)
	// EndOfSale marks products EOS (spec 3): their quantity becomes 0 in
	// every catalog, allocations stay, and they leave the supplier's reads.
	// Products already EOS are left as they are. An unknown product fails
	// the whole request with ENOTFOUND naming each index.
	EndOfSale(ctx context.Context, externalIDs []string) ([]*InventoryItem, error)

	// PutBalances applies balance entries in order (spec 4.4 PUT balances
	// rules 1-5): an entry naming a catalog the product is not published
	// to publishes it, which needs a catalog of that retailer that lists
	// the caller as a supplier; an entry without catalogExternalId updates
	// every catalog where the product is published (of retailerId, when
	// given); only the fields present change, so a quantity update keeps
	// the allocations unless allocated: 0 is sent. All-or-nothing, every
	// failing entry reported with its index (EINVALID).
	PutBalances(ctx context.Context, entries []BalanceInput) ([]*Balance, error)
	// ListSupplierBalances pages the caller's balances in every catalog,
	// EOS products excluded; removed balances only with f.ModifiedAfter,
	// as in ListCatalogBalances.
	ListSupplierBalances(ctx context.Context, f BalanceFilter, page PageRequest) (PageOf[*Balance], error)
	// DeleteBalances removes the product from the catalogs matching
	// retailerID and catalogExternalID, each optional (spec 4.4 DELETE
	// balances rules 1-2), and returns the removed balances as they were.
	// A removed balance stays as a stamped tombstone (Balance.Removed) so
	// that change polls report the removal; publishing the product there
	// again revives it. ENOTFOUND for an unknown product; ECONFLICT when a
	// balance to remove still has allocations of open orders.
	DeleteBalances(ctx context.Context, productExternalID, retailerID, catalogExternalID string) ([]*Balance, error)
}

// productShape types the product fields parcelgate models (spec 2.4), to
// refuse a value of the wrong type; the document itself is kept as sent.
type productShape struct {
	ExternalID             string              `json:"externalId"`
	EANCode                *string             `json:"eanCode"`
	RecommendedRetailPrice *float64            `json:"recommendedRetailPrice"`
	VATPercentage          *float64            `json:"vatPercentage"`
	Measurements           *measurements       `json:"measurements"`
	UnitOfMeasure          *string             `json:"unitOfMeasure"`
	IsFragile              *bool               `json:"isFragile"`
	IsOversized            *bool               `json:"isOversized"`
	IsDangerousGoods       *bool               `json:"isDangerousGoods"`
	HasBestBeforeDate      *bool               `json:"hasBestBeforeDate"`
	HasWarranty            *bool               `json:"hasWarranty"`
	WarrantExpiration      *float64            `json:"warrantExpiration"`
	WarrantSerialCtl       *bool               `json:"warrantSerialControlled"`
	Categories             map[string][]string `json:"categories"`
	Descriptions           map[string]*struct {
		Name *string `json:"name"`
	} `json:"descriptions"`
}

type measurements struct {
	Weight *float64 `json:"weight"`
	Length *float64 `json:"length"`
	Width  *float64 `json:"width"`
	Height *float64 `json:"height"`
	Volume *float64 `json:"volume"`
}

// ParseInventory reads and validates the body of PUT /inventory: an array
// of {product, balances[]}. It reports every problem it finds, each with
// the index of its envelope, and never panics on any input.
func ParseInventory(body []byte) ([]InventoryInput, error) {
	raws, err := parseArray(body, MaxInventoryEntries, "{product, balances}")
	if err != nil {
		return nil, err
	}
	var p Problems
	out := make([]InventoryInput, len(raws))
	nbal := 0
	for i, raw := range raws {
		var env struct {
			Product  json.RawMessage `json:"product"`
			Balances json.RawMessage `json:"balances"`
		}
		if !isObject(raw) || json.Unmarshal(raw, &env) != nil {
			p.AddAt(i, "(entry)", "must be an object {product, balances}")
			continue
		}
		out[i].Product = parseProduct(i, env.Product, &p)
		if isNull(env.Balances) {
			continue
		}
		var bals []json.RawMessage
		if json.Unmarshal(env.Balances, &bals) != nil {
			p.AddAt(i, "balances", "must be an array of balance objects")
			continue
		}
		nbal += len(bals)
		pid := ""
		if out[i].Product != nil {
			pid = out[i].Product.ExternalID
		}
		for j, b := range bals {
			in := parseBalance(i, "balances["+itoa(j)+"].", b, pid, &p)
			out[i].Balances = append(out[i].Balances, in)
		}
	}
	if nbal > MaxBalanceEntries {
		p.Add("balances", "the request holds %d balances; at most %d are allowed in one request", nbal, MaxBalanceEntries)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func parseProduct(i int, raw json.RawMessage, p *Problems) *Product {
	if isNull(raw) {
		p.AddAt(i, "product", "is required")
		return nil
	}
	var doc map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &doc) != nil {
		p.AddAt(i, "product", "must be an object")
		return nil
	}
	delete(doc, "supplierId")
	delete(doc, "status")
	for k, v := range doc {
		if isNull(v) {
			delete(doc, k)
		}
	}
	var shape productShape
	n := p.Len()
	if err := json.Unmarshal(raw, &shape); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			p.AddAt(i, "product."+te.Field, "must be %s, not %s", JSONTypeName(te.Type.Kind().String()), te.Value)
		} else {
			p.AddAt(i, "product", "is not a valid product object")
		}
	}
	prod := &Product{Status: ProductActive}
	if ext, ok := doc["externalId"]; !ok {
		p.AddAt(i, "product.externalId", "is required")
	} else if json.Unmarshal(ext, &prod.ExternalID) != nil {
		if p.Len() == n {
			p.AddAt(i, "product.externalId", "must be a string")
		}
	} else {
		prod.ExternalID = strings.TrimSpace(prod.ExternalID)
		if !ValidExternalID(prod.ExternalID) {
			p.AddAt(i, "product.externalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", prod.ExternalID)
		}
		doc["externalId"], _ = json.Marshal(prod.ExternalID)
	}
	if shape.EANCode != nil {
		prod.EANCode = strings.TrimSpace(*shape.EANCode)
		if len(prod.EANCode) > 64 {
			p.AddAt(i, "product.eanCode", "must be at most 64 characters")
		}
	}
	named := false
	for _, d := range shape.Descriptions {
		if d != nil && d.Name != nil && strings.TrimSpace(*d.Name) != "" {
			named = true
		}
	}
	if !named && p.Len() == n {
		p.AddAt(i, "product.descriptions", "a name is required in at least one language, e.g. descriptions.en.name")
	}
	prod.Document, _ = json.Marshal(doc)
	return prod
}

// ParseEndOfSale reads the body of DELETE /inventory: an array of
// {product: {externalId, status: "EOS"}} (spec 4.4 DELETE /inventory).
func ParseEndOfSale(body []byte) ([]string, error) {
	raws, err := parseArray(body, MaxInventoryEntries, "{product: {externalId, status}}")
	if err != nil {
		return nil, err
	}
	var p Problems
	ids := make([]string, len(raws))
	for i, raw := range raws {
		var e struct {
			Product *struct {
				ExternalID any `json:"externalId"`
				Status     any `json:"status"`
			} `json:"product"`
		}
		if !isObject(raw) || json.Unmarshal(raw, &e) != nil {
			p.AddAt(i, "(entry)", "must be an object {product: {externalId, status}}")
			continue
		}
		if e.Product == nil {
			p.AddAt(i, "product", "is required")
			continue
		}
		id, ok := e.Product.ExternalID.(string)
		id = strings.TrimSpace(id)
		switch {
		case e.Product.ExternalID == nil:
			p.AddAt(i, "product.externalId", "is required")
		case !ok || !ValidExternalID(id):
			p.AddAt(i, "product.externalId", "must be 1-20 characters of letters, digits, '-' and '.'")
		}
		ids[i] = id
		if st, _ := e.Product.Status.(string); st != string(ProductEOS) {
			p.AddAt(i, "product.status", "must be %q: a product is deleted by marking it end of sale (spec 3)", ProductEOS)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return ids, nil
}

// parseArray reads a non-empty JSON array of at most max elements.
func parseArray(body []byte, max int, what string) ([]json.RawMessage, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return nil, &Error{Code: EINVALID, Message: "The request body must be a JSON array of " + what + ".",
			Fields: []FieldError{{Field: "(body)", Message: "must be an array of " + what}}}
	}
	switch {
	case len(raws) == 0:
		return nil, &Error{Code: EINVALID, Message: "The request body holds no entries.", Fields: []FieldError{{Field: "(body)", Message: "must hold at least one entry"}}}
	case len(raws) > max:
		return nil, &Error{Code: EINVALID, Message: "The request body holds " + itoa(len(raws)) + " entries; at most " + itoa(max) + " are allowed.",
			Fields: []FieldError{{Field: "(body)", Message: "must hold at most " + itoa(max) + " entries"}}}
	}
	return raws, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// JSONTypeName names the JSON type a Go kind decodes from, for messages
// such as "must be a boolean".
func JSONTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "a " + kind
}
