package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// refreshEarly is how long before its expiry a cached token is replaced, so
// that a token does not expire between being taken and reaching the server.
const refreshEarly = time.Minute

// EcomTokenConfig describes the ecom token service (interface §5.2): GET with a
// service account's username and password in HTTP Basic. It is the
// counterpart of clientcredentials.Config for the warehouse and product API.
type EcomTokenConfig struct {
	// TokenURL is the token endpoint, e.g. "https://ecom.example/auth/token"
	// or, with ClientCredentials, "https://ecom.example/oauth/token".
	TokenURL string
	Username string
	Password string
	// ClientCredentials asks the token as the provider's Authentication
	// API's service-account route does: POST TokenURL with
	// grant_type=client_credentials in the query (as the provider's page
	// sends it) and the same HTTP Basic credentials. The token is the one
	// GET /auth/token issues; the two routes share one lockout.
	ClientCredentials bool
}

// Token fetches a new token. The context may carry an *http.Client under
// oauth2.HTTPClient to make the request with. A refusal is an *Error: wrong
// credentials and a locked account (5 failed logins, interface §5.2 rule 5) both
// answer 401 "Bad credentials".
func (c *EcomTokenConfig) Token(ctx context.Context) (*oauth2.Token, error) {
	method, target := http.MethodGet, c.TokenURL
	if c.ClientCredentials {
		u, err := url.Parse(c.TokenURL)
		if err != nil {
			return nil, fmt.Errorf("client: ecom token: %w", err)
		}
		q := u.Query()
		q.Set("grant_type", "client_credentials")
		u.RawQuery = q.Encode()
		method, target = http.MethodPost, u.String()
	}
	req, err := http.NewRequestWithContext(ctx, method, target, nil)
	if err != nil {
		return nil, fmt.Errorf("client: ecom token: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(c.Username, c.Password)
	hc, _ := ctx.Value(oauth2.HTTPClient).(*http.Client)
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := decodeResponse(resp, &raw); err != nil {
		return nil, err
	}
	var body struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	var extra map[string]any
	if err := json.Unmarshal(raw, &body); err != nil || json.Unmarshal(raw, &extra) != nil {
		return nil, fmt.Errorf("client: ecom token: the answer is not a token: %s", truncate(raw))
	}
	if body.AccessToken == "" {
		return nil, errors.New("client: ecom token: the answer holds no access_token")
	}
	tok := &oauth2.Token{AccessToken: body.AccessToken, TokenType: body.TokenType}
	if body.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(body.ExpiresIn) * time.Second)
		tok.ExpiresIn = body.ExpiresIn
	}
	return tok.WithExtra(extra), nil
}

// TokenSource returns a source that fetches a token when the one it holds
// is about to expire, and is safe for concurrent use.
func (c *EcomTokenConfig) TokenSource(ctx context.Context) oauth2.TokenSource {
	return oauth2.ReuseTokenSourceWithExpiry(nil, tokenSourceFunc(func() (*oauth2.Token, error) { return c.Token(ctx) }), refreshEarly)
}

type tokenSourceFunc func() (*oauth2.Token, error)

func (f tokenSourceFunc) Token() (*oauth2.Token, error) { return f() }

// tokenCache holds the tokens of one surface: an oauth2.ReuseTokenSource
// over the fetching source, which a refused token replaces so the next call
// fetches anew.
type tokenCache struct {
	fetch oauth2.TokenSource

	mu     sync.Mutex
	reuse  oauth2.TokenSource
	last   *oauth2.Token // what reuse handed out last
	expiry time.Time     // of last, for the fast path
}

func newTokenCache(fetch oauth2.TokenSource) *tokenCache {
	return &tokenCache{fetch: fetch, reuse: oauth2.ReuseTokenSourceWithExpiry(nil, fetch, refreshEarly)}
}

// token returns the cached token, fetching one when it is missing or about
// to expire. A fetch in progress does not hold up a caller whose context
// ends; it goes on and fills the cache for the next.
func (c *tokenCache) token(ctx context.Context) (*oauth2.Token, error) {
	c.mu.Lock()
	src, fresh := c.reuse, c.last != nil && (c.expiry.IsZero() || time.Until(c.expiry) > refreshEarly+time.Second)
	c.mu.Unlock()
	if fresh {
		return c.record(src.Token())
	}
	type result struct {
		tok *oauth2.Token
		err error
	}
	done := make(chan result, 1)
	go func() {
		t, err := c.record(src.Token())
		done <- result{t, err}
	}()
	select {
	case r := <-done:
		return r.tok, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *tokenCache) record(t *oauth2.Token, err error) (*oauth2.Token, error) {
	if err != nil {
		return nil, tokenError(err)
	}
	c.mu.Lock()
	c.last, c.expiry = t, t.Expiry
	c.mu.Unlock()
	return t, nil
}

// invalidate drops the cached token if it is still the refused one; of many
// calls refused with the same token, only the first causes a new fetch.
func (c *tokenCache) invalidate(refused string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil && c.last.AccessToken == refused {
		c.reuse = oauth2.ReuseTokenSourceWithExpiry(nil, c.fetch, refreshEarly)
		c.last = nil
	}
}

// tokenError turns the oauth2 package's error for a refused token request
// into an *Error.
func tokenError(err error) error {
	re, ok := errors.AsType[*oauth2.RetrieveError](err)
	if !ok || re.Response == nil {
		return err
	}
	e := parseError(re.Response, re.Body)
	if re.ErrorCode != "" {
		e.Code, e.Message = re.ErrorCode, re.ErrorDescription
	}
	return e
}

// Token is an access token as a token service issued it.
type Token struct {
	AccessToken string    `json:"access_token"`
	TokenType   string    `json:"token_type"`
	Expiry      time.Time `json:"expiry,omitzero"`
	// Scope is the ecom token's scope ("internal", interface §5.2 rule 3).
	Scope string `json:"scope,omitempty"`
	// Targets are the gateway token's API versions and their addresses
	// (provider_fi.targets, interface §5.1 rule 3; posti_fi.targets from the
	// provider's real gateway).
	Targets map[string]Target `json:"targets,omitempty"`
}

// Target is the address and tier of one gateway API version.
type Target struct {
	URL  string `json:"url"`
	Tier int    `json:"tier"`
}

// GatewayToken returns the gateway access token the Client holds, fetching
// one if it has none or it is about to expire.
func (c *Client) GatewayToken(ctx context.Context) (*Token, error) {
	return c.token(ctx, c.gatewayTokens, "gateway")
}

// EcomToken returns the ecom access token the Client holds, fetching one if
// it has none or it is about to expire.
func (c *Client) EcomToken(ctx context.Context) (*Token, error) {
	return c.token(ctx, c.ecomTokens, "ecom")
}

func (c *Client) token(ctx context.Context, tc *tokenCache, api string) (*Token, error) {
	if tc == nil {
		return nil, fmt.Errorf("%w (the %s API)", ErrNoCredentials, api)
	}
	t, err := tc.token(ctx)
	if err != nil {
		return nil, err
	}
	out := &Token{AccessToken: t.AccessToken, TokenType: t.TokenType, Expiry: t.Expiry}
	if s, ok := t.Extra("scope").(string); ok {
		out.Scope = s
	}
	// The spec names the targets provider_fi; the provider's real gateway
	// answers them under posti_fi. Either is read.
	for _, key := range []string{"provider_fi", "posti_fi"} {
		pf, ok := t.Extra(key).(map[string]any)
		if !ok {
			continue
		}
		var scope struct {
			Targets map[string]Target `json:"targets"`
		}
		b, _ := json.Marshal(pf)
		if json.Unmarshal(b, &scope) == nil && scope.Targets != nil {
			out.Targets = scope.Targets
			break
		}
	}
	return out, nil
}
