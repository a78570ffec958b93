package parcelgate

import (
	"fmt"
	"regexp"
	"strings"
)

var phoneChars = regexp.MustCompile(`^\+?[0-9 ()-]+$`)

// ownIDChars reports whether s is an own ID's characters: one or more
// letters, digits, '.', '_' and '-' (ASCII), as ^[A-Za-z0-9._-]+$ says.
// Every read of an order by its ID checks it; the loop costs a fraction
// of the regular expression.
func ownIDChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// Validate normalizes r and checks every rule of interface §2.3 and decisions §7
// for the caller with businessID, reading the pick-up point network from
// points (PickupPointForOrder). All problems are reported at once, each
// naming its field as a path such as rows[1].quantity.
func (r *OrderRequest) Validate(businessID string, points PickupPointLookup) error {
	var p Problems
	r.validate(&p, businessID, points)
	return p.Err()
}

func (r *OrderRequest) validate(p *Problems, businessID string, points PickupPointLookup) {
	r.ExternalID = strings.TrimSpace(r.ExternalID)
	if r.ExternalID != "" {
		checkOwnID(p, "externalId", r.ExternalID, businessID)
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
	for _, party := range []struct {
		name string
		a    *Address
	}{{"client", r.Client}, {"recipient", r.Recipient}} {
		// The buyer and the recipient are kept as sent; their externalId
		// is the shop's customer number, not a business ID.
		if party.a != nil {
			party.a.Validate(p, party.name, false)
		}
	}
	r.Currency = strings.ToUpper(strings.TrimSpace(r.Currency))
	if r.Currency != "" && !currencyCode.MatchString(r.Currency) {
		p.Add("currency", "must be a three-letter ISO 4217 code such as EUR, not %q", r.Currency)
	}
	r.RoutingServiceCode = strings.TrimSpace(r.RoutingServiceCode)
	if r.RoutingServiceCode != "" && !serviceCode.MatchString(r.RoutingServiceCode) {
		p.Add("routingServiceCode", "must be 1-20 letters, digits, '-' or '_', not %q", r.RoutingServiceCode)
	}
	r.ClientSoftware = strings.TrimSpace(r.ClientSoftware)
	if len(r.ClientSoftware) > 200 {
		p.Add("metadata.client", "must be at most 200 characters")
	}
	r.validateServices(p)
	r.validateComments(p)
	r.PickupPointID = strings.TrimSpace(r.PickupPointID)
	if len(r.PickupPointID) > 50 {
		p.Add("pickupPointId", "must be at most 50 characters")
	} else if id, err := PickupPointForOrder(points, r.ServiceCode, r.PickupPointID, a.PostalCode, a.Country); err != nil {
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
			// The provider's Orders V3: a row names its product by
			// externalProductId or productEANCode (ResolveRowProducts).
			if row.ProductEANCode == "" {
				p.Add(path+".externalProductId", "is required unless the row names its product by productEANCode")
			}
		} else if _, foreign := OtherBusinessPrefix(businessID, row.ExternalProductID); foreign {
			// A supplier's product ID, which a row of a dropshipping
			// catalog names; CheckRowCatalogs refuses it on any other row.
			if len(row.ExternalProductID) > MaxOrderIDLength || !ownIDChars(row.ExternalProductID) {
				checkOwnID(p, path+".externalProductId", row.ExternalProductID, businessID)
			}
		} else {
			checkOwnID(p, path+".externalProductId", row.ExternalProductID, businessID)
		}
		if len(row.ProductEANCode) > 50 {
			p.Add(path+".productEANCode", "must be at most 50 characters")
		}
		if row.ExternalWarehouseID != "" && !ValidExternalID(row.ExternalWarehouseID) {
			p.Add(path+".externalWarehouseId", "must be 1-20 characters of letters, digits, '-' and '.'")
		}
		row.ExternalID = strings.TrimSpace(row.ExternalID)
		row.ProductUnitOfMeasure = strings.TrimSpace(row.ProductUnitOfMeasure)
		row.ProductDescription = strings.TrimSpace(row.ProductDescription)
		for _, f := range []struct {
			name, v string
			max     int
		}{{"externalId", row.ExternalID, 50}, {"productUnitOfMeasure", row.ProductUnitOfMeasure, 20}, {"productDescription", row.ProductDescription, 500}} {
			if len(f.v) > f.max {
				p.Add(path+"."+f.name, "must be at most %d characters", f.max)
			}
		}
	}
	r.checkOneRowPerProduct(p, businessID)
}

// checkOneRowPerProduct refuses a second row of a product (the provider's
// Orders V3 page: one row per product), naming the second row's field
// that names it: rows[N].externalProductId (the bare and the prefixed
// form name the same product, ProductKey), or rows[N].productEANCode
// for a row by EAN alone whose EAN an earlier row by EAN alone named.
// Rows naming different IDs with the same EAN are different products
// here (a shop's plugin sends its shop's EAN on every row);
// ResolveRowProducts catches a row by EAN that turns out to be another
// row's product.
func (r *OrderRequest) checkOneRowPerProduct(p *Problems, businessID string) {
	byID, byEAN := map[string]int{}, map[string]int{}
	for i, row := range r.Rows {
		switch {
		case row.ExternalProductID != "":
			key := ProductKey(businessID, row.ExternalProductID)
			if first, dup := byID[key]; dup {
				p.Add(fmt.Sprintf("rows[%d].externalProductId", i), "names product %s again (rows[%d]): an order has one row per product; add the quantities", row.ExternalProductID, first)
				continue
			}
			byID[key] = i
		case row.ProductEANCode != "":
			if first, dup := byEAN[row.ProductEANCode]; dup {
				p.Add(fmt.Sprintf("rows[%d].productEANCode", i), "names EAN %s again (rows[%d]): an order has one row per product; add the quantities", row.ProductEANCode, first)
				continue
			}
			byEAN[row.ProductEANCode] = i
		}
	}
}

var (
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
	serviceCode  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,20}$`)
	commentType  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,50}$`)
)

// Limits of the client's services and comments of one order.
const (
	MaxOrderServices  = 20
	MaxOrderComments  = 100
	MaxCommentLength  = 4000
	maxCommentPartLen = 200
)

// validateServices checks the client's value-added services: codes of 1-20
// letters, digits, '-' and '_', each once.
func (r *OrderRequest) validateServices(p *Problems) {
	if len(r.AdditionalServices) > MaxOrderServices {
		p.Add("additionalServices", "must hold at most %d services", MaxOrderServices)
		return
	}
	seen := map[string]bool{}
	out := r.AdditionalServices[:0]
	for i, s := range r.AdditionalServices {
		s.ServiceCode = strings.TrimSpace(s.ServiceCode)
		path := fmt.Sprintf("additionalServices[%d].serviceCode", i)
		switch {
		case s.ServiceCode == "":
			p.Add(path, "is required")
		case !serviceCode.MatchString(s.ServiceCode):
			p.Add(path, "must be 1-20 letters, digits, '-' or '_', not %q", s.ServiceCode)
		case seen[s.ServiceCode]:
			continue
		}
		seen[s.ServiceCode] = true
		out = append(out, s)
	}
	r.AdditionalServices = out
}

// validateComments checks the comments sent with an order.
func (r *OrderRequest) validateComments(p *Problems) {
	if len(r.Comments) > MaxOrderComments {
		p.Add("comments", "must hold at most %d comments", MaxOrderComments)
		return
	}
	for i := range r.Comments {
		r.Comments[i].Validate(p, fmt.Sprintf("comments[%d]", i))
	}
}

// Validate trims c and records its problems under the field name prefix
// (empty for a comment that is a whole body): value and type are
// required; type is a name such as pickingNote or passThrough.
func (c *OrderComment) Validate(p *Problems, prefix string) {
	field := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "." + name
	}
	c.ID = ""
	c.ExternalID, c.Author, c.Type, c.Origin = strings.TrimSpace(c.ExternalID), strings.TrimSpace(c.Author), strings.TrimSpace(c.Type), strings.TrimSpace(c.Origin)
	switch {
	case strings.TrimSpace(c.Value) == "":
		p.Add(field("value"), "is required")
	case len(c.Value) > MaxCommentLength:
		p.Add(field("value"), "must be at most %d characters", MaxCommentLength)
	}
	switch {
	case c.Type == "":
		p.Add(field("type"), "is required (e.g. pickingNote, passThrough)")
	case !commentType.MatchString(c.Type):
		p.Add(field("type"), "must be 1-50 letters, digits, '-' or '_', not %q", c.Type)
	}
	for _, f := range []struct{ name, v string }{{"externalId", c.ExternalID}, {"author", c.Author}, {"origin", c.Origin}} {
		if len(f.v) > maxCommentPartLen {
			p.Add(field(f.name), "must be at most %d characters", maxCommentPartLen)
		}
	}
}

// OwnID returns the own part of a client's ID of an order or a product
// (interface §2.3: at most 20 characters). Since the provider's ID migration
// real clients send it bare (the warehouse plugin sends order 1005 and SKU
// WOO6) as well as {business ID}-{own ID}; both name the same thing of the
// caller with businessID (the key is ProductKey's, the one family of ID
// forms for orders and products). An ID that carries another business's
// ID (OtherBusinessPrefix) is refused: it names nothing the caller owns.
// The problem, if any, is a message for the field.
func OwnID(businessID, id string) (own, problem string) {
	// As strings.CutPrefix(id, businessID+"-"), without building the
	// prefix.
	own, prefixed := id, false
	if rest, ok := strings.CutPrefix(id, businessID); ok {
		if rest, ok = strings.CutPrefix(rest, "-"); ok {
			own, prefixed = rest, true
		}
	}
	other, foreign := OtherBusinessPrefix(businessID, id)
	switch {
	case len(id) > MaxOrderIDLength:
		return "", fmt.Sprintf("must be at most %d characters, not %d", MaxOrderIDLength, len(id))
	case prefixed && own == "":
		return "", fmt.Sprintf("needs an own ID after %q", businessID+"-")
	case !prefixed && foreign:
		return "", fmt.Sprintf("starts with the business ID %s, which is not yours (%s): send your own ID bare or as %s-{own ID}", other, businessID, businessID)
	case !ownIDChars(own):
		return "", "the own ID may hold letters, digits, '.', '_' and '-' only"
	}
	return own, ""
}

// IDForms returns the two spellings of the caller's ID id, bare and with
// the business ID (ProductIDForms), for finding what either names; id
// itself first, so that the spelling the client used wins where both
// exist.
func IDForms(businessID, id string) []string {
	if _, problem := OwnID(businessID, id); problem != "" {
		return []string{id}
	}
	forms := []string{id}
	for _, f := range ProductIDForms(businessID, id) {
		if f != id {
			forms = append(forms, f)
		}
	}
	return forms
}

func checkOwnID(p *Problems, field, id, businessID string) {
	if _, problem := OwnID(businessID, id); problem != "" {
		p.Add(field, "%s", problem)
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

// CheckRowCatalogs checks the rows of a validated request against where
// they come from (drop, DropshipRows' decision): a row of a dropshipping
// catalog names its supplier's product ID, which may carry the supplier's
// business ID; any other row names the caller's own product (decisions
// §34). An order may mix both (decisions §38).
func (r *OrderRequest) CheckRowCatalogs(businessID string, drop []bool) error {
	var p Problems
	for i, row := range r.Rows {
		// A row by an EAN no product has has no ID (ResolveRowProducts).
		if (i >= len(drop) || !drop[i]) && row.ExternalProductID != "" {
			checkOwnID(&p, fmt.Sprintf("rows[%d].externalProductId", i), row.ExternalProductID, businessID)
		}
	}
	return p.Err()
}
