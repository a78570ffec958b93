package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// The body of an order create or update (interface §2.3), read leniently as
// existing integrations need (decisions §8): unknown fields are ignored, null
// means absent, and a number is accepted where a string is expected
// (serviceCode 2103). A value of a wrong type is a problem of its field,
// not a failure of the whole body, so it is listed with the others
// (jsonin's lenient types). The fields are in the order their problems are
// listed.
type orderBody struct {
	ExternalID      jsonin.Text                                `json:"externalId"`
	References      jsonin.Array[jsonin.Object[referenceBody]] `json:"references"`
	DeliveryAddress required[addressBody]                      `json:"deliveryAddress"`
	Vendor          jsonin.Object[addressBody]                 `json:"vendor"`
	Sender          jsonin.Object[addressBody]                 `json:"sender"`
	Client          jsonin.Object[addressBody]                 `json:"client"`
	Recipient       jsonin.Object[addressBody]                 `json:"recipient"`
	Currency        jsonin.Text                                `json:"currency"`
	TotalPrice      decimal                                    `json:"totalPrice"`
	TotalTax        decimal                                    `json:"totalTax"`
	Metadata        jsonin.Object[struct {
		Client jsonin.Text `json:"client"`
	}] `json:"metadata"`
	AdditionalServices jsonin.Array[jsonin.Object[struct {
		ServiceCode jsonin.Text `json:"serviceCode"`
	}]] `json:"additionalServices"`
	Comments           jsonin.Array[jsonin.Object[commentBody]] `json:"comments"`
	ServiceCode        jsonin.Text                              `json:"serviceCode"`
	RoutingServiceCode jsonin.Text                              `json:"routingServiceCode"`
	PickupPointID      jsonin.Text                              `json:"pickupPointId"`
	OrderDate          stamp[orderDateExample]                  `json:"orderDate"`
	Rows               jsonin.Array[jsonin.Object[rowBody]]     `json:"rows"`
	Preferences        jsonin.Object[struct {
		AutoSubmit jsonin.Bool `json:"autoSubmit"`
	}] `json:"preferences"`
	// Status is read only by PUT /orders/{id}, which cancels by it.
	Status statusBody `json:"status"`
}

type referenceBody struct {
	Name  jsonin.Text `json:"name"`
	Value jsonin.Text `json:"value"`
}

type addressBody struct {
	ExternalID    jsonin.Text `json:"externalId"`
	Name          jsonin.Text `json:"name"`
	StreetAddress jsonin.Text `json:"streetAddress"`
	PostalCode    jsonin.Text `json:"postalCode"`
	PostOffice    jsonin.Text `json:"postOffice"`
	Country       jsonin.Text `json:"country"`
	Telephone     jsonin.Text `json:"telephone"`
	Email         jsonin.Text `json:"email"`
}

func (a *addressBody) address() *parcelgate.Address {
	return &parcelgate.Address{ExternalID: a.ExternalID.V, Name: a.Name.V, StreetAddress: a.StreetAddress.V, PostalCode: a.PostalCode.V,
		PostOffice: a.PostOffice.V, Country: a.Country.V, Telephone: a.Telephone.V, Email: a.Email.V}
}

type commentBody struct {
	ExternalID  jsonin.Text               `json:"externalId"`
	Author      jsonin.Text               `json:"author"`
	Value       jsonin.Text               `json:"value"`
	Type        jsonin.Text               `json:"type"`
	Origin      jsonin.Text               `json:"origin"`
	CreatedDate stamp[commentDateExample] `json:"createdDate"`
}

func (c *commentBody) comment() parcelgate.OrderComment {
	return parcelgate.OrderComment{ExternalID: c.ExternalID.V, Author: c.Author.V, Value: c.Value.V, Type: c.Type.V, Origin: c.Origin.V, CreatedDate: c.CreatedDate.t}
}

type rowBody struct {
	ExternalID           jsonin.Text `json:"externalId"`
	ProductUnitOfMeasure jsonin.Text `json:"productUnitOfMeasure"`
	ProductDescription   jsonin.Text `json:"productDescription"`
	ExternalProductID    jsonin.Text `json:"externalProductId"`
	ProductEANCode       jsonin.Text `json:"productEANCode"`
	ExternalWarehouseID  jsonin.Text `json:"externalWarehouseId"`
	Quantity             quantity    `json:"quantity"`
}

// decodeOrderRequest reads the body of an order create request (interface §2.3)
// into the domain's typed request, and has the domain check every rule
// for the caller with businessID, over the network points
// (OrderRequest.Validate). All problems,
// of reading and of the rules, are reported at once, each naming its field
// as a path such as rows[1].quantity.
func decodeOrderRequest(body []byte, businessID string, points parcelgate.PickupPointLookup) (*parcelgate.OrderRequest, error) {
	var ob jsonin.Object[orderBody]
	if err := jsonin.DecodeLenient(body, &ob); err != nil {
		return nil, err
	}
	return orderRequest(&ob, businessID, points)
}

// orderRequest is decodeOrderRequest of a decoded body.
func orderRequest(ob *jsonin.Object[orderBody], businessID string, points parcelgate.PickupPointLookup) (*parcelgate.OrderRequest, error) {
	if !ob.Set {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a sales order).",
			Fields: []parcelgate.FieldError{{Field: jsonin.BodyPath, Message: "must be an object"}}}
	}
	var p parcelgate.Problems
	jsonin.Problems(ob, jsonin.BodyPath, &p)
	b := &ob.V
	req := &parcelgate.OrderRequest{AutoSubmit: true, ExternalID: b.ExternalID.V}
	for _, r := range b.References.V {
		if r.Set {
			req.References = append(req.References, parcelgate.OrderReference{Name: r.V.Name.V, Value: r.V.Value.V})
		}
	}
	if b.DeliveryAddress.Set {
		req.DeliveryAddress = *b.DeliveryAddress.V.address()
	}
	for _, a := range []struct {
		to   **parcelgate.Address
		from *jsonin.Object[addressBody]
	}{{&req.Vendor, &b.Vendor}, {&req.Sender, &b.Sender}, {&req.Client, &b.Client}, {&req.Recipient, &b.Recipient}} {
		if a.from.Set {
			*a.to = a.from.V.address()
		}
	}
	req.Currency = b.Currency.V
	req.TotalPrice, req.TotalTax = b.TotalPrice.d, b.TotalTax.d
	req.ClientSoftware = b.Metadata.V.Client.V
	for _, s := range b.AdditionalServices.V {
		if s.Set {
			req.AdditionalServices = append(req.AdditionalServices, parcelgate.AdditionalService{ServiceCode: s.V.ServiceCode.V})
		}
	}
	for _, c := range b.Comments.V {
		if c.Set {
			req.Comments = append(req.Comments, c.V.comment())
		}
	}
	req.ServiceCode, req.RoutingServiceCode, req.PickupPointID = b.ServiceCode.V, b.RoutingServiceCode.V, b.PickupPointID.V
	req.OrderDate = b.OrderDate.t
	for _, r := range b.Rows.V {
		row := &r.V
		req.Rows = append(req.Rows, parcelgate.OrderRowRequest{ExternalID: row.ExternalID.V, ProductUnitOfMeasure: row.ProductUnitOfMeasure.V,
			ProductDescription: row.ProductDescription.V, ExternalProductID: row.ExternalProductID.V, ProductEANCode: row.ProductEANCode.V,
			ExternalWarehouseID: row.ExternalWarehouseID.V, Quantity: row.Quantity.n})
	}
	if auto := b.Preferences.V.AutoSubmit; auto.Set {
		req.AutoSubmit = auto.V
	}
	p.AddFields(parcelgate.ErrorFields(req.Validate(businessID, points))...)
	return req, p.Err()
}

// decodeOrderComment reads the body of POST /orders/{id}/comments: one
// comment object, as the warehouse plugin sends a shop note, checked by
// the domain (OrderComment.Validate).
func decodeOrderComment(body []byte) (parcelgate.OrderComment, error) {
	var cb jsonin.Object[commentBody]
	if err := jsonin.DecodeLenient(body, &cb); err != nil {
		return parcelgate.OrderComment{}, err
	}
	if !cb.Set {
		return parcelgate.OrderComment{}, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON object (a comment).",
			Fields: []parcelgate.FieldError{{Field: jsonin.BodyPath, Message: "must be an object"}}}
	}
	var p parcelgate.Problems
	jsonin.Problems(&cb, jsonin.BodyPath, &p)
	c := cb.V.comment()
	c.Validate(&p, "")
	return c, p.Err()
}

// decodeOrderPreferences reads the body of PATCH
// /orders/{id}/preferences: {"autoSubmit": true or false}.
func decodeOrderPreferences(body []byte) (autoSubmit bool, err error) {
	var pb jsonin.Object[struct {
		AutoSubmit jsonin.Bool `json:"autoSubmit"`
	}]
	if err := jsonin.DecodeLenient(body, &pb); err != nil {
		return false, err
	}
	var p parcelgate.Problems
	if pb.Kind() == "null" {
		p.Add(jsonin.BodyPath, "must be an object")
	}
	jsonin.Problems(&pb, jsonin.BodyPath, &p)
	if !pb.V.AutoSubmit.Set && p.Len() == 0 {
		p.Add("autoSubmit", "is required (true or false)")
	}
	return pb.V.AutoSubmit.V, p.Err()
}

// required is an object member that must be sent.
type required[T any] struct{ jsonin.Object[T] }

func (r *required[T]) Problem() string {
	if k := r.Kind(); k == "" || k == "null" {
		return "is required"
	}
	return r.Object.Problem()
}

// statusBody is the status a PUT /orders/{id} body asks for:
// {"status":{"value":"Cancelled"}}, or "status":"Cancelled". Any other
// value asks for a status too, one that is none.
type statusBody struct {
	value string
	asked bool
}

func (s *statusBody) UnmarshalJSON(b []byte) error {
	*s = statusBody{asked: b[0] != 'n'}
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &s.value)
	case '{':
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			return err
		}
		s.value, _ = obj["value"].(string)
	}
	return nil
}

// quantity is a row quantity: a whole number from 1 to MaxRowQuantity.
// 2.0 is a whole number; 2.5 and "2" are not.
type quantity struct {
	n       int64
	problem string
}

func (q *quantity) UnmarshalJSON(b []byte) error {
	*q = quantity{}
	switch {
	case b[0] == 'n':
		q.problem = "is required"
	case b[0] != '-' && (b[0] < '0' || b[0] > '9'):
		q.problem = "must be a positive whole number, not " + jsonin.Kind(b)
	default:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || f < 1 || f > parcelgate.MaxRowQuantity {
			q.problem = fmt.Sprintf("must be a whole number from 1 to %d, not %s", parcelgate.MaxRowQuantity, b)
			return nil
		}
		q.n = int64(f)
	}
	return nil
}

// Problem: a quantity never sent is one never given.
func (q *quantity) Problem() string {
	if q.n == 0 && q.problem == "" {
		return "is required"
	}
	return q.problem
}

// decimal is an amount: a number, or a string holding one (the provider's
// PHP library sends totals as either).
type decimal struct {
	d       *parcelgate.Decimal
	problem string
}

func (d *decimal) UnmarshalJSON(b []byte) error {
	*d = decimal{}
	var text string
	switch {
	case b[0] == 'n':
		return nil
	case b[0] == '"':
		if err := json.Unmarshal(b, &text); err != nil {
			return err
		}
		if text = strings.TrimSpace(text); text == "" {
			return nil
		}
	case b[0] == '-' || b[0] >= '0' && b[0] <= '9':
		text = string(b)
	default:
		d.problem = "must be a number, not " + jsonin.Kind(b)
		return nil
	}
	v, ok := parcelgate.ParseDecimal(text)
	if !ok {
		d.problem = fmt.Sprintf("must be a decimal number below 10^12 in magnitude, such as 24.90, not %q", text)
		return nil
	}
	d.d = &v
	return nil
}

func (d *decimal) Problem() string { return d.problem }

// stamp is a timestamp member: an ISO 8601 text with offset, E giving the
// example its problem shows.
type stamp[E interface{ example() string }] struct {
	jsonin.Text
	t       time.Time
	problem string
}

type orderDateExample struct{}

func (orderDateExample) example() string { return "2025-04-01T12:00:00+03:00" }

type commentDateExample struct{}

func (commentDateExample) example() string { return "2026-04-01T12:00:00+03:00" }

func (s *stamp[E]) UnmarshalJSON(b []byte) error {
	*s = stamp[E]{}
	if err := s.Text.UnmarshalJSON(b); err != nil || s.V == "" {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, s.V)
	if err != nil {
		var e E
		s.problem = fmt.Sprintf("must be an ISO 8601 timestamp with offset such as %s, not %q", e.example(), s.V)
	}
	s.t = t
	return nil
}

func (s *stamp[E]) Problem() string {
	if p := s.Text.Problem(); p != "" {
		return p
	}
	return s.problem
}
