package httpapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// supplierRoles may write and read products and balances: in the
// warehouse service the merchant is its own supplier.

// The supplier's side of products and stock (spec 4.4, DESIGN §6).
func (s *Server) inventoryRoutes() {
	s.handle("PUT /ecommerce/v3/inventory", s.ecom(parcelgate.ActionManageProducts, s.putInventory))
	s.handle("GET /ecommerce/v3/inventory", s.ecom(parcelgate.ActionReadProducts, s.listInventory))
	s.handle("DELETE /ecommerce/v3/inventory", s.ecom(parcelgate.ActionManageProducts, s.endOfSale))
	s.handle("GET /ecommerce/v3/inventory/{externalId}", s.ecom(parcelgate.ActionReadProducts, s.getInventoryItem))
	s.handle("PUT /ecommerce/v3/inventory/balances", s.ecom(parcelgate.ActionPublishBalances, s.putBalances))
	s.handle("GET /ecommerce/v3/inventory/balances", s.ecom(parcelgate.ActionReadProducts, s.listSupplierBalances))
	s.handle("DELETE /ecommerce/v3/inventory/balances", s.ecom(parcelgate.ActionPublishBalances, s.deleteBalances))
}

func (s *Server) putInventory(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	entries, err := parcelgate.ParseInventory(body)
	if err != nil {
		return err
	}
	items, err := s.store.PutInventory(r.Context(), entries)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, items)
	return nil
}

func (s *Server) listInventory(w http.ResponseWriter, r *http.Request) error {
	pr, f, err := parseBalanceQuery(r, true)
	if err != nil {
		return err
	}
	res, err := s.store.ListInventory(r.Context(), parcelgate.InventoryFilter{
		ProductExternalIDs: f.ProductExternalIDs, EANCodes: f.EANCodes, RetailerID: f.RetailerID, CatalogExternalID: f.CatalogExternalID}, pr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(s, r, pr, res))
	return nil
}

func (s *Server) getInventoryItem(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("externalId")
	if !parcelgate.ValidExternalID(id) {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, "Product %s not found.", id)
	}
	item, err := s.store.FindInventoryItem(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, item)
	return nil
}

func (s *Server) endOfSale(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	ids, err := parcelgate.ParseEndOfSale(body)
	if err != nil {
		return err
	}
	items, err := s.store.EndOfSale(r.Context(), ids)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, items)
	return nil
}

func (s *Server) putBalances(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	entries, err := parcelgate.ParseBalances(body)
	if err != nil {
		return err
	}
	bals, err := s.store.PutBalances(r.Context(), entries)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, bals)
	return nil
}

func (s *Server) listSupplierBalances(w http.ResponseWriter, r *http.Request) error {
	pr, f, err := parseBalanceQuery(r, true)
	if err != nil {
		return err
	}
	res, err := s.store.ListSupplierBalances(r.Context(), f, pr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(s, r, pr, res))
	return nil
}

// deleteBalances removes a product from catalogs (spec 4.4 DELETE balances
// rules 1-2): productExternalId is required; without catalogExternalId
// and/or retailerId, from every catalog that matches the rest.
func (s *Server) deleteBalances(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var p parcelgate.Problems
	product := strings.TrimSpace(q.Get("productExternalId"))
	if product == "" {
		p.Add("productExternalId", "is required")
	} else if !parcelgate.ValidExternalID(product) {
		p.Add("productExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", product)
	}
	retailer := placeParams(q, &p)
	catalog := strings.TrimSpace(q.Get("catalogExternalId"))
	if err := p.Err(); err != nil {
		return err
	}
	removed, err := s.store.DeleteBalances(r.Context(), product, retailer, catalog)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, removed)
	return nil
}

// placeParams checks retailerId and catalogExternalId and returns the
// normalized retailer business ID.
func placeParams(q url.Values, p *parcelgate.Problems) string {
	retailer := strings.TrimSpace(q.Get("retailerId"))
	if retailer != "" {
		id, err := parcelgate.NormalizeBusinessID(retailer)
		if err != nil {
			p.Add("retailerId", "%s", parcelgate.ErrorMessage(err))
		}
		retailer = id
	}
	if c := strings.TrimSpace(q.Get("catalogExternalId")); c != "" && !parcelgate.ValidExternalID(c) {
		p.Add("catalogExternalId", "must be 1-20 characters of letters, digits, '-' and '.', not %q", c)
	}
	return retailer
}

// parseBalanceQuery reads the paging and the filters of a product or
// balance list (spec 4.4 GET rules 1-3): productExternalId and eanCode (one
// value or a comma-separated list, also repeated), modifiedFromDate, and on
// the supplier's lists retailerId and catalogExternalId. Every bad value is
// reported at once.
func parseBalanceQuery(r *http.Request, supplier bool) (parcelgate.PageRequest, parcelgate.BalanceFilter, error) {
	q := r.URL.Query()
	var p parcelgate.Problems
	pr, err := parsePage(r, parcelgate.DefaultPageSize)
	p.AddFields(parcelgate.ErrorFields(err)...)
	var f parcelgate.BalanceFilter
	f.ProductExternalIDs = listParam(q, "productExternalId", &p, func(v string) bool { return parcelgate.ValidExternalID(v) })
	f.EANCodes = listParam(q, "eanCode", &p, func(v string) bool { return len(v) <= 64 })
	if t, ok := parseTime(q, "modifiedFromDate", &p); ok {
		f.ModifiedAfter = t
	}
	if supplier {
		f.RetailerID = placeParams(q, &p)
		f.CatalogExternalID = strings.TrimSpace(q.Get("catalogExternalId"))
	}
	return pr, f, p.Err()
}

// listParam reads a filter given as one value, a comma-separated list, or
// repeated parameters.
func listParam(q url.Values, name string, p *parcelgate.Problems, valid func(string) bool) []string {
	var out []string
	for _, item := range commaValues(q, name) {
		if !valid(item) {
			p.Add(name, "%q is not a valid value", item)
			continue
		}
		out = append(out, item)
	}
	if len(out) > parcelgate.MaxListFilterValues {
		p.Add(name, "lists %d values; at most %d are allowed", len(out), parcelgate.MaxListFilterValues)
	}
	return out
}
