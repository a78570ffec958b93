package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
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
func decodeOrderRequest(root any, businessID string) (*parcelgate.OrderRequest, error) {
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a sales order).",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonin.Reader{}
	req := &parcelgate.OrderRequest{AutoSubmit: true}
	req.ExternalID = rd.String(obj, "externalId", "externalId")
	for i, v := range rd.Array(obj, "references", "references") {
		path := fmt.Sprintf("references[%d]", i)
		if ref, ok := rd.Object(v, path); ok {
			req.References = append(req.References, parcelgate.OrderReference{Name: rd.String(ref, "name", path+".name"), Value: rd.String(ref, "value", path+".value")})
		}
	}
	if a, ok := readAddress(rd, obj, "deliveryAddress"); ok {
		req.DeliveryAddress = *a
	} else if obj["deliveryAddress"] == nil {
		rd.Problems.Add("deliveryAddress", "is required")
	}
	req.Vendor, _ = readAddress(rd, obj, "vendor")
	req.Sender, _ = readAddress(rd, obj, "sender")
	req.Client, _ = readAddress(rd, obj, "client")
	req.Recipient, _ = readAddress(rd, obj, "recipient")
	req.Currency = rd.String(obj, "currency", "currency")
	req.TotalPrice = readDecimal(rd, obj, "totalPrice", "totalPrice")
	req.TotalTax = readDecimal(rd, obj, "totalTax", "totalTax")
	if md, ok := rd.Obj(obj, "metadata", "metadata"); ok {
		req.ClientSoftware = rd.String(md, "client", "metadata.client")
	}
	for i, v := range rd.Array(obj, "additionalServices", "additionalServices") {
		path := fmt.Sprintf("additionalServices[%d]", i)
		if s, ok := rd.Object(v, path); ok {
			req.AdditionalServices = append(req.AdditionalServices, parcelgate.AdditionalService{ServiceCode: rd.String(s, "serviceCode", path+".serviceCode")})
		}
	}
	for i, v := range rd.Array(obj, "comments", "comments") {
		path := fmt.Sprintf("comments[%d]", i)
		if c, ok := rd.Object(v, path); ok {
			req.Comments = append(req.Comments, readComment(rd, c, path+"."))
		}
	}
	req.ServiceCode = rd.String(obj, "serviceCode", "serviceCode")
	req.RoutingServiceCode = rd.String(obj, "routingServiceCode", "routingServiceCode")
	req.PickupPointID = rd.String(obj, "pickupPointId", "pickupPointId")
	if s := rd.String(obj, "orderDate", "orderDate"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			rd.Problems.Add("orderDate", "must be an ISO 8601 timestamp with offset such as 2025-04-01T12:00:00+03:00, not %q", s)
		}
		req.OrderDate = t
	}
	rows := rd.Array(obj, "rows", "rows")
	for i, v := range rows {
		path := fmt.Sprintf("rows[%d]", i)
		row, ok := rd.Object(v, path)
		if !ok {
			req.Rows = append(req.Rows, parcelgate.OrderRowRequest{})
			continue
		}
		req.Rows = append(req.Rows, parcelgate.OrderRowRequest{
			ExternalID:           rd.String(row, "externalId", path+".externalId"),
			ProductUnitOfMeasure: rd.String(row, "productUnitOfMeasure", path+".productUnitOfMeasure"),
			ProductDescription:   rd.String(row, "productDescription", path+".productDescription"),
			ExternalProductID:    rd.String(row, "externalProductId", path+".externalProductId"),
			ProductEANCode:       rd.String(row, "productEANCode", path+".productEANCode"),
			ExternalWarehouseID:  rd.String(row, "externalWarehouseId", path+".externalWarehouseId"),
			Quantity:             readQuantity(rd, row, path+".quantity"),
		})
	}
	if prefs, ok := rd.Obj(obj, "preferences", "preferences"); ok {
		if b, ok := rd.Bool(prefs, "autoSubmit", "preferences.autoSubmit"); ok {
			req.AutoSubmit = b
		}
	}
	rd.Problems.AddFields(parcelgate.ErrorFields(req.Validate(businessID))...)
	return req, rd.Problems.Err()
}

func readAddress(rd *jsonin.Reader, obj map[string]any, key string) (*parcelgate.Address, bool) {
	a, ok := rd.Obj(obj, key, key)
	if !ok {
		return nil, false
	}
	return &parcelgate.Address{
		ExternalID:    rd.String(a, "externalId", key+".externalId"),
		Name:          rd.String(a, "name", key+".name"),
		StreetAddress: rd.String(a, "streetAddress", key+".streetAddress"),
		PostalCode:    rd.String(a, "postalCode", key+".postalCode"),
		PostOffice:    rd.String(a, "postOffice", key+".postOffice"),
		Country:       rd.String(a, "country", key+".country"),
		Telephone:     rd.String(a, "telephone", key+".telephone"),
		Email:         rd.String(a, "email", key+".email"),
	}, true
}

// quantity reads a row quantity: a whole number from 1 to MaxRowQuantity.
// 2.0 is a whole number; 2.5 and "2" are not.
func readQuantity(rd *jsonin.Reader, row map[string]any, path string) int64 {
	v, present := row["quantity"]
	n, isNum := v.(json.Number)
	switch {
	case !present || v == nil:
		rd.Problems.Add(path, "is required")
		return 0
	case !isNum:
		rd.Problems.Add(path, "must be a positive whole number, not %s", jsonin.Kind(v))
		return 0
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 || f > parcelgate.MaxRowQuantity {
		rd.Problems.Add(path, "must be a whole number from 1 to %d, not %s", parcelgate.MaxRowQuantity, n)
		return 0
	}
	return int64(f)
}

// decimal reads an amount: a number, or a string holding one (the
// provider's PHP library sends totals as either).
func readDecimal(rd *jsonin.Reader, obj map[string]any, key, path string) *parcelgate.Decimal {
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
		rd.Problems.Add(path, "must be a number, not %s", jsonin.Kind(v))
		return nil
	}
	d, ok := parcelgate.ParseDecimal(text)
	if !ok {
		rd.Problems.Add(path, "must be a decimal number below 10^12 in magnitude, such as 24.90, not %q", text)
		return nil
	}
	return &d
}

// comment reads a comment object; prefix is its path with a trailing dot
// ("comments[0].") or "" for a comment that is a whole body.
func readComment(rd *jsonin.Reader, c map[string]any, prefix string) parcelgate.OrderComment {
	out := parcelgate.OrderComment{
		ExternalID: rd.String(c, "externalId", prefix+"externalId"),
		Author:     rd.String(c, "author", prefix+"author"),
		Value:      rd.String(c, "value", prefix+"value"),
		Type:       rd.String(c, "type", prefix+"type"),
		Origin:     rd.String(c, "origin", prefix+"origin"),
	}
	if s := rd.String(c, "createdDate", prefix+"createdDate"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			rd.Problems.Add(prefix+"createdDate", "must be an ISO 8601 timestamp with offset such as 2026-04-01T12:00:00+03:00, not %q", s)
		}
		out.CreatedDate = t
	}
	return out
}

// decodeOrderComment reads the body of POST /orders/{id}/comments: one
// comment object, as the warehouse plugin sends a shop note, checked by
// the domain (OrderComment.Validate).
func decodeOrderComment(root any) (parcelgate.OrderComment, error) {
	obj, ok := root.(map[string]any)
	if !ok {
		return parcelgate.OrderComment{}, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a comment).",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an object"}}}
	}
	rd := &jsonin.Reader{}
	c := readComment(rd, obj, "")
	c.Validate(&rd.Problems, "")
	return c, rd.Problems.Err()
}
