package sqlstore

import (
	"context"
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

func (s *CatalogService) CreateCatalog(ctx context.Context, c *parcelgate.Catalog) error {
	if err := c.Validate(); err != nil {
		return err
	}
	retailer, err := NewOrganizationService(s.db).findOrganization(ctx, c.Environment, c.RetailerID)
	if err != nil {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "retailer %s is not an organization in %s", c.RetailerID, c.Environment)
	}
	c.RetailerOrg = retailer.ID
	var supplierOrgs []int64
	slices.Sort(c.SupplierIDs)
	c.SupplierIDs = slices.Compact(c.SupplierIDs)
	for _, sid := range c.SupplierIDs {
		supplier, err := NewOrganizationService(s.db).findOrganization(ctx, c.Environment, sid)
		if err != nil {
			return parcelgate.Errorf(parcelgate.ENOTFOUND, "supplier %s is not an organization in %s", sid, c.Environment)
		}
		supplierOrgs = append(supplierOrgs, supplier.ID)
	}
	c.CreatedAt = s.db.clock.Now(c.Environment).UTC().Truncate(1000)
	return s.db.inTx(ctx, func(tx *Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO catalogs (environment, retailer_org_id, external_id, name, catalog_type, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			string(c.Environment), c.RetailerOrg, c.ExternalID, c.Name, string(c.Type), micros(c.CreatedAt)).Scan(&c.ID)
		if isUniqueViolation(err) {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "retailer %s already has catalog %s", c.RetailerID, c.ExternalID)
		}
		if err != nil {
			return err
		}
		for _, orgID := range supplierOrgs {
			if _, err := tx.Exec(ctx, `INSERT INTO catalog_suppliers (catalog_id, supplier_org_id) VALUES (?, ?)`, c.ID, orgID); err != nil {
				return err
			}
		}
		return nil
	})
}

// catalogSelect reads catalogs with their suppliers' business IDs as one
// comma-separated column, on both engines.
func (s *CatalogService) catalogSelect() string {
	agg := "group_concat(so.business_id, ',')"
	if s.db.dialect.name == "postgres" {
		agg = "string_agg(so.business_id, ',' ORDER BY so.business_id)"
	}
	return `SELECT c.id, c.environment, c.retailer_org_id, c.external_id, c.name, c.catalog_type, ro.business_id, COALESCE(` + agg + `, ''), c.created_at
		FROM catalogs c
		JOIN organizations ro ON ro.id = c.retailer_org_id
		LEFT JOIN catalog_suppliers cs ON cs.catalog_id = c.id
		LEFT JOIN organizations so ON so.id = cs.supplier_org_id`
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

func (s *CatalogService) ListCatalogs(ctx context.Context, env parcelgate.Environment, retailerID string) ([]*parcelgate.Catalog, error) {
	q := s.catalogSelect() + ` WHERE c.environment = ?`
	args := []any{string(env)}
	if retailerID != "" {
		q += ` AND ro.business_id = ?`
		args = append(args, strings.ToUpper(strings.TrimSpace(retailerID)))
	}
	rows, err := s.db.query(ctx, q+catalogGroup+` ORDER BY ro.business_id, c.external_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*parcelgate.Catalog{}
	for rows.Next() {
		c, err := scanCatalog(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
