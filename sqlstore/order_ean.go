package sqlstore

import (
	"context"
	"database/sql"

	"github.com/parcelgate/parcelgate"
)

// queryFunc is a read of the store: *DB's query, or a transaction's.
type queryFunc func(ctx context.Context, q string, args ...any) (*sql.Rows, error)

// resolveRowProducts gives each row of req that names a productEANCode
// its product, or refuses the request, as parcelgate.ResolveRowProducts
// decides from the products of the rows' catalogs with those EANs or IDs,
// read by query. A request without EANs reads nothing. req is validated
// and its rows' warehouses set (DefaultWarehouse).
func resolveRowProducts(ctx context.Context, query queryFunc, org *parcelgate.Organization, req *parcelgate.OrderRequest) error {
	l := req.RowProductLookup(org.BusinessID)
	if len(l.EANs) == 0 {
		return nil
	}
	q, args := rowProductsQuery(org.ID, l)
	rows, err := query(ctx, q, args...)
	found, err := collect(rows, err, func(p *parcelgate.RowProduct) []any { return []any{&p.Catalog, &p.SupplierID, &p.ExternalID, &p.EAN} })
	if err != nil {
		return err
	}
	return req.ResolveRowProducts(org.BusinessID, found)
}

// rowProductsQuery finds, among the catalogs l names of the retailer
// retailerOrg, the products each catalog's suppliers may have there with
// one of l's EANs or IDs: the retailer's own products in its warehouse
// catalogs, any supplier's in its dropshipping catalogs (the catalogs a
// row's stock is found in, orderStockStep). Each half is one seek of the
// catalog's suppliers' products per EAN (products_supplier_ean) or per ID
// (the products' unique key): never a scan of anyone's products, and
// never another retailer's catalog.
func rowProductsQuery(retailerOrg int64, l parcelgate.RowProductLookup) (string, []any) {
	// CROSS JOIN keeps SQLite to this order (catalog, its suppliers, their
	// products, each supplier's name); PostgreSQL plans it as inner joins.
	from := `SELECT c.external_id, so.business_id, p.external_id, p.ean_code FROM catalogs c
		CROSS JOIN catalog_suppliers cs CROSS JOIN products p CROSS JOIN organizations so
		WHERE c.retailer_org_id = ? AND c.external_id IN (` + placeholders(len(l.Catalogs)) + `)
		AND (c.catalog_type = ? AND cs.supplier_org_id = ? OR c.catalog_type = ?)
		AND cs.catalog_id = c.id AND p.supplier_org_id = cs.supplier_org_id AND so.id = cs.supplier_org_id AND `
	scope := append(append([]any{retailerOrg}, anys(l.Catalogs)...), string(parcelgate.CatalogWarehouse), retailerOrg, string(parcelgate.CatalogDropship))
	q := from + `p.ean_code IN (` + placeholders(len(l.EANs)) + `)`
	args := append(append([]any(nil), scope...), anys(l.EANs)...)
	if len(l.IDs) > 0 {
		q += ` UNION ALL ` + from + `p.external_id IN (` + placeholders(len(l.IDs)) + `)`
		args = append(append(args, scope...), anys(l.IDs)...)
	}
	return q, args
}
