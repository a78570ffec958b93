package parcelgate

import (
	"net/mail"
	"regexp"
	"strings"
)

// Address is the address object of interface §2.3: the delivery address of an
// order, its vendor and sender, and the parties of a shipment.
type Address struct {
	ExternalID    string `json:"externalId,omitempty"` // a business ID; vendor and sender only
	Name          string `json:"name,omitempty"`
	StreetAddress string `json:"streetAddress,omitempty"`
	PostalCode    string `json:"postalCode,omitempty"`
	PostOffice    string `json:"postOffice,omitempty"`
	Country       string `json:"country,omitempty"` // ISO 3166-1 alpha-2
	Telephone     string `json:"telephone,omitempty"`
	Email         string `json:"email,omitempty"`
}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// maxAddressField bounds every address string; no carrier label holds more.
const maxAddressField = 200

// Validate trims a, upper-cases its country and records problems under the
// field name prefix. With requireName, name is mandatory.
func (a *Address) Validate(p *Problems, prefix string, requireName bool) {
	for _, f := range []*string{&a.ExternalID, &a.Name, &a.StreetAddress, &a.PostalCode, &a.PostOffice, &a.Country, &a.Telephone, &a.Email} {
		*f = strings.TrimSpace(*f)
	}
	a.Country = strings.ToUpper(a.Country)
	if requireName && a.Name == "" {
		p.Add(prefix+".name", "is required")
	}
	for _, f := range []struct{ name, v string }{{"externalId", a.ExternalID}, {"name", a.Name}, {"streetAddress", a.StreetAddress}, {"postalCode", a.PostalCode}, {"postOffice", a.PostOffice}, {"telephone", a.Telephone}, {"email", a.Email}} {
		if len(f.v) > maxAddressField {
			p.Add(prefix+"."+f.name, "must be at most %d characters", maxAddressField)
		}
	}
	if a.Country != "" && !countryCode.MatchString(a.Country) {
		p.Add(prefix+".country", "must be a two-letter country code, not %q", a.Country)
	}
	if a.Email != "" {
		if addr, err := mail.ParseAddress(a.Email); err != nil || addr.Address != a.Email {
			p.Add(prefix+".email", "%q is not an e-mail address", a.Email)
		}
	}
}
