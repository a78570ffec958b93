package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §3, §9: organizations by business ID within an environment; the
// same business ID may exist in both environments; duplicates are 409.
func TestAdminOrganizations(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		body := map[string]any{"environment": "production", "businessId": " 1234567-1 ", "name": "Shop Oy", "contractNumber": "C-1",
			"address": map[string]any{"name": "Shop Oy", "country": "fi", "email": "shop@example.com"}}
		var o parcelgate.Organization
		e.Admin("POST", "/admin/v1/organizations", body).Expect(http.StatusCreated).JSON(&o)
		if o.BusinessID != "1234567-1" || o.Environment != parcelgate.Production || o.Address.Country != "FI" || o.CreatedAt.IsZero() {
			t.Fatalf("created %+v", o)
		}
		e.Admin("POST", "/admin/v1/organizations", body).Expect(http.StatusConflict)
		body["environment"] = "test"
		e.Admin("POST", "/admin/v1/organizations", body).Expect(http.StatusCreated)

		var list httpapi.List[parcelgate.Organization]
		e.Admin("GET", "/admin/v1/organizations?environment=test", nil).Expect(200).JSON(&list)
		if len(list.Content) != 1 || list.Content[0].Environment != parcelgate.Test {
			t.Fatalf("test listing %+v", list)
		}
		e.Admin("GET", "/admin/v1/organizations?environment=staging", nil).Expect(400)
	})
}

// decisions §53: the operator's organizations come a page at a time, by
// business ID, with the next page's cursor while more follow; a page
// holds one environment's only, whatever the other holds.
func TestAdminOrganizationsPaged(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		var want []string
		for i := range 7 {
			bid := fmt.Sprintf("SE55667788%02d", 20-i)
			e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": "production", "businessId": bid, "name": bid}).Expect(http.StatusCreated)
			want = append([]string{bid}, want...)
		}
		for _, bid := range []string{"SE5566778801", "SE5566778819"} {
			e.Admin("POST", "/admin/v1/organizations", map[string]any{"environment": "test", "businessId": bid, "name": bid}).Expect(http.StatusCreated)
		}
		var got []string
		after, pages := "", 0
		for {
			var page httpapi.PagedList[parcelgate.Organization]
			e.Admin("GET", "/admin/v1/organizations?environment=production&size=3&after="+after, nil).Expect(200).JSON(&page)
			pages++
			for _, o := range page.Content {
				if o.Environment != parcelgate.Production {
					t.Fatalf("the production list holds %s of %s", o.BusinessID, o.Environment)
				}
				got = append(got, o.BusinessID)
			}
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%d pages: %v, want 3: %v", pages, got, want)
		}
		// Without size, the default page: all of these, and no next.
		var all httpapi.PagedList[parcelgate.Organization]
		e.Admin("GET", "/admin/v1/organizations?environment=test", nil).Expect(200).JSON(&all)
		if len(all.Content) != 2 || all.Next != "" {
			t.Fatalf("test environment: %+v", all)
		}
		for _, bad := range []string{"0", "1001", "x"} {
			r := e.Admin("GET", "/admin/v1/organizations?environment=production&size="+bad, nil).Expect(400)
			if !strings.Contains(string(r.Body), `"size"`) {
				t.Fatalf("size=%s: %s", bad, r.Body)
			}
		}
	})
}

// decisions §58: the operator's gateway clients and service accounts come
// a page at a time, by their unique key (client ID, username), with the
// next page's cursor while more follow; a page holds one environment's
// active ones only, of every organization there and of none elsewhere.
func TestAdminCredentialsPaged(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		var clients, users []string
		for i, bid := range []string{"1234567-1", "7654321-2", "1234567-1", "7654321-2", "1234567-1"} {
			id, _ := e.GatewayClient(parcelgate.Production, bid)
			clients = append(clients, id)
			u, _ := e.ServiceAccount(parcelgate.Production, bid, parcelgate.RoleMerchant)
			users = append(users, u)
			if i == 0 {
				// Revoked ones are left out.
				gone, _ := e.GatewayClient(parcelgate.Production, bid)
				e.Admin("DELETE", "/admin/v1/gateway-clients/"+gone, nil).Expect(http.StatusNoContent)
				goneUser, _ := e.ServiceAccount(parcelgate.Production, bid, parcelgate.RoleMerchant)
				e.Admin("DELETE", "/admin/v1/service-accounts/"+goneUser, nil).Expect(http.StatusNoContent)
			}
		}
		// The other environment's (the same business ID's too) are in
		// no page of production.
		otherClient, _ := e.GatewayClient(parcelgate.Test, "1234567-1")
		otherUser, _ := e.ServiceAccount(parcelgate.Test, "1234567-1", parcelgate.RoleMerchant)
		slices.Sort(clients)
		slices.Sort(users)
		walk := func(path string, key func([]byte) ([]string, string)) (got []string, pages int) {
			after := ""
			for {
				r := e.Admin("GET", path+"?environment=production&size=2&after="+after, nil).Expect(200)
				keys, next := key(r.Body)
				got, pages = append(got, keys...), pages+1
				if next == "" {
					return got, pages
				}
				after = next
			}
		}
		gotClients, pages := walk("/admin/v1/gateway-clients", func(b []byte) ([]string, string) {
			var page httpapi.PagedList[parcelgate.GatewayClient]
			if err := json.Unmarshal(b, &page); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range page.Content {
				ids = append(ids, c.ClientID)
			}
			return ids, page.Next
		})
		if pages != 3 || !slices.Equal(gotClients, clients) {
			t.Fatalf("gateway clients in %d pages: %v, want 3: %v (not %s)", pages, gotClients, clients, otherClient)
		}
		gotUsers, pages := walk("/admin/v1/service-accounts", func(b []byte) ([]string, string) {
			var page httpapi.PagedList[parcelgate.ServiceAccount]
			if err := json.Unmarshal(b, &page); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, a := range page.Content {
				names = append(names, a.Username)
			}
			return names, page.Next
		})
		if pages != 3 || !slices.Equal(gotUsers, users) {
			t.Fatalf("service accounts in %d pages: %v, want 3: %v (not %s)", pages, gotUsers, users, otherUser)
		}
		// Without size, the default page of 100: the test environment's
		// one, and no next.
		for path, want := range map[string]string{"/admin/v1/gateway-clients": otherClient, "/admin/v1/service-accounts": otherUser} {
			r := e.Admin("GET", path+"?environment=test", nil).Expect(200)
			var page httpapi.PagedList[map[string]any]
			r.JSON(&page)
			if len(page.Content) != 1 || page.Next != "" || !strings.Contains(string(r.Body), want) {
				t.Fatalf("%s of test: %s", path, r.Body)
			}
			for _, bad := range []string{"0", "1001", "x"} {
				r := e.Admin("GET", path+"?environment=production&size="+bad, nil).Expect(400)
				if !strings.Contains(string(r.Body), `"size"`) {
					t.Fatalf("%s size=%s: %s", path, bad, r.Body)
				}
			}
		}
	})
}

// decisions §3: Finnish business IDs carry a mod-11 check digit; others are a
// country prefix and 2-20 characters.
func TestAdminBusinessIDValidation(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for bid, want := range map[string]int{
			"1234567-1": 201, "0737546-2": 201, "SE5560360793": 201, "DE-123": 201,
			"1234567-2": 400, "1234567": 400, "12345678-1": 400, "fi": 201, "X": 400, "": 400, "ABCDEFGHIJKLMNOPQRSTU": 400,
		} {
			r := e.Admin("POST", "/admin/v1/organizations", map[string]any{"businessId": bid, "name": "n"})
			if r.Status != want {
				t.Errorf("%q: %d, want %d: %s", bid, r.Status, want, r.Body)
			}
			if want == 400 {
				var eb httpapi.EcomError
				r.JSON(&eb)
				if len(eb.Errors) == 0 || eb.Errors[0].Field != "businessId" {
					t.Errorf("%q: errors %+v", bid, eb.Errors)
				}
			}
		}
	})
}

// Bad input to the operator API: each a 4xx in the ecom error shape naming
// the field; never a 500.
func TestAdminBadInput(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Org(parcelgate.Production, "1234567-1")
		cases := []struct {
			name, path string
			body       any
			status     int
			field      string
		}{
			{"unknown field", "/admin/v1/organizations", map[string]any{"businessId": "7654321-2", "name": "n", "nmae": "typo"}, 400, "nmae"},
			{"missing name", "/admin/v1/organizations", map[string]any{"businessId": "7654321-2"}, 400, "name"},
			{"wrong type", "/admin/v1/organizations", map[string]any{"businessId": 7654321, "name": "n"}, 400, "businessId"},
			{"bad environment", "/admin/v1/organizations", map[string]any{"environment": "prod", "businessId": "7654321-2", "name": "n"}, 400, "environment"},
			{"unknown role", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "someone", "roles": []string{"admin"}}, 400, "roles"},
			{"no roles", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "someone"}, 400, "roles"},
			{"short password", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "someone", "password": "short", "roles": []string{"merchant"}}, 400, "password"},
			{"bad username", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "a b", "roles": []string{"merchant"}}, 400, "username"},
			{"unknown version", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []string{"2020-01"}}, 400, "versions"},
			{"no versions", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []string{}}, 400, "versions"},
			{"version object with unknown field", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []any{map[string]any{"version": "2025-04", "teir": 2}}}, 400, "versions[0].teir"},
			{"version tier not a number", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []any{map[string]any{"version": "2025-04", "tier": "two"}}}, 400, "tier"},
			{"versions not an array", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": 5}, 400, "versions"},
			{"version neither string nor object", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []any{7}}, 400, "versions"},
			{"bad catalog id", "/admin/v1/catalogs", map[string]any{"retailerId": "1234567-1", "catalogExternalId": "WH 1"}, 400, "catalogExternalId"},
			{"bad catalog type", "/admin/v1/catalogs", map[string]any{"retailerId": "1234567-1", "catalogExternalId": "WH1", "catalogType": "Shop"}, 400, "catalogType"},
			{"bad advance", "/admin/v1/clock", map[string]any{"advance": "two weeks", "environment": "test"}, 400, "advance"},
		}
		for _, c := range cases {
			var eb httpapi.EcomError
			e.Admin("POST", c.path, c.body).Expect(c.status).JSON(&eb)
			if eb.Status != c.status || len(eb.Errors) == 0 || eb.Errors[0].Field != c.field || eb.Path != c.path {
				t.Errorf("%s: %+v", c.name, eb)
			}
		}
		for name, raw := range map[string]string{"not json": "{", "two values": "{} {}", "empty": "", "array": "[]"} {
			r := e.Do(apitest.Request{Method: "POST", Path: "/admin/v1/organizations", Body: raw, Bearer: apitest.AdminToken, ContentType: "application/json"})
			if r.Status != 400 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		e.Do(apitest.Request{Method: "POST", Path: "/admin/v1/organizations", Body: "businessId=1", Bearer: apitest.AdminToken, ContentType: "application/x-www-form-urlencoded"}).Expect(415)
		// Missing references are 404, duplicates 409.
		e.Admin("POST", "/admin/v1/gateway-clients", map[string]any{"businessId": "7654321-2"}).Expect(404)
		e.Admin("POST", "/admin/v1/service-accounts", map[string]any{"environment": "test", "businessId": "1234567-1", "username": "someone", "roles": []string{"merchant"}}).Expect(404)
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": "1234567-1", "catalogExternalId": "WH1", "supplierIds": []string{"7654321-2"}}).Expect(404)
		e.Admin("POST", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "dup-user", "roles": []string{"merchant"}}).Expect(201)
		e.Admin("POST", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "dup-user", "roles": []string{"supplier"}}).Expect(409)
		e.Admin("DELETE", "/admin/v1/service-accounts/nobody", nil).Expect(404)
		e.Admin("DELETE", "/admin/v1/gateway-clients/nobody", nil).Expect(404)
		// Without the admin token: 401.
		e.Do(apitest.Request{Method: "GET", Path: "/admin/v1/organizations"}).Expect(401)
		e.Do(apitest.Request{Method: "GET", Path: "/admin/v1/organizations", Bearer: "wrong"}).Expect(401)
	})
}

// decisions §4, §9: secrets and passwords are shown once, in the answer that
// created them, and never listed.
func TestAdminCredentialsShownOnce(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		id, secret := e.GatewayClient(parcelgate.Production, "1234567-1")
		if len(secret) < 40 || id == "" {
			t.Fatalf("client %q secret %q", id, secret)
		}
		user, password := e.ServiceAccount(parcelgate.Production, "1234567-1", parcelgate.RoleSupplier, parcelgate.RoleMerchant, parcelgate.RoleSupplier)
		if len(password) < 16 {
			t.Fatalf("generated password %q", password)
		}
		clients := e.Admin("GET", "/admin/v1/gateway-clients", nil).Expect(200)
		accounts := e.Admin("GET", "/admin/v1/service-accounts", nil).Expect(200)
		if strings.Contains(string(clients.Body), secret) || strings.Contains(string(accounts.Body), password) {
			t.Fatalf("a listing shows a secret")
		}
		var list httpapi.List[parcelgate.ServiceAccount]
		accounts.JSON(&list)
		if len(list.Content) != 1 || list.Content[0].Username != user || len(list.Content[0].Roles) != 2 {
			t.Fatalf("accounts %+v", list.Content)
		}
		var cl httpapi.List[parcelgate.GatewayClient]
		clients.JSON(&cl)
		if len(cl.Content) != 1 || cl.Content[0].ClientID != id || len(cl.Content[0].Versions) != 2 {
			t.Fatalf("clients %+v", cl.Content)
		}
		// A chosen password works; the answer that shows it is never cached.
		created := e.Admin("POST", "/admin/v1/service-accounts", map[string]any{"businessId": "1234567-1", "username": "chosen", "password": "a-long-chosen-password", "roles": []string{"retailer"}}).Expect(201)
		if cc := created.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("service account answer: Cache-Control %q, want no-store", cc)
		}
		e.Do(apitest.Request{Method: "GET", Path: "/auth/token", Basic: &[2]string{"chosen", "a-long-chosen-password"}}).Expect(200)
		// Tiers can be set per version.
		var c parcelgate.GatewayClient
		created = e.Admin("POST", "/admin/v1/gateway-clients", map[string]any{"businessId": "1234567-1", "versions": []any{map[string]any{"version": "2026-04", "tier": 3}}}).Expect(201)
		if cc := created.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("gateway client answer: Cache-Control %q, want no-store", cc)
		}
		created.JSON(&c)
		if len(c.Versions) != 1 || c.Versions[0].Tier != 3 {
			t.Fatalf("versions %+v", c.Versions)
		}
	})
}

// decisions §6, §9: catalogs belong to a retailer and list their suppliers.
func TestAdminCatalogs(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		e.Org(parcelgate.Production, "1234567-1")
		e.Org(parcelgate.Production, "7654321-2")
		var c parcelgate.Catalog
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": "7654321-2", "catalogExternalId": "SHOP-1", "catalogType": "Catalog", "supplierIds": []string{"1234567-1", "7654321-2", "1234567-1"}}).Expect(201).JSON(&c)
		if c.Type != parcelgate.CatalogDropship || len(c.SupplierIDs) != 2 || c.Name != "SHOP-1" {
			t.Fatalf("catalog %+v", c)
		}
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": "7654321-2", "catalogExternalId": "SHOP-1"}).Expect(409)
		e.Admin("POST", "/admin/v1/catalogs", map[string]any{"retailerId": "1234567-1", "catalogExternalId": "SHOP-1"}).Expect(201)
		var list httpapi.List[parcelgate.Catalog]
		e.Admin("GET", "/admin/v1/catalogs?retailerId=7654321-2", nil).Expect(200).JSON(&list)
		if len(list.Content) != 1 || list.Content[0].SupplierIDs[0] != "1234567-1" {
			t.Fatalf("catalogs %+v", list.Content)
		}
		e.Admin("GET", "/admin/v1/catalogs?environment=test", nil).Expect(200).JSON(&list)
		if len(list.Content) != 0 {
			t.Fatalf("production catalogs listed in test: %+v", list.Content)
		}
		// A retailer that is not there has no catalogs (not a 404).
		for _, q := range []string{"retailerId=1234567-2", "retailerId=nonsense", "environment=test&retailerId=7654321-2"} {
			e.Admin("GET", "/admin/v1/catalogs?"+q, nil).Expect(200).JSON(&list)
			if len(list.Content) != 0 {
				t.Fatalf("%s: %+v", q, list.Content)
			}
		}
	})
}

// decisions §9, §21: the clock moves only on a server with a sandbox
// clock, and production's only on a --sandbox server.
func TestAdminClock(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		var before, after httpapi.ClockState
		e.Admin("GET", "/admin/v1/clock", nil).Expect(200).JSON(&before)
		e.Admin("POST", "/admin/v1/clock", map[string]any{"advance": "336h", "environment": "production"}).Expect(200).JSON(&after)
		if !after.Sandbox || after.Now <= before.Now || after.Now[:10] == before.Now[:10] {
			t.Fatalf("before %+v after %+v", before, after)
		}
		prod := apitest.NewWithDB(t, e.DB, nil, func(c *httpapi.Config) { c.OffsetClock = nil })
		prod.Do(apitest.Request{Method: "POST", Path: "/admin/v1/clock", Body: map[string]any{"advance": "1h", "environment": "test"}, Bearer: apitest.AdminToken}).Expect(403)
	})
}
