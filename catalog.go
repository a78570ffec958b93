package parcelgate

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// CatalogType says whose stock a catalog shows (decisions §6).
type CatalogType string

const (
	// CatalogPosti holds stock in one of the provider's warehouses; "Posti"
	// is the name the provider's own API and its clients use (the
	// WooCommerce warehouse plugin recognizes a warehouse by it). In the
	// warehouse service the merchant is both supplier and retailer, and the
	// catalog's external ID is the warehouse ID that order rows name in
	// externalWarehouseId.
	CatalogPosti    CatalogType = "Posti"
	CatalogDropship CatalogType = "Catalog" // the supplier ships itself
	CatalogStore    CatalogType = "Store"   // the retailer's own stock

	// CatalogWarehouse is the name parcelgate first gave CatalogPosti. The
	// operator API still accepts "Warehouse" as another name for it, so
	// set-ups scripted against it keep working; it is always stored and
	// answered as "Posti".
	CatalogWarehouse = CatalogPosti
	// legacyWarehouseType is the spelling ParseCatalogType reads as CatalogPosti.
	legacyWarehouseType = "Warehouse"
)

// ParseCatalogType reads a catalog type as the operator API takes it: Posti,
// Catalog or Store in any case, and Warehouse as another name for Posti.
// Empty means Posti, the warehouse service's own catalog.
func ParseCatalogType(s string) (CatalogType, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "", strings.EqualFold(s, string(CatalogPosti)), strings.EqualFold(s, legacyWarehouseType):
		return CatalogPosti, nil
	case strings.EqualFold(s, string(CatalogDropship)):
		return CatalogDropship, nil
	case strings.EqualFold(s, string(CatalogStore)):
		return CatalogStore, nil
	}
	return "", Errorf(EINVALID, "must be Posti (also called Warehouse), Catalog or Store, not %q", s)
}

// Catalog belongs to a retailer organization and is identified by its
// external ID within that retailer. Only the suppliers it lists may publish
// balances to it. Operators create catalogs.
type Catalog struct {
	ID          int64       `json:"-"`
	Environment Environment `json:"environment"`
	RetailerOrg int64       `json:"-"`
	ExternalID  string      `json:"externalId"`
	Name        string      `json:"catalogName"`
	Type        CatalogType `json:"catalogType"`
	RetailerID  string      `json:"retailerId"`
	SupplierIDs []string    `json:"supplierIds"`
	CreatedAt   time.Time   `json:"createdAt"`
}

var externalIDPattern = regexp.MustCompile(`^[A-Za-z0-9.-]{1,20}$`)

// ValidExternalID reports whether s is 1-20 characters of letters, digits,
// '-' and '.', the rule of interface §2.4 for product IDs that parcelgate also
// applies to catalog and warehouse IDs.
func ValidExternalID(s string) bool { return externalIDPattern.MatchString(s) }

// Validate normalizes c and reports every problem with it.
func (c *Catalog) Validate() error {
	var p Problems
	if !c.Environment.Valid() {
		p.Add("environment", "must be production or test")
	}
	rid, err := NormalizeBusinessID(c.RetailerID)
	if err != nil {
		p.Add("retailerId", "%s", ErrorMessage(err))
	}
	c.RetailerID = rid
	c.ExternalID = strings.TrimSpace(c.ExternalID)
	if !ValidExternalID(c.ExternalID) {
		p.Add("catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.'")
	}
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		c.Name = c.ExternalID
	}
	if len(c.Name) > 200 {
		p.Add("catalogName", "must be at most 200 characters")
	}
	if t, err := ParseCatalogType(string(c.Type)); err != nil {
		p.Add("catalogType", "%s", ErrorMessage(err))
	} else {
		c.Type = t
	}
	for i, s := range c.SupplierIDs {
		id, err := NormalizeBusinessID(s)
		if err != nil {
			p.AddAt(i, "supplierIds", "%s", ErrorMessage(err))
		}
		c.SupplierIDs[i] = id
	}
	return p.Err()
}

// Entry is the catalog as c sees it when it lists its catalogs in role
// (GET /catalogs): as supplier, with itself as SupplierID.
func (cat *Catalog) Entry(c *Caller, role CatalogRole) *CatalogEntry {
	e := &CatalogEntry{ExternalID: cat.ExternalID, Name: cat.Name, Type: cat.Type, RetailerID: cat.RetailerID, SupplierIDs: cat.SupplierIDs}
	if role == CatalogRoleSupplier {
		e.SupplierID = c.BusinessID
	}
	return e
}

// CatalogService manages catalogs: the operator creates and lists them;
// the retailer's side reads them. Every method acts for c and asks
// Caller.May itself (interface §5.2); the front ends ask first too, with
// their own wording. The reads act for c, the retailer that owns the
// catalogs (or a supplier listed on one); ReadableCatalogTypes says which
// of its catalogs c may read. A catalog of another retailer, or one the
// caller may not read, is ENOTFOUND.
type CatalogService interface {
	// CreateCatalog stores k in c's environment (k.Environment, which must
	// be c's when c names one); its retailer and every supplier must be
	// organizations of that environment (ENOTFOUND naming the one
	// missing), and its external ID new for the retailer (ECONFLICT).
	// Only the operator (ActionOperate) creates catalogs: c is
	// EnvironmentOperator(env), or OperatorCaller of the retailer, whose
	// caller creates no catalog of another retailer (ENOTFOUND, as for a
	// retailer that is not there).
	CreateCatalog(ctx context.Context, c *Caller, k *Catalog) error
	// ListCatalogs returns the catalogs of c's environment
	// (EnvironmentOperator(env); every environment's for AllOperator()), or, for an
	// operator caller of one organization (OperatorCaller), only that
	// retailer's. Only the operator (ActionOperate) lists catalogs so: a
	// tenant lists its own with ListOwnCatalogs. By retailer and external
	// ID, each with its suppliers; the page's key is the external ID.
	// p.Size 0 is the whole list in one page (the operator API's answer);
	// a caller of one organization may page it.
	ListCatalogs(ctx context.Context, c *Caller, p PageRequest) (Page[*Catalog], error)

	// ListOwnCatalogs pages the caller's catalogs as retailer, or the
	// catalogs that list it as supplier. Only a caller that may
	// ActionListOwnCatalogs (any ecom role, the operator) lists them.
	ListOwnCatalogs(ctx context.Context, c *Caller, role CatalogRole, page PageRequest) (Page[*CatalogEntry], error)
	// ListCatalogBalances pages the balances of one catalog, or with an
	// empty catalogExternalID of all the caller's catalogs; a product
	// published to several catalogs appears once per catalog (interface §4.4 GET
	// rule 5). EOS products appear with quantity 0 while their sale ended
	// after EOSVisibleSince, then no more. Balances removed from the catalog
	// appear only with f.ModifiedAfter, as Removed (decisions §6). Only a
	// caller that may read some of its catalogs (ActionReadWarehouseCatalogs:
	// a retailer or a merchant) reads them, and only the types
	// ReadableCatalogTypes gives it; any other caller is EFORBIDDEN.
	ListCatalogBalances(ctx context.Context, c *Caller, catalogExternalID string, f BalanceFilter, page PageRequest) (Page[*Balance], error)
	// ListCatalogProducts pages the products published to one catalog,
	// each with its descriptions and this catalog's balance (interface §4.4); EOS
	// products and removed balances as in ListCatalogBalances (interface §3
	// rules 1-2). Who may read them is as in ListCatalogBalances.
	ListCatalogProducts(ctx context.Context, c *Caller, catalogExternalID string, f BalanceFilter, page PageRequest) (Page[*InventoryItem], error)
}
