package parcelgate

import (
	"context"
	"regexp"
	"slices"
	"time"
)

// DefaultVersions are the gateway API versions a deployment supports and a
// new gateway client is granted when the operator names none (decisions §2).
var DefaultVersions = []string{"2025-04", "2026-04"}

var versionPattern = regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`)

// ValidVersion reports whether v has the yyyy-mm form of interface §9 rule 1.
func ValidVersion(v string) bool { return versionPattern.MatchString(v) }

// GatewayClient is a credential of the gateway token service (interface §5.1): a
// client_id and a secret that is shown once and stored only as a hash.
type GatewayClient struct {
	ClientID     string         `json:"clientId"`
	ClientSecret string         `json:"clientSecret,omitempty"` // only in the answer that created it
	Environment  Environment    `json:"environment"`
	BusinessID   string         `json:"businessId"`
	OrgID        int64          `json:"-"`
	Versions     []VersionGrant `json:"versions"`
	CreatedAt    time.Time      `json:"createdAt"`
}

// ServiceAccount is a credential of the ecom token service (interface §5.2): a
// username and a password stored with a slow hash, with roles.
type ServiceAccount struct {
	Username    string      `json:"username"`
	Password    string      `json:"password,omitempty"` // only in the answer that created it
	Environment Environment `json:"environment"`
	BusinessID  string      `json:"businessId"`
	OrgID       int64       `json:"-"`
	Roles       []Role      `json:"roles"`
	LockedUntil *time.Time  `json:"lockedUntil,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
}

var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9._@-]{3,64}$`)

// ValidateUsername checks a service account's username: 3-64 characters of
// letters, digits and . _ @ -. Usernames are unique across the deployment,
// because GET /auth/token carries nothing else that would say which
// environment a login is for.
func ValidateUsername(u string) error {
	if !usernamePattern.MatchString(u) {
		return Errorf(EINVALID, "must be 3-64 characters of letters, digits and . _ @ -")
	}
	return nil
}

// Login lockout (interface §5.2 rule 5, interface §8): after MaxFailedLogins consecutive
// invalid logins the account is locked for LockoutDuration, during which even
// the right password is refused. A successful login resets the count.
const (
	MaxFailedLogins = 5
	LockoutDuration = time.Hour
)

// LoginState is what is kept of a service account's recent logins.
type LoginState struct {
	// Failures counts the invalid logins since the last success or lock.
	Failures int
	// LockedUntil is when the last lock ends (or ended); zero when the
	// account was never locked or has been reset since.
	LockedUntil time.Time
}

// LoginDecision is the outcome of one login attempt: whether a token is
// issued, and the state to keep afterwards.
type LoginDecision struct {
	Accept bool
	Next   LoginState
}

// Locked reports whether s refuses every login at now.
func (s LoginState) Locked(now time.Time) bool { return now.Before(s.LockedUntil) }

// DecideLogin applies the lockout rule of interface §5.2 rule 5 (and interface §8) to a
// login attempt whose password was passwordOK, at now, on an account in
// state s:
//
//   - While locked, every attempt is refused, the right password too, and
//     nothing changes: failures during a lock neither count nor extend it.
//   - The right password outside a lock is accepted and resets the state.
//   - A wrong password outside a lock counts one failure; the first failure
//     after a lock has run out starts a new count. The MaxFailedLogins-th
//     consecutive failure locks the account for LockoutDuration from now.
//
// The store applies Next atomically against the state it loaded, so that
// concurrent attempts on any number of instances are each counted.
func DecideLogin(s LoginState, passwordOK bool, now time.Time) LoginDecision {
	switch {
	case s.Locked(now):
		return LoginDecision{Accept: false, Next: s}
	case passwordOK:
		return LoginDecision{Accept: true, Next: LoginState{}}
	}
	failures := s.Failures + 1
	if !s.LockedUntil.IsZero() {
		failures = 1
	}
	next := LoginState{Failures: failures}
	if failures >= MaxFailedLogins {
		next.LockedUntil = now.Add(LockoutDuration)
	}
	return LoginDecision{Accept: false, Next: next}
}

// CredentialService manages the credentials of both token services and
// checks them when a token is asked for. Creating, listing, revoking and
// unlocking are the operator's (ActionOperate), within the caller's scope:
// an EnvironmentOperator acts on the credentials of its environment's
// organizations only (every environment for AllOperator()), an
// OperatorCaller on its own organization's only; one outside the scope is
// ENOTFOUND, as a missing one (decisions §4). Authenticating and naming a
// credential's owner are the server's own machinery and take no caller.
type CredentialService interface {
	// CreateGatewayClient stores gc with the hash of its secret. Only a
	// caller that may ActionOperate on gc's organization.
	CreateGatewayClient(ctx context.Context, c *Caller, gc *GatewayClient, secretHash string) error
	// AuthenticateGatewayClient returns the client when secret is its own;
	// EUNAUTHORIZED otherwise, the same for an unknown client_id. It runs
	// before there is a caller: it is how a token request becomes one.
	AuthenticateGatewayClient(ctx context.Context, clientID, secret string) (*GatewayClient, error)
	// ListGatewayClients pages the gateway clients in c's scope that are
	// not revoked, by business ID and client ID; the page's key is the
	// client ID. p.Size 0 is the whole list in one page; a caller of one
	// organization may page it; one environment's (c of
	// ScopeEnvironment) pages by client ID alone, p.Size after p.After,
	// Next the page's last client ID while more follow (the operator
	// API's pages, decisions §58). Only a caller that may ActionOperate.
	ListGatewayClients(ctx context.Context, c *Caller, p PageRequest) (Page[*GatewayClient], error)
	// RevokeGatewayClient stops clientID from getting new tokens. Only a
	// caller that may ActionOperate on the client's organization.
	RevokeGatewayClient(ctx context.Context, c *Caller, clientID string) error

	// CreateServiceAccount stores a with the hash of its password; ECONFLICT
	// when the username is taken in any environment. Only a caller that
	// may ActionOperate on a's organization.
	CreateServiceAccount(ctx context.Context, c *Caller, a *ServiceAccount, passwordHash string) error
	// AuthenticateServiceAccount applies the lockout rule atomically in the
	// store, so that it holds across restarts and instances. Wrong password,
	// unknown user and locked account are one EUNAUTHORIZED. It runs before
	// there is a caller: it is how a login becomes one.
	AuthenticateServiceAccount(ctx context.Context, username, password string) (*ServiceAccount, error)
	// ListServiceAccounts pages the service accounts in c's scope that are
	// not revoked, by username, with their lockout state; the page's key
	// is the username. p.Size 0 is the whole list in one page; a caller of
	// one organization may page it, and so may the operator of one
	// environment (the operator API's pages, decisions §58: p.Size after
	// p.After, Next the page's last username while more follow). Only a
	// caller that may ActionOperate.
	ListServiceAccounts(ctx context.Context, c *Caller, p PageRequest) (Page[*ServiceAccount], error)
	// RevokeServiceAccount stops username from logging in. Only a caller
	// that may ActionOperate on the account's organization.
	RevokeServiceAccount(ctx context.Context, c *Caller, username string) error
	// UnlockServiceAccount clears a lockout and the failure count. Only a
	// caller that may ActionOperate on the account's organization.
	UnlockServiceAccount(ctx context.Context, c *Caller, username string) error
	// CredentialOwner returns who a gateway client ID (KindGateway) or a
	// service account username (KindEcom) names, revoked ones included, as
	// a Caller without roles or versions: the organization a token request
	// naming it is journaled under, whether it succeeds or not. ENOTFOUND
	// when nothing has that name. It runs before there is a caller: it
	// resolves a token request's credential into one.
	CredentialOwner(ctx context.Context, kind CredentialKind, name string) (*Caller, error)
}

// NormalizeRoles checks roles and returns them sorted without duplicates.
func NormalizeRoles(in []string) ([]Role, error) {
	if len(in) == 0 {
		return nil, Errorf(EINVALID, "at least one role is required (merchant, supplier, retailer)")
	}
	var out []Role
	for _, s := range in {
		r, err := ParseRole(s)
		if err != nil {
			return nil, Errorf(EINVALID, "%s", err.Error())
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}
