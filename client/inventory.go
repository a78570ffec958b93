package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// InventoryEntry is one product to create or replace with PutInventory,
// with the balances that publish it (interface §4.4 PUT /inventory rules 1-3).
type InventoryEntry struct {
	Product Product `json:"product"`
	// Balances publish the product to catalogs; an entry without
	// ProductExternalID belongs to Product.
	Balances []BalanceUpdate `json:"balances,omitempty"`
}

// InventoryItem is a product with its balances, as the service answers it.
type InventoryItem struct {
	Product  Product   `json:"product"`
	Balances []Balance `json:"balances"`
}

// Balance is the stock and price of one product in one retailer catalog
// (interface §2.5), as the service answers it.
type Balance struct {
	ProductExternalID string `json:"productExternalId"`
	EANCode           string `json:"eanCode,omitempty"`
	SupplierID        string `json:"supplierId,omitempty"`
	RetailerID        string `json:"retailerId"`
	CatalogExternalID string `json:"catalogExternalId"`
	// Quantity is available for new orders; Allocated is reserved by open
	// orders.
	Quantity       int64   `json:"quantity"`
	Allocated      int64   `json:"allocated"`
	WholesalePrice float64 `json:"wholesalePrice,omitempty"`
	Currency       string  `json:"currency,omitempty"`
	// Removed is set only in change polls (modifiedFromDate, a Sync): the
	// product was removed from the catalog at ModifiedDate and must no
	// longer be sold there.
	Removed bool `json:"removed,omitempty"`
	// ModifiedDate is the balance's modification time, which
	// modifiedFromDate polls by.
	ModifiedDate time.Time `json:"modifiedDate,omitzero"`
}

// BalanceUpdate publishes a product to a catalog or changes its stock or
// price there (interface §4.4 PUT balances rules 1-5). Nil fields stay as they
// are.
type BalanceUpdate struct {
	ProductExternalID string `json:"productExternalId,omitempty"`
	RetailerID        string `json:"retailerId,omitempty"`
	// CatalogExternalID empty updates every catalog where the product is
	// published (rule 4).
	CatalogExternalID string `json:"catalogExternalId,omitempty"`
	Quantity          *int64 `json:"quantity,omitempty"`
	// Allocated may only be 0: it releases the allocations (rule 5).
	Allocated      *int64   `json:"allocated,omitempty"`
	WholesalePrice *float64 `json:"wholesalePrice,omitempty"`
	Currency       string   `json:"currency,omitempty"`
}

// EntryError is an entry of a batch that was not applied (PutInventory,
// RemoveFromCatalogs): Index is its position in the request; Field and
// Message are its first problem, Errors all of them, fields named within
// the entry ("product.externalId", "balances[0].quantity").
type EntryError struct {
	Index   int          `json:"index"`
	Field   string       `json:"field"`
	Message string       `json:"message"`
	Errors  []FieldError `json:"errors"`
}

// PutInventory creates products or fully replaces them, and applies their
// balances (interface §4.4 PUT /inventory); an entry whose Product has Status
// ProductEOS and no balances ends the product's sale instead (interface §3). Each
// entry is applied or not on its own: the answer lists the entries that
// were not applied, empty when all were. The request fails as a whole (an
// *Error) only when it cannot be read at all, e.g. over the limits.
// Product IDs may be bare or carry the supplier's business-ID prefix.
func (c *Client) PutInventory(ctx context.Context, entries []InventoryEntry) ([]EntryError, error) {
	out := []EntryError{}
	if err := c.do(ctx, request{surface: ecom, method: http.MethodPut, path: "/ecommerce/v3/inventory", body: entries}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// InventoryItem returns one of the supplier's products with its balances.
// A product deleted (EOS) is not found (interface §3 rule 3).
func (c *Client) InventoryItem(ctx context.Context, externalID string) (*InventoryItem, error) {
	var out InventoryItem
	if err := c.do(ctx, request{surface: ecom, method: http.MethodGet, path: "/ecommerce/v3/inventory/" + escape(externalID)}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteProducts ends the sale of products (interface §3, interface §4.4 DELETE
// /inventory): their stock becomes 0, the supplier no longer sees them, and
// retailers see them with status EOS for 14 days. Putting a product again
// revives it.
func (c *Client) DeleteProducts(ctx context.Context, externalIDs ...string) ([]InventoryItem, error) {
	type product struct {
		ExternalID string        `json:"externalId"`
		Status     ProductStatus `json:"status"`
	}
	body := make([]struct {
		Product product `json:"product"`
	}, len(externalIDs))
	for i, id := range externalIDs {
		body[i].Product = product{id, ProductEOS}
	}
	var out []InventoryItem
	if err := c.do(ctx, request{surface: ecom, method: http.MethodDelete, path: "/ecommerce/v3/inventory", body: body}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// PutBalances applies balance updates in order: publishing, stock and price
// updates (interface §4.4 PUT /inventory/balances). The request is all or
// nothing: an invalid entry fails it with an *Error whose Fields name each
// problem with the entry's index.
func (c *Client) PutBalances(ctx context.Context, updates []BalanceUpdate) ([]Balance, error) {
	var out []Balance
	if err := c.do(ctx, request{surface: ecom, method: http.MethodPut, path: "/ecommerce/v3/inventory/balances", body: updates}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteBalances removes a product from catalogs (interface §4.4 DELETE
// /inventory/balances): from the catalogs of retailerID and catalogID, and
// from every catalog where it is when they are empty.
func (c *Client) DeleteBalances(ctx context.Context, productExternalID, retailerID, catalogID string) ([]Balance, error) {
	q := url.Values{"productExternalId": {productExternalID}}
	if retailerID != "" {
		q.Set("retailerId", retailerID)
	}
	if catalogID != "" {
		q.Set("catalogExternalId", catalogID)
	}
	var out []Balance
	if err := c.do(ctx, request{surface: ecom, method: http.MethodDelete, path: "/ecommerce/v3/inventory/balances", query: q}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// BalanceRemoval names catalogs to remove a product from; RetailerID and
// CatalogExternalID empty mean every catalog where it is.
type BalanceRemoval struct {
	ProductExternalID string `json:"productExternalId"`
	CatalogExternalID string `json:"catalogExternalId,omitempty"`
	RetailerID        string `json:"retailerId,omitempty"`
}

// RemoveFromCatalogs removes products from catalogs in one request (DELETE
// /inventory/balances with a body, as the provider's warehouse plugin sends
// it). Each removal is applied or not on its own; the answer lists those
// not applied (an unknown product, allocations of open orders).
func (c *Client) RemoveFromCatalogs(ctx context.Context, removals []BalanceRemoval) ([]EntryError, error) {
	out := []EntryError{}
	if err := c.do(ctx, request{surface: ecom, method: http.MethodDelete, path: "/ecommerce/v3/inventory/balances", body: removals}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// IDMigration is the outcome of MigrateProductIDs.
type IDMigration struct {
	// Migrated are the new, bare externalIds of the products renamed.
	Migrated []string `json:"migrated"`
	// Conflicts are products left as they were: their bare ID is taken by
	// another product of the supplier.
	Conflicts []struct {
		ExternalID string `json:"externalId"`
		BareID     string `json:"bareId"`
		Message    string `json:"message"`
	} `json:"conflicts"`
}

// MigrateProductIDs drops the business-ID prefix from the supplier's
// product IDs ({businessId}-{x} becomes {x}), as the provider's ID
// migration did (POST /ecommerce/v3/inventory/migrate). Balances,
// allocations and orders keep resolving the products. It is idempotent.
func (c *Client) MigrateProductIDs(ctx context.Context) (*IDMigration, error) {
	var out IDMigration
	if err := c.do(ctx, request{surface: ecom, method: http.MethodPost, path: "/ecommerce/v3/inventory/migrate"}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ProductQuery narrows the product and balance lists (interface §4.4 GET rules
// 2-3). Zero fields select everything.
type ProductQuery struct {
	ProductExternalIDs []string
	EANCodes           []string
	// RetailerID and CatalogExternalID narrow the supplier's lists to one
	// retailer or catalog.
	RetailerID        string
	CatalogExternalID string
	// ModifiedFrom keeps the balances changed strictly after it (balance
	// lists only).
	ModifiedFrom time.Time
	Paging
}

func (q *ProductQuery) values() url.Values {
	v := url.Values{}
	if q == nil {
		return v
	}
	if len(q.ProductExternalIDs) > 0 {
		v.Set("productExternalId", strings.Join(q.ProductExternalIDs, ","))
	}
	if len(q.EANCodes) > 0 {
		v.Set("eanCode", strings.Join(q.EANCodes, ","))
	}
	if q.RetailerID != "" {
		v.Set("retailerId", q.RetailerID)
	}
	if q.CatalogExternalID != "" {
		v.Set("catalogExternalId", q.CatalogExternalID)
	}
	if !q.ModifiedFrom.IsZero() {
		v.Set("modifiedFromDate", formatTime(q.ModifiedFrom))
	}
	q.Paging.set(v)
	return v
}

func ecomGet(path string, q url.Values) request {
	return request{surface: ecom, method: http.MethodGet, path: path, query: q}
}

// InventoryPage returns one page of the supplier's products with their
// balances (GET /ecommerce/v3/inventory).
func (c *Client) InventoryPage(ctx context.Context, q *ProductQuery) (*Page[InventoryItem], error) {
	return getPage[InventoryItem](ctx, c, ecomGet("/ecommerce/v3/inventory", q.values()))
}

// Inventory returns an iterator over the supplier's products with their
// balances.
func (c *Client) Inventory(ctx context.Context, q *ProductQuery) iter.Seq2[InventoryItem, error] {
	return all[InventoryItem](ctx, c, ecomGet("/ecommerce/v3/inventory", q.values()))
}

// BalancesPage returns one page of the supplier's balances in every catalog
// (GET /ecommerce/v3/inventory/balances); a product published to several
// catalogs appears once per catalog.
func (c *Client) BalancesPage(ctx context.Context, q *ProductQuery) (*Page[Balance], error) {
	return getPage[Balance](ctx, c, ecomGet("/ecommerce/v3/inventory/balances", q.values()))
}

// Balances returns an iterator over the supplier's balances.
func (c *Client) Balances(ctx context.Context, q *ProductQuery) iter.Seq2[Balance, error] {
	return all[Balance](ctx, c, ecomGet("/ecommerce/v3/inventory/balances", q.values()))
}

// BalanceSync returns a Sync over the supplier's balances q selects that
// changed after cursor, by the supplier or by orders.
func (c *Client) BalanceSync(q *ProductQuery, cursor time.Time) *Sync[Balance] {
	return balanceSync(q, cursor, c.Balances)
}

// CatalogRole chooses which catalogs Catalogs lists: those the caller owns
// as retailer, or those it may publish to as supplier.
type CatalogRole string

// Catalog roles.
const (
	RoleRetailer CatalogRole = "RETAILER"
	RoleSupplier CatalogRole = "SUPPLIER"
)

// CatalogType says whose stock a catalog shows.
type CatalogType string

// Catalog types.
const (
	// CatalogPosti shows stock held in one of the provider's warehouses
	// (the type its real clients read); its external ID is the warehouse's
	// ID. Servers before 0.2 answered "Warehouse".
	CatalogPosti CatalogType = "Posti"
	// CatalogDropship shows stock the supplier ships itself.
	CatalogDropship CatalogType = "Catalog"
	// CatalogStore shows the retailer's own stock.
	CatalogStore CatalogType = "Store"
)

// CatalogQuery selects the caller's catalogs.
type CatalogQuery struct {
	// Role is RoleRetailer or RoleSupplier; empty means the server's default
	// (the catalogs the caller owns).
	Role CatalogRole
	Paging
}

// Catalog is a retailer's catalog (decisions §6).
type Catalog struct {
	ExternalID string `json:"externalId"`
	Name       string `json:"catalogName"`
	// Type is Posti (stock in the provider's warehouse), Catalog
	// (dropshipping) or Store (the retailer's own stock).
	Type        CatalogType `json:"catalogType"`
	RetailerID  string      `json:"retailerId"`
	SupplierID  string      `json:"supplierId,omitempty"`
	SupplierIDs []string    `json:"supplierIds"`
}

func catalogsRequest(cq *CatalogQuery) request {
	q := url.Values{}
	if cq == nil {
		cq = &CatalogQuery{}
	}
	if cq.Role != "" {
		q.Set("role", string(cq.Role))
	}
	cq.Paging.set(q)
	return ecomGet("/ecommerce/v3/catalogs", q)
}

// CatalogsPage returns one page of the caller's catalogs q selects (nil:
// the server's defaults).
func (c *Client) CatalogsPage(ctx context.Context, q *CatalogQuery) (*Page[Catalog], error) {
	return getPage[Catalog](ctx, c, catalogsRequest(q))
}

// Catalogs returns an iterator over the caller's catalogs q selects,
// following the pages from q.Paging.
func (c *Client) Catalogs(ctx context.Context, q *CatalogQuery) iter.Seq2[Catalog, error] {
	return all[Catalog](ctx, c, catalogsRequest(q))
}

// CatalogProductsPage returns one page of the products published to the
// retailer's catalog, each with its descriptions and this catalog's balance
// (interface §4.4). Products deleted less than 14 days ago are listed with status
// EOS and quantity 0 (interface §3).
func (c *Client) CatalogProductsPage(ctx context.Context, catalogID string, q *ProductQuery) (*Page[InventoryItem], error) {
	return getPage[InventoryItem](ctx, c, ecomGet("/ecommerce/v3/catalogs/"+escape(catalogID)+"/products", q.values()))
}

// CatalogProducts returns an iterator over the products published to the
// retailer's catalog.
func (c *Client) CatalogProducts(ctx context.Context, catalogID string, q *ProductQuery) iter.Seq2[InventoryItem, error] {
	return all[InventoryItem](ctx, c, ecomGet("/ecommerce/v3/catalogs/"+escape(catalogID)+"/products", q.values()))
}

func catalogBalancesPath(catalogID string) string {
	if catalogID == "" {
		return "/ecommerce/v3/catalogs/balances"
	}
	return "/ecommerce/v3/catalogs/" + escape(catalogID) + "/balances"
}

// CatalogBalancesPage returns one page of the balances of the retailer's
// catalog, or of all its catalogs when catalogID is empty.
func (c *Client) CatalogBalancesPage(ctx context.Context, catalogID string, q *ProductQuery) (*Page[Balance], error) {
	return getPage[Balance](ctx, c, ecomGet(catalogBalancesPath(catalogID), q.values()))
}

// CatalogBalances returns an iterator over the balances of the retailer's
// catalog, or of all its catalogs when catalogID is empty.
func (c *Client) CatalogBalances(ctx context.Context, catalogID string, q *ProductQuery) iter.Seq2[Balance, error] {
	return all[Balance](ctx, c, ecomGet(catalogBalancesPath(catalogID), q.values()))
}

// CatalogBalanceSync returns a Sync over the balances of the retailer's
// catalog (all its catalogs when catalogID is empty) that changed after
// cursor, by the supplier or by orders (interface §4.4 GET rule 3).
func (c *Client) CatalogBalanceSync(catalogID string, q *ProductQuery, cursor time.Time) *Sync[Balance] {
	return balanceSync(q, cursor, func(ctx context.Context, q *ProductQuery) iter.Seq2[Balance, error] {
		return c.CatalogBalances(ctx, catalogID, q)
	})
}

func balanceSync(q *ProductQuery, cursor time.Time, list func(context.Context, *ProductQuery) iter.Seq2[Balance, error]) *Sync[Balance] {
	// With modifiedFromDate the service lists balances by modification.
	return pollSync(q, cursor,
		func(q *ProductQuery, after time.Time) { q.ModifiedFrom, q.Page = after, 0 },
		list,
		func(b Balance) time.Time { return b.ModifiedDate })
}
