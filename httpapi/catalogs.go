package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// catalogReaderRoles may read catalogs they own as retailer; a merchant
// only its Warehouse catalogs (the store enforces that part).

// The retailer's side: catalogs and what suppliers published to them
// (interface §4.4, decisions §6).
func (s *Server) catalogRoutes() {
	// Each route's service decides who may act, before the query or the
	// path (decisions §57): ask hands it what the handler found wrong.
	s.handle("GET /ecommerce/v3/catalogs", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.catalogs.ListOwnCatalogs(ctx, c, "", parcelgate.PageRequest{})
		return err
	}, s.listOwnCatalogs))
	balances := func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.catalogs.ListCatalogBalances(ctx, c, "", parcelgate.BalanceFilter{}, parcelgate.PageRequest{})
		return err
	}
	s.handle("GET /ecommerce/v3/catalogs/balances", s.ecomReading(balances, s.listCatalogBalances))
	s.handle("GET /ecommerce/v3/catalogs/{catalogId}/balances", s.ecomReading(balances, s.listCatalogBalances))
	s.handle("GET /ecommerce/v3/catalogs/{catalogId}/products", s.ecomReading(func(ctx context.Context, c *parcelgate.Caller) error {
		_, err := s.catalogs.ListCatalogProducts(ctx, c, "", parcelgate.BalanceFilter{}, parcelgate.PageRequest{})
		return err
	}, s.listCatalogProducts))
}

// listOwnCatalogs answers GET /catalogs?role=RETAILER|SUPPLIER; any ecom
// role may ask; RETAILER is the default.
func (s *Server) listOwnCatalogs(w http.ResponseWriter, r *http.Request) error {
	var p parcelgate.Problems
	pr, err := parsePage(r, parcelgate.DefaultPageSize)
	p.AddFields(parcelgate.ErrorFields(err)...)
	role := parcelgate.CatalogRole(strings.ToUpper(strings.TrimSpace(r.URL.Query().Get("role"))))
	switch role {
	case "":
		role = parcelgate.CatalogRoleRetailer
	case parcelgate.CatalogRoleRetailer, parcelgate.CatalogRoleSupplier:
	default:
		p.Add("role", "must be RETAILER or SUPPLIER, not %q", r.URL.Query().Get("role"))
	}
	if err := p.Err(); err != nil {
		return err
	}
	res, err := s.catalogs.ListOwnCatalogs(r.Context(), caller(r), role, pr)
	if err != nil {
		return err
	}
	writePage(w, newPage(s, r, pr, res))
	return nil
}

// catalogParam is the {catalogId} path segment; empty on
// /catalogs/balances. A value no catalog can have is simply not found.
func catalogParam(r *http.Request) (string, error) {
	id := r.PathValue("catalogId")
	if r.Pattern != "" && strings.Contains(r.Pattern, "{catalogId}") && !parcelgate.ValidExternalID(id) {
		return "", parcelgate.Errorf(parcelgate.ENOTFOUND, "Catalog %s not found.", id)
	}
	return id, nil
}

func (s *Server) listCatalogBalances(w http.ResponseWriter, r *http.Request) error {
	return listCatalog(s, w, r, s.catalogs.ListCatalogBalances)
}

func (s *Server) listCatalogProducts(w http.ResponseWriter, r *http.Request) error {
	return listCatalog(s, w, r, s.catalogs.ListCatalogProducts)
}

// listCatalog answers a retailer's list of one catalog, or of all of its
// catalogs, through list.
func listCatalog[T any](s *Server, w http.ResponseWriter, r *http.Request, list func(context.Context, *parcelgate.Caller, string, parcelgate.BalanceFilter, parcelgate.PageRequest) (parcelgate.Page[T], error)) error {
	id, err := catalogParam(r)
	if err != nil {
		return err
	}
	pr, f, err := parseBalanceQuery(r, false)
	if err != nil {
		return err
	}
	res, err := list(r.Context(), caller(r), id, f, pr)
	if err != nil {
		return err
	}
	writePage(w, newPage(s, r, pr, res))
	return nil
}
