package parcelgate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// ProductStatus is the server-owned status of a product (interface §2.4, interface §3).
type ProductStatus string

const (
	ProductActive ProductStatus = "ACTIVE"
	// ProductEOS is end of sale: the product was deleted by its supplier.
	ProductEOS ProductStatus = "EOS"
)

// EOSVisibility is how long retailers still see an EOS product, with status
// EOS and balance 0, in their catalog reads (interface §3 rules 1-2, interface §8).
const EOSVisibility = 14 * 24 * time.Hour

// Request limits of the inventory API (decisions §8: arrays are capped).
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

// Product is keyed by (supplier, ExternalID) (interface §2.4, decisions §6). It is
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
// balances (interface §4.4 PUT /inventory rule 2).
type InventoryItem struct {
	Product  *Product   `json:"product"`
	Balances []*Balance `json:"balances"`
}

// InventoryWriter takes a page of the inventory as WriteInventory reads
// it: Head first, with the page's total and the next page's cursor (as
// ListInventory's Page has them), then Items with each chunk of the
// page's items in order. A read done again from the start (another
// database answering) calls Head again; a writer that has already sent
// part of the page answers that with an error.
type InventoryWriter interface {
	Head(total int64, next string) error
	Items(items []*InventoryItem) error
}

// InventoryChunk is how many products of an inventory page are read,
// and handed to an InventoryWriter, at a time.
const InventoryChunk = 500

// InventoryInput is one envelope of PUT /inventory, as read from the
// request: the product and the balances that publish it (interface §4.4 PUT
// /inventory rules 1-3), or, with Status EOS and no balances, the end of
// the product's sale (interface §3, as DELETE /inventory).
type InventoryInput struct {
	Product *Product
	// Status is product.status as sent. EOS with no balances ends the
	// sale (EndsSale); any other value, or EOS alongside balances, is the
	// server's to set and ignored: the entry creates or replaces.
	Status string
	// Named reports whether some description carries a non-empty name.
	Named    bool
	Balances []BalanceInput
}

// EndsSale reports whether the envelope ends the product's sale instead of
// writing it: product.status EOS and no balances, which is how the
// warehouse plugin removes a product (interface §3: as DELETE /inventory).
func (in *InventoryInput) EndsSale() bool {
	return ProductStatus(strings.TrimSpace(in.Status)) == ProductEOS && len(in.Balances) == 0
}

// Validate normalizes the envelope of supplier businessID and reports every
// problem with it, each field named within the envelope
// ("product.externalId", "balances[0].quantity").
func (in *InventoryInput) Validate(businessID string) error {
	var p Problems
	if in.Product == nil {
		p.Add("product", "is required")
		return p.Err()
	}
	in.Product.ExternalID = strings.TrimSpace(in.Product.ExternalID)
	checkProductID(&p, "product.externalId", businessID, in.Product.ExternalID)
	in.Product.EANCode = strings.TrimSpace(in.Product.EANCode)
	if len(in.Product.EANCode) > 64 {
		p.Add("product.eanCode", "must be at most 64 characters")
	}
	if !in.Named && !in.EndsSale() {
		p.Add("product.descriptions", "a name is required in at least one language, e.g. descriptions.en.name")
	}
	for j := range in.Balances {
		b := &in.Balances[j]
		path := "balances[" + itoa(j) + "]."
		if b.ProductExternalID == "" {
			b.ProductExternalID = in.Product.ExternalID
		} else if ProductKey(businessID, strings.TrimSpace(b.ProductExternalID)) != ProductKey(businessID, in.Product.ExternalID) {
			p.Add(path+"productExternalId", "is %q but the balance is inside the envelope of product %q", b.ProductExternalID, in.Product.ExternalID)
		}
		for _, f := range ErrorFields(b.Validate(businessID)) {
			p.Add(path+f.Field, "%s", f.Message)
		}
	}
	return p.Err()
}

// CheckInventory normalizes the envelopes of a PUT /inventory of
// supplier businessID and returns those with problems (Validate), by
// position, each an EINVALID naming its fields within the envelope: they
// are not applied, the others are (interface §4.4 PUT /inventory). More
// than MaxInventoryEntries envelopes, or MaxBalanceEntries balances in
// all, fail the request as a whole. PutInventory asks it (decisions §57);
// a front end asks it too only to show its own reading's problems with
// the rules' at once.
func CheckInventory(businessID string, entries []InventoryInput) (InventoryFailures, error) {
	nbal := 0
	for i := range entries {
		nbal += len(entries[i].Balances)
	}
	if len(entries) == 0 {
		return nil, Errorf(EINVALID, "A PUT /inventory holds at least one envelope.")
	}
	if len(entries) > MaxInventoryEntries || nbal > MaxBalanceEntries {
		return nil, Errorf(EINVALID, "A PUT /inventory holds at most %d envelopes and %d balances, not %d and %d.", MaxInventoryEntries, MaxBalanceEntries, len(entries), nbal)
	}
	bad := InventoryFailures{}
	for i := range entries {
		if err := entries[i].Validate(businessID); err != nil {
			bad[i] = err.(*Error)
		}
	}
	return bad, nil
}

// checkProductID checks a product externalId of supplier businessID (spec
// 2.4): 1-20 letters, digits, '-' and '.', bare or with the supplier's own
// prefix, never with another business's.
func checkProductID(p *Problems, field, businessID, id string) {
	switch {
	case id == "":
		p.Add(field, "is required")
	case !ValidExternalID(id):
		p.Add(field, "must be 1-20 characters of letters, digits, '-' and '.', not %q", id)
	default:
		if other, ok := OtherBusinessPrefix(businessID, id); ok {
			p.Add(field, "%q starts with business ID %s, which is not yours (%s): send the ID bare or with your own prefix", id, other, businessID)
		}
	}
}

// ProductQuery narrows the products a caller sees (InventoryService's
// ListProducts): Search, when given, keeps those whose externalId starts
// with it, ignoring the case of ASCII letters, or whose EAN code is it
// (decisions §58: a prefix, which an index serves; it was a substring).
type ProductQuery struct {
	Search string
}

// ScopedProduct is a product of the caller's ConsoleProductScope with the
// stock it sees of it (InventoryService's ListProducts and FindProduct):
// Own when the caller supplies it (else it is published to one of the
// caller's catalogs). The stock is that of every catalog of a product the
// caller supplies, else that of the caller's own catalogs it may read:
// its Total here, its balances by catalog a page at a time from
// ProductStock.
type ScopedProduct struct {
	Product *Product
	Own     bool
	Total   StockTotal
}

// StockTotal is a product's stock summed over the live balances a caller
// sees of it (decisions §58): the console's product list shows this one
// figure, the product's page the catalogs.
type StockTotal struct {
	Quantity  int64
	Allocated int64
	// Catalogs is the number of those balances.
	Catalogs int
}

// CatalogStock is one balance of a ScopedProduct with the catalog it is
// in: the balance (its retailer, catalog, quantity, allocated, price,
// Removed) and the catalog's name and type.
type CatalogStock struct {
	Balance     *Balance
	CatalogName string
	CatalogType CatalogType
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

// BalanceRemoval names the catalogs to remove a product from (interface §4.4
// DELETE balances rules 1-2): RetailerID and CatalogExternalID are each
// optional; left out, every catalog where the product is.
type BalanceRemoval struct {
	ProductExternalID string
	RetailerID        string
	CatalogExternalID string
}

// Validate normalizes r and reports every problem with it.
func (r *BalanceRemoval) Validate(businessID string) error {
	var p Problems
	r.ProductExternalID = strings.TrimSpace(r.ProductExternalID)
	checkProductID(&p, "productExternalId", businessID, r.ProductExternalID)
	if r.RetailerID = strings.TrimSpace(r.RetailerID); r.RetailerID != "" {
		id, err := NormalizeBusinessID(r.RetailerID)
		if err != nil {
			p.Add("retailerId", "%s", ErrorMessage(err))
		}
		r.RetailerID = id
	}
	if r.CatalogExternalID = strings.TrimSpace(r.CatalogExternalID); r.CatalogExternalID != "" && !ValidExternalID(r.CatalogExternalID) {
		p.Add("catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", r.CatalogExternalID)
	}
	return p.Err()
}

// CheckRemoval decides whether balance b may be removed from its catalog
// (interface §4.4 DELETE balances): not while open orders hold allocations there,
// which would be lost; the supplier releases them first (PUT balances rule
// 5). ECONFLICT says so.
func CheckRemoval(b *Balance) error {
	if b.Allocated > 0 {
		return Errorf(ECONFLICT, "Product %s has %d allocated to open orders in catalog %s of retailer %s; release them first by setting its balance's allocated to 0.", b.ProductExternalID, b.Allocated, b.CatalogExternalID, b.RetailerID)
	}
	return nil
}

// EOSVisibleSince is the cut-off of EOS visibility at now: an EOS product
// stays in retailers' catalog reads, with status EOS and quantity 0, while
// its sale ended strictly after it, that is for EOSVisibility after its
// deletion, then leaves them (interface §3 rules 1-2, interface §8). A product on sale
// is always seen. Stores filter by it as a query bound: on sale, or ended
// after the cut-off.
func EOSVisibleSince(now time.Time) time.Time { return now.Add(-EOSVisibility) }

// InventoryPlan is what PlanInventory decides a PUT /inventory writes.
type InventoryPlan struct {
	// Upserts are the products to create or replace, each once, in the
	// order they first appear, with the last content given: what writing
	// the entries one by one would leave.
	Upserts []*Product
	// Balances are the balance writes of the entries applied.
	Balances BalancePlan
	// EndSale are the keys (ProductKey) of the products whose sale ends:
	// those whose last applied entry ends it. It is written last.
	EndSale []string
	// Failed are the entries not applied, by position.
	Failed InventoryFailures
}

// PlanInventory decides what the validated entries of a PUT /inventory
// write, given the supplier's state (interface §4.4 PUT /inventory rules 1-3,
// interface §3). Each entry is atomic: it writes its product and all of its
// balances (PlanBalances, one group per envelope), or nothing. An entry
// that ends the sale (EndsSale) needs the product: one the supplier has,
// or one an earlier applied entry writes; a product already EOS stays as
// it is. A product whose last applied entry writes it is ACTIVE again.
func PlanInventory(st StockState, entries []InventoryInput) InventoryPlan {
	keys := make([]string, len(entries))
	groups := make([][]BalanceInput, len(entries))
	had := st.Products
	products := maps.Clone(had)
	for i, e := range entries {
		keys[i] = ProductKey(st.SupplierID, e.Product.ExternalID)
		if !e.EndsSale() {
			products[keys[i]] = true // each envelope's balances name only its own product
			groups[i] = e.Balances
		}
	}
	st.Products = products
	plan := InventoryPlan{Balances: PlanBalances(st, groups)}
	plan.Failed = InventoryFailures(maps.Clone(plan.Balances.Failed))
	written := map[string]bool{}
	last := map[string]int{}
	upsert := map[string]int{}
	for i, e := range entries {
		_, known := had[keys[i]]
		switch {
		case plan.Failed[i] != nil:
			continue
		case !e.EndsSale():
			if j, ok := upsert[keys[i]]; ok {
				plan.Upserts[j] = e.Product
			} else {
				upsert[keys[i]] = len(plan.Upserts)
				plan.Upserts = append(plan.Upserts, e.Product)
			}
			written[keys[i]] = true
		case !written[keys[i]] && !known:
			plan.Failed[i] = &Error{Code: ENOTFOUND, Message: fmt.Sprintf("Product %s not found.", e.Product.ExternalID),
				Fields: []FieldError{{Field: "product.externalId", Message: fmt.Sprintf("no product %q to end the sale of", e.Product.ExternalID)}}}
			continue
		}
		last[keys[i]] = i
	}
	for _, k := range slices.Sorted(maps.Keys(last)) {
		if entries[last[k]].EndsSale() {
			plan.EndSale = append(plan.EndSale, k)
		}
	}
	return plan
}

// InventoryFailures are the entries of a request that were not applied, by
// their position in the slice the service was given, each with its
// problems (fields named within the entry).
type InventoryFailures map[int]*Error

// Without returns the entries f does not hold, and the position in
// entries of each.
func (f InventoryFailures) Without(entries []InventoryInput) ([]InventoryInput, []int) {
	if len(f) == 0 {
		return entries, nil
	}
	keep := make([]InventoryInput, 0, len(entries)-len(f))
	pos := make([]int, 0, len(entries)-len(f))
	for i, e := range entries {
		if f[i] == nil {
			keep = append(keep, e)
			pos = append(pos, i)
		}
	}
	return keep, pos
}

// With returns f and more, the failures of the entries Without kept, by
// their position there, each at its position before (pos; nil when Without
// kept every entry).
func (f InventoryFailures) With(more InventoryFailures, pos []int) InventoryFailures {
	if pos == nil {
		return more
	}
	out := maps.Clone(f)
	for k, err := range more {
		out[pos[k]] = err
	}
	return out
}

// IDMigration is the outcome of MigrateProductIDs.
type IDMigration struct {
	// Migrated are the products renamed from {businessId}-{x} to {x}, by
	// their new externalId.
	Migrated []string `json:"migrated"`
	// Conflicts are the products left as they were because the bare ID is
	// taken by another product of the supplier.
	Conflicts []IDConflict `json:"conflicts"`
}

// PlanIDMigration decides the provider's ID migration for supplier
// businessID: of the stored product IDs given (every product ID of the
// supplier that has its prefix, and any bare ID they would take), each
// {businessID}-{x} is renamed to {x} unless a product {x} exists, which is a
// conflict: both stay as they are. renames maps old to new IDs.
func PlanIDMigration(businessID string, stored []string) (renames map[string]string, m *IDMigration) {
	have := make(map[string]bool, len(stored))
	for _, id := range stored {
		have[id] = true
	}
	renames = map[string]string{}
	m = &IDMigration{Migrated: []string{}, Conflicts: []IDConflict{}}
	for _, id := range stored {
		bare := ProductKey(businessID, id)
		switch {
		case bare == id:
		case have[bare]:
			m.Conflicts = append(m.Conflicts, IDConflict{ExternalID: id, BareID: bare,
				Message: fmt.Sprintf("Product %s was not renamed: product %s exists too, so both are kept as they are; reads and orders naming either form find the bare one while it is on sale.", id, bare)})
		default:
			renames[id] = bare
			m.Migrated = append(m.Migrated, bare)
		}
	}
	return renames, m
}

// IDConflict is a product ID whose two forms both name a product.
type IDConflict struct {
	ExternalID string `json:"externalId"` // the prefixed ID, left as is
	BareID     string `json:"bareId"`     // taken by another product
	Message    string `json:"message"`
}

// InventoryService is the supplier's side of products and stock. Every
// method acts for c, whose organization is the supplier, and asks
// Caller.May itself with the action of its route (interface §5.2: a
// supplier, or a merchant, who is its own supplier in the warehouse
// service; the operator acting in the supplier's tenant); the front ends
// ask first too, with their own wording. Products and balances of other
// suppliers, and of the other environment, answer exactly like missing
// ones. A product externalId may be given bare or with the supplier's
// prefix (ProductKey).
type InventoryService interface {
	// PutInventory applies each entry atomically, in order: it creates or
	// fully replaces the product (interface §4.4 PUT /inventory rule 1) and
	// applies its balances as PutBalances does (rule 2); with EndsSale it
	// ends the product's sale as EndOfSale does (interface §3). A product that was
	// EOS becomes ACTIVE again. Entries that cannot be applied are left
	// out and returned, by position; the others are applied. Only a
	// caller that may ActionManageProducts writes them.
	PutInventory(ctx context.Context, c *Caller, entries []InventoryInput) (InventoryFailures, error)
	// ListInventory pages the caller's ACTIVE products with their
	// balances, ordered by creation. Only a caller that may
	// ActionReadProducts reads them (a retailer reads what is published
	// to it through CatalogService).
	ListInventory(ctx context.Context, c *Caller, f InventoryFilter, page PageRequest) (Page[*InventoryItem], error)
	// WriteInventory reads the page ListInventory reads, in one read
	// transaction as it does, and hands it to w as it is read, at most
	// InventoryChunk products at a time, so that no more than a chunk of
	// a page is in memory at once (decisions §61). It returns w's error
	// as it is, ending the read.
	WriteInventory(ctx context.Context, c *Caller, f InventoryFilter, page PageRequest, w InventoryWriter) error
	// ListProducts pages the products of ConsoleProductScope(c, now) —
	// those c's organization supplies, whatever their status, and those
	// published to the catalogs it may read (EOS ones while retailers see
	// them) — newest first by id, paged by key both ways (no total), each
	// with the total of its live balances (ScopedProduct.Total; with a
	// search, by externalId instead: see ProductQuery). Only a caller
	// MayReadConsoleProducts allows (a supplier or merchant reads what it
	// supplies, a retailer what is published to it). The console's list.
	ListProducts(ctx context.Context, c *Caller, q ProductQuery, page PageRequest) (Page[*ScopedProduct], error)
	// FindProduct returns one product of ListProducts's scope by its
	// store id with the total of its live balances c sees (ProductStock
	// pages them), or ENOTFOUND (also another tenant's). Only a caller
	// MayReadConsoleProducts allows.
	FindProduct(ctx context.Context, c *Caller, id int64) (*ScopedProduct, error)
	// ProductStock pages the balances c sees of one product of
	// ListProducts's scope, removed ones included, by catalog (its store
	// id), page.Size at a time from the cursor page.After (Next while
	// more follow); ENOTFOUND for a product outside the scope (also
	// another tenant's). Only a caller MayReadConsoleProducts allows.
	ProductStock(ctx context.Context, c *Caller, id int64, page PageRequest) (Page[*CatalogStock], error)
	// FindInventoryItem returns one ACTIVE product with its balances, or
	// ENOTFOUND (also for an EOS product: interface §3 rule 3). Only a
	// caller that may ActionReadProducts reads it.
	FindInventoryItem(ctx context.Context, c *Caller, externalID string) (*InventoryItem, error)
	// EndOfSale marks products EOS (interface §3): their quantity becomes 0 in
	// every catalog, allocations stay, and they leave the supplier's reads.
	// Products already EOS are left as they are. An unknown product fails
	// the whole request with ENOTFOUND naming each position. Only a
	// caller that may ActionManageProducts ends a sale.
	EndOfSale(ctx context.Context, c *Caller, externalIDs []string) ([]*InventoryItem, error)

	// PutBalances applies balance entries in order as PlanBalances decides
	// (interface §4.4 PUT balances rules 1-5), all or nothing: every failing
	// entry is reported with its position (EINVALID). Only a caller that
	// may ActionPublishBalances writes them.
	PutBalances(ctx context.Context, c *Caller, entries []BalanceInput) ([]*Balance, error)
	// ListSupplierBalances pages the caller's balances in every catalog,
	// EOS products excluded; removed balances only with f.ModifiedAfter,
	// as in ListCatalogBalances. Only a caller that may
	// ActionReadProducts reads them (GET /inventory/balances).
	ListSupplierBalances(ctx context.Context, c *Caller, f BalanceFilter, page PageRequest) (Page[*Balance], error)
	// DeleteBalances removes the product from the catalogs r names
	// (interface §4.4 DELETE balances rules 1-2) and returns the removed
	// balances as they were. A removed balance stays as a stamped tombstone
	// (Balance.Removed) so that change polls report the removal; publishing
	// the product there again revives it. ENOTFOUND for an unknown product;
	// CheckRemoval decides the rest. Only a caller that may
	// ActionPublishBalances removes them.
	DeleteBalances(ctx context.Context, c *Caller, r BalanceRemoval) ([]*Balance, error)
	// RemoveFromCatalogs applies several removals, each atomically as
	// DeleteBalances; those that fail are left out and returned by
	// position. Only a caller that may ActionPublishBalances removes them.
	RemoveFromCatalogs(ctx context.Context, c *Caller, rs []BalanceRemoval) (InventoryFailures, error)
	// MigrateProductIDs renames the caller's products {businessId}-{x} to
	// {x} (the provider's ID migration), with their balances; orders keep
	// resolving them (ProductKey). It is idempotent; a product whose bare
	// ID is taken stays as it was and is reported. Only a caller that may
	// ActionManageProducts migrates.
	MigrateProductIDs(ctx context.Context, c *Caller) (*IDMigration, error)
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

// Product IDs with and without the business-ID prefix.
//
// Interface §2.4 gives a warehouse-service product externalId the form
// {business ID}-{unique product ID}. Since the provider's ID migration its
// real clients (the WooCommerce warehouse plugin, the PHP library) send the
// bare ID, e.g. the shop's SKU "WOO6". parcelgate accepts both forms for the
// same product of the same supplier: "WOO6" and "1234567-1-WOO6" name one
// product of supplier 1234567-1, whichever form it was stored under. Every
// lookup is scoped to the supplier, so the prefix can never reach another
// business's product; an ID that carries another business's prefix is
// refused (OtherBusinessPrefix).

// ProductKey is the form of externalID that does not depend on how the client
// wrote it: the ID without businessID's prefix. Two IDs name the same
// product of businessID exactly when their keys are equal. An ID that is
// only the prefix ("1234567-1-") keeps it: it has no own part.
func ProductKey(businessID, externalID string) string {
	if own, ok := strings.CutPrefix(externalID, businessID+"-"); ok && own != "" && businessID != "" {
		return own
	}
	return externalID
}

// ProductIDForms lists the stored forms that name the product externalID of
// businessID: the bare key first, then the prefixed form. A store looks a
// product up with external_id IN (forms...) under the supplier.
func ProductIDForms(businessID, externalID string) []string {
	key := ProductKey(businessID, externalID)
	if businessID == "" {
		return []string{key}
	}
	return []string{key, businessID + "-" + key}
}

// ProductIDFormsOf lists every stored form of the product IDs ids of
// businessID, once each, for a filter that names several.
func ProductIDFormsOf(businessID string, ids []string) []string {
	out := make([]string, 0, 2*len(ids))
	for _, id := range ids {
		out = append(out, ProductIDForms(businessID, id)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ProductDocument is what parcelgate reads from a product document
// (Product.Document, the object as the supplier sent it; interface §2.4): the
// flags that bring value-added services (interface §2.3 Fragile, Oversized) and
// the descriptions by language. ReadProductDocument is the one reader of
// it; the store (an order's services) and the console (a product's name
// and descriptions) read a document through it.
type ProductDocument struct {
	IsFragile    bool                          `json:"isFragile"`
	IsOversized  bool                          `json:"isOversized"`
	Descriptions map[string]ProductDescription `json:"descriptions"`
}

// ProductDescription is a product's description in one language.
type ProductDescription struct {
	Name             string `json:"name"`
	ShortDescription string `json:"shortDescription"`
	Description      string `json:"description"`
}

// ReadProductDocument decodes doc. A member of another type than parcelgate
// reads (a flag that is not a boolean) counts as absent: documents are
// type-checked when written, so only an old one can hold such a member.
func ReadProductDocument(doc []byte) ProductDocument {
	var d ProductDocument
	json.Unmarshal(doc, &d) // what does not fit stays zero (see above)
	return d
}

// Languages lists the languages of the descriptions: English, Finnish (the
// two the interface uses), then the others in alphabetical order.
func (d ProductDocument) Languages() []string {
	rank := func(l string) int {
		switch l {
		case "en":
			return 0
		case "fi":
			return 1
		}
		return 2
	}
	return slices.SortedFunc(maps.Keys(d.Descriptions), func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
}

// Name is the product's name: the first non-empty name of its
// descriptions in Languages order, else "".
func (d ProductDocument) Name() string {
	for _, l := range d.Languages() {
		if n := d.Descriptions[l].Name; n != "" {
			return n
		}
	}
	return ""
}

// WithExternalID returns the product document doc with its externalId set
// to id: a product keeps the form of its ID it is stored under.
func WithExternalID(doc json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return doc
	}
	m["externalId"], _ = json.Marshal(id)
	out, _ := json.Marshal(m)
	return out
}

// PrefixedProductID is the interface §2.4 form {business ID}-{own ID} of
// externalID, the form products had before the ID migration.
func PrefixedProductID(businessID, externalID string) string {
	return businessID + "-" + ProductKey(businessID, externalID)
}

// OtherBusinessPrefix reports the business ID another business's prefix
// names in externalID: an ID that starts with a Finnish business ID
// (NNNNNNN-C with a valid check digit) and a dash, when that business ID is
// not businessID. Such an ID is refused (interface §2.4: the prefix is the
// supplier's own). A foreign business ID cannot be told from the start of
// a SKU ("AB-123"), so only Finnish ones are recognized.
func OtherBusinessPrefix(businessID, externalID string) (string, bool) {
	if len(externalID) < 10 || externalID[9] != '-' {
		return "", false
	}
	p := externalID[:9]
	if !finnishBusinessID.MatchString(p) || !finnishCheckDigitOK(p) || p == businessID {
		return "", false
	}
	return p, true
}
