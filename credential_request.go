package parcelgate

import "slices"

// GatewayClientRequest asks for a new gateway client (decisions §9): one
// organization's, granted Versions. Both the operator API and the console
// create gateway clients from it, through auth.CreateGatewayClient.
type GatewayClientRequest struct {
	// Environment is the environment's name as given; empty is
	// production.
	Environment string
	BusinessID  string
	// Versions are the grants; nil grants every served version at tier 1.
	Versions []VersionGrant
}

// Validate checks r against the versions the server serves (decisions
// §2) and returns the client it asks for, without credentials: the
// environment, the business ID, at least one version, each served, none
// twice, tiers 0-1000. Problems name the fields "environment",
// "businessId" and "versions" (with the grant's index).
func (r *GatewayClientRequest) Validate(served []string) (*GatewayClient, error) {
	var p Problems
	env := EnvironmentField(&p, r.Environment)
	if r.BusinessID == "" {
		p.Add("businessId", "is required")
	}
	versions := r.Versions
	if versions == nil {
		for _, v := range served {
			versions = append(versions, VersionGrant{Version: v, Tier: 1})
		}
	}
	if len(versions) == 0 {
		p.Add("versions", "must name at least one version")
	}
	var seen []string
	for i, g := range versions {
		switch {
		case !slices.Contains(served, g.Version):
			p.AddAt(i, "versions", "version %q is not served; supported: %v", g.Version, served)
		case slices.Contains(seen, g.Version):
			p.AddAt(i, "versions", "version %s is listed twice", g.Version)
		case g.Tier < 0 || g.Tier > 1000:
			p.AddAt(i, "versions", "tier must be 0-1000")
		}
		seen = append(seen, g.Version)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return &GatewayClient{Environment: env, BusinessID: r.BusinessID, Versions: versions}, nil
}

// ServiceAccountRequest asks for a new service account (decisions §9).
// Both the operator API and the console create service accounts from it,
// through auth.CreateServiceAccount.
type ServiceAccountRequest struct {
	// Environment is the environment's name as given; empty is
	// production.
	Environment string
	BusinessID  string
	Username    string
	// Password is the one chosen, or empty to have one generated.
	Password string
	Roles    []string
}

// Validate checks r and returns the account it asks for, without its
// password: the environment, the business ID, the username
// (ValidateUsername), a chosen password of 12-128 characters, the roles
// (NormalizeRoles). Problems name the fields "environment", "businessId",
// "username", "password" and "roles".
func (r *ServiceAccountRequest) Validate() (*ServiceAccount, error) {
	var p Problems
	env := EnvironmentField(&p, r.Environment)
	if r.BusinessID == "" {
		p.Add("businessId", "is required")
	}
	if err := ValidateUsername(r.Username); err != nil {
		p.Add("username", "%s", ErrorMessage(err))
	}
	if r.Password != "" && (len(r.Password) < 12 || len(r.Password) > 128) {
		p.Add("password", "must be 12-128 characters (or left out to have one generated)")
	}
	roles, err := NormalizeRoles(r.Roles)
	if err != nil {
		p.Add("roles", "%s", ErrorMessage(err))
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return &ServiceAccount{Username: r.Username, Environment: env, BusinessID: r.BusinessID, Roles: roles}, nil
}

// EnvironmentField reads the environment field of an operator request
// (empty is production), recording a problem naming the field
// "environment" when it names none. Every operator request reads it so.
func EnvironmentField(p *Problems, s string) Environment {
	env, err := ParseEnvironment(s)
	if err != nil {
		p.Add("environment", "must be production or test, not %q", s)
	}
	return env
}
