package httpapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// Reading the bodies of the inventory API (interface §4.4) into the domain's
// typed inputs. The ecom surface is lenient (decisions §8): unknown fields are
// ignored (products keep them), null means absent. Type problems are found
// by jsonin's lenient types; every rule is the inputs' Validate.

// entryProblems are the problems of the entries of a request array, by
// position, fields named within the entry.
type entryProblems map[int][]parcelgate.FieldError

// add records the problems of entry i, if any.
func (ep entryProblems) add(i int, p *parcelgate.Problems) {
	if p.Len() > 0 {
		ep[i] = p.List()
	}
}

// fail returns one EINVALID error naming every problem with its entry's
// position, for the requests that are all or nothing; nil when there are
// none.
func (ep entryProblems) fail() error {
	var p parcelgate.Problems
	for _, i := range slices.Sorted(maps.Keys(ep)) {
		for _, f := range ep[i] {
			p.AddAt(i, f.Field, "%s", f.Message)
		}
	}
	return p.Err()
}

// requestArray decodes a body that must be a JSON array of at most max
// entries of what.
func requestArray[T any](body []byte, max int, what string) ([]T, error) {
	var arr jsonin.Array[T]
	if err := jsonin.DecodeLenient(body, &arr); err != nil {
		return nil, err
	}
	if !arr.Set {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON array of " + what + ".",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an array of " + what + ", not " + arr.Kind()}}}
	}
	if len(arr.V) > max {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body holds " + strconv.Itoa(len(arr.V)) + " entries; at most " + strconv.Itoa(max) + " are allowed.",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must hold at most " + strconv.Itoa(max) + " entries"}}}
	}
	return arr.V, nil
}

// entry is an element of a request array, which must be an object; its
// problems are named within it.
type entry[T any] struct{ jsonin.Object[T] }

// problems returns the problems of the entry: what, the entry's shape,
// when it is no object, else those of its members.
func (e *entry[T]) problems(what string) parcelgate.Problems {
	var p parcelgate.Problems
	if !e.Set {
		p.Add("(entry)", "must be %s, not %s", what, e.Kind())
		return p
	}
	jsonin.Problems(&e.V, "", &p)
	return p
}

type inventoryEntry struct {
	Product  productMember                `json:"product"`
	Balances jsonin.Array[balanceInEntry] `json:"balances"`
}

// balanceInEntry is an element of an entry's balances, which must be a
// balance object (null too).
type balanceInEntry struct{ jsonin.Object[balanceBody] }

func (b *balanceInEntry) Problem() string {
	if b.Set {
		return ""
	}
	return "must be a balance object, not " + b.Kind()
}

// readInventory reads the body of PUT /inventory: an array of {product,
// balances[]}. It returns every entry (those with problems too, which are
// not applied) and the problems of its reading by entry; the rules of the
// entries read well are PutInventory's (parcelgate.CheckInventory, decisions
// §57). Only a body that is not an array of 1 to MaxInventoryEntries
// entries, or that holds more than MaxBalanceEntries balances in all,
// fails as a whole.
func readInventory(body []byte) ([]parcelgate.InventoryInput, entryProblems, error) {
	arr, err := requestArray[entry[inventoryEntry]](body, parcelgate.MaxInventoryEntries, "{product, balances}")
	if err != nil {
		return nil, nil, err
	}
	if len(arr) == 0 {
		return nil, nil, emptyBody()
	}
	out := make([]parcelgate.InventoryInput, len(arr))
	bad := entryProblems{}
	nbal := 0
	for i := range arr {
		e := &arr[i]
		p := e.problems("an object {product, balances}")
		in := &out[i]
		if prod := &e.V.Product; prod.Set {
			in.Product, in.Status, in.Named = prod.product()
		}
		for _, b := range e.V.Balances.V {
			if b.Set {
				in.Balances = append(in.Balances, b.V.input())
			}
		}
		nbal += len(in.Balances)
		bad.add(i, &p)
	}
	if nbal > parcelgate.MaxBalanceEntries {
		return nil, nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request holds " + strconv.Itoa(nbal) + " balances; at most " + strconv.Itoa(parcelgate.MaxBalanceEntries) + " are allowed in one request.",
			Fields: []parcelgate.FieldError{{Field: "balances", Message: "at most " + strconv.Itoa(parcelgate.MaxBalanceEntries) + " balances in one request"}}}
	}
	return out, bad, nil
}

// productBody is a product object: the fields parcelgate models are
// type-checked (interface §2.4); the others are kept as sent.
type productBody struct {
	ExternalID              jsonin.Text   `json:"externalId"`
	EANCode                 jsonin.Text   `json:"eanCode"`
	Status                  jsonin.Text   `json:"status"`
	RecommendedRetailPrice  jsonin.Number `json:"recommendedRetailPrice"`
	VATPercentage           jsonin.Number `json:"vatPercentage"`
	WarrantExpiration       jsonin.Number `json:"warrantExpiration"`
	UnitOfMeasure           jsonin.Text   `json:"unitOfMeasure"`
	IsFragile               jsonin.Bool   `json:"isFragile"`
	IsOversized             jsonin.Bool   `json:"isOversized"`
	IsDangerousGoods        jsonin.Bool   `json:"isDangerousGoods"`
	HasBestBeforeDate       jsonin.Bool   `json:"hasBestBeforeDate"`
	HasWarranty             jsonin.Bool   `json:"hasWarranty"`
	WarrantSerialControlled jsonin.Bool   `json:"warrantSerialControlled"`
	Measurements            jsonin.Object[struct {
		Weight jsonin.Number `json:"weight"`
		Length jsonin.Number `json:"length"`
		Width  jsonin.Number `json:"width"`
		Height jsonin.Number `json:"height"`
		Volume jsonin.Number `json:"volume"`
	}] `json:"measurements"`
	Categories   jsonin.Object[map[string]jsonin.Array[jsonin.String]] `json:"categories"`
	Descriptions jsonin.Object[map[string]jsonin.Object[struct {
		Name jsonin.Text `json:"name"`
	}]] `json:"descriptions"`
}

// productMember is an entry's product, which must be sent, with its
// document: the product as sent, without the server-owned supplierId and
// status and without null members.
type productMember struct {
	required[productBody]
	doc []byte
}

func (p *productMember) UnmarshalJSON(b []byte) error {
	*p = productMember{}
	if err := p.required.UnmarshalJSON(b); err != nil || !p.Set {
		return err
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return err
	}
	doc := make(map[string]any, len(obj))
	for k, v := range obj {
		if v != nil && k != "supplierId" && k != "status" {
			doc[k] = v
		}
	}
	if _, ok := doc["externalId"]; ok {
		doc["externalId"] = strings.TrimSpace(p.V.ExternalID.V)
	}
	p.doc, _ = json.Marshal(doc)
	return nil
}

// product returns the product, the status it asks for, and whether a
// description names it.
func (p *productMember) product() (*parcelgate.Product, string, bool) {
	b := &p.V
	named := false
	for _, d := range b.Descriptions.V {
		if strings.TrimSpace(d.V.Name.V) != "" {
			named = true
		}
	}
	return &parcelgate.Product{Status: parcelgate.ProductActive, ExternalID: strings.TrimSpace(b.ExternalID.V), EANCode: strings.TrimSpace(b.EANCode.V), Document: p.doc},
		strings.TrimSpace(b.Status.V), named
}

// balanceBody is a balance object.
type balanceBody struct {
	ProductExternalID jsonin.Text   `json:"productExternalId"`
	RetailerID        jsonin.Text   `json:"retailerId"`
	CatalogExternalID jsonin.Text   `json:"catalogExternalId"`
	Quantity          stockCount    `json:"quantity"`
	Allocated         stockCount    `json:"allocated"`
	WholesalePrice    jsonin.Number `json:"wholesalePrice"`
	Currency          jsonin.Text   `json:"currency"`
}

func (b *balanceBody) input() parcelgate.BalanceInput {
	in := parcelgate.BalanceInput{ProductExternalID: b.ProductExternalID.V, RetailerID: b.RetailerID.V, CatalogExternalID: b.CatalogExternalID.V,
		Quantity: b.Quantity.n, Allocated: b.Allocated.n}
	if b.WholesalePrice.Set {
		s := b.WholesalePrice.V.String()
		in.WholesalePrice = &s
	}
	if b.Currency.Set {
		s := b.Currency.V
		in.Currency = &s
	}
	return in
}

// stockCount is a balance's count: a number that is a stock count.
type stockCount struct {
	jsonin.Number
	n       *int64
	problem string
}

func (c *stockCount) UnmarshalJSON(b []byte) error {
	*c = stockCount{}
	if err := c.Number.UnmarshalJSON(b); err != nil || !c.Set {
		return err
	}
	q, err := parcelgate.ParseStockCount(c.V.String())
	if err != nil {
		c.problem = parcelgate.ErrorMessage(err)
		return nil
	}
	c.n = &q
	return nil
}

func (c *stockCount) Problem() string {
	if p := c.Number.Problem(); p != "" {
		return p
	}
	return c.problem
}

// readBalances reads the body of PUT /inventory/balances, all or nothing:
// an array of balance objects (interface §4.4 PUT balances rules 1-5).
// Entries read well are returned for PutBalances to check against the
// rules (parcelgate.CheckBalances, decisions §57); when some entry is not
// read well, the rules' problems of the others are asked here, so that
// one 400 names all of them, as it did.
func readBalances(body []byte, businessID string) ([]parcelgate.BalanceInput, error) {
	arr, err := requestArray[entry[balanceBody]](body, parcelgate.MaxBalanceEntries, "balance objects")
	if err != nil {
		return nil, err
	}
	if len(arr) == 0 {
		return nil, emptyBody()
	}
	out := make([]parcelgate.BalanceInput, len(arr))
	bad := entryProblems{}
	for i := range arr {
		e := &arr[i]
		p := e.problems("a balance object")
		if e.Set {
			out[i] = e.V.input()
		}
		bad.add(i, &p)
	}
	if len(bad) == 0 {
		return out, nil
	}
	for i := range out {
		if bad[i] == nil {
			var p parcelgate.Problems
			p.AddFields(parcelgate.ErrorFields(out[i].Validate(businessID))...)
			bad.add(i, &p)
		}
	}
	return nil, bad.fail()
}

type endOfSaleEntry struct {
	Product required[struct {
		ExternalID jsonin.Text `json:"externalId"`
		Status     jsonin.Text `json:"status"`
	}] `json:"product"`
}

// readEndOfSale reads the body of DELETE /inventory, all or nothing: an
// array of {product: {externalId, status: "EOS"}} (interface §4.4 DELETE
// /inventory).
func readEndOfSale(body []byte, businessID string) ([]string, error) {
	arr, err := requestArray[entry[endOfSaleEntry]](body, parcelgate.MaxInventoryEntries, "{product: {externalId, status}}")
	if err != nil {
		return nil, err
	}
	if len(arr) == 0 {
		return nil, emptyBody()
	}
	ids := make([]string, len(arr))
	bad := entryProblems{}
	for i := range arr {
		e := &arr[i]
		p := e.problems("an object {product: {externalId, status}}")
		if prod := &e.V.Product; prod.Set {
			in := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: prod.V.ExternalID.V}, Status: strings.TrimSpace(prod.V.Status.V)}
			if p.Len() == 0 {
				if in.Status != string(parcelgate.ProductEOS) {
					p.Add("product.status", "must be %q: a product is deleted by marking it end of sale (interface §3)", parcelgate.ProductEOS)
				}
				p.AddFields(parcelgate.ErrorFields(in.Validate(businessID))...)
			}
			ids[i] = in.Product.ExternalID
		}
		bad.add(i, &p)
	}
	if err := bad.fail(); err != nil {
		return nil, err
	}
	return ids, nil
}

type removalEntry struct {
	ProductExternalID jsonin.Text `json:"productExternalId"`
	RetailerID        jsonin.Text `json:"retailerId"`
	CatalogExternalID jsonin.Text `json:"catalogExternalId"`
}

// readRemovals reads the body form of DELETE /inventory/balances, as the
// warehouse plugin sends it: an array of {productExternalId,
// catalogExternalId, retailerId}. Entries with problems are returned with
// them and not applied.
func readRemovals(body []byte, businessID string) ([]parcelgate.BalanceRemoval, entryProblems, error) {
	arr, err := requestArray[entry[removalEntry]](body, parcelgate.MaxBalanceEntries, "{productExternalId, catalogExternalId, retailerId}")
	if err != nil {
		return nil, nil, err
	}
	out := make([]parcelgate.BalanceRemoval, len(arr))
	bad := entryProblems{}
	for i := range arr {
		e := &arr[i]
		p := e.problems("an object {productExternalId, catalogExternalId, retailerId}")
		if e.Set {
			out[i] = parcelgate.BalanceRemoval{ProductExternalID: e.V.ProductExternalID.V, RetailerID: e.V.RetailerID.V, CatalogExternalID: e.V.CatalogExternalID.V}
			if p.Len() == 0 {
				p.AddFields(parcelgate.ErrorFields(out[i].Validate(businessID))...)
			}
		}
		bad.add(i, &p)
	}
	return out, bad, nil
}

func emptyBody() error {
	return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body holds no entries.", Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must hold at least one entry"}}}
}
