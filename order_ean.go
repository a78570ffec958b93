package parcelgate

import (
	"fmt"
	"slices"
	"strings"
)

// RowProduct is a product an order row may name: a product of one of the
// suppliers of the row's catalog — the caller's own in its warehouse
// catalogs, a supplier's in a dropshipping catalog (decisions §34) — as
// the store found it by EAN or by ID.
type RowProduct struct {
	// Catalog is the external ID of the catalog (a row's
	// externalWarehouseId) the product was found for.
	Catalog string
	// SupplierID is the business ID of the product's supplier.
	SupplierID string
	// ExternalID is the product's externalId as stored; EAN its eanCode.
	ExternalID, EAN string
}

// RowProductLookup is what the store looks up for the rows that name a
// productEANCode (ResolveRowProducts): their catalogs, their EANs, and
// the product IDs (each in the forms that find it) of those that name
// one too. No EANs: nothing to look up.
type RowProductLookup struct {
	Catalogs, EANs, IDs []string
}

// RowProductLookup lists what ResolveRowProducts needs of a validated
// request whose rows' warehouses are set (DefaultWarehouse).
func (r *OrderRequest) RowProductLookup(businessID string) RowProductLookup {
	var l RowProductLookup
	for _, row := range r.Rows {
		if row.ProductEANCode == "" {
			continue
		}
		l.Catalogs = appendOnce(l.Catalogs, row.ExternalWarehouseID)
		l.EANs = appendOnce(l.EANs, row.ProductEANCode)
		if row.ExternalProductID != "" {
			forms, _ := RowProductForms(businessID, row.ExternalProductID)
			for _, f := range forms {
				l.IDs = appendOnce(l.IDs, f)
			}
		}
	}
	return l
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// RowProductForms are the stored IDs an order row's externalProductId
// may name, and the supplier a prefixed one must belong to: a product of
// the caller with businessID bare or prefixed (IDForms), or a
// supplier's product named with the supplier's business ID, stored with
// it or bare (decisions §14, §34) — the forms the row's stock is found by.
func RowProductForms(businessID, id string) (forms []string, supplier string) {
	if other, ok := OtherBusinessPrefix(businessID, id); ok {
		return []string{id, id[len(other)+1:]}, other
	}
	return IDForms(businessID, id), ""
}

// ResolveRowProducts decides the product of each row that names a
// productEANCode (the provider's Orders V3: a row names its product by
// externalProductId or productEANCode), from found, the products of the
// rows' catalogs with those EANs or IDs (RowProductLookup), for the
// caller with businessID:
//
//   - a row by EAN only takes the ID of the one product of its catalog
//     with that EAN; an EAN no product there has leaves the row without
//     a product, which is then stored in Error like an unknown product
//     (Allocate); an EAN of several products there is 400: the row must
//     name one by ID;
//   - a row by both is 400 naming rows[N].productEANCode when they
//     contradict: the EAN is another product's of the catalog, or the
//     product of the ID has another EAN (decisions §37). A product
//     without an EAN takes any EAN no other product has.
func (r *OrderRequest) ResolveRowProducts(businessID string, found []RowProduct) error {
	var p Problems
	byEANOnly := make([]bool, len(r.Rows))
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.ProductEANCode == "" {
			continue
		}
		byEANOnly[i] = row.ExternalProductID == ""
		path := fmt.Sprintf("rows[%d].productEANCode", i)
		var byEAN []RowProduct
		for _, f := range found {
			if f.Catalog == row.ExternalWarehouseID && f.EAN == row.ProductEANCode && !slices.Contains(byEAN, f) {
				byEAN = append(byEAN, f)
			}
		}
		if row.ExternalProductID == "" {
			switch len(byEAN) {
			case 0:
				// Unknown: the order is stored in Error (Allocate).
			case 1:
				row.ExternalProductID = byEAN[0].rowID(businessID)
			default:
				ids := make([]string, len(byEAN))
				for j, f := range byEAN {
					ids[j] = f.ExternalID
				}
				p.Add(path, "%s is the EAN of %d products in %s (%s): name the row's product by externalProductId", row.ProductEANCode, len(byEAN), row.ExternalWarehouseID, strings.Join(ids, ", "))
			}
			continue
		}
		forms, supplier := RowProductForms(businessID, row.ExternalProductID)
		var named []RowProduct
		for _, f := range found {
			if f.Catalog == row.ExternalWarehouseID && slices.Contains(forms, f.ExternalID) && (supplier == "" && f.SupplierID == businessID || supplier != "" && f.SupplierID == supplier) {
				named = append(named, f)
			}
		}
		switch {
		case len(byEAN) > 0 && !slices.ContainsFunc(named, func(f RowProduct) bool { return slices.Contains(byEAN, f) }):
			p.Add(path, "%s is the EAN of product %s, not of %s (externalProductId): name one product", row.ProductEANCode, byEAN[0].ExternalID, row.ExternalProductID)
		case len(byEAN) == 0 && len(named) > 0 && named[0].EAN != "":
			p.Add(path, "product %s has the EAN %s, not %s: name one product", row.ExternalProductID, named[0].EAN, row.ProductEANCode)
		}
	}
	// One row per product (checkOneRowPerProduct), now that a row by EAN
	// alone has its product: the second row of a product is refused, at
	// its EAN when it names the product by EAN alone.
	if p.Err() == nil {
		seen := map[string]int{}
		for i, row := range r.Rows {
			if row.ExternalProductID == "" {
				continue
			}
			key := ProductKey(businessID, row.ExternalProductID)
			first, dup := seen[key]
			switch {
			case !dup:
				seen[key] = i
			case byEANOnly[i]:
				p.Add(fmt.Sprintf("rows[%d].productEANCode", i), "%s is the EAN of product %s, which rows[%d] orders: an order has one row per product; add the quantities", row.ProductEANCode, row.ExternalProductID, first)
			default:
				p.Add(fmt.Sprintf("rows[%d].externalProductId", i), "names product %s, which rows[%d] orders by its EAN: an order has one row per product; add the quantities", row.ExternalProductID, first)
			}
		}
	}
	return p.Err()
}

// rowID is the externalProductId a row found by EAN takes: the caller's
// own product's ID as stored; a supplier's with the supplier's business
// ID, which finds it in a dropshipping catalog among other suppliers'
// (RowProductForms).
func (f RowProduct) rowID(businessID string) string {
	if f.SupplierID == businessID {
		return f.ExternalID
	}
	if other, ok := OtherBusinessPrefix(businessID, f.ExternalID); ok && other == f.SupplierID {
		return f.ExternalID
	}
	if other, ok := OtherBusinessPrefix(businessID, f.SupplierID+"-"+f.ExternalID); ok && other == f.SupplierID {
		return f.SupplierID + "-" + f.ExternalID
	}
	return f.ExternalID
}
