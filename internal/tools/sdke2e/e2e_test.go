package sdke2e_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/client"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// These tests drive a real server (apitest: the full router over SQLite and
// PostgreSQL) through the SDK.

// tenant is one organization's credentials on a test server.
type tenant struct {
	BusinessID             string
	ClientID, ClientSecret string
	Username, Password     string
}

// newTenant creates an organization with a gateway client and a service
// account holding roles (all of them when none are given).
func newTenant(t *testing.T, e *apitest.Env, env parcelgate.Environment, businessID string, roles ...parcelgate.Role) tenant {
	t.Helper()
	if len(roles) == 0 {
		roles = parcelgate.Roles
	}
	tn := tenant{BusinessID: businessID}
	tn.ClientID, tn.ClientSecret = e.GatewayClient(env, businessID)
	tn.Username, tn.Password = e.ServiceAccount(env, businessID, roles...)
	return tn
}

// sdk returns a Client of the tenant against e, with retries that do not
// wait long.
func sdk(t *testing.T, e *apitest.Env, env parcelgate.Environment, tn tenant) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{
		BaseURL:     e.URL,
		Environment: client.Environment(env),
		ClientID:    tn.ClientID, ClientSecret: tn.ClientSecret,
		Username: tn.Username, Password: tn.Password,
		Retry: client.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func asError(t *testing.T, err error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.Error", err, err)
	}
	return e
}

// Interface §5.1 and 5.2: both token services through the SDK; a token is
// fetched once and reused.
func TestTokens(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		tn := newTenant(t, e, parcelgate.Production, "1234567-1")
		c := sdk(t, e, parcelgate.Production, tn)

		gw, err := c.GatewayToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if gw.AccessToken == "" || gw.TokenType != "Bearer" || gw.Targets["2025-04"].URL != e.URL+"/2025-04" {
			t.Errorf("gateway token %+v", gw)
		}
		if until := time.Until(gw.Expiry); until < 59*time.Minute || until > time.Hour {
			t.Errorf("gateway token expires in %v", until)
		}
		ec, err := c.EcomToken(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ec.AccessToken == "" || ec.Scope != "internal" {
			t.Errorf("ecom token %+v", ec)
		}
		again, _ := c.GatewayToken(ctx)
		ecAgain, _ := c.EcomToken(ctx)
		if again.AccessToken != gw.AccessToken || ecAgain.AccessToken != ec.AccessToken {
			t.Error("tokens were not reused")
		}

		bad := sdk(t, e, parcelgate.Production, tenant{ClientID: tn.ClientID, ClientSecret: "wrong", Username: tn.Username, Password: "wrong"})
		_, err = bad.GatewayToken(ctx)
		if ae := asError(t, err); ae.StatusCode != 401 || ae.Code != "invalid_client" || ae.Message == "" {
			t.Errorf("wrong client secret: %+v", ae)
		}
		// Interface §7: Bad credentials.
		_, err = bad.EcomToken(ctx)
		if ae := asError(t, err); ae.StatusCode != 401 || ae.Code != "Unauthorized" || ae.Message != "Bad credentials" {
			t.Errorf("wrong password: %+v", ae)
		}
	})
}
