package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// DefaultVersion is the gateway API version a Client uses unless
// Config.Version names another (interface §9 rule 1).
const DefaultVersion = "2025-04"

// DefaultTimeout bounds one attempt of a call, the reading of its answer
// included, unless Config.Timeout says otherwise.
const DefaultTimeout = 30 * time.Second

// ErrNoCredentials is the error of a call to an API the Client has no
// credentials for.
var ErrNoCredentials = errors.New("client: no credentials configured")

// Environment selects one of the provider's two environments. It chooses
// the errand-code path segment (parcel or parcel-uat) and the ecom address
// (Config.EcomURL or Config.EcomTestURL). Credentials belong to one
// environment; a token of the other is refused.
type Environment string

const (
	Production Environment = "production"
	Test       Environment = "test"
)

// Config configures a Client. Only the addresses of the surfaces used and
// their credentials are needed: a Client with only a service account can
// call the ecom API, one with only a gateway client the gateway APIs.
//
// The provider serves its surfaces at separate addresses; parcelgate serves
// them all at one, so BaseURL alone is enough for it.
type Config struct {
	// BaseURL is the default of every other address: set it alone to talk
	// to a parcelgate server.
	BaseURL string

	// GatewayURL is the address of the versioned gateway ({base_url} of the
	// spec): sending codes and shipment data. The version is appended.
	GatewayURL string
	// GatewayTokenURL is the gateway token service; default
	// GatewayURL + "/api/v1/token" ({auth_url} of the spec plus its path).
	GatewayTokenURL string
	// ErrandURL is the address of the errand-code API ({connect_url}); the
	// path segment /parcel or /parcel-uat follows from Environment.
	ErrandURL string
	// EcomURL and EcomTestURL are the production and test addresses of the
	// warehouse and product API ({ecom_url}, {ecom_test_url}); Environment
	// picks one. EcomTestURL defaults to EcomURL.
	EcomURL     string
	EcomTestURL string
	// EcomTokenURL is the ecom token service; default the chosen ecom
	// address + "/auth/token", or + "/oauth/token" with
	// ServiceAccountOAuth.
	EcomTokenURL string
	// ServiceAccountOAuth fetches the service account's token from the
	// provider's Authentication API route, POST /oauth/token
	// ?grant_type=client_credentials with HTTP Basic (the route tracking
	// and Glue clients use), instead of GET /auth/token. Either route
	// issues the same token.
	ServiceAccountOAuth bool

	// Environment is Production unless set.
	Environment Environment
	// Version is the gateway API version, yyyy-mm; default DefaultVersion.
	Version string

	// ClientID and ClientSecret are the gateway client's credentials
	// (interface §5.1), for sending codes, shipment data and errand codes.
	ClientID     string
	ClientSecret string
	// Username and Password are the service account's credentials
	// (interface §5.2), for orders, products, stock and catalogs.
	Username string
	Password string

	// GatewayTokenSource and EcomTokenSource, when set, supply the tokens
	// instead of the credentials above, e.g. tokens a caller already holds.
	GatewayTokenSource oauth2.TokenSource
	EcomTokenSource    oauth2.TokenSource

	// HTTPClient is the client whose transport, cookie jar and redirect
	// policy the Client uses; default http.DefaultClient. Its transport is
	// wrapped with the retry policy.
	HTTPClient *http.Client
	// Timeout bounds each attempt of a call; zero means DefaultTimeout and a
	// negative value no limit. The caller's context bounds the whole call.
	Timeout time.Duration
	// Retry says how calls are retried after transient failures.
	Retry RetryPolicy
	// UserAgent is sent with every request; default "parcelgate-go".
	UserAgent string
}

// Client calls the provider's four areas and the shipment-data service. It
// holds cached tokens and is safe for concurrent use; make one and share it.
type Client struct {
	gatewayURL string // without the version
	errandURL  string // with /parcel or /parcel-uat
	ecomURL    string
	version    string
	env        Environment
	userAgent  string
	hc         *http.Client
	transport  *retryTransport

	gatewayTokens *tokenCache // nil without gateway credentials
	ecomTokens    *tokenCache // nil without ecom credentials
}

var versionPattern = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)

// New returns a Client for cfg. It checks the configuration but makes no
// request; tokens are fetched on first use.
func New(cfg Config) (*Client, error) {
	or := func(v, def string) string {
		if v = strings.TrimRight(strings.TrimSpace(v), "/"); v != "" {
			return v
		}
		return strings.TrimRight(strings.TrimSpace(def), "/")
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	c := &Client{
		gatewayURL: or(cfg.GatewayURL, cfg.BaseURL),
		version:    or(cfg.Version, DefaultVersion),
		env:        cfg.Environment,
		userAgent:  or(cfg.UserAgent, "parcelgate-go"),
	}
	switch c.env {
	case "":
		c.env = Production
	case Production, Test:
	default:
		return nil, fmt.Errorf("client: Environment must be %q or %q, not %q", Production, Test, cfg.Environment)
	}
	if !versionPattern.MatchString(c.version) {
		return nil, fmt.Errorf("client: Version must be yyyy-mm, not %q", c.version)
	}
	segment := "/parcel"
	c.ecomURL = or(cfg.EcomURL, cfg.BaseURL)
	if c.env == Test {
		segment = "/parcel-uat"
		c.ecomURL = or(cfg.EcomTestURL, c.ecomURL)
	}
	if u := or(cfg.ErrandURL, c.gatewayURL); u != "" {
		c.errandURL = u + segment
	}
	for name, u := range map[string]string{"GatewayURL": c.gatewayURL, "ErrandURL": c.errandURL, "EcomURL": c.ecomURL, "GatewayTokenURL": cfg.GatewayTokenURL, "EcomTokenURL": cfg.EcomTokenURL} {
		if err := checkURL(u); err != nil {
			return nil, fmt.Errorf("client: %s: %w", name, err)
		}
	}

	base := cfg.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	c.transport = &retryTransport{base: base.Transport, policy: cfg.Retry.withDefaults(), timeout: cfg.Timeout, sleep: sleepContext}
	if c.transport.timeout == 0 {
		c.transport.timeout = DefaultTimeout
	}
	c.hc = &http.Client{Transport: c.transport, CheckRedirect: base.CheckRedirect, Jar: base.Jar, Timeout: base.Timeout}

	// Token requests are idempotent: the retry policy applies to them, and
	// they are made with the Client's own transport.
	tokenCtx := context.WithValue(withIdempotent(context.Background(), true), oauth2.HTTPClient, c.hc)
	switch {
	case cfg.GatewayTokenSource != nil:
		c.gatewayTokens = newTokenCache(cfg.GatewayTokenSource)
	case cfg.ClientID != "" || cfg.ClientSecret != "":
		tokenURL := or(cfg.GatewayTokenURL, c.gatewayURL+"/api/v1/token")
		if !strings.Contains(tokenURL, "://") {
			return nil, errors.New("client: gateway credentials need GatewayURL, BaseURL or GatewayTokenURL")
		}
		cc := &clientcredentials.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, TokenURL: tokenURL,
			// Interface §5.1 rule 2 sends the credentials as form fields; the
			// provider need not accept HTTP Basic as parcelgate does.
			AuthStyle: oauth2.AuthStyleInParams,
		}
		c.gatewayTokens = newTokenCache(tokenSourceFunc(func() (*oauth2.Token, error) { return cc.Token(tokenCtx) }))
	}
	switch {
	case cfg.EcomTokenSource != nil:
		c.ecomTokens = newTokenCache(cfg.EcomTokenSource)
	case cfg.Username != "" || cfg.Password != "":
		route := "/auth/token"
		if cfg.ServiceAccountOAuth {
			route = "/oauth/token"
		}
		tokenURL := or(cfg.EcomTokenURL, c.ecomURL+route)
		if !strings.Contains(tokenURL, "://") {
			return nil, errors.New("client: service account credentials need EcomURL, BaseURL or EcomTokenURL")
		}
		ec := &EcomTokenConfig{TokenURL: tokenURL, Username: cfg.Username, Password: cfg.Password, ClientCredentials: cfg.ServiceAccountOAuth}
		c.ecomTokens = newTokenCache(tokenSourceFunc(func() (*oauth2.Token, error) { return ec.Token(tokenCtx) }))
	}
	return c, nil
}

// check finds the mistakes New cannot repair: credentials given by halves,
// or no address at all.
func (cfg *Config) check() error {
	var errs []string
	if (cfg.ClientID == "") != (cfg.ClientSecret == "") && cfg.GatewayTokenSource == nil {
		errs = append(errs, "ClientID and ClientSecret must be given together")
	}
	if (cfg.Username == "") != (cfg.Password == "") && cfg.EcomTokenSource == nil {
		errs = append(errs, "Username and Password must be given together")
	}
	if strings.TrimSpace(cfg.BaseURL+cfg.GatewayURL+cfg.ErrandURL+cfg.EcomURL+cfg.EcomTestURL) == "" {
		errs = append(errs, "no address: set BaseURL (a parcelgate server) or the surfaces' addresses")
	}
	if len(errs) > 0 {
		return errors.New("client: " + strings.Join(errs, "; "))
	}
	return nil
}

func checkURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", s)
	}
	return nil
}

// Version is the gateway API version the Client calls.
func (c *Client) Version() string { return c.version }

// Environment is the environment the Client calls.
func (c *Client) Environment() Environment { return c.env }

// surface is one of the API areas; each has its address, tokens and error
// shape.
type surface int

const (
	gateway surface = iota // versioned: sending codes, shipment data
	errand                 // errand codes
	ecom                   // orders, products, stock, catalogs
)

func (s surface) String() string {
	return [...]string{"gateway", "errand-code", "ecom"}[s]
}

// request is one API call.
type request struct {
	surface surface
	method  string
	path    string // below the surface's address (and version)
	query   url.Values
	url     string // absolute, instead of path and query (paging links)
	body    any
	// language is the Accept-Language of the call, when it asks for one.
	language string
	// header holds the call's own headers (x-test-environment).
	header http.Header
	// idempotent overrides the method's own idempotency for retries:
	// POSTs that are safe to repeat, PUTs that are not.
	idempotent *bool
}

func (c *Client) base(s surface) string {
	switch s {
	case gateway:
		if c.gatewayURL == "" {
			return ""
		}
		return c.gatewayURL + "/" + c.version
	case errand:
		return c.errandURL
	}
	return c.ecomURL
}

func (c *Client) tokens(s surface) *tokenCache {
	if s == ecom {
		return c.ecomTokens
	}
	return c.gatewayTokens
}

// do makes the call r and decodes a 2xx answer's body into out (unless out
// is nil). Any other answer is an *Error. A 401 drops the cached token and
// the call is made once more with a new one.
func (c *Client) do(ctx context.Context, r request, out any) error {
	target := r.url
	if target == "" {
		base := c.base(r.surface)
		if base == "" {
			return fmt.Errorf("client: no address configured for the %s API", r.surface)
		}
		target = base + r.path
		if len(r.query) > 0 {
			target += "?" + r.query.Encode()
		}
	}
	tokens := c.tokens(r.surface)
	if tokens == nil {
		return fmt.Errorf("%w (the %s API)", ErrNoCredentials, r.surface)
	}
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return fmt.Errorf("client: encode request: %w", err)
		}
	}
	if r.idempotent != nil {
		ctx = withIdempotent(ctx, *r.idempotent)
	}
	// One ID for every attempt, so the server's logs tie them together.
	requestID := rand.Text()[:20]
	for retried := false; ; retried = true {
		tok, err := tokens.token(ctx)
		if err != nil {
			return err
		}
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, rd)
		if err != nil {
			return fmt.Errorf("client: %w", err)
		}
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("User-Agent", c.userAgent)
		if r.language != "" {
			req.Header.Set("Accept-Language", r.language)
		}
		for k, v := range r.header {
			req.Header[k] = v
		}
		req.Header.Set("X-Request-ID", requestID)
		tok.SetAuthHeader(req)
		resp, err := c.hc.Do(req)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusUnauthorized && !retried {
			// The token expired early or was revoked: the server did nothing
			// with the request, so it is safe to repeat whatever it was.
			drain(resp)
			tokens.invalidate(tok.AccessToken)
			continue
		}
		return decodeResponse(resp, out)
	}
}

// decodeResponse reads resp into out, or into an *Error when it is not 2xx.
func decodeResponse(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return responseError(resp)
	}
	if out == nil {
		drain(resp)
		return nil
	}
	// A document (a label PDF) is taken as it is, up to 64 MiB.
	if raw, ok := out.(*[]byte); ok {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		*raw = b
		return err
	}
	if w, ok := out.(io.Writer); ok {
		// A document (a PDF label or note), copied as it is.
		_, err := io.Copy(w, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("client: decode %s %s answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}

// drain reads what is left of a body so the connection can be reused.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// decodeInto decodes a JSON body already read.
func decodeInto(b []byte, v any) error { return json.Unmarshal(b, v) }

// escape is url.PathEscape for one path segment.
func escape(s string) string { return url.PathEscape(s) }

// formatTime writes t as the query parameters want it: RFC 3339 in UTC with
// the server's microsecond precision.
func formatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
}

func ptr[T any](v T) *T { return &v }
