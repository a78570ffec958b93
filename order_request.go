package parcelgate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// ParseOrderRequest reads the body of an order create request (spec 2.3)
// for the caller with businessID, and checks every rule of spec 2.3 and
// DESIGN §7. All problems are reported at once, each naming its field as a
// path such as rows[1].quantity.
//
// Reading is lenient, as existing integrations need (DESIGN §8): unknown
// fields are ignored, null means absent, and a number is accepted where a
// string is expected (serviceCode 2103). A value of a wrong type is a
// problem of its field, not a failure of the whole body, so it is listed
// with the others.
func ParseOrderRequest(body []byte, businessID string) (*OrderRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, Errorf(EINVALID, "The request body is not valid JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, &Error{Code: EINVALID, Message: "The request body must be a JSON object (a sales order).",
			Fields: []FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonReader{}
	req := &OrderRequest{AutoSubmit: true}
	req.ExternalID = rd.str(obj, "externalId", "externalId")
	for i, v := range rd.arr(obj, "references", "references") {
		path := fmt.Sprintf("references[%d]", i)
		if ref, ok := rd.asObj(v, path); ok {
			req.References = append(req.References, OrderReference{Name: rd.str(ref, "name", path+".name"), Value: rd.str(ref, "value", path+".value")})
		}
	}
	if a, ok := rd.address(obj, "deliveryAddress"); ok {
		req.DeliveryAddress = *a
	} else if obj["deliveryAddress"] == nil {
		rd.p.Add("deliveryAddress", "is required")
	}
	req.Vendor, _ = rd.address(obj, "vendor")
	req.Sender, _ = rd.address(obj, "sender")
	req.ServiceCode = rd.str(obj, "serviceCode", "serviceCode")
	req.PickupPointID = rd.str(obj, "pickupPointId", "pickupPointId")
	if s := rd.str(obj, "orderDate", "orderDate"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			rd.p.Add("orderDate", "must be an ISO 8601 timestamp with offset such as 2025-04-01T12:00:00+03:00, not %q", s)
		}
		req.OrderDate = t
	}
	rows := rd.arr(obj, "rows", "rows")
	for i, v := range rows {
		path := fmt.Sprintf("rows[%d]", i)
		row, ok := rd.asObj(v, path)
		if !ok {
			req.Rows = append(req.Rows, OrderRowRequest{})
			continue
		}
		req.Rows = append(req.Rows, OrderRowRequest{
			ExternalProductID:   rd.str(row, "externalProductId", path+".externalProductId"),
			ProductEANCode:      rd.str(row, "productEANCode", path+".productEANCode"),
			ExternalWarehouseID: rd.str(row, "externalWarehouseId", path+".externalWarehouseId"),
			Quantity:            rd.quantity(row, path+".quantity"),
		})
	}
	if prefs, ok := rd.obj(obj, "preferences", "preferences"); ok {
		if b, ok := rd.boolean(prefs, "autoSubmit", "preferences.autoSubmit"); ok {
			req.AutoSubmit = b
		}
	}
	req.validate(&rd.p, businessID)
	return req, rd.p.Err()
}

var (
	ownIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	phoneChars   = regexp.MustCompile(`^\+?[0-9 ()-]+$`)
)

// validate normalizes r and records every problem with it. The type
// problems found while reading are already in p.
func (r *OrderRequest) validate(p *Problems, businessID string) {
	prefix := businessID + "-"
	r.ExternalID = strings.TrimSpace(r.ExternalID)
	if r.ExternalID != "" {
		checkPrefixedID(p, "externalId", r.ExternalID, prefix)
	}

	if len(r.References) > MaxOrderReferences {
		p.Add("references", "must hold at most %d references", MaxOrderReferences)
	}
	sos := 0
	for i := range r.References {
		ref := &r.References[i]
		path := fmt.Sprintf("references[%d]", i)
		ref.Name, ref.Value = strings.TrimSpace(ref.Name), strings.TrimSpace(ref.Value)
		switch {
		case ref.Name == "":
			p.Add(path+".name", "is required")
		case len(ref.Name) > 50:
			p.Add(path+".name", "must be at most 50 characters")
		}
		switch {
		case ref.Value == "":
			p.Add(path+".value", "is required")
		case len(ref.Value) > 100:
			p.Add(path+".value", "must be at most 100 characters")
		}
		if strings.EqualFold(ref.Name, RefSO) {
			ref.Name = RefSO
			if sos++; sos == 2 {
				p.Add(path+".name", "an order has at most one SO reference")
			}
		}
	}

	a := &r.DeliveryAddress
	a.Validate(p, "deliveryAddress", true)
	if a.Telephone == "" && a.Email == "" {
		p.Add("deliveryAddress", "needs a telephone (mobile) number or an e-mail, preferably both: they carry the arrival notice")
	}
	if a.Telephone != "" && !validPhone(a.Telephone) {
		p.Add("deliveryAddress.telephone", "%q is not a telephone number (digits, optionally a leading +, spaces, dashes, parentheses; 5-15 digits)", a.Telephone)
	}
	r.ServiceCode = strings.ToUpper(strings.TrimSpace(r.ServiceCode))
	switch {
	case r.ServiceCode == "":
		p.Add("serviceCode", "is required")
	case !ValidServiceCode(r.ServiceCode):
		p.Add("serviceCode", "%q is not a service code; use one of 2101, 2102, 2103, 2104, 2143, 2144, 2145, 2317, 2318, 2331, 2711, NOUTO", r.ServiceCode)
	case r.ServiceCode == ServiceNouto && a.Email == "":
		p.Add("deliveryAddress.email", "is required when serviceCode is NOUTO (pick-up from the warehouse)")
	}
	for _, party := range []struct {
		name string
		a    *Address
	}{{"vendor", r.Vendor}, {"sender", r.Sender}} {
		if party.a == nil {
			continue
		}
		party.a.Validate(p, party.name, false)
		if party.a.ExternalID != "" {
			id, err := NormalizeBusinessID(party.a.ExternalID)
			if err != nil {
				p.Add(party.name+".externalId", "must be a business ID: %s", ErrorMessage(err))
			}
			party.a.ExternalID = id
		}
	}
	r.PickupPointID = strings.TrimSpace(r.PickupPointID)
	if len(r.PickupPointID) > 50 {
		p.Add("pickupPointId", "must be at most 50 characters")
	} else if id, err := PickupPointForOrder(r.ServiceCode, r.PickupPointID, a.PostalCode, a.Country); err != nil {
		// A named point must exist; a 2103 order naming none goes to the
		// point nearest its delivery address (see PickupPointForOrder).
		p.AddFields(ErrorFields(err)...)
	} else {
		r.PickupPointID = id
	}

	switch {
	case len(r.Rows) == 0:
		p.Add("rows", "must hold at least one order row")
	case len(r.Rows) > MaxOrderRows:
		p.Add("rows", "must hold at most %d rows", MaxOrderRows)
		return
	}
	for i := range r.Rows {
		row := &r.Rows[i]
		path := fmt.Sprintf("rows[%d]", i)
		row.ExternalProductID = strings.TrimSpace(row.ExternalProductID)
		row.ProductEANCode = strings.TrimSpace(row.ProductEANCode)
		row.ExternalWarehouseID = strings.TrimSpace(row.ExternalWarehouseID)
		if row.ExternalProductID == "" {
			p.Add(path+".externalProductId", "is required")
		} else {
			checkPrefixedID(p, path+".externalProductId", row.ExternalProductID, prefix)
		}
		if len(row.ProductEANCode) > 50 {
			p.Add(path+".productEANCode", "must be at most 50 characters")
		}
		if row.ExternalWarehouseID != "" && !ValidExternalID(row.ExternalWarehouseID) {
			p.Add(path+".externalWarehouseId", "must be 1-20 characters of letters, digits, '-' and '.'")
		}
	}
}

// checkPrefixedID checks an ID of the form {business ID}-{own ID} of at
// most 20 characters (spec 2.3) whose business ID is the caller's.
func checkPrefixedID(p *Problems, field, id, prefix string) {
	own, ok := strings.CutPrefix(id, prefix)
	switch {
	case len(id) > MaxOrderIDLength:
		p.Add(field, "must be at most %d characters, not %d", MaxOrderIDLength, len(id))
	case !ok:
		p.Add(field, "must have the form %s{own ID}: it starts with your business ID", prefix)
	case own == "":
		p.Add(field, "needs an own ID after %q", prefix)
	case !ownIDPattern.MatchString(own):
		p.Add(field, "the own ID may hold letters, digits, '.', '_' and '-' only")
	}
}

func validPhone(s string) bool {
	if !phoneChars.MatchString(s) {
		return false
	}
	digits := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	return digits >= 5 && digits <= 15
}

// jsonReader reads fields of a decoded JSON document (UseNumber), recording
// a problem for each value of a wrong type. null and absent are the same.
type jsonReader struct{ p Problems }

func (rd *jsonReader) str(obj map[string]any, key, path string) string {
	switch v := obj[key].(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	default:
		rd.p.Add(path, "must be a string, not %s", jsonKind(v))
		return ""
	}
}

func (rd *jsonReader) boolean(obj map[string]any, key, path string) (bool, bool) {
	switch v := obj[key].(type) {
	case nil:
		return false, false
	case bool:
		return v, true
	default:
		rd.p.Add(path, "must be true or false, not %s", jsonKind(v))
		return false, false
	}
}

func (rd *jsonReader) asObj(v any, path string) (map[string]any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return v, true
	default:
		rd.p.Add(path, "must be an object, not %s", jsonKind(v))
		return nil, false
	}
}

func (rd *jsonReader) obj(obj map[string]any, key, path string) (map[string]any, bool) {
	return rd.asObj(obj[key], path)
}

func (rd *jsonReader) arr(obj map[string]any, key, path string) []any {
	switch v := obj[key].(type) {
	case nil:
		return nil
	case []any:
		return v
	default:
		rd.p.Add(path, "must be an array, not %s", jsonKind(v))
		return nil
	}
}

func (rd *jsonReader) address(obj map[string]any, key string) (*Address, bool) {
	a, ok := rd.obj(obj, key, key)
	if !ok {
		return nil, false
	}
	return &Address{
		ExternalID:    rd.str(a, "externalId", key+".externalId"),
		Name:          rd.str(a, "name", key+".name"),
		StreetAddress: rd.str(a, "streetAddress", key+".streetAddress"),
		PostalCode:    rd.str(a, "postalCode", key+".postalCode"),
		PostOffice:    rd.str(a, "postOffice", key+".postOffice"),
		Country:       rd.str(a, "country", key+".country"),
		Telephone:     rd.str(a, "telephone", key+".telephone"),
		Email:         rd.str(a, "email", key+".email"),
	}, true
}

// quantity reads a row quantity: a whole number from 1 to MaxRowQuantity.
// 2.0 is a whole number; 2.5 and "2" are not.
func (rd *jsonReader) quantity(row map[string]any, path string) int64 {
	v, present := row["quantity"]
	n, isNum := v.(json.Number)
	switch {
	case !present || v == nil:
		rd.p.Add(path, "is required")
		return 0
	case !isNum:
		rd.p.Add(path, "must be a positive whole number, not %s", jsonKind(v))
		return 0
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 || f > MaxRowQuantity {
		rd.p.Add(path, "must be a whole number from 1 to %d, not %s", MaxRowQuantity, n)
		return 0
	}
	return int64(f)
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}
