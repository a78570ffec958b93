package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// CatalogService keeps the retailers' catalogs and the reads a retailer
// makes of them (interface §4.4 GET catalogs, balances, products).
type CatalogService struct{ db *DB }

// NewCatalogService returns the CatalogService over db.
func NewCatalogService(db *DB) *CatalogService { return &CatalogService{db: db} }

var _ parcelgate.CatalogService = (*CatalogService)(nil)

// CreateCatalog stores k for the operator (ActionOperate, interface
// §5.2; see parcelgate.CatalogService): in c's environment, for c's
// organization when c is the operator acting in one tenant.
func (s *CatalogService) CreateCatalog(ctx context.Context, c *parcelgate.Caller, k *parcelgate.Catalog) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	env, ok := c.ActsIn(k.Environment)
	if !ok {
		var p parcelgate.Problems
		p.Add("environment", "must be %s, the environment acted in", c.Environment)
		return p.Err()
	}
	k.Environment = env
	if err := k.Validate(); err != nil {
		return err
	}
	retailer, err := NewOrganizationService(s.db).findOrganization(ctx, k.Environment, k.RetailerID)
	if err != nil || !c.Covers(retailer.Environment, retailer.ID) {
		// decisions §4: the operator acting in one tenant finds no other
		// retailer; it answers like one that is not there.
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "retailer %s is not an organization in %s", k.RetailerID, k.Environment)
	}
	k.RetailerOrg = retailer.ID
	var supplierOrgs []int64
	slices.Sort(k.SupplierIDs)
	k.SupplierIDs = slices.Compact(k.SupplierIDs)
	for _, sid := range k.SupplierIDs {
		supplier, err := NewOrganizationService(s.db).findOrganization(ctx, k.Environment, sid)
		if err != nil {
			return parcelgate.Errorf(parcelgate.ENOTFOUND, "supplier %s is not an organization in %s", sid, k.Environment)
		}
		supplierOrgs = append(supplierOrgs, supplier.ID)
	}
	k.CreatedAt = s.db.clock.Now(k.Environment).UTC().Truncate(1000)
	return s.db.inTx(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO catalogs (environment, retailer_org_id, external_id, name, catalog_type, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			string(k.Environment), k.RetailerOrg, k.ExternalID, k.Name, string(k.Type), micros(k.CreatedAt)).Scan(&k.ID)
		if isUniqueViolation(err) {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "retailer %s already has catalog %s", k.RetailerID, k.ExternalID)
		}
		if err != nil {
			return err
		}
		for _, orgID := range supplierOrgs {
			if _, err := tx.Exec(ctx, `INSERT INTO catalog_suppliers (catalog_id, supplier_org_id) VALUES (?, ?)`, k.ID, orgID); err != nil {
				return err
			}
		}
		return nil
	})
}

const catalogGroup = ` GROUP BY c.id, c.environment, c.retailer_org_id, c.external_id, c.name, c.catalog_type, ro.business_id, c.created_at`

func scanCatalog(s rowScanner) (*parcelgate.Catalog, error) {
	var c parcelgate.Catalog
	var env, typ, suppliers string
	var created int64
	if err := s.Scan(&c.ID, &env, &c.RetailerOrg, &c.ExternalID, &c.Name, &typ, &c.RetailerID, &suppliers, &created); err != nil {
		return nil, err
	}
	c.Environment = parcelgate.Environment(env)
	c.Type = parcelgate.CatalogType(typ)
	c.CreatedAt = fromMicros(created)
	c.SupplierIDs = []string{}
	if suppliers != "" {
		c.SupplierIDs = strings.Split(suppliers, ",")
		slices.Sort(c.SupplierIDs)
	}
	return &c, nil
}

// ListCatalogs pages catalogs for the operator (ActionOperate, interface
// §5.2; see parcelgate.CatalogService): those of c's environment (every
// environment's when c names none), only c's organization's when c acts
// in one tenant; by retailer and external ID, each with its suppliers
// (see namedPage: the whole list when p.Size is 0).
func (s *CatalogService) ListCatalogs(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Catalog], error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.Page[*parcelgate.Catalog]{}, err
	}
	var where filterSQL
	where.tenant(c, "c.environment", "c.retailer_org_id")
	// The suppliers' business IDs come as one comma-separated column, on
	// both engines.
	agg := "group_concat(so.business_id, ',')"
	if s.db.dialect.name == "postgres" {
		agg = "string_agg(so.business_id, ',' ORDER BY so.business_id)"
	}
	afterKey(&where, "c.external_id", p)
	_, oneOrg := c.Organization()
	return keysetPage(ctx, s.db.primary(), namedQuery(oneOrg, `SELECT c.id, c.environment, c.retailer_org_id, c.external_id, c.name, c.catalog_type, ro.business_id, COALESCE(`+agg+`, ''), c.created_at
		FROM catalogs c
		JOIN organizations ro ON ro.id = c.retailer_org_id
		LEFT JOIN catalog_suppliers cs ON cs.catalog_id = c.id
		LEFT JOIN organizations so ON so.id = cs.supplier_org_id
		WHERE `+where.sql()+catalogGroup+` ORDER BY ro.business_id, c.external_id`, where.args), p, "", "",
		func(rows *sql.Rows) (*parcelgate.Catalog, pageKey, error) {
			cat, err := scanCatalog(rows)
			if err != nil {
				return nil, pageKey{}, err
			}
			return cat, pageKey{text: cat.ExternalID}, nil
		})
}
