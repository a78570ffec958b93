package client

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Ptr returns a pointer to v, for the optional fields of requests:
// Quantity: client.Ptr[int64](0) sets the stock to zero, where a nil
// Quantity leaves it as it is.
func Ptr[T any](v T) *T { return &v }

// ProductStatus is a product's status; the service owns it (interface
// §2.4, §3).
type ProductStatus string

// Product statuses.
const (
	ProductActive ProductStatus = "ACTIVE"
	// ProductEOS is end of sale: the supplier deleted the product.
	ProductEOS ProductStatus = "EOS"
)

// Product is a supplier's product (interface §2.4). Only ExternalID and a name in
// some description language are required. The service stores the product as
// the document sent, so fields this type does not name are kept in Extra
// and sent back as they came.
type Product struct {
	// ExternalID is the supplier's key of the product: 1-20 letters,
	// digits, '-' and '.'. Bare (the shop's SKU, as clients send it since
	// the provider's ID migration) or {business ID}-{own ID}: both forms
	// name the same product of the supplier.
	ExternalID string `json:"externalId"`
	// SupplierID and Status are set by the service in its answers. Status
	// ProductEOS in a PutInventory entry without balances ends the
	// product's sale, as DeleteProducts does.
	SupplierID             string                 `json:"supplierId,omitempty"`
	Status                 ProductStatus          `json:"status,omitempty"`
	EANCode                string                 `json:"eanCode,omitempty"`
	RecommendedRetailPrice *float64               `json:"recommendedRetailPrice,omitempty"`
	VATPercentage          *float64               `json:"vatPercentage,omitempty"`
	Measurements           *Measurements          `json:"measurements,omitempty"`
	UnitOfMeasure          string                 `json:"unitOfMeasure,omitempty"`
	IsFragile              *bool                  `json:"isFragile,omitempty"`
	IsOversized            *bool                  `json:"isOversized,omitempty"`
	IsDangerousGoods       *bool                  `json:"isDangerousGoods,omitempty"`
	HasBestBeforeDate      *bool                  `json:"hasBestBeforeDate,omitempty"`
	HasWarranty            *bool                  `json:"hasWarranty,omitempty"`
	WarrantExpiration      *float64               `json:"warrantExpiration,omitempty"`
	WarrantSerialControl   *bool                  `json:"warrantSerialControlled,omitempty"`
	Categories             map[string][]string    `json:"categories,omitempty"`
	Descriptions           map[string]Description `json:"descriptions,omitempty"`

	// Extra holds the members of the product object this type does not
	// name, as raw JSON.
	Extra map[string]json.RawMessage `json:"-"`
}

// Measurements of a product; the spec states no units.
type Measurements struct {
	Weight *float64 `json:"weight,omitempty"`
	Length *float64 `json:"length,omitempty"`
	Width  *float64 `json:"width,omitempty"`
	Height *float64 `json:"height,omitempty"`
	Volume *float64 `json:"volume,omitempty"`
}

// Description is a product's description in one language (en, fi).
type Description struct {
	Name             string          `json:"name,omitempty"`
	ShortDescription string          `json:"shortDescription,omitempty"`
	Description      string          `json:"description,omitempty"`
	Supplier         string          `json:"supplier,omitempty"`
	Attachments      []Attachment    `json:"attachments,omitempty"`
	Comments         []Comment       `json:"comments,omitempty"`
	Specifications   []Specification `json:"specifications,omitempty"`
}

// Attachment is a file of a product description.
type Attachment struct {
	Name        string `json:"name,omitempty"`
	Type        string `json:"type,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	URI         string `json:"uri,omitempty"`
}

// Comment is a note of a product description.
type Comment struct {
	Type  string `json:"type,omitempty"`
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// Specification is a group of properties of a product description.
type Specification struct {
	Type       string     `json:"type,omitempty"`
	Properties []Property `json:"properties,omitempty"`
}

// Property is one specification property.
type Property struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	Specifier   string `json:"specifier,omitempty"`
	Description string `json:"description,omitempty"`
}

type plainProduct Product

// MarshalJSON writes the named fields and the members of Extra; a named
// field wins over an Extra member of the same name.
func (p Product) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainProduct(p))
	if err != nil || len(p.Extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range p.Extra {
		if _, named := m[k]; !named && !productFields()[k] {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the named fields and keeps the other members in
// Extra.
func (p *Product) UnmarshalJSON(b []byte) error {
	var plain plainProduct
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k := range productFields() {
		delete(m, k)
	}
	*p = Product(plain)
	p.Extra = nil
	if len(m) > 0 {
		p.Extra = m
	}
	return nil
}

// productFields are the JSON names of Product's named fields.
var productFields = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	t := reflect.TypeFor[plainProduct]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
	}
	return names
})
