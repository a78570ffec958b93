package parcelgate

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ContentHash identifies a request's content: a re-send with the same hash
// is a retry (decisions §7). The request's JSON form leaves externalId out;
// fields added later are left out when empty, so the hash of an order
// stored before them does not change.
func (r *OrderRequest) ContentHash() string {
	b, _ := json.Marshal(r)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DefaultWarehouse fills in externalWarehouseId of rows that leave it out:
// interface §2.3 calls it constant when there is one warehouse, so a merchant
// with exactly one (of warehouses) may omit it.
func (r *OrderRequest) DefaultWarehouse(warehouses []string) error {
	var p Problems
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.ExternalWarehouseID != "" {
			continue
		}
		switch len(warehouses) {
		case 1:
			row.ExternalWarehouseID = warehouses[0]
		case 0:
			p.Add(fmt.Sprintf("rows[%d].externalWarehouseId", i), "is required: your organization has no warehouse")
		default:
			p.Add(fmt.Sprintf("rows[%d].externalWarehouseId", i), "is required: your organization has several warehouses (%s)", strings.Join(warehouses, ", "))
		}
	}
	return p.Err()
}

// NewOrderExternalID makes the externalId of an order that came without
// one (interface §4.3 rule 2 option 1): the business ID, '-' and up to 10
// random characters of A-Z and 2-7, within MaxOrderIDLength. A business ID
// that leaves fewer than 6 characters for the random part cannot have one
// made: the client must send externalId (EINVALID naming it).
func NewOrderExternalID(businessID string) (string, error) {
	n := MaxOrderIDLength - len(businessID) - 1
	if n < 6 {
		return "", &Error{Code: EINVALID, Message: "Validation failed: externalId is required for this business ID.",
			Fields: []FieldError{{Field: "externalId", Message: fmt.Sprintf("is required: business ID %s leaves too little of the 20 characters for a generated ID", businessID)}}}
	}
	return businessID + "-" + rand.Text()[:min(n, 10)], nil
}

// NewOrder builds the order document of a request of org received at
// received. vendor, sender and orderDate default to the organization's
// profile and the time of receipt (decisions §7); orderDate keeps the
// client's offset. Comments get their IDs and, when absent, received as
// createdDate.
func NewOrder(org *Organization, r *OrderRequest, received time.Time) *Order {
	profile := Address{ExternalID: org.BusinessID, Name: org.Name}
	if org.Address != nil {
		profile = *org.Address
		if profile.ExternalID == "" {
			profile.ExternalID = org.BusinessID
		}
		if profile.Name == "" {
			profile.Name = org.Name
		}
	}
	o := &Order{
		ExternalID:         r.ExternalID,
		ClientID:           org.BusinessID,
		Metadata:           OrderMetadata{Client: r.ClientSoftware},
		OrderDate:          r.OrderDate,
		Vendor:             r.Vendor,
		Sender:             r.Sender,
		Client:             r.Client,
		Recipient:          r.Recipient,
		DeliveryAddress:    r.DeliveryAddress,
		ServiceCode:        r.ServiceCode,
		RoutingServiceCode: r.RoutingServiceCode,
		PickupPointID:      r.PickupPointID,
		References:         append([]OrderReference{}, r.References...),
		Currency:           r.Currency,
		TotalPrice:         r.TotalPrice,
		TotalTax:           r.TotalTax,
		RequestedServices:  append([]AdditionalService{}, r.AdditionalServices...),
		Comments:           MergeComments(nil, r.Comments, received),
	}
	if o.OrderDate.IsZero() {
		o.OrderDate = received
	}
	// Kept to the microsecond, as the store compares it (the from/to
	// filters, decisions §37).
	o.OrderDate = o.OrderDate.Truncate(time.Microsecond)
	if o.Vendor == nil {
		v := profile
		o.Vendor = &v
	}
	if o.Sender == nil {
		s := profile
		o.Sender = &s
	}
	for _, row := range r.Rows {
		o.Rows = append(o.Rows, OrderRow{
			ExternalID:           row.ExternalID,
			ExternalProductID:    row.ExternalProductID,
			ProductUnitOfMeasure: row.ProductUnitOfMeasure,
			ProductDescription:   row.ProductDescription,
			ProductEANCode:       row.ProductEANCode,
			ExternalWarehouseID:  row.ExternalWarehouseID,
			Quantity:             Quantity(row.Quantity),
		})
	}
	return o
}

// Request rebuilds the request content of a stored order, so that an order
// sent again without a body goes as it was.
func (o *Order) Request(autoSubmit bool) *OrderRequest {
	r := &OrderRequest{
		ExternalID: o.ExternalID, References: o.References, DeliveryAddress: o.DeliveryAddress,
		Vendor: o.Vendor, Sender: o.Sender, Client: o.Client, Recipient: o.Recipient,
		ServiceCode: o.ServiceCode, RoutingServiceCode: o.RoutingServiceCode, PickupPointID: o.PickupPointID, OrderDate: o.OrderDate, AutoSubmit: autoSubmit,
		AdditionalServices: o.RequestedServices, Currency: o.Currency, TotalPrice: o.TotalPrice, TotalTax: o.TotalTax,
		ClientSoftware: o.Metadata.Client,
	}
	for _, row := range o.Rows {
		r.Rows = append(r.Rows, OrderRowRequest{ExternalID: row.ExternalID, ExternalProductID: row.ExternalProductID,
			ProductUnitOfMeasure: row.ProductUnitOfMeasure, ProductDescription: row.ProductDescription,
			ProductEANCode: row.ProductEANCode, ExternalWarehouseID: row.ExternalWarehouseID, Quantity: int64(row.Quantity)})
	}
	return r
}

// MergeComments adds incoming comments to an order's existing ones, as a
// re-sent order or a comment added on its own does: nothing already there
// is dropped (a comment goes only by DELETE); an incoming comment with the
// externalId of an existing one replaces it, keeping its ID; one without
// externalId that repeats an existing type and value is the same comment.
// New comments get an ID, and now as createdDate when they have none.
func MergeComments(existing, incoming []OrderComment, now time.Time) []OrderComment {
	out := append([]OrderComment{}, existing...)
	for _, c := range incoming {
		i := -1
		for j, e := range out {
			if (c.ExternalID != "" && e.ExternalID == c.ExternalID) || (c.ExternalID == "" && e.ExternalID == "" && e.Type == c.Type && e.Value == c.Value) {
				i = j
				break
			}
		}
		dated := !c.CreatedDate.IsZero()
		if !dated {
			c.CreatedDate = now
		}
		if i >= 0 {
			if !dated {
				c.CreatedDate = out[i].CreatedDate
			}
			c.ID = out[i].ID
			out[i] = c
			continue
		}
		c.ID = NewCommentID()
		out = append(out, c)
	}
	return out
}

// AddComment adds c to the order's comments, as POST .../comments does:
// a comment with the externalId of one the order has replaces it, keeping
// its ID, and one without externalId that repeats a type and value is the
// same comment (MergeComments). An order keeps at most MaxOrderComments: a
// new comment past them is ECONFLICT. It returns the comment as stored
// and whether it is new.
func (o *Order) AddComment(c OrderComment, now time.Time) (OrderComment, bool, error) {
	before := len(o.Comments)
	if before >= MaxOrderComments && FindComment(o.Comments, c.ExternalID) < 0 {
		return OrderComment{}, false, Errorf(ECONFLICT, "Order %s already has %d comments, the most an order keeps; delete one first.", o.ExternalID, before)
	}
	o.Comments = MergeComments(o.Comments, []OrderComment{c}, now)
	if len(o.Comments) > before {
		return o.Comments[len(o.Comments)-1], true, nil
	}
	for _, e := range o.Comments {
		if (c.ExternalID != "" && e.ExternalID == c.ExternalID) || (c.ExternalID == "" && e.ExternalID == "" && e.Type == c.Type && e.Value == c.Value) {
			return e, false, nil
		}
	}
	return o.Comments[len(o.Comments)-1], false, nil
}

// DeleteComment removes the comment id names (its ID or its externalId);
// ENOTFOUND when the order has none.
func (o *Order) DeleteComment(id string) error {
	i := FindComment(o.Comments, id)
	if i < 0 {
		return Errorf(ENOTFOUND, "Order %s has no comment %s.", o.ExternalID, id)
	}
	o.Comments = append(o.Comments[:i], o.Comments[i+1:]...)
	return nil
}

// FindComment returns the index of the comment id names, by its ID or its
// externalId (the warehouse plugin deletes by its own note number), or -1.
func FindComment(comments []OrderComment, id string) int {
	for i, c := range comments {
		if c.ID == id || (c.ExternalID != "" && c.ExternalID == id) {
			return i
		}
	}
	return -1
}

// NewCommentID returns a comment ID: 12 characters of A-Z and 2-7.
func NewCommentID() string { return rand.Text()[:12] }
