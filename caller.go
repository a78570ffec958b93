package parcelgate

import (
	"context"
	"slices"
	"time"
)

// TokenLifetime is how long an access token of either token service is
// valid (spec 5, spec 8).
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
// read and write is scoped to Caller's OrgID and Environment.
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
}

// HasRole reports whether the caller holds role r.
func (c *Caller) HasRole(r Role) bool { return slices.Contains(c.Roles, r) }

// VersionGrant allows a gateway client one API version at a tier (spec 5.1:
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

// CallerFrom returns the caller carried by ctx, or nil: the nearest of a
// caller NewContext added and the caller named in the request's values
// (RequestValues.SetCaller).
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// RequestValues is what a request's context carries for this package's
// helpers, filled in while the request is served. The server's middleware
// adds it to the context of every request once (WithRequestValues), and
// naming the caller in it (SetCaller) then takes the place of deriving a
// context, and a request, for the caller: one context value per request
// instead of one per value. A request's values are written by the
// goroutine serving the request, before the handler that reads them runs.
type RequestValues struct {
	caller  *Caller
	journal JournalSubject
}

// A JournalSubject records the caller a request is journaled under.
type JournalSubject interface{ JournalAs(*Caller) }

type requestValuesKey struct{}

// requestContext is a context carrying a request's values: to CallerFrom
// it is the context NewContext would make once SetCaller has named the
// caller, and as the context before it until then.
type requestContext struct {
	context.Context
	v *RequestValues
}

func (c *requestContext) Value(key any) any {
	switch key.(type) {
	case callerKey:
		if c.v.caller != nil {
			return c.v.caller
		}
	case requestValuesKey:
		return c.v
	}
	return c.Context.Value(key)
}

// WithRequestValues returns ctx carrying v.
func WithRequestValues(ctx context.Context, v *RequestValues) context.Context {
	return &requestContext{ctx, v}
}

// RequestValuesFrom returns the request's values ctx carries, or nil.
func RequestValuesFrom(ctx context.Context) *RequestValues {
	v, _ := ctx.Value(requestValuesKey{}).(*RequestValues)
	return v
}

// SetCaller names the request's caller: CallerFrom of its context returns
// c from now on (a caller NewContext adds later is nearer).
func (v *RequestValues) SetCaller(c *Caller) { v.caller = c }

// SetJournalSubject names what records the caller the request is
// journaled under: the server's middleware sets it for every journaled
// request; requests without a token (the token services, the console's
// sign-in) name their caller through JournalUnder once they know whose
// credentials the request named.
func (v *RequestValues) SetJournalSubject(j JournalSubject) { v.journal = j }

// JournalUnder records c as the caller ctx's request is journaled under;
// nothing when the request is not journaled or c is nil (credentials that
// name no one are journaled nowhere a tenant can see).
func JournalUnder(ctx context.Context, c *Caller) {
	if v := RequestValuesFrom(ctx); v != nil && v.journal != nil && c != nil {
		v.journal.JournalAs(c)
	}
}

// Clock is the one source of time of the server, per environment. Token
// expiry, lockouts, EOS visibility, code retention and order timing all read
// it with the environment they act in, so a sandbox can move one
// environment's time forward (POST /admin/v1/clock) and leave the other's.
type Clock interface {
	Now(env Environment) time.Time
}
