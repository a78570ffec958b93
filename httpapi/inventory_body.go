package httpapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/jsonin"
)

// Reading the bodies of the inventory API (spec 4.4) into the domain's
// typed inputs. The ecom surface is lenient (DESIGN §8): unknown fields are
// ignored (products keep them), null means absent. Type problems are found
// here; every rule is the inputs' Validate.

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

// requestArray reads a body that must be a JSON array of at most max
// entries of what.
func requestArray(v any, max int, what string) ([]any, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body must be a JSON array of " + what + ".",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must be an array of " + what + ", not " + jsonin.Kind(v)}}}
	}
	if len(arr) > max {
		return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body holds " + strconv.Itoa(len(arr)) + " entries; at most " + strconv.Itoa(max) + " are allowed.",
			Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must hold at most " + strconv.Itoa(max) + " entries"}}}
	}
	return arr, nil
}

// readInventory reads the body of PUT /inventory: an array of {product,
// balances[]}. It returns every entry (those with problems too, which are
// not applied) and the problems by entry. Only a body that is not an array
// of 1 to MaxInventoryEntries entries, or that holds more than
// MaxBalanceEntries balances in all, fails as a whole.
func readInventory(v any, businessID string) ([]parcelgate.InventoryInput, entryProblems, error) {
	arr, err := requestArray(v, parcelgate.MaxInventoryEntries, "{product, balances}")
	if err != nil {
		return nil, nil, err
	}
	if len(arr) == 0 {
		return nil, nil, emptyBody()
	}
	out := make([]parcelgate.InventoryInput, len(arr))
	bad := entryProblems{}
	nbal := 0
	for i, raw := range arr {
		var rd jsonin.Reader
		out[i] = readInventoryEntry(&rd, raw)
		nbal += len(out[i].Balances)
		if rd.Problems.Len() == 0 {
			rd.Problems.AddFields(parcelgate.ErrorFields(out[i].Validate(businessID))...)
		}
		bad.add(i, &rd.Problems)
	}
	if nbal > parcelgate.MaxBalanceEntries {
		return nil, nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request holds " + strconv.Itoa(nbal) + " balances; at most " + strconv.Itoa(parcelgate.MaxBalanceEntries) + " are allowed in one request.",
			Fields: []parcelgate.FieldError{{Field: "balances", Message: "at most " + strconv.Itoa(parcelgate.MaxBalanceEntries) + " balances in one request"}}}
	}
	return out, bad, nil
}

func readInventoryEntry(rd *jsonin.Reader, raw any) parcelgate.InventoryInput {
	var in parcelgate.InventoryInput
	env, ok := raw.(map[string]any)
	if !ok {
		rd.Problems.Add("(entry)", "must be an object {product, balances}, not %s", jsonin.Kind(raw))
		return in
	}
	if env["product"] == nil {
		rd.Problems.Add("product", "is required")
	} else if obj, ok := rd.Object(env["product"], "product"); ok {
		in.Product, in.Status, in.Named = readProduct(rd, obj)
	}
	for j, b := range rd.Array(env, "balances", jsonin.Path("", "balances")) {
		path := jsonin.Index("balances", j)
		obj, ok := b.(map[string]any)
		if !ok {
			rd.Problems.Add(path, "must be a balance object, not %s", jsonin.Kind(b))
			continue
		}
		in.Balances = append(in.Balances, readBalance(rd, obj, path))
	}
	return in
}

// readProduct reads a product object: the fields parcelgate models are
// type-checked (spec 2.4), and the document is kept as sent without the
// server-owned supplierId and status and without null members.
func readProduct(rd *jsonin.Reader, obj map[string]any) (*parcelgate.Product, string, bool) {
	const path = "product"
	p := &parcelgate.Product{Status: parcelgate.ProductActive}
	p.ExternalID = strings.TrimSpace(rd.String(obj, "externalId", jsonin.Path(path, "externalId")))
	p.EANCode = strings.TrimSpace(rd.String(obj, "eanCode", jsonin.Path(path, "eanCode")))
	status := strings.TrimSpace(rd.String(obj, "status", jsonin.Path(path, "status")))
	for _, k := range []string{"recommendedRetailPrice", "vatPercentage", "warrantExpiration"} {
		rd.Number(obj, k, jsonin.Path(path, k))
	}
	rd.String(obj, "unitOfMeasure", jsonin.Path(path, "unitOfMeasure"))
	for _, k := range []string{"isFragile", "isOversized", "isDangerousGoods", "hasBestBeforeDate", "hasWarranty", "warrantSerialControlled"} {
		rd.Bool(obj, k, jsonin.Path(path, k))
	}
	if m, ok := rd.Obj(obj, "measurements", jsonin.Path(path, "measurements")); ok {
		for _, k := range []string{"weight", "length", "width", "height", "volume"} {
			rd.Number(m, k, jsonin.Path(jsonin.Path(path, "measurements"), k))
		}
	}
	if cats, ok := rd.Obj(obj, "categories", jsonin.Path(path, "categories")); ok {
		for lang := range cats {
			for i, c := range rd.Array(cats, lang, jsonin.Path(jsonin.Path(path, "categories"), lang)) {
				if _, ok := c.(string); !ok {
					rd.Problems.Add(jsonin.Index(jsonin.Path(path, "categories."+lang), i), "must be a string, not %s", jsonin.Kind(c))
				}
			}
		}
	}
	named := false
	if descs, ok := rd.Obj(obj, "descriptions", jsonin.Path(path, "descriptions")); ok {
		for lang := range descs {
			if d, ok := rd.Obj(descs, lang, jsonin.Path(jsonin.Path(path, "descriptions"), lang)); ok {
				if strings.TrimSpace(rd.String(d, "name", jsonin.Path(jsonin.Path(path, "descriptions."+lang), "name"))) != "" {
					named = true
				}
			}
		}
	}
	doc := make(map[string]any, len(obj))
	for k, v := range obj {
		if v != nil && k != "supplierId" && k != "status" {
			doc[k] = v
		}
	}
	if _, ok := doc["externalId"]; ok {
		doc["externalId"] = p.ExternalID
	}
	p.Document, _ = json.Marshal(doc)
	return p, status, named
}

// readBalance reads one balance object; path names it in messages.
func readBalance(rd *jsonin.Reader, obj map[string]any, path string) parcelgate.BalanceInput {
	in := parcelgate.BalanceInput{
		ProductExternalID: rd.String(obj, "productExternalId", jsonin.Path(path, "productExternalId")),
		RetailerID:        rd.String(obj, "retailerId", jsonin.Path(path, "retailerId")),
		CatalogExternalID: rd.String(obj, "catalogExternalId", jsonin.Path(path, "catalogExternalId")),
	}
	count := func(key string) *int64 {
		n, ok := rd.Number(obj, key, jsonin.Path(path, key))
		if !ok {
			return nil
		}
		q, err := parcelgate.ParseStockCount(n.String())
		if err != nil {
			rd.Problems.Add(jsonin.Path(path, key), "%s", parcelgate.ErrorMessage(err))
			return nil
		}
		return &q
	}
	in.Quantity = count("quantity")
	in.Allocated = count("allocated")
	if n, ok := rd.Number(obj, "wholesalePrice", jsonin.Path(path, "wholesalePrice")); ok {
		s := n.String()
		in.WholesalePrice = &s
	}
	if s, ok := rd.OptString(obj, "currency", jsonin.Path(path, "currency")); ok {
		in.Currency = &s
	}
	return in
}

// readBalances reads the body of PUT /inventory/balances, all or nothing:
// an array of balance objects (spec 4.4 PUT balances rules 1-5).
func readBalances(v any, businessID string) ([]parcelgate.BalanceInput, error) {
	arr, err := requestArray(v, parcelgate.MaxBalanceEntries, "balance objects")
	if err != nil {
		return nil, err
	}
	if len(arr) == 0 {
		return nil, emptyBody()
	}
	out := make([]parcelgate.BalanceInput, len(arr))
	bad := entryProblems{}
	for i, raw := range arr {
		var rd jsonin.Reader
		if obj, ok := raw.(map[string]any); ok {
			out[i] = readBalance(&rd, obj, "")
			if rd.Problems.Len() == 0 {
				rd.Problems.AddFields(parcelgate.ErrorFields(out[i].Validate(businessID))...)
			}
		} else {
			rd.Problems.Add("(entry)", "must be a balance object, not %s", jsonin.Kind(raw))
		}
		bad.add(i, &rd.Problems)
	}
	if err := bad.fail(); err != nil {
		return nil, err
	}
	return out, nil
}

// readEndOfSale reads the body of DELETE /inventory, all or nothing: an
// array of {product: {externalId, status: "EOS"}} (spec 4.4 DELETE
// /inventory).
func readEndOfSale(v any, businessID string) ([]string, error) {
	arr, err := requestArray(v, parcelgate.MaxInventoryEntries, "{product: {externalId, status}}")
	if err != nil {
		return nil, err
	}
	if len(arr) == 0 {
		return nil, emptyBody()
	}
	ids := make([]string, len(arr))
	bad := entryProblems{}
	for i, raw := range arr {
		var rd jsonin.Reader
		env, ok := raw.(map[string]any)
		if !ok {
			rd.Problems.Add("(entry)", "must be an object {product: {externalId, status}}, not %s", jsonin.Kind(raw))
			bad.add(i, &rd.Problems)
			continue
		}
		if env["product"] == nil {
			rd.Problems.Add("product", "is required")
		} else if prod, ok := rd.Object(env["product"], "product"); ok {
			in := parcelgate.InventoryInput{Product: &parcelgate.Product{ExternalID: rd.String(prod, "externalId", jsonin.Path("product", "externalId"))},
				Status: strings.TrimSpace(rd.String(prod, "status", jsonin.Path("product", "status")))}
			if rd.Problems.Len() == 0 {
				if in.Status != string(parcelgate.ProductEOS) {
					rd.Problems.Add("product.status", "must be %q: a product is deleted by marking it end of sale (spec 3)", parcelgate.ProductEOS)
				}
				rd.Problems.AddFields(parcelgate.ErrorFields(in.Validate(businessID))...)
			}
			ids[i] = in.Product.ExternalID
		}
		bad.add(i, &rd.Problems)
	}
	if err := bad.fail(); err != nil {
		return nil, err
	}
	return ids, nil
}

// readRemovals reads the body form of DELETE /inventory/balances, as the
// warehouse plugin sends it: an array of {productExternalId,
// catalogExternalId, retailerId}. Entries with problems are returned with
// them and not applied.
func readRemovals(v any, businessID string) ([]parcelgate.BalanceRemoval, entryProblems, error) {
	arr, err := requestArray(v, parcelgate.MaxBalanceEntries, "{productExternalId, catalogExternalId, retailerId}")
	if err != nil {
		return nil, nil, err
	}
	out := make([]parcelgate.BalanceRemoval, len(arr))
	bad := entryProblems{}
	for i, raw := range arr {
		var rd jsonin.Reader
		if obj, ok := raw.(map[string]any); ok {
			out[i] = parcelgate.BalanceRemoval{
				ProductExternalID: rd.String(obj, "productExternalId", jsonin.Path("", "productExternalId")),
				RetailerID:        rd.String(obj, "retailerId", jsonin.Path("", "retailerId")),
				CatalogExternalID: rd.String(obj, "catalogExternalId", jsonin.Path("", "catalogExternalId")),
			}
			if rd.Problems.Len() == 0 {
				rd.Problems.AddFields(parcelgate.ErrorFields(out[i].Validate(businessID))...)
			}
		} else {
			rd.Problems.Add("(entry)", "must be an object {productExternalId, catalogExternalId, retailerId}, not %s", jsonin.Kind(raw))
		}
		bad.add(i, &rd.Problems)
	}
	return out, bad, nil
}

func emptyBody() error {
	return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The request body holds no entries.", Fields: []parcelgate.FieldError{{Field: "(body)", Message: "must hold at least one entry"}}}
}
