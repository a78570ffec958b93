package parcelgate

import (
	"context"
	"slices"
	"time"
)

// TokenLifetime is how long an access token of either token service is
// valid (interface §5, interface §8).
const TokenLifetime = 3600 * time.Second

// CredentialKind tells the two token services apart. A token of one kind is
// never accepted by the API of the other (decisions §4).
type CredentialKind uint8

const (
	// KindGateway tokens come from POST /api/v1/token (client_id + secret) and
	// open the sending-code, shipment-data and errand-code APIs.
	KindGateway CredentialKind = 1
	// KindEcom tokens come from /auth/token (service account) and open the
	// warehouse order, product, stock and catalog APIs.
	KindEcom CredentialKind = 2
	// KindOperator is the operator: the admin token, or an operator signed
	// in to the console. It may do every Action in every tenant.
	KindOperator CredentialKind = 3
)

func (k CredentialKind) String() string {
	switch k {
	case KindGateway:
		return "gateway"
	case KindEcom:
		return "ecom"
	case KindOperator:
		return "operator"
	}
	return "unknown"
}

// Caller is who a request acts for, as carried inside an access token. Every
// read and write is kept to the caller's Scope.
type Caller struct {
	Subject     string // client_id of a gateway client, username of a service account
	OrgID       int64
	BusinessID  string
	Environment Environment
	Kind        CredentialKind
	Roles       []Role         // ecom tokens
	Versions    []VersionGrant // gateway tokens
	IssuedAt    time.Time
	ExpiresAt   time.Time
	// Scope is how far the caller reaches, decided once where the caller
	// is made (authentication, the operator API's parameters, the
	// console's session). Its zero value is the caller's own
	// organization, OrgID in Environment: every tenant's, and the
	// operator's on one organization (OperatorCaller).
	Scope Scope
	// unread is the problem of the request this caller makes, which May
	// answers once it has decided the caller may act (Unread).
	unread error
}

// A Scope is how far a caller reaches (decisions §3, §50): one
// organization, every organization of one environment, or every
// organization of every environment. It names kinds, not values: the
// environment and the organization are the caller's Environment and
// OrgID, and a scope wider than an organization leaves OrgID zero (and
// ScopeAll leaves Environment empty) without either meaning anything.
type Scope uint8

const (
	// ScopeOrganization is one organization of one environment: the
	// caller's OrgID in its Environment.
	ScopeOrganization Scope = iota
	// ScopeEnvironment is every organization of the caller's Environment
	// (EnvironmentOperator).
	ScopeEnvironment
	// ScopeAll is every organization of every environment (AllOperator).
	ScopeAll
)

func (s Scope) String() string {
	switch s {
	case ScopeOrganization:
		return "organization"
	case ScopeEnvironment:
		return "environment"
	case ScopeAll:
		return "all"
	}
	return "unknown"
}

// Covers reports whether the organization orgID of env is within c's
// scope (decisions §3, §50). Outside it an object answers as a missing
// one.
func (c *Caller) Covers(env Environment, orgID int64) bool {
	switch c.Scope {
	case ScopeAll:
		return true
	case ScopeEnvironment:
		return c.Environment == env
	case ScopeOrganization:
		return c.Environment == env && c.OrgID == orgID
	}
	return false
}

// Reaches reports whether c acts in env at all: in its own environment,
// or in every one (ScopeAll).
func (c *Caller) Reaches(env Environment) bool {
	return c.Scope == ScopeAll || c.Environment == env
}

// ScopeOf is the reach of a choice that names the organization orgID of
// env, where either may be left out (decisions §65): that organization,
// else every organization of env, else every environment. It is the one
// place an unnamed environment or organization is read as wider: the
// console's operator session, a fault that names no organization.
func ScopeOf(env Environment, orgID int64) Scope {
	switch {
	case orgID != 0:
		return ScopeOrganization
	case env != "":
		return ScopeEnvironment
	}
	return ScopeAll
}

// Organization returns the one organization c's scope is, OrgID in
// Environment (decisions §65); false when the scope is wider, or is an
// organization's that names none (a caller not yet of a tenant, which
// reaches nothing).
func (c *Caller) Organization() (int64, bool) {
	if c.Scope != ScopeOrganization {
		return 0, false
	}
	return c.OrgID, ScopeOf(c.Environment, c.OrgID) == ScopeOrganization
}

// ActsIn is the environment a write of c that names env acts in (a
// catalog's, decisions §65): env, or c's own when it names none; false
// when env is outside c's reach.
func (c *Caller) ActsIn(env Environment) (Environment, bool) {
	if env == "" {
		return c.Environment, true
	}
	return env, c.Reaches(env)
}

// OperatorCaller is the operator acting in org's tenant: the caller the
// operator API and the console hand a service that acts on one
// organization's data for the operator (or, on the workbench, for the
// warehouse).
func OperatorCaller(org *Organization) *Caller {
	return &Caller{Subject: "operator", OrgID: org.ID, BusinessID: org.BusinessID, Environment: org.Environment, Kind: KindOperator, Scope: ScopeOrganization}
}

// EnvironmentOperator is the operator acting on every organization of
// env: the caller of the operator's environment-wide actions (moving the
// clock, an environment's reset, its lists of organizations, credentials
// and faults).
func EnvironmentOperator(env Environment) *Caller {
	return &Caller{Subject: "operator", Environment: env, Kind: KindOperator, Scope: ScopeEnvironment}
}

// AllOperator is the operator acting on every organization of every
// environment: the journal and the faults of the whole server, and the
// token keys, which seal both environments' tokens.
func AllOperator() *Caller {
	return &Caller{Subject: "operator", Kind: KindOperator, Scope: ScopeAll}
}

// OperatorOver is the operator of env, or of every environment when env
// is empty: the caller of an operator request whose environment
// parameter is optional (the journal, the faults), decided where the
// parameter is read.
func OperatorOver(env Environment) *Caller {
	if env == "" {
		return AllOperator()
	}
	return EnvironmentOperator(env)
}

// HasRole reports whether the caller holds role r.
func (c *Caller) HasRole(r Role) bool { return slices.Contains(c.Roles, r) }

// VersionGrant allows a gateway client one API version at a tier (interface §5.1:
// provider_fi.targets).
type VersionGrant struct {
	Version string `json:"version"`
	Tier    int    `json:"tier"`
}

// AllowsVersion reports whether a gateway token may call version v.
func (c *Caller) AllowsVersion(v string) bool {
	return slices.ContainsFunc(c.Versions, func(g VersionGrant) bool { return g.Version == v })
}

type callerKey struct{}

// NewContext returns ctx carrying the caller.
func NewContext(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries (NewContext), or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// A JournalSubject records the caller a request is journaled under.
type JournalSubject interface{ JournalAs(*Caller) }

type journalSubjectKey struct{}

// WithJournalSubject returns ctx carrying j, what records the caller the
// request is journaled under: the server's middleware adds it to every
// journaled request. Requests without a token (the token services, the
// console's sign-in) name their caller through JournalUnder once they know
// whose credentials the request named.
func WithJournalSubject(ctx context.Context, j JournalSubject) context.Context {
	return context.WithValue(ctx, journalSubjectKey{}, j)
}

// JournalUnder records c as the caller ctx's request is journaled under;
// nothing when the request is not journaled or c is nil (credentials that
// name no one are journaled nowhere a tenant can see).
func JournalUnder(ctx context.Context, c *Caller) {
	if j, _ := ctx.Value(journalSubjectKey{}).(JournalSubject); j != nil && c != nil {
		j.JournalAs(c)
	}
}

// Clock is the one source of time of the server, per environment. Token
// expiry, lockouts, EOS visibility, code retention and order timing all read
// it with the environment they act in, so a sandbox can move one
// environment's time forward (POST /admin/v1/clock) and leave the other's.
type Clock interface {
	Now(env Environment) time.Time
}
