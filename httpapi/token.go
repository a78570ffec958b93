package httpapi

import (
	"encoding/base64"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
)

func (s *Server) tokenRoutes() {
	s.handle("POST /api/v1/token", http.HandlerFunc(s.gatewayToken))
	s.handle("GET /auth/token", http.HandlerFunc(s.ecomToken))
	s.handle("POST /auth/token", http.HandlerFunc(s.ecomToken))
	// The provider's Authentication API route for service accounts
	// (decisions §37), which its tracking and Glue clients call.
	s.handle("POST /oauth/token", http.HandlerFunc(s.serviceAccountToken))
}

// OAuthError is the error body of the gateway token service (RFC 6749 §5.2).
type OAuthError struct {
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

// GatewayToken is the answer of POST /api/v1/token (interface §5.1 rule 3). The
// version targets are answered twice with the same content: under
// provider_fi, as the spec names them, and under posti_fi, the key the
// provider's real gateway answers and its clients read.
type GatewayToken struct {
	AccessToken string            `json:"access_token"`
	TokenType   string            `json:"token_type"`
	ExpiresIn   int               `json:"expires_in"`
	ProviderFI  GatewayTokenScope `json:"provider_fi"`
	PostiFI     GatewayTokenScope `json:"posti_fi"`
}

// GatewayTokenScope lists the API versions the token may call.
type GatewayTokenScope struct {
	Targets map[string]GatewayTarget `json:"targets"`
}

// GatewayTarget is the address and tier of one API version.
type GatewayTarget struct {
	URL  string `json:"url"`
	Tier int    `json:"tier"`
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, OAuthError{Error: code, ErrorDescription: desc})
}

// gatewayToken is the gateway token service (interface §5.1, decisions §4): the
// client_credentials grant with the client's credentials in the form or, as
// RFC 6749 §2.3.1 prefers and stock OAuth2 libraries send, in HTTP Basic.
func (s *Server) gatewayToken(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		oauthError(w, http.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded.")
		return
	}
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			oauthError(w, http.StatusRequestEntityTooLarge, "invalid_request", "The request body is too large.")
			return
		}
		oauthError(w, http.StatusBadRequest, "invalid_request", "The form body cannot be read: "+err.Error())
		return
	}
	form := r.PostForm
	// The call is journaled under the organization of the client it names,
	// whether it gets a token or not ("why does my token call fail" is
	// a lookup in the journal); the secret is redacted from the journaled form.
	var named string
	var issued *parcelgate.Caller
	defer func() { s.journalCredential(r, parcelgate.KindGateway, named, issued) }()
	if id, _, ok := r.BasicAuth(); ok {
		named, _ = url.QueryUnescape(id)
	} else {
		named = form.Get("client_id")
	}
	for _, f := range []string{"grant_type", "client_id", "client_secret"} {
		if len(form[f]) > 1 {
			oauthError(w, http.StatusBadRequest, "invalid_request", f+" is given more than once.")
			return
		}
	}
	var p parcelgate.Problems
	if checkValues(form, "(form)", &p); p.Len() > 0 {
		oauthError(w, http.StatusBadRequest, "invalid_request", parcelgate.ErrorMessage(p.Err()))
		return
	}
	switch gt := form.Get("grant_type"); gt {
	case "client_credentials":
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "grant_type is required and must be client_credentials.")
		return
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type must be client_credentials, not "+gt+".")
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		if form.Get("client_secret") != "" {
			oauthError(w, http.StatusBadRequest, "invalid_request", "Send the client credentials either in the Authorization header or in the form, not both.")
			return
		}
		// RFC 6749 §2.3.1: both are form-urlencoded before Basic encoding.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "The Basic credentials are not form-urlencoded.")
			return
		}
		if err := checkCredentials(id, secret, "client_id", "client_secret"); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", parcelgate.ErrorMessage(err))
			return
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
		if id == "" || secret == "" {
			oauthError(w, http.StatusBadRequest, "invalid_request", "client_id and client_secret are required (form fields or HTTP Basic).")
			return
		}
	}
	client, err := s.credentials.AuthenticateGatewayClient(r.Context(), id, secret)
	if parcelgate.ErrorCode(err) == parcelgate.EUNAUTHORIZED {
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="parcelgate"`)
		}
		oauthError(w, http.StatusUnauthorized, "invalid_client", "Client authentication failed.")
		return
	}
	if err != nil {
		s.writeGatewayError(w, r, err)
		return
	}
	now := s.clock.Now(client.Environment)
	var grants []parcelgate.VersionGrant
	targets := map[string]GatewayTarget{}
	base := s.publicURL(r)
	for _, g := range client.Versions {
		if s.supportedVersion(g.Version) {
			grants = append(grants, g)
			targets[g.Version] = GatewayTarget{URL: base + "/" + g.Version, Tier: g.Tier}
		}
	}
	// Every gateway client may use the shipping API (decisions §29); its
	// target is the base its clients append /api/v2/shipping/order to.
	targets["shippingapi"] = GatewayTarget{URL: base + "/shippingapi", Tier: 0}
	issued = &parcelgate.Caller{
		Subject: client.ClientID, OrgID: client.OrgID, BusinessID: client.BusinessID,
		Environment: client.Environment, Kind: parcelgate.KindGateway, Versions: grants,
		IssuedAt: now, ExpiresAt: now.Add(parcelgate.TokenLifetime),
	}
	tok, err := s.keys.Seal(issued)
	if err != nil {
		s.writeGatewayError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, GatewayToken{
		AccessToken: tok, TokenType: "Bearer", ExpiresIn: int(parcelgate.TokenLifetime.Seconds()),
		ProviderFI: GatewayTokenScope{Targets: targets},
		PostiFI:    GatewayTokenScope{Targets: targets},
	})
}

// publicURL is the configured public URL, else the one the request came to.
func (s *Server) publicURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// EcomToken is the answer of the ecom token service (interface §5.2 rule 3).
type EcomToken struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// ecomToken is the ecom token service (interface §5.2): a service account's
// username and password in HTTP Basic. Wrong credentials, an unknown user
// and a locked account all answer the same 401 (interface §7), so the answer tells
// an attacker nothing.
func (s *Server) ecomToken(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		if gt := r.URL.Query().Get("grant_type"); gt == "" {
			r.ParseForm()
			if gt = r.PostForm.Get("grant_type"); gt != "" && gt != "client_credentials" {
				s.writeErrorBody(w, r, ecomSurface, http.StatusBadRequest, "", "grant_type must be client_credentials.", nil)
				return
			}
		} else if gt != "client_credentials" {
			s.writeErrorBody(w, r, ecomSurface, http.StatusBadRequest, "", "grant_type must be client_credentials.", nil)
			return
		}
	}
	s.issueEcomToken(w, r, func(tok string) any {
		return EcomToken{AccessToken: tok, TokenType: "bearer", ExpiresIn: int(parcelgate.TokenLifetime.Seconds()), Scope: "internal"}
	})
}

// ServiceAccountToken is the answer of POST /oauth/token, as the
// provider's Authentication API page prints it: token_type, access_token
// and expires_in, no scope (decisions §37).
type ServiceAccountToken struct {
	TokenType   string `json:"token_type"`
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// ServiceAccountTokenExpiresIn is the expires_in of POST /oauth/token:
// the provider's page answers 3599, one second under the token's life
// (parcelgate.TokenLifetime), so a client that renews when it runs out
// never holds an expired token.
const ServiceAccountTokenExpiresIn = 3599

// serviceAccountToken is POST /oauth/token?grant_type=client_credentials
// (the provider's Authentication API, decisions §37): a service account's
// name and secret in HTTP Basic, answered with the same ecom token as
// /auth/token, accepted wherever that one is. grant_type is required, in
// the query as the provider's page sends it or in a form body; the logins
// count towards the same lockout as /auth/token's (DecideLogin), and every
// refusal is /auth/token's.
func (s *Server) serviceAccountToken(w http.ResponseWriter, r *http.Request) {
	gts := r.URL.Query()["grant_type"]
	if len(gts) == 0 {
		r.ParseForm()
		gts = r.PostForm["grant_type"]
	}
	switch {
	case len(gts) == 0 || gts[0] == "":
		s.writeErrorBody(w, r, ecomSurface, http.StatusBadRequest, "", "grant_type is required: send grant_type=client_credentials in the query.",
			[]parcelgate.FieldError{{Field: "grant_type", Message: "is required (client_credentials)"}})
		return
	case len(gts) > 1:
		s.writeErrorBody(w, r, ecomSurface, http.StatusBadRequest, "", "grant_type is given more than once.",
			[]parcelgate.FieldError{{Field: "grant_type", Message: "must be given once"}})
		return
	case gts[0] != "client_credentials":
		s.writeErrorBody(w, r, ecomSurface, http.StatusBadRequest, "", "grant_type must be client_credentials.",
			[]parcelgate.FieldError{{Field: "grant_type", Message: "must be client_credentials, not " + strconv.Quote(gts[0])}})
		return
	}
	s.issueEcomToken(w, r, func(tok string) any {
		return ServiceAccountToken{TokenType: "bearer", AccessToken: tok, ExpiresIn: ServiceAccountTokenExpiresIn}
	})
}

// issueEcomToken authenticates the service account in the request's HTTP
// Basic credentials and answers the ecom token it is issued in the body
// that answer makes. The one login of both token routes: one lockout
// (DecideLogin, in the store), one journal entry, one 401.
func (s *Server) issueEcomToken(w http.ResponseWriter, r *http.Request, answer func(token string) any) {
	username, password, ok := basicAuth(r)
	var issued *parcelgate.Caller
	defer func() { s.journalCredential(r, parcelgate.KindEcom, username, issued) }()
	if !ok {
		badCredentials(s, w, r)
		return
	}
	if err := checkCredentials(username, password, "username", "password"); err != nil {
		s.writeError(w, r, ecomSurface, err)
		return
	}
	acct, err := s.credentials.AuthenticateServiceAccount(r.Context(), username, password)
	if parcelgate.ErrorCode(err) == parcelgate.EUNAUTHORIZED {
		badCredentials(s, w, r)
		return
	}
	if err != nil {
		s.writeError(w, r, ecomSurface, err)
		return
	}
	now := s.clock.Now(acct.Environment)
	issued = &parcelgate.Caller{
		Subject: acct.Username, OrgID: acct.OrgID, BusinessID: acct.BusinessID,
		Environment: acct.Environment, Kind: parcelgate.KindEcom, Roles: acct.Roles,
		IssuedAt: now, ExpiresAt: now.Add(parcelgate.TokenLifetime),
	}
	tok, err := s.keys.Seal(issued)
	if err != nil {
		s.writeError(w, r, ecomSurface, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, answer(tok))
}

// journalCredential names the caller a token request is journaled under:
// the one a token was issued to, else the owner of the credential the
// request named (looked up only when the journal is on). A name that is no
// credential's is journaled nowhere a tenant can see.
func (s *Server) journalCredential(r *http.Request, kind parcelgate.CredentialKind, named string, issued *parcelgate.Caller) {
	if issued != nil {
		parcelgate.JournalUnder(r.Context(), issued)
		return
	}
	if named == "" || !stateOf(r.Context()).journaled || parcelgate.TextProblem(named) != "" || len(named) > 200 {
		return
	}
	if owner, err := s.credentials.CredentialOwner(r.Context(), kind, named); err == nil {
		parcelgate.JournalUnder(r.Context(), owner)
	}
}

// badCredentials is the one answer to every failed login (interface §7).
func badCredentials(s *Server, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", `Basic realm="parcelgate"`)
	s.writeErrorBody(w, r, ecomSurface, http.StatusUnauthorized, "", "Bad credentials", nil)
}

// basicAuth reads HTTP Basic credentials; unlike r.BasicAuth it reports a
// malformed header as absent rather than guessing.
func basicAuth(r *http.Request) (user, pass string, ok bool) {
	scheme, enc, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(raw), ":")
	return user, pass, ok && user != ""
}
