package sqlstore

// The retailer's side: its catalogs and what suppliers published to them
// (interface §4.4 GET /catalogs...).

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// readableCatalog resolves one of the caller's catalogs as retailer, of a
// type the caller may read (parcelgate.ReadableCatalogTypes).
func (s *CatalogService) readableCatalog(ctx context.Context, r reader, c *parcelgate.Caller, externalID string) (catalogID, error) {
	var cat catalogID
	var typ string
	own := tenantOf(c, "", "retailer_org_id")
	err := r.QueryRow(ctx, `SELECT id, catalog_type FROM catalogs WHERE `+own.sql()+` AND external_id = ?`, own.with(externalID)...).Scan(&cat.id, &typ)
	cat.typ = parcelgate.CatalogType(typ)
	types := parcelgate.ReadableCatalogTypes(c)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && types != nil && !slices.Contains(types, cat.typ)) {
		return catalogID{}, parcelgate.Errorf(parcelgate.ENOTFOUND, "Catalog %s not found.", externalID)
	}
	return cat, err
}

// catalogID is a catalog's ID and type, which never change.
type catalogID struct {
	id  int64
	typ parcelgate.CatalogType
}

type catalogKey struct {
	org        int64
	externalID string
}

// catalogCache remembers the catalogs retailerQuery found by external ID.
// An entry is a hint only: a list that names a catalog by it checks it in
// its own statement.
type catalogCache = fastpath.Bounded[catalogKey, catalogID]

// retailerQuery starts a list of the balances of one of the caller's
// catalogs, or of all it may read, with EOS products ended after the
// cut-off parcelgate.EOSVisibleSince.
//
// With remembered set, one catalog is named by the ID this instance last
// found for it (db.cats), when it has one, instead of by a lookup of its
// own: the list's statement then checks, in its own snapshot, that the ID
// is still the caller's catalog of that external ID and type (q.guard),
// and the one-statement read refuses the page (errUnguarded) when it is not, or when it
// cannot check it; the caller then starts again without remembered.
func (s *CatalogService) retailerQuery(ctx context.Context, r reader, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, remembered bool) (*keysetQuery, error) {
	q := &keysetQuery{table: "balances b", alias: "b"}
	cutoff := eosCutoff(s.db, c.Environment)
	own := tenantOf(c, "", "retailer_org_id")
	if catalogExternalID != "" {
		key := catalogKey{c.OrgID, catalogExternalID}
		cat, ok := s.db.cats.Get(key)
		if types := parcelgate.ReadableCatalogTypes(c); ok && remembered && (types == nil || slices.Contains(types, cat.typ)) {
			q.guard = &filterSQL{}
			q.guard.add("(SELECT 1 FROM catalogs WHERE id = ? AND "+own.sql()+" AND external_id = ? AND catalog_type = ?)", append(append([]any{cat.id}, own.with()...), catalogExternalID, string(cat.typ))...)
		} else {
			var err error
			if cat, err = s.readableCatalog(ctx, r, c, catalogExternalID); err != nil {
				return nil, err
			}
			s.db.cats.Put(key, cat)
		}
		id := cat.id
		q.where.add("b.catalog_id = ?", id)
		q.validity = &countValidity{table: "balances b", scope: "b.catalog_id = ?", args: []any{id}, stamp: "b.modified_at", eos: "b.eos_at", cutoff: cutoff}
	} else {
		q.where.tenant(c, "", "b.retailer_org_id")
		scope := tenantOf(c, "", "b.retailer_org_id")
		q.validity = &countValidity{table: "balances b", scope: scope.sql(), args: scope.with(), stamp: "b.modified_at", eos: "b.eos_at", cutoff: cutoff}
		switch types := parcelgate.ReadableCatalogTypes(c); {
		case types == nil:
		case len(types) == 0:
			q.where.add("1 = 0")
		default:
			q.where.add("b.catalog_id IN (SELECT id FROM catalogs WHERE "+own.sql()+" AND catalog_type IN ("+placeholders(len(types))+"))",
				own.with(anys(types)...)...)
		}
	}
	q.where.addVolatile("(b.eos_at = 0 OR b.eos_at > ?)", cutoff)
	if err := contentFilter(ctx, r, c, q, f); err != nil {
		return nil, err
	}
	return q, nil
}

// ListCatalogBalances pages a retailer's catalog, for a caller that may
// read some of its catalogs: one that may ActionReadWarehouseCatalogs
// (interface §5.2), as the catalog routes ask. Whoever may
// ActionReadAllCatalogs may also read the warehouse's
// (TestReadAllCatalogsReadsWarehouseCatalogs), so a caller refused here is
// one parcelgate.ReadableCatalogTypes gives no type; which types the
// others read, it decides (retailerQuery).
func (s *CatalogService) ListCatalogBalances(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Balance], error) {
	if err := c.May(parcelgate.ActionReadWarehouseCatalogs); err != nil {
		return parcelgate.Page[*parcelgate.Balance]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.Balance], error) {
		cols, joins, dest := catalogBalanceRow(c, catalogExternalID)
		var head []any
		q, err := s.catalogQuery(ctx, r, c, catalogExternalID, f, pr, &head)
		if err != nil {
			return parcelgate.Page[*parcelgate.Balance]{}, err
		}
		return keysetPage(ctx, r, q, pr, cols, joins, func(rows *sql.Rows) (*parcelgate.Balance, pageKey, error) {
			b := newBalanceRow()
			if err := rows.Scan(append(dest(b), head...)...); err != nil {
				return nil, pageKey{}, err
			}
			return b.Balance, b.finish(), nil
		})
	})
}

// ListCatalogProducts pages a retailer's catalog as products, for a
// caller that may read some of its catalogs, as ListCatalogBalances.
func (s *CatalogService) ListCatalogProducts(ctx context.Context, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest) (parcelgate.Page[*parcelgate.InventoryItem], error) {
	if err := c.May(parcelgate.ActionReadWarehouseCatalogs); err != nil {
		return parcelgate.Page[*parcelgate.InventoryItem]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.InventoryItem], error) {
		cols, joins, dest := catalogBalanceRow(c, catalogExternalID)
		var head []any
		q, err := s.catalogQuery(ctx, r, c, catalogExternalID, f, pr, &head)
		if err != nil {
			return parcelgate.Page[*parcelgate.InventoryItem]{}, err
		}
		return keysetPage(ctx, r, q, pr, cols+`, `+productCols, joins, func(rows *sql.Rows) (*parcelgate.InventoryItem, pageKey, error) {
			b := newBalanceRow()
			var p productRow
			if err := rows.Scan(append(append(dest(b), p.dest()...), head...)...); err != nil {
				return nil, pageKey{}, err
			}
			k := b.finish()
			return &parcelgate.InventoryItem{Product: p.product(), Balances: []*parcelgate.Balance{b.Balance}}, k, nil
		})
	})
}

// catalogBalanceRow returns the columns and joins that read a balance of a
// retailer's catalog page, with the scan destinations of a row. On one
// named catalog, every balance's catalog is that catalog and its retailer
// the caller, so the page reads neither: the catalog's external ID is the
// one the caller named (the catalog was found by it, in the page's own
// statement or by the lookup, and never changes), and the retailer's
// business ID is the caller's own, as its credential's organization gave
// it. A caller without one reads them as every balance list does.
func catalogBalanceRow(c *parcelgate.Caller, catalogExternalID string) (cols, joins string, dest func(*balanceRow) []any) {
	if catalogExternalID == "" || c.BusinessID == "" {
		return balanceCols, balanceJoins, (*balanceRow).dest
	}
	return catalogBalanceCols, catalogBalanceJoins, func(b *balanceRow) []any {
		b.RetailerID, b.CatalogExternalID = c.BusinessID, catalogExternalID
		d := b.dest()
		return append(d[:5], d[7:]...) // balanceCols without ro.business_id, c.external_id
	}
}

const (
	catalogBalanceCols  = `b.id, b.product_id, b.product_external_id, p.ean_code, so.business_id, b.quantity, b.allocated, b.wholesale_price, b.currency, b.removed_at, b.modified_at`
	catalogBalanceJoins = `JOIN products p ON p.id = b.product_id
		JOIN organizations so ON so.id = b.supplier_org_id`
)

// catalogQuery is the query of a page of a retailer's catalog (or of all
// it may read), read in one statement where that is worth it (head, see
// keysetQuery.head): naming the catalog by its remembered ID first and,
// when the page cannot stand by that ID, by a lookup (its fallback; see
// retailerQuery).
func (s *CatalogService) catalogQuery(ctx context.Context, r reader, c *parcelgate.Caller, catalogExternalID string, f parcelgate.BalanceFilter, pr parcelgate.PageRequest, head *[]any) (*keysetQuery, error) {
	// The remembered ID saves a round trip, and only a page read in one
	// statement can check it.
	q, err := s.retailerQuery(ctx, r, c, catalogExternalID, f, oneStatement(r.db, false, pr.Size))
	if err != nil {
		return nil, err
	}
	q.head = head
	q.fallback = func() (*keysetQuery, error) {
		q, err := s.retailerQuery(ctx, r, c, catalogExternalID, f, false)
		if err != nil {
			return nil, err
		}
		q.head = head
		return q, nil
	}
	return q, nil
}

// ownCatalogJoins and ownCatalogCols read a catalog c of a page of the
// caller's catalogs as scanCatalog reads ListCatalogs' rows, its
// suppliers by a subquery so that the page needs no GROUP BY.
const ownCatalogJoins = `JOIN organizations ro ON ro.id = c.retailer_org_id`

func (s *CatalogService) ownCatalogCols() string {
	agg := "group_concat(so.business_id, ',')"
	if s.db.dialect.name == "postgres" {
		agg = "string_agg(so.business_id, ',' ORDER BY so.business_id)"
	}
	return `c.id, c.environment, c.retailer_org_id, c.external_id, c.name, c.catalog_type, ro.business_id,
		COALESCE((SELECT ` + agg + ` FROM catalog_suppliers cs JOIN organizations so ON so.id = cs.supplier_org_id WHERE cs.catalog_id = c.id), ''), c.created_at`
}

// ListOwnCatalogs reads a page of the caller's catalogs, as retailer or
// as supplier, with its total in one statement (keysetQuery.head), for a caller
// that may ActionListOwnCatalogs (interface §5.2: any ecom role), as GET
// /catalogs asks.
func (s *CatalogService) ListOwnCatalogs(ctx context.Context, c *parcelgate.Caller, role parcelgate.CatalogRole, pr parcelgate.PageRequest) (parcelgate.Page[*parcelgate.CatalogEntry], error) {
	if err := c.May(parcelgate.ActionListOwnCatalogs); err != nil {
		return parcelgate.Page[*parcelgate.CatalogEntry]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.CatalogEntry], error) {
		var head []any
		q := &keysetQuery{table: "catalogs c", alias: "c", fewRows: true, head: &head}
		if role == parcelgate.CatalogRoleSupplier {
			supplier := tenantOf(c, "", "supplier_org_id")
			q.where.add("c.id IN (SELECT catalog_id FROM catalog_suppliers WHERE "+supplier.sql()+")", supplier.with()...)
		} else {
			q.where.tenant(c, "", "c.retailer_org_id")
		}
		return keysetPage(ctx, r, q, pr, s.ownCatalogCols(), ownCatalogJoins, func(rows *sql.Rows) (*parcelgate.CatalogEntry, pageKey, error) {
			cat, err := scanCatalog(headScanner{rows, head})
			if err != nil {
				return nil, pageKey{}, err
			}
			return cat.Entry(c, role), pageKey{id: cat.ID}, nil
		})
	})
}
