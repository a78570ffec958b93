package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// The operator API (decisions §9): organizations, the credentials of both token
// services, catalogs, token keys and the environment clock. It answers in the
// ecom error shape and refuses unknown fields, so an operator's typo is an
// error rather than a silently ignored setting.
func (s *Server) adminRoutes() {
	s.handle("POST /admin/v1/organizations", s.admin(s.createOrganization))
	s.handle("GET /admin/v1/organizations", s.admin(pagedListing("business ID", s.listOrganizations)))
	s.handle("POST /admin/v1/gateway-clients", s.admin(s.createGatewayClient))
	s.handle("GET /admin/v1/gateway-clients", s.admin(pagedListing("client ID", s.credentials.ListGatewayClients)))
	s.handle("DELETE /admin/v1/gateway-clients/{clientId}", s.admin(onPathValue("clientId", s.credentials.RevokeGatewayClient)))
	s.handle("POST /admin/v1/service-accounts", s.admin(s.createServiceAccount))
	s.handle("GET /admin/v1/service-accounts", s.admin(pagedListing("username", s.credentials.ListServiceAccounts)))
	s.handle("DELETE /admin/v1/service-accounts/{username}", s.admin(onPathValue("username", s.credentials.RevokeServiceAccount)))
	s.handle("POST /admin/v1/service-accounts/{username}/unlock", s.admin(onPathValue("username", s.credentials.UnlockServiceAccount)))
	s.handle("POST /admin/v1/catalogs", s.admin(s.createCatalog))
	s.handle("GET /admin/v1/catalogs", s.admin(s.listCatalogs))
	s.handle("POST /admin/v1/token-keys/rotate", s.admin(s.rotateTokenKey))
}

// envParam reads the environment query parameter of an operator listing.
func envParam(r *http.Request) (parcelgate.Environment, error) {
	env, err := parcelgate.ParseEnvironment(r.URL.Query().Get("environment"))
	if err != nil {
		return "", &parcelgate.Error{Code: parcelgate.EINVALID, Message: parcelgate.ErrorMessage(err),
			Fields: []parcelgate.FieldError{{Field: "environment", Message: "must be production or test"}}}
	}
	return env, nil
}

// Operator pages (decisions §53, §58): the organizations, gateway clients
// and service accounts of one environment, each by its unique key
// (business ID, client ID, username); size (1 to MaxOperatorPage, default
// DefaultOperatorPage) and after, the next of the page before.
const (
	DefaultOperatorPage = 100
	MaxOperatorPage     = 1000
)

// pagedListing answers an operator listing of one environment a page at a
// time: content as before, and next, the after of the following page,
// while more follow. key names the key in after's message. A client that
// read the whole array in one answer now reads the first page and follows
// next.
func pagedListing[T any](key string, list func(context.Context, *parcelgate.Caller, parcelgate.PageRequest) (parcelgate.Page[T], error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		env, err := envParam(r)
		if err != nil {
			return err
		}
		q := r.URL.Query()
		pr := parcelgate.PageRequest{Size: DefaultOperatorPage, After: q.Get("after")}
		var p parcelgate.Problems
		if v := q.Get("size"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxOperatorPage {
				p.Add("size", "must be a whole number from 1 to %d, not %q", MaxOperatorPage, v)
			}
			pr.Size = n
		}
		if len(pr.After) > 200 {
			p.Add("after", "is not a %s", key)
		}
		if err := p.Err(); err != nil {
			return err
		}
		page, err := list(r.Context(), parcelgate.EnvironmentOperator(env), pr)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, PagedList[T]{Content: page.Items, Next: page.Next})
		return nil
	}
}

// listOrganizations pages one environment's organizations by business ID.
func (s *Server) listOrganizations(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Organization], error) {
	return s.orgs.ListOrganizations(ctx, c, parcelgate.OrganizationQuery{}, p)
}

// PagedList is the body of a paged operator listing: a page of the list
// and, while more follow, the cursor of the next page.
type PagedList[T any] struct {
	Content []T    `json:"content"`
	Next    string `json:"next,omitempty"`
}

// onPathValue applies act to the path value name and answers 204. The
// path names no environment: the admin token acts as the operator of
// every environment (AllOperator()), as it always has.
func onPathValue(name string, act func(context.Context, *parcelgate.Caller, string) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := act(r.Context(), parcelgate.AllOperator(), r.PathValue(name)); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// operatorTarget checks the fields of an operator request body that name
// one object of an organization: environment, businessId and the object's
// ID in idField. It returns the environment.
func operatorTarget(p *parcelgate.Problems, environment, businessID, idField, id string) parcelgate.Environment {
	env := parseEnvField(environment, p)
	if strings.TrimSpace(businessID) == "" {
		p.Add("businessId", "is required")
	}
	if strings.TrimSpace(id) == "" {
		p.Add(idField, "is required")
	}
	return env
}

// parseEnvField reads the environment field of an operator request body,
// as the root's EnvironmentField does for the credential requests.
func parseEnvField(s string, p *parcelgate.Problems) parcelgate.Environment {
	return parcelgate.EnvironmentField(p, s)
}

// List is the body of an operator listing.
type List[T any] struct {
	Content []T `json:"content"`
}

type createOrganizationRequest struct {
	Environment    string              `json:"environment"`
	BusinessID     string              `json:"businessId"`
	Name           string              `json:"name"`
	ContractNumber string              `json:"contractNumber"`
	Address        *parcelgate.Address `json:"address"`
}

func (s *Server) createOrganization(w http.ResponseWriter, r *http.Request) error {
	var req createOrganizationRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := parseEnvField(req.Environment, &p)
	if err := p.Err(); err != nil {
		return err
	}
	o := &parcelgate.Organization{Environment: env, BusinessID: req.BusinessID, Name: req.Name, ContractNumber: req.ContractNumber, Address: req.Address}
	if err := s.orgs.CreateOrganization(r.Context(), parcelgate.EnvironmentOperator(env), o); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, o)
	return nil
}

// versionGrant reads one version of a gateway client: a version string
// (tier 1) or {version, tier}, the object read by the strict reader like
// every operator body.
type versionGrant parcelgate.VersionGrant

func (g *versionGrant) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*g = versionGrant{Version: name, Tier: 1}
		return nil
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		var p parcelgate.Problems
		p.Add("versions", "each must be a version string or {version, tier}, not %s", t)
		return p.Err()
	}
	var obj struct {
		Version string `json:"version"`
		Tier    *int   `json:"tier"`
	}
	if err := jsonin.DecodeStrict(bytes.NewReader(b), &obj, jsonin.Default); err != nil {
		return err
	}
	*g = versionGrant{Version: obj.Version, Tier: 1}
	if obj.Tier != nil {
		g.Tier = *obj.Tier
	}
	return nil
}

type createGatewayClientRequest struct {
	Environment string         `json:"environment"`
	BusinessID  string         `json:"businessId"`
	Versions    []versionGrant `json:"versions"`
}

// createGatewayClient makes a gateway client as the console does, by
// auth.CreateGatewayClient: the root's GatewayClientRequest.Validate checks
// the body.
func (s *Server) createGatewayClient(w http.ResponseWriter, r *http.Request) error {
	var req createGatewayClientRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	// nil (absent) grants every served version; [] grants none (refused).
	var grants []parcelgate.VersionGrant
	if req.Versions != nil {
		grants = make([]parcelgate.VersionGrant, 0, len(req.Versions))
		for _, g := range req.Versions {
			grants = append(grants, parcelgate.VersionGrant(g))
		}
	}
	// The body's environment is checked by the request's Validate; the
	// admin token is the operator of every environment.
	c, err := auth.CreateGatewayClient(r.Context(), s.credentials, parcelgate.AllOperator(), &parcelgate.GatewayClientRequest{
		Environment: req.Environment, BusinessID: req.BusinessID, Versions: grants}, s.cfg.Versions)
	if err != nil {
		return err
	}
	writeSecret(w, c)
	return nil
}

// writeSecret answers 201 with a new credential, whose secret is shown
// this once: no cache may keep the answer.
func writeSecret(w http.ResponseWriter, credential any) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, credential)
}

type createServiceAccountRequest struct {
	Environment string   `json:"environment"`
	BusinessID  string   `json:"businessId"`
	Username    string   `json:"username"`
	Password    string   `json:"password"`
	Roles       []string `json:"roles"`
}

// createServiceAccount makes a service account as the console does, by
// auth.CreateServiceAccount: the root's ServiceAccountRequest.Validate
// checks the body.
func (s *Server) createServiceAccount(w http.ResponseWriter, r *http.Request) error {
	var req createServiceAccountRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	a, err := auth.CreateServiceAccount(r.Context(), s.credentials, parcelgate.AllOperator(), &parcelgate.ServiceAccountRequest{
		Environment: req.Environment, BusinessID: req.BusinessID, Username: req.Username, Password: req.Password, Roles: req.Roles})
	if err != nil {
		return err
	}
	writeSecret(w, a)
	return nil
}

type createCatalogRequest struct {
	Environment       string   `json:"environment"`
	RetailerID        string   `json:"retailerId"`
	CatalogExternalID string   `json:"catalogExternalId"`
	CatalogName       string   `json:"catalogName"`
	CatalogType       string   `json:"catalogType"`
	SupplierIDs       []string `json:"supplierIds"`
}

func (s *Server) createCatalog(w http.ResponseWriter, r *http.Request) error {
	var req createCatalogRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	var p parcelgate.Problems
	env := parseEnvField(req.Environment, &p)
	if err := p.Err(); err != nil {
		return err
	}
	c := &parcelgate.Catalog{Environment: env, RetailerID: req.RetailerID, ExternalID: req.CatalogExternalID,
		Name: req.CatalogName, Type: parcelgate.CatalogType(req.CatalogType), SupplierIDs: req.SupplierIDs}
	if c.SupplierIDs == nil {
		c.SupplierIDs = []string{}
	}
	if err := s.catalogs.CreateCatalog(r.Context(), parcelgate.EnvironmentOperator(env), c); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, c)
	return nil
}

func (s *Server) listCatalogs(w http.ResponseWriter, r *http.Request) error {
	env, err := envParam(r)
	if err != nil {
		return err
	}
	op := parcelgate.EnvironmentOperator(env)
	if retailer := r.URL.Query().Get("retailerId"); retailer != "" {
		org, err := s.orgs.FindOrganization(r.Context(), op, retailer)
		if parcelgate.ErrorCode(err) == parcelgate.ENOTFOUND {
			// A retailer that is not there has no catalogs.
			writeJSON(w, http.StatusOK, List[*parcelgate.Catalog]{[]*parcelgate.Catalog{}})
			return nil
		}
		if err != nil {
			return err
		}
		op = parcelgate.OperatorCaller(org)
	}
	cs, err := s.catalogs.ListCatalogs(r.Context(), op, parcelgate.PageRequest{})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, List[*parcelgate.Catalog]{cs.Items})
	return nil
}

func (s *Server) rotateTokenKey(w http.ResponseWriter, r *http.Request) error {
	id, err := s.tokenKeys.RotateTokenKey(r.Context(), parcelgate.AllOperator())
	if err != nil {
		return err
	}
	if err := s.ReloadKeys(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"keyId": id})
	return nil
}
