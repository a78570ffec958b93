package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

const (
	shopID  = "1234567-1"
	otherID = "7654321-2"
)

func form(v url.Values) apitest.Request {
	return apitest.Request{Method: "POST", Path: "/api/v1/token", ContentType: "application/x-www-form-urlencoded", Body: v.Encode()}
}

// interface §5.1 rules 2-3: the client_credentials grant with form fields answers
// a Bearer token valid 3600 s listing the client's versions in
// provider_fi.targets.
func TestGatewayTokenForm(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Production, shopID, "2025-04")
		r := e.Do(form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})).Expect(http.StatusOK)
		var tok httpapi.GatewayToken
		r.JSON(&tok)
		if tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || tok.AccessToken == "" {
			t.Fatalf("token %+v", tok)
		}
		// The client's one version, and the shipping API every gateway
		// client may use (decisions §29: the provider's tokens list one key per role).
		target, ok := tok.ProviderFI.Targets["2025-04"]
		if !ok || len(tok.ProviderFI.Targets) != 2 || target.URL != e.URL+"/2025-04" || target.Tier != 1 || tok.ProviderFI.Targets["shippingapi"].URL != e.URL+"/shippingapi" {
			t.Fatalf("targets %+v", tok.ProviderFI.Targets)
		}
		// Real gateway clients read posti_fi.targets: the
		// same content under the provider's own key.
		if !reflect.DeepEqual(tok.PostiFI.Targets, tok.ProviderFI.Targets) {
			t.Fatalf("posti_fi.targets %+v, provider_fi.targets %+v", tok.PostiFI.Targets, tok.ProviderFI.Targets)
		}
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
		}
	})
}

// decisions §4: stock OAuth2 client libraries work unchanged; Go's
// clientcredentials sends the credentials with HTTP Basic.
func TestGatewayTokenWithOAuth2Library(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Production, shopID)
		for _, style := range []oauth2.AuthStyle{oauth2.AuthStyleInHeader, oauth2.AuthStyleInParams, oauth2.AuthStyleAutoDetect} {
			cfg := clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: e.URL + "/api/v1/token", AuthStyle: style}
			tok, err := cfg.Token(context.Background())
			if err != nil {
				t.Fatalf("style %d: %v", style, err)
			}
			if tok.AccessToken == "" || tok.Type() != "Bearer" || time.Until(tok.Expiry) < 50*time.Minute {
				t.Fatalf("style %d: token %+v", style, tok)
			}
			if tok.Extra("provider_fi") == nil {
				t.Errorf("style %d: provider_fi missing", style)
			}
		}
		bad := clientcredentials.Config{ClientID: id, ClientSecret: "wrong", TokenURL: e.URL + "/api/v1/token", AuthStyle: oauth2.AuthStyleInHeader}
		_, err := bad.Token(context.Background())
		if re, ok := err.(*oauth2.RetrieveError); !ok || re.ErrorCode != "invalid_client" {
			t.Fatalf("wrong secret: %v", err)
		}
	})
}

// RFC 6749 §5.2 errors of the gateway token service.
func TestGatewayTokenErrors(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Production, shopID)
		cases := []struct {
			name   string
			req    apitest.Request
			status int
			code   string
		}{
			{"no grant_type", form(url.Values{"client_id": {id}, "client_secret": {secret}}), 400, "invalid_request"},
			{"password grant", form(url.Values{"grant_type": {"password"}, "client_id": {id}, "client_secret": {secret}}), 400, "unsupported_grant_type"},
			{"wrong secret", form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {"x"}}), 401, "invalid_client"},
			{"unknown client", form(url.Values{"grant_type": {"client_credentials"}, "client_id": {"nobody"}, "client_secret": {secret}}), 401, "invalid_client"},
			{"no credentials", form(url.Values{"grant_type": {"client_credentials"}}), 400, "invalid_request"},
			{"json body", apitest.Request{Method: "POST", Path: "/api/v1/token", Body: map[string]string{"grant_type": "client_credentials"}}, 400, "invalid_request"},
			{"two grant types", form(url.Values{"grant_type": {"client_credentials", "client_credentials"}, "client_id": {id}, "client_secret": {secret}}), 400, "invalid_request"},
		}
		for _, c := range cases {
			var body httpapi.OAuthError
			e.Do(c.req).Expect(c.status).JSON(&body)
			if body.Error != c.code || body.ErrorDescription == "" {
				t.Errorf("%s: %+v, want %s", c.name, body, c.code)
			}
		}
		// Basic and form credentials together are ambiguous.
		req := form(url.Values{"grant_type": {"client_credentials"}, "client_secret": {secret}})
		req.Basic = &[2]string{id, secret}
		e.Do(req).Expect(400)
		// A revoked client gets no more tokens.
		e.Admin("DELETE", "/admin/v1/gateway-clients/"+id, nil).Expect(http.StatusNoContent)
		e.Do(form(url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}})).Expect(401)
	})
}

// interface §5.2 rules 2-3: GET /auth/token with Basic answers a bearer token with
// scope internal; POST with grant_type=client_credentials does the same.
func TestEcomToken(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		for _, req := range []apitest.Request{
			{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, p}, Header: http.Header{"Accept": {"application/json"}}},
			{Method: "POST", Path: "/auth/token?grant_type=client_credentials", Basic: &[2]string{u, p}},
		} {
			var tok httpapi.EcomToken
			e.Do(req).Expect(http.StatusOK).JSON(&tok)
			if tok.TokenType != "bearer" || tok.ExpiresIn != 3600 || tok.Scope != "internal" || tok.AccessToken == "" {
				t.Fatalf("%s: %+v", req.Method, tok)
			}
		}
		e.Do(apitest.Request{Method: "POST", Path: "/auth/token?grant_type=password", Basic: &[2]string{u, p}}).Expect(400)
	})
}

// interface §7: wrong username or password is 401 Unauthorized "Bad credentials".
func TestEcomTokenBadCredentials(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, _ := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		for _, req := range []apitest.Request{
			{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, "wrong-password"}},
			{Method: "GET", Path: "/auth/token", Basic: &[2]string{"nobody-here", "wrong-password"}},
			{Method: "GET", Path: "/auth/token"},
			{Method: "GET", Path: "/auth/token", Header: http.Header{"Authorization": {"Basic !!!"}}},
		} {
			var body httpapi.EcomError
			e.Do(req).Expect(401).JSON(&body)
			if body.Status != 401 || body.Error != "Unauthorized" || body.Message != "Bad credentials" || body.Path != "/auth/token" || body.Timestamp == "" {
				t.Errorf("body %+v", body)
			}
		}
	})
}

// interface §5.2 rule 5, interface §8: after 5 invalid logins the account is locked for
// 1 hour, even for the right password; a success before that resets the
// count; the lock lives in the database, so another instance sees it.
func TestEcomLockout(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		login := func(e *apitest.Env, pw string) int {
			return e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, pw}}).Status
		}
		// Four failures, a success: the count starts again.
		for range 4 {
			if s := login(e, "wrong"); s != 401 {
				t.Fatalf("failure answered %d", s)
			}
		}
		if s := login(e, p); s != 200 {
			t.Fatalf("success after 4 failures answered %d", s)
		}
		for range 4 {
			login(e, "wrong")
		}
		if s := login(e, p); s != 200 {
			t.Fatalf("count was not reset by the success: %d", s)
		}
		// Five consecutive failures lock the account, on every instance.
		for range 5 {
			login(e, "wrong")
		}
		other := apitest.NewWithDB(t, e.DB, e.Clock)
		if s := login(other, p); s != 401 {
			t.Fatalf("right password on a locked account, other instance: %d", s)
		}
		if s := login(e, p); s != 401 {
			t.Fatalf("right password on a locked account: %d", s)
		}
		e.Clock.Advance(59 * time.Minute)
		if s := login(e, p); s != 401 {
			t.Fatalf("still locked after 59 minutes: %d", s)
		}
		e.Clock.Advance(2 * time.Minute)
		if s := login(e, p); s != 200 {
			t.Fatalf("lock did not end after an hour: %d", s)
		}
		// The operator can lift a lock early.
		for range 5 {
			login(e, "wrong")
		}
		e.Admin("POST", "/admin/v1/service-accounts/"+u+"/unlock", nil).Expect(http.StatusNoContent)
		if s := login(e, p); s != 200 {
			t.Fatalf("after unlock: %d", s)
		}
	})
}

// Concurrent failures on two instances are all counted: the store writes
// each decision with a compare-and-set on the state it decided from, so a
// lost race is decided again, never lost.
func TestEcomLockoutConcurrent(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		other := apitest.NewWithDB(t, e.DB, e.Clock)
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				env := e
				if i%2 == 1 {
					env = other
				}
				env.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, "wrong"}})
			})
		}
		wg.Wait()
		if s := e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, p}}).Status; s != 401 {
			t.Fatalf("5 concurrent failures did not lock: %d", s)
		}
	})
}
