package httpapi_test

import (
	"io"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// decisions §43: with --active-codes-max-age, /metrics keeps an
// environment's count of active codes that long, and says when it was
// counted; a code made meanwhile shows at the first scrape after.
func TestActiveCodesMetricSaysWhenCounted(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		before := time.Now()
		n, at := activeCodesCounted(t, e, parcelgate.Production)
		if n != "0" || at.Before(before.Add(-time.Second)) || at.After(time.Now()) {
			t.Fatalf("first scrape: %s codes counted at %s", n, at)
		}
		tok := e.GatewayToken(parcelgate.Production, "1234567-1")
		shipmentWithCodes(t, e, tok)
		if n2, at2 := activeCodesCounted(t, e, parcelgate.Production); n2 != "0" || !at2.Equal(at) {
			t.Fatalf("within the max age: %s codes counted at %s, want the kept 0 at %s", n2, at2, at)
		}
	}, func(c *httpapi.Config) { c.ActiveCodesMaxAge = time.Hour })
}

// activeCodesCounted reads the parcelgate_active_codes metric of env and
// when it was counted.
func activeCodesCounted(t *testing.T, e *apitest.Env, env parcelgate.Environment) (string, time.Time) {
	t.Helper()
	n := activeCodes(t, e, env)
	resp, err := e.HTTP.Client().Get(e.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^parcelgate_active_codes_counted_timestamp_seconds\{environment="` + string(env) + `"\} (\S+)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("no parcelgate_active_codes_counted_timestamp_seconds for %s in\n%s", env, b)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return n, time.UnixMicro(int64(math.Round(f * 1e6)))
}
