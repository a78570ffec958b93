package parcelgate

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// Organization is a business, identified by its business ID, inside one
// environment (decisions §3). The same business ID may exist in both
// environments as two unrelated organizations.
type Organization struct {
	ID             int64       `json:"-"`
	Environment    Environment `json:"environment"`
	BusinessID     string      `json:"businessId"`
	Name           string      `json:"name"`
	ContractNumber string      `json:"contractNumber,omitempty"`
	// Address is the organization's profile address; warehouse orders use
	// it as vendor and sender when the request gives none (decisions §7).
	Address   *Address  `json:"address,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// Validate normalizes o and reports every problem with it.
func (o *Organization) Validate() error {
	var p Problems
	if !o.Environment.Valid() {
		p.Add("environment", "must be production or test")
	}
	id, err := NormalizeBusinessID(o.BusinessID)
	if err != nil {
		p.Add("businessId", "%s", ErrorMessage(err))
	}
	o.BusinessID = id
	o.Name = strings.TrimSpace(o.Name)
	switch {
	case o.Name == "":
		p.Add("name", "is required")
	case len(o.Name) > 200:
		p.Add("name", "must be at most 200 characters")
	}
	if len(o.ContractNumber) > 64 {
		p.Add("contractNumber", "must be at most 64 characters")
	}
	if o.Address != nil {
		o.Address.Validate(&p, "address", false)
	}
	return p.Err()
}

// OrganizationService manages organizations. Creating, finding and
// listing them are the operator's (ActionOperate), within the caller's
// scope: an EnvironmentOperator sees the organizations of its environment
// only (every environment for AllOperator()), an OperatorCaller
// its own organization only (decisions §3, decisions §4).
type OrganizationService interface {
	// CreateOrganization stores o; ECONFLICT when its business ID already
	// exists in its environment. Only a caller that may ActionOperate in
	// o's environment.
	CreateOrganization(ctx context.Context, c *Caller, o *Organization) error
	// FindOrganization returns the organization of c's environment with
	// businessID, or ENOTFOUND (also for one outside c's scope). Only a
	// caller that may ActionOperate.
	FindOrganization(ctx context.Context, c *Caller, businessID string) (*Organization, error)
	// ListOrganizations pages the organizations in c's scope: by business
	// ID, the whole list in one page for a zero p; one environment's
	// (c of ScopeEnvironment) p.Size at a time after the business ID
	// p.After, Next the page's last business ID when more follow (the
	// operator API's pages); newest first, paged by key both ways, when q.NewestFirst
	// (the console's list: Next the older, Prev the newer). Only a caller
	// that may ActionOperate.
	ListOrganizations(ctx context.Context, c *Caller, q OrganizationQuery, p PageRequest) (Page[*Organization], error)
	// OrganizationByID returns the organization with the store's internal
	// id (a caller's OrgID), or ENOTFOUND. It takes no caller: it is the
	// server's own machinery, reading the organization a token or console
	// session already names (its profile), so it never reaches past the
	// tenant the session was resolved to.
	OrganizationByID(ctx context.Context, id int64) (*Organization, error)
	// HasOrganizations reports whether any environment has an
	// organization. It takes no caller: it runs at start-up, before there
	// is one (the demo seeds only an empty database).
	HasOrganizations(ctx context.Context) (bool, error)
}

var (
	finnishBusinessID = regexp.MustCompile(`^[0-9]{7}-[0-9]$`)
	foreignBusinessID = regexp.MustCompile(`^[A-Z]{2}[A-Z0-9-]{0,18}$`)
)

// NormalizeBusinessID trims and upper-cases a business ID and checks it
// (decisions §3): a Finnish ID NNNNNNN-C must carry the right mod-11 check
// digit; any other must be 2-20 characters of A-Z, 0-9 and '-' starting with
// a two-letter country prefix.
func NormalizeBusinessID(s string) (string, error) {
	id := strings.ToUpper(strings.TrimSpace(s))
	switch {
	case id == "":
		return id, Errorf(EINVALID, "is required")
	case finnishBusinessID.MatchString(id):
		if !finnishCheckDigitOK(id) {
			return id, Errorf(EINVALID, "%q has a wrong check digit", id)
		}
		return id, nil
	case foreignBusinessID.MatchString(id):
		return id, nil
	}
	return id, Errorf(EINVALID, "%q is neither a Finnish business ID (1234567-8) nor 2-20 characters of A-Z, 0-9 and '-' starting with a country code", id)
}

// finnishCheckDigitOK applies the Finnish business ID (Y-tunnus) rule: the
// seven digits weighted 7,9,10,5,8,4,2, summed, mod 11; remainder 0 gives
// check digit 0, remainder 1 is never issued, else 11 minus the remainder.
func finnishCheckDigitOK(id string) bool {
	weights := [7]int{7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i, w := range weights {
		sum += int(id[i]-'0') * w
	}
	want := 0
	switch r := sum % 11; r {
	case 0:
	case 1:
		return false
	default:
		want = 11 - r
	}
	return int(id[8]-'0') == want
}

// OrganizationQuery orders an organization listing. The zero query is the
// operator API's: by business ID.
type OrganizationQuery struct {
	// NewestFirst lists the newest organizations first, paged by key
	// both ways (the console's overview, decisions §47).
	NewestFirst bool
}
