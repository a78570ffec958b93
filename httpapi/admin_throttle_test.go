package httpapi_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/adminguard"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// Decisions §21: wrong admin tokens are counted per
// client address (behind a trusted proxy, the address it forwards); past
// the burst the address is answered 429 with Retry-After, even with the
// right token, while the right token from another address keeps working;
// the failures are counted in /metrics. X-Forwarded-For from a peer that
// is not a trusted proxy changes nothing.
func TestAdminTokenGuessingIsThrottled(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		from := func(client, token string) *apitest.Response {
			return e.Do(apitest.Request{Method: "GET", Path: "/admin/v1/organizations?environment=test", Bearer: token,
				Header: http.Header{"X-Forwarded-For": {client}}})
		}
		for i := range 30 {
			r := from("203.0.113.7", fmt.Sprint("guess-", i))
			want := http.StatusUnauthorized
			if i >= adminguard.Burst {
				want = http.StatusTooManyRequests
			}
			if r.Status != want {
				t.Fatalf("guess %d: %d, want %d", i, r.Status, want)
			}
			if want == http.StatusTooManyRequests {
				if s, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
					t.Fatalf("guess %d: Retry-After %q", i, r.Header.Get("Retry-After"))
				}
			}
		}
		from("203.0.113.7", apitest.AdminToken).Expect(http.StatusTooManyRequests)
		from("198.51.100.1", apitest.AdminToken).Expect(http.StatusOK)
		from("198.51.100.1", "one-typo").Expect(http.StatusUnauthorized)
		from("198.51.100.1", apitest.AdminToken).Expect(http.StatusOK)
		m := string(e.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(http.StatusOK).Body)
		for _, want := range []string{`parcelgate_admin_token_failures_total{surface="api"} 11`, `parcelgate_admin_token_throttled_total{surface="api"} 21`} {
			if !strings.Contains(m, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	}, func(c *httpapi.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	})

	// Without a trusted proxy the forwarded address is not believed: every
	// guess counts against the peer, whatever it claims.
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		for i := range adminguard.Burst + 1 {
			r := e.Do(apitest.Request{Method: "GET", Path: "/admin/v1/organizations", Bearer: "guess",
				Header: http.Header{"X-Forwarded-For": {fmt.Sprintf("192.0.2.%d", i)}}})
			if i == adminguard.Burst && r.Status != http.StatusTooManyRequests {
				t.Fatalf("a forged X-Forwarded-For escaped the throttle: %d", r.Status)
			}
		}
	})
}
