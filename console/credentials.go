package console

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	views "github.com/parcelgate/parcelgate/console/view"
)

// The operator's credentials page: the gateway clients and service
// accounts of the chosen organization, its catalogs and their suppliers.
// Creating and revoking go through the store's credential services, as
// the operator API does; a secret or password is shown once, in the answer
// to the request that made it, and stored only as a hash.

type credentialsData struct {
	Org           *parcelgate.Organization
	Clients       []*parcelgate.GatewayClient
	ClientsNext   string
	Accounts      []*parcelgate.ServiceAccount
	AccountsNext  string
	Catalogs      []*parcelgate.Catalog
	CatalogsNext  string
	CatalogsAfter string
	Roles         []parcelgate.Role
	NewClient     *parcelgate.GatewayClient
	NewAccount    *parcelgate.ServiceAccount
	AccountForm   accountForm
	AccountErrors map[string]string
	Form          map[string][]string
	Versions      []string
	ClientsAfter  string
	AccountsAfter string
}

type accountForm struct {
	Username string
	Roles    map[parcelgate.Role]bool
}

func (c *Console) credentialsPage(w http.ResponseWriter, r *http.Request, s *session) {
	c.renderCredentials(w, r, s, http.StatusOK, &credentialsData{})
}

func (c *Console) renderCredentials(w http.ResponseWriter, r *http.Request, s *session, status int, d *credentialsData) {
	// Who may see the page is the credential service's (ActionOperate):
	// its lists come first.
	if !c.needTenant(w, r, s) {
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	d.ClientsAfter, d.AccountsAfter = q.Get("clientsAfter"), q.Get("accountsAfter")
	clients, err := c.credentials.ListGatewayClients(ctx, s.caller, parcelgate.PageRequest{After: d.ClientsAfter, Size: pageSize})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Clients, d.ClientsNext = clients.Items, clients.Next
	accounts, err := c.credentials.ListServiceAccounts(ctx, s.caller, parcelgate.PageRequest{After: d.AccountsAfter, Size: pageSize})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Accounts, d.AccountsNext = accounts.Items, accounts.Next
	d.CatalogsAfter = q.Get("catalogsAfter")
	catalogs, err := c.catalogs.ListCatalogs(ctx, s.caller, parcelgate.PageRequest{After: d.CatalogsAfter, Size: pageSize})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Catalogs, d.CatalogsNext = catalogs.Items, catalogs.Next
	if d.Org, err = c.orgs.OrganizationByID(ctx, s.OrgID); err != nil {
		c.fail(w, r, s, err)
		return
	}
	d.Roles, d.Versions, d.Form = parcelgate.Roles, c.cfg.Versions, q
	if d.AccountForm.Roles == nil {
		d.AccountForm.Roles = map[parcelgate.Role]bool{}
	}
	c.renderView(w, r, status, "credentials", &view{Title: "Credentials", Session: s, Nav: "credentials", Data: d})
}

// createGatewayClient makes a gateway client of the chosen organization
// granted every served version at tier 1, as the operator API does when
// no versions are named: the same auth.CreateGatewayClient.
func (c *Console) createGatewayClient(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	gc, err := auth.CreateGatewayClient(r.Context(), c.credentials, s.caller, &parcelgate.GatewayClientRequest{Environment: string(s.Environment), BusinessID: s.BusinessID}, c.cfg.Versions)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.renderCredentials(w, r, s, http.StatusCreated, &credentialsData{NewClient: gc})
}

// createServiceAccount makes a service account of the chosen organization
// with a generated password, as the operator API does: the same
// auth.CreateServiceAccount, whose root rules' refusals are shown by the
// form's fields.
func (c *Console) createServiceAccount(w http.ResponseWriter, r *http.Request, s *session) {
	if !c.needTenant(w, r, s) {
		return
	}
	if err := r.ParseForm(); err != nil {
		if unread := parcelgate.Errorf(parcelgate.EINVALID, "The form could not be read."); c.ask(w, r, s, unread, func(u *parcelgate.Caller) error {
			return c.credentials.CreateServiceAccount(r.Context(), u, nil, "")
		}) {
			c.errorPage(w, r, s, http.StatusBadRequest, "The form could not be read.")
		}
		return
	}
	form := accountForm{Username: strings.TrimSpace(r.PostForm.Get("username")), Roles: map[parcelgate.Role]bool{}}
	for _, v := range r.PostForm["role"] {
		form.Roles[parcelgate.Role(v)] = true
	}
	a, err := auth.CreateServiceAccount(r.Context(), c.credentials, s.caller, &parcelgate.ServiceAccountRequest{
		Environment: string(s.Environment), BusinessID: s.BusinessID, Username: form.Username, Roles: r.PostForm["role"]})
	errs := map[string]string{}
	switch parcelgate.ErrorCode(err) {
	case "":
		c.renderCredentials(w, r, s, http.StatusCreated, &credentialsData{NewAccount: a})
		return
	case parcelgate.ECONFLICT:
		errs["username"] = "This username is taken (usernames are unique across environments)."
	case parcelgate.EINVALID:
		for _, f := range parcelgate.ErrorFields(err) {
			switch f.Field {
			case "username":
				errs["username"] = "The username " + f.Message + "."
			case "roles":
				errs["roles"] = f.Message + "."
			}
		}
	}
	if len(errs) == 0 {
		c.fail(w, r, s, err)
		return
	}
	c.renderCredentials(w, r, s, http.StatusBadRequest, &credentialsData{AccountForm: form, AccountErrors: errs})
}

// credentialAction acts on the credential named by the path value name,
// which must be one of the chosen organization's (else the 404 page): the
// page acts on one tenant, so a forged form cannot reach another's. The
// store acts as the session's operator on that tenant, and refuses
// another's credential itself too.
func (c *Console) credentialAction(kind, name string, act func(ctx context.Context, op *parcelgate.Caller, id string) error, done string) handler {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if !c.needTenant(w, r, s) {
			return
		}
		id := r.PathValue(name)
		org, err := c.operator.ConsoleCredentialOrg(r.Context(), s.caller, kind, id)
		// The credential service found it within the session's scope
		// (its environment); the page acts on the chosen organization.
		if err == nil && !s.caller.Covers(s.Environment, org) {
			err = parcelgate.Errorf(parcelgate.ENOTFOUND, "no such credential")
		}
		if err == nil {
			err = act(r.Context(), s.caller, id)
		}
		if err != nil {
			c.fail(w, r, s, err)
			return
		}
		http.Redirect(w, r, Prefix+"/credentials?done="+done, http.StatusSeeOther)
	}
}

func (c *Console) revokeGatewayClient(w http.ResponseWriter, r *http.Request, s *session) {
	c.credentialAction(views.CredentialGatewayClient, "id", c.credentials.RevokeGatewayClient, "revoked")(w, r, s)
}

func (c *Console) revokeServiceAccount(w http.ResponseWriter, r *http.Request, s *session) {
	c.credentialAction(views.CredentialServiceAccount, "username", c.credentials.RevokeServiceAccount, "revoked")(w, r, s)
}

func (c *Console) unlockServiceAccount(w http.ResponseWriter, r *http.Request, s *session) {
	c.credentialAction(views.CredentialServiceAccount, "username", c.credentials.UnlockServiceAccount, "unlocked")(w, r, s)
}

// descriptions lists the descriptions of a product document by language,
// English and Finnish first, as the root's one reader of the document
// (ReadProductDocument) orders them; the lists' product name is the same
// reader's Name.
func descriptions(doc json.RawMessage) []description {
	d := parcelgate.ReadProductDocument(doc)
	var out []description
	for _, l := range d.Languages() {
		v := d.Descriptions[l]
		out = append(out, description{l, v.Name, v.ShortDescription, v.Description})
	}
	return out
}

func indentJSON(doc json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, doc, "", "  ") != nil {
		return string(doc)
	}
	return b.String()
}
