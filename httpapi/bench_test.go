package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// BenchmarkGatewayTokenMint is POST /api/v1/token end to end: form parsing,
// the client lookup, the secret check and sealing.
func BenchmarkGatewayTokenMint(b *testing.B) {
	for _, engine := range testdb.Engines {
		b.Run(engine, func(b *testing.B) {
			e := apitest.New(b, engine)
			id, secret := e.GatewayClient(parcelgate.Production, "1234567-1")
			body := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}.Encode()
			client := e.HTTP.Client()
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(e.URL+"/api/v1/token", "application/x-www-form-urlencoded", strings.NewReader(body))
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("%v %v", resp.StatusCode, err)
				}
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkEcomTokenMint is GET /auth/token end to end; the argon2id check
// of the password is most of it, on purpose.
func BenchmarkEcomTokenMint(b *testing.B) {
	e := apitest.New(b, "sqlite")
	u, p := e.ServiceAccount(parcelgate.Production, "1234567-1", parcelgate.RoleMerchant)
	client := e.HTTP.Client()
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("GET", e.URL+"/auth/token", nil)
		req.SetBasicAuth(u, p)
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%v %v", resp.StatusCode, err)
		}
		resp.Body.Close()
	}
}
