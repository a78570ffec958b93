package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// decodeOrderRequest reads the body of an order create request (spec 2.3)
// into the domain's typed request, and has the domain check every rule
// for the caller with businessID (OrderRequest.Validate). All problems,
// of reading and of the rules, are reported at once, each naming its field
// as a path such as rows[1].quantity.
//
// Reading is lenient, as existing integrations need (DESIGN §8): unknown
// fields are ignored, null means absent, and a number is accepted where a
// string is expected (serviceCode 2103). A value of a wrong type is a
// problem of its field, not a failure of the whole body, so it is listed
// with the others.
func decodeOrderRequest(body []byte, businessID string) (*parcelgate.OrderRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "The request body is not valid JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a sales order).",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonReader{}
	req := &parcelgate.OrderRequest{AutoSubmit: true}
	req.ExternalID = rd.str(obj, "externalId", "externalId")
	for i, v := range rd.arr(obj, "references", "references") {
		path := fmt.Sprintf("references[%d]", i)
		if ref, ok := rd.asObj(v, path); ok {
			req.References = append(req.References, parcelgate.OrderReference{Name: rd.str(ref, "name", path+".name"), Value: rd.str(ref, "value", path+".value")})
		}
	}
	if a, ok := rd.address(obj, "deliveryAddress"); ok {
		req.DeliveryAddress = *a
	} else if obj["deliveryAddress"] == nil {
		rd.p.Add("deliveryAddress", "is required")
	}
	req.Vendor, _ = rd.address(obj, "vendor")
	req.Sender, _ = rd.address(obj, "sender")
	req.Client, _ = rd.address(obj, "client")
	req.Recipient, _ = rd.address(obj, "recipient")
	req.Currency = rd.str(obj, "currency", "currency")
	req.TotalPrice = rd.decimal(obj, "totalPrice", "totalPrice")
	req.TotalTax = rd.decimal(obj, "totalTax", "totalTax")
	if md, ok := rd.obj(obj, "metadata", "metadata"); ok {
		req.ClientSoftware = rd.str(md, "client", "metadata.client")
	}
	for i, v := range rd.arr(obj, "additionalServices", "additionalServices") {
		path := fmt.Sprintf("additionalServices[%d]", i)
		if s, ok := rd.asObj(v, path); ok {
			req.AdditionalServices = append(req.AdditionalServices, parcelgate.AdditionalService{ServiceCode: rd.str(s, "serviceCode", path+".serviceCode")})
		}
	}
	for i, v := range rd.arr(obj, "comments", "comments") {
		path := fmt.Sprintf("comments[%d]", i)
		if c, ok := rd.asObj(v, path); ok {
			req.Comments = append(req.Comments, rd.comment(c, path+"."))
		}
	}
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
			req.Rows = append(req.Rows, parcelgate.OrderRowRequest{})
			continue
		}
		req.Rows = append(req.Rows, parcelgate.OrderRowRequest{
			ExternalID:           rd.str(row, "externalId", path+".externalId"),
			ProductUnitOfMeasure: rd.str(row, "productUnitOfMeasure", path+".productUnitOfMeasure"),
			ProductDescription:   rd.str(row, "productDescription", path+".productDescription"),
			ExternalProductID:    rd.str(row, "externalProductId", path+".externalProductId"),
			ProductEANCode:       rd.str(row, "productEANCode", path+".productEANCode"),
			ExternalWarehouseID:  rd.str(row, "externalWarehouseId", path+".externalWarehouseId"),
			Quantity:             rd.quantity(row, path+".quantity"),
		})
	}
	if prefs, ok := rd.obj(obj, "preferences", "preferences"); ok {
		if b, ok := rd.boolean(prefs, "autoSubmit", "preferences.autoSubmit"); ok {
			req.AutoSubmit = b
		}
	}
	if err := req.Validate(businessID); err != nil {
		rd.p = append(rd.p, parcelgate.ErrorFields(err)...)
	}
	return req, rd.p.Err()
}

// jsonReader reads fields of a decoded JSON document (UseNumber), recording
// a problem for each value of a wrong type. null and absent are the same.
type jsonReader struct{ p parcelgate.Problems }

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

func (rd *jsonReader) address(obj map[string]any, key string) (*parcelgate.Address, bool) {
	a, ok := rd.obj(obj, key, key)
	if !ok {
		return nil, false
	}
	return &parcelgate.Address{
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
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 || f > parcelgate.MaxRowQuantity {
		rd.p.Add(path, "must be a whole number from 1 to %d, not %s", parcelgate.MaxRowQuantity, n)
		return 0
	}
	return int64(f)
}

// decimal reads an amount: a number, or a string holding one (the
// provider's PHP library sends totals as either).
func (rd *jsonReader) decimal(obj map[string]any, key, path string) *parcelgate.Decimal {
	var text string
	switch v := obj[key].(type) {
	case nil:
		return nil
	case json.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
		if text == "" {
			return nil
		}
	default:
		rd.p.Add(path, "must be a number, not %s", jsonKind(v))
		return nil
	}
	d, ok := parcelgate.ParseDecimal(text)
	if !ok {
		rd.p.Add(path, "must be a decimal number below 10^12 in magnitude, such as 24.90, not %q", text)
		return nil
	}
	return &d
}

// comment reads a comment object; prefix is its path with a trailing dot
// ("comments[0].") or "" for a comment that is a whole body.
func (rd *jsonReader) comment(c map[string]any, prefix string) parcelgate.OrderComment {
	out := parcelgate.OrderComment{
		ExternalID: rd.str(c, "externalId", prefix+"externalId"),
		Author:     rd.str(c, "author", prefix+"author"),
		Value:      rd.str(c, "value", prefix+"value"),
		Type:       rd.str(c, "type", prefix+"type"),
		Origin:     rd.str(c, "origin", prefix+"origin"),
	}
	if s := rd.str(c, "createdDate", prefix+"createdDate"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			rd.p.Add(prefix+"createdDate", "must be an ISO 8601 timestamp with offset such as 2026-04-01T12:00:00+03:00, not %q", s)
		}
		out.CreatedDate = t
	}
	return out
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

// decodeOrderComment reads the body of POST /orders/{id}/comments: one
// comment object, as the warehouse plugin sends a shop note.
func decodeOrderComment(body []byte) (parcelgate.OrderComment, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return parcelgate.OrderComment{}, parcelgate.Errorf(parcelgate.EINVALID, "The request body is not valid JSON: %s.", strings.TrimPrefix(err.Error(), "json: "))
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return parcelgate.OrderComment{}, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a comment).",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonReader{}
	c := rd.comment(obj, "")
	c.Validate(&rd.p, "")
	return c, rd.p.Err()
}
