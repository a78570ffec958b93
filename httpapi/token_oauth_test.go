package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// oauthToken is the provider's Authentication API request: POST
// /oauth/token?grant_type=client_credentials, Basic account:secret, Accept
// application/json.
func oauthToken(u, p string) apitest.Request {
	return apitest.Request{Method: "POST", Path: "/oauth/token?grant_type=client_credentials", Basic: &[2]string{u, p},
		Header: http.Header{"Accept": {"application/json"}}}
}

// provider Authentication API: POST /oauth/token?grant_type=client_credentials
// with Basic answers {"token_type":"bearer","access_token":"…","expires_in":3599},
// and the token is the ecom token /auth/token issues, opening the same APIs.
func TestOAuthTokenServiceAccount(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		r := e.Do(oauthToken(u, p)).Expect(http.StatusOK)
		m := r.Map()
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"access_token", "expires_in", "token_type"}) {
			t.Fatalf("provider Authentication API: the answer's members are token_type, access_token, expires_in: %s", r.Body)
		}
		var tok httpapi.ServiceAccountToken
		r.JSON(&tok)
		if tok.TokenType != "bearer" || tok.ExpiresIn != 3599 || tok.AccessToken == "" {
			t.Fatalf("provider Authentication API: %+v", tok)
		}
		if r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
		}
		// The same ecom token: it reads the merchant's orders as /auth/token's does.
		e.Do(apitest.Request{Method: "GET", Path: "/ecommerce/v3/orders", Bearer: tok.AccessToken}).Expect(http.StatusOK)
		// ... and is refused by the gateway, as every ecom token is (decisions §4).
		e.Do(apitest.Request{Method: "GET", Path: "/2025-04/shipments/JJFI12345678901234", Bearer: tok.AccessToken}).Expect(http.StatusUnauthorized)
		// grant_type in a form body, as an OAuth2 library may send it.
		e.Do(apitest.Request{Method: "POST", Path: "/oauth/token", Basic: &[2]string{u, p}, ContentType: "application/x-www-form-urlencoded",
			Body: url.Values{"grant_type": {"client_credentials"}}.Encode()}).Expect(http.StatusOK)
	})
}

// provider Authentication API: bad credentials are 401 "Bad credentials";
// a request that is no client_credentials grant is 400 naming grant_type,
// in the shape of /auth/token's errors.
func TestOAuthTokenErrors(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		for _, req := range []apitest.Request{
			oauthToken(u, "wrong-password"),
			oauthToken("nobody-here", "wrong-password"),
			{Method: "POST", Path: "/oauth/token?grant_type=client_credentials"},
			{Method: "POST", Path: "/oauth/token?grant_type=client_credentials", Header: http.Header{"Authorization": {"Basic !!!"}}},
		} {
			var body httpapi.EcomError
			r := e.Do(req).Expect(http.StatusUnauthorized)
			r.JSON(&body)
			if body.Status != 401 || body.Error != "Unauthorized" || body.Message != "Bad credentials" || body.Path != "/oauth/token" || body.Timestamp == "" {
				t.Errorf("body %+v", body)
			}
		}
		for _, path := range []string{"/oauth/token", "/oauth/token?grant_type=password", "/oauth/token?grant_type=", "/oauth/token?grant_type=client_credentials&grant_type=client_credentials"} {
			var body httpapi.EcomError
			e.Do(apitest.Request{Method: "POST", Path: path, Basic: &[2]string{u, p}}).Expect(http.StatusBadRequest).JSON(&body)
			if body.Status != 400 || len(body.Errors) != 1 || body.Errors[0].Field != "grant_type" || body.Path != "/oauth/token" {
				t.Errorf("%s: %+v", path, body)
			}
		}
		// The route is POST only; a GET is 405 in the ecom shape.
		var body httpapi.EcomError
		e.Do(apitest.Request{Method: "GET", Path: "/oauth/token?grant_type=client_credentials", Basic: &[2]string{u, p}, Undocumented: true}).Expect(http.StatusMethodNotAllowed).JSON(&body)
		if body.Status != 405 {
			t.Errorf("405 body %+v", body)
		}
	})
}

// interface §5.2 rule 5, provider Authentication API ("five failures lock the
// account for 1 h"): /oauth/token and /auth/token count one lockout, so
// failures on either lock both, and a success on either resets the count.
func TestOAuthTokenSharesTheLockout(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		u, p := e.ServiceAccount(parcelgate.Production, shopID, parcelgate.RoleMerchant)
		oauth := func(pw string) int { return e.Do(oauthToken(u, pw)).Status }
		auth := func(pw string) int {
			return e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{u, pw}}).Status
		}
		// Four failures on /auth/token, a success on /oauth/token: the
		// count starts again, so four more do not lock.
		for range 4 {
			auth("wrong")
		}
		if s := oauth(p); s != 200 {
			t.Fatalf("success after 4 failures: %d", s)
		}
		for range 4 {
			auth("wrong")
		}
		if s := auth(p); s != 200 {
			t.Fatalf("the success on /oauth/token did not reset the count: %d", s)
		}
		// Three failures on one route and two on the other lock the account on both.
		for range 3 {
			auth("wrong")
		}
		for range 2 {
			if s := oauth("wrong"); s != 401 {
				t.Fatalf("failure answered %d", s)
			}
		}
		if s, s2 := oauth(p), auth(p); s != 401 || s2 != 401 {
			t.Fatalf("right password on a locked account: /oauth/token %d, /auth/token %d", s, s2)
		}
		e.Clock.Advance(59 * time.Minute)
		if s := oauth(p); s != 401 {
			t.Fatalf("still locked after 59 minutes: %d", s)
		}
		e.Clock.Advance(2 * time.Minute)
		if s := oauth(p); s != 200 {
			t.Fatalf("lock did not end after an hour: %d", s)
		}
	})
}
