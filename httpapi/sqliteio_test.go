package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// issue 39, decisions §43: an I/O error of SQLite (here its own fault on
// the mapped WAL index, SQLITE_IOERR_IN_PAGE, injected at each of its
// sites in turn) is never a 500: the request succeeds (a write whose
// begin met it is tried again) or is answered 503 with Retry-After in the
// surface's error shape.
func TestSQLiteIOErrorIsNever500(t *testing.T) {
	e := apitest.New(t, "sqlite")
	tok := e.GatewayToken(parcelgate.Production, "1234567-1")
	t.Cleanup(func() { sqlite3.SehInject(0) })
	unavailable := 0
	for n := int32(1); n <= 16; n++ {
		sqlite3.SehInject(n)
		r := postShipment(e, tok, shipmentBody(fmt.Sprintf("JJFI%017d", n)))
		sqlite3.SehInject(0)
		switch r.Status {
		case http.StatusCreated:
		case http.StatusServiceUnavailable:
			unavailable++
			var g httpapi.GatewayError
			if r.Header.Get("Retry-After") == "" || json.Unmarshal(r.Body, &g) != nil || g.ErrorCode != "SERVICE_UNAVAILABLE" {
				t.Errorf("fault at site %d: 503 without Retry-After or not in the gateway shape: %s", n, r.Body)
			}
		default:
			t.Errorf("fault at site %d: answered %d %s", n, r.Status, r.Body)
		}
	}
	if unavailable == 0 {
		t.Fatal("no injected fault reached a request")
	}
	postShipment(e, tok, shipmentBody("JJFI00000000000000099")).Expect(http.StatusCreated)
}
