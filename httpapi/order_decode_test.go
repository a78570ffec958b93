package httpapi

import (
	"bytes"
	"github.com/parcelgate/parcelgate/internal/jsonin"
	"regexp"

	"encoding/json"
	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/pickup"
	"slices"
	"strings"
	"testing"
)

const testBID = "1234567-1"

func validOrderBody() map[string]any {
	return map[string]any{
		"externalId": testBID + "-A1",
		"references": []any{map[string]any{"name": "SO", "value": "100"}},
		"deliveryAddress": map[string]any{"name": "Matti Meikäläinen", "streetAddress": "Katu 1", "postalCode": "00100",
			"postOffice": "Helsinki", "country": "fi", "telephone": "+358 40 123 4567", "email": "matti@example.com"},
		"serviceCode": "2103",
		"rows":        []any{map[string]any{"externalProductId": testBID + "-P1", "externalWarehouseId": "WH1", "quantity": 2}},
	}
}

func parse(t *testing.T, body any) (*parcelgate.OrderRequest, error) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return decodeOrderBody(b, testBID)
}

// decodeOrderBody reads an order body as createOrder does.
func decodeOrderBody(body []byte, businessID string) (*parcelgate.OrderRequest, error) {
	body, err := jsonin.Read(bytes.NewReader(body), jsonin.Default)
	if err != nil {
		return nil, err
	}
	return decodeOrderRequest(body, businessID, pickup.Network{})
}

func fields(err error) []string {
	var out []string
	for _, f := range parcelgate.ErrorFields(err) {
		out = append(out, f.Field)
	}
	return out
}

// interface §2.3: a valid order reads with its values normalized; unknown fields
// are ignored, null is absent, serviceCode may be a number (decisions §8).
func TestDecodeOrderRequestValid(t *testing.T) {
	body := validOrderBody()
	body["serviceCode"] = 2103
	body["pickupPointId"] = nil
	body["somethingElse"] = map[string]any{"x": 1}
	body["rows"] = []any{map[string]any{"externalProductId": testBID + "-P1", "quantity": 2.0, "extra": true}}
	req, err := parse(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if req.ServiceCode != "2103" || req.DeliveryAddress.Country != "FI" || req.Rows[0].Quantity != 2 || !req.AutoSubmit || req.SORef() != "100" {
		t.Fatalf("%+v", req)
	}
	body["preferences"] = map[string]any{"autoSubmit": false}
	if req, err = parse(t, body); err != nil || req.AutoSubmit {
		t.Fatalf("autoSubmit false: %+v %v", req, err)
	}
}

// interface §2.3, decisions §7: every problem of a request is listed at once.
func TestDecodeOrderRequestEveryProblem(t *testing.T) {
	body := map[string]any{
		"externalId":      "7654321-2-X",                             // another business ID
		"references":      []any{map[string]any{"name": "SO"}, "x"},  // value missing, not an object
		"deliveryAddress": map[string]any{"streetAddress": "Katu 1"}, // no name, no phone or e-mail
		"serviceCode":     "9999",                                    // unknown
		"rows": []any{
			map[string]any{"externalProductId": testBID + "-P1", "quantity": 0},
			// Another business's product is a supplier's, which only a row
			// of a dropshipping catalog may name: the store checks it against
			// the caller's catalogs (decisions §34, TestDropshipOrderRefusals).
			map[string]any{"externalProductId": "7654321-2-P2", "quantity": 1.5},
			map[string]any{"quantity": "2"},
			map[string]any{"externalProductId": testBID + "-ABCDEFGHIJKLMN", "quantity": -1},
		},
		"preferences": map[string]any{"autoSubmit": "yes"},
	}
	_, err := parse(t, body)
	want := []string{"externalId", "references[0].value", "references[1]", "deliveryAddress.name", "deliveryAddress", "serviceCode",
		"rows[0].quantity", "rows[1].quantity", "rows[2].externalProductId", "rows[2].quantity",
		"rows[3].externalProductId", "rows[3].quantity", "preferences.autoSubmit"}
	got := fields(err)
	for _, f := range want {
		if !slices.Contains(got, f) {
			t.Errorf("no problem reported for %s; got %v", f, got)
		}
	}
	if parcelgate.ErrorCode(err) != parcelgate.EINVALID {
		t.Fatalf("code %v", err)
	}
}

// interface §2.3 rule: NOUTO needs an e-mail; rows must not be empty;
// deliveryAddress is required; externalId at most 20 characters.
func TestDecodeOrderRequestRules(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(map[string]any)
		field  string
	}{
		"NOUTO without e-mail": {func(b map[string]any) {
			b["serviceCode"] = "NOUTO"
			delete(b["deliveryAddress"].(map[string]any), "email")
		}, "deliveryAddress.email"},
		"no rows":              {func(b map[string]any) { b["rows"] = []any{} }, "rows"},
		"rows null":            {func(b map[string]any) { b["rows"] = nil }, "rows"},
		"no delivery address":  {func(b map[string]any) { delete(b, "deliveryAddress") }, "deliveryAddress"},
		"externalId too long":  {func(b map[string]any) { b["externalId"] = testBID + "-ABCDEFGHIJK" }, "externalId"},
		"externalId no own ID": {func(b map[string]any) { b["externalId"] = testBID + "-" }, "externalId"},
		"externalId slash":     {func(b map[string]any) { b["externalId"] = testBID + "-a/b" }, "externalId"},
		"no phone nor e-mail":  {func(b map[string]any) { b["deliveryAddress"] = map[string]any{"name": "N"} }, "deliveryAddress"},
		"bad phone":            {func(b map[string]any) { b["deliveryAddress"].(map[string]any)["telephone"] = "call me" }, "deliveryAddress.telephone"},
		"bad e-mail":           {func(b map[string]any) { b["deliveryAddress"].(map[string]any)["email"] = "nope" }, "deliveryAddress.email"},
		"missing service code": {func(b map[string]any) { delete(b, "serviceCode") }, "serviceCode"},
		"two SO references": {func(b map[string]any) {
			b["references"] = []any{map[string]any{"name": "SO", "value": "1"}, map[string]any{"name": "so", "value": "2"}}
		}, "references[1].name"},
		"bad orderDate":      {func(b map[string]any) { b["orderDate"] = "yesterday" }, "orderDate"},
		"rows not an array":  {func(b map[string]any) { b["rows"] = map[string]any{} }, "rows"},
		"bad warehouse":      {func(b map[string]any) { b["rows"].([]any)[0].(map[string]any)["externalWarehouseId"] = "W H" }, "rows[0].externalWarehouseId"},
		"quantity too big":   {func(b map[string]any) { b["rows"].([]any)[0].(map[string]any)["quantity"] = 1e9 }, "rows[0].quantity"},
		"vendor business ID": {func(b map[string]any) { b["vendor"] = map[string]any{"externalId": "1234567-2"} }, "vendor.externalId"},
	} {
		t.Run(name, func(t *testing.T) {
			body := validOrderBody()
			tc.change(body)
			_, err := parse(t, body)
			if !slices.Contains(fields(err), tc.field) {
				t.Fatalf("want a problem with %s, got %v", tc.field, err)
			}
		})
	}
}

// A body that is not an object is one problem, never a panic.
func TestDecodeOrderRequestNotObject(t *testing.T) {
	for _, b := range []string{`[]`, `"x"`, `null`, `1`, `{`} {
		if _, err := decodeOrderBody([]byte(b), testBID); parcelgate.ErrorCode(err) != parcelgate.EINVALID {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// decisions §12: request decoding and validation never panic and either
// accept a request that satisfies the rules or report problems.
func FuzzDecodeOrderRequest(f *testing.F) {
	b, _ := json.Marshal(validOrderBody())
	f.Add(b)
	f.Add([]byte(`{"rows":[{"quantity":1e400}],"deliveryAddress":null}`))
	f.Add([]byte(`{"rows":[null,{"quantity":-0.0}],"references":[{}],"serviceCode":2103.5}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := decodeOrderBody(data, testBID)
		if err != nil {
			if code := parcelgate.ErrorCode(err); code != parcelgate.EINVALID && code != parcelgate.ETOOLARGE { // a body over a jsonin limit
				t.Fatalf("code %s: %v", parcelgate.ErrorCode(err), err)
			}
			return
		}
		if len(req.Rows) == 0 || len(req.Rows) > parcelgate.MaxOrderRows || !parcelgate.ValidServiceCode(req.ServiceCode) {
			t.Fatalf("accepted %+v", req)
		}
		// IDs are the caller's: bare or with its business ID, never another's.
		ours := func(id string) bool {
			own, problem := parcelgate.OwnID(testBID, id)
			return problem == "" && own != "" && len(id) <= parcelgate.MaxOrderIDLength && (strings.HasPrefix(id, testBID+"-") || !regexp.MustCompile(`^[0-9]{7}-[0-9]-`).MatchString(id))
		}
		if req.ExternalID != "" && !ours(req.ExternalID) {
			t.Fatalf("accepted externalId %q", req.ExternalID)
		}
		for _, r := range req.Rows {
			if r.Quantity < 1 || r.Quantity > parcelgate.MaxRowQuantity || !ours(r.ExternalProductID) {
				t.Fatalf("accepted row %+v", r)
			}
		}
		if req.DeliveryAddress.Telephone == "" && req.DeliveryAddress.Email == "" {
			t.Fatalf("accepted an address without phone or e-mail")
		}
	})
}
