package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// authFailure is a refused token: the status, the gateway errorCode and the
// RFC 6750 error for WWW-Authenticate.
type authFailure struct {
	status     int
	code       string
	oauthCode  string
	message    string
	retryAfter string
}

// authenticate opens the request's bearer token and checks it is of kind.
// A token sealed with a key this instance does not know yet (a rotation on
// another instance) makes it reload the keys, at most once a second.
func (s *Server) authenticate(r *http.Request, kind parcelgate.CredentialKind) (*parcelgate.Caller, *authFailure) {
	tok, ok := bearer(r)
	if !ok {
		return nil, &authFailure{http.StatusUnauthorized, "UNAUTHORIZED", "", "An access token is required: Authorization: Bearer <token>.", ""}
	}
	// Each environment has its own clock, and the token names its
	// environment: it is opened without the expiry check, which follows
	// with that environment's time.
	c, err := s.keys.Open(tok, time.Time{})
	if errors.Is(err, auth.ErrUnknownKey) && time.Since(time.Unix(0, s.lastKeyReload.Load())) > time.Second {
		if s.ReloadKeys(r.Context()) == nil {
			c, err = s.keys.Open(tok, time.Time{})
		}
	}
	if err == nil && !s.clock.Now(c.Environment).Before(c.ExpiresAt) {
		err = auth.ErrExpiredToken
	}
	switch {
	case errors.Is(err, auth.ErrExpiredToken):
		return nil, &authFailure{http.StatusUnauthorized, "EXPIRED", "invalid_token", "The access token has expired; request a new one.", ""}
	case err != nil:
		return nil, &authFailure{http.StatusUnauthorized, "INVALID_TOKEN", "invalid_token", "The access token is not valid.", ""}
	case c.Kind != kind:
		where := "POST /api/v1/token"
		if kind == parcelgate.KindEcom {
			where = "GET /auth/token"
		}
		return nil, &authFailure{http.StatusUnauthorized, "INVALID_TOKEN", "invalid_token", fmt.Sprintf("This is a %s token; this API takes tokens from %s.", c.Kind, where), ""}
	}
	if jr := journalFrom(r); jr != nil {
		jr.caller = c
	}
	if s.limit != nil {
		if ok, wait := s.limit.allow(c.Kind.String()+"/"+c.Subject, time.Now()); !ok {
			return nil, &authFailure{status: http.StatusTooManyRequests, code: "TOO_MANY_REQUESTS", retryAfter: retryAfter(wait),
				message: fmt.Sprintf("Too many requests for this credential; the limit is %g a second. Retry after %s s.", float64(s.limit.perSecond), retryAfter(wait))}
		}
	}
	if fail := s.injectFault(r, c); fail != nil {
		return nil, fail
	}
	return c, nil
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, sf surface, f *authFailure) {
	if f.retryAfter != "" {
		w.Header().Set("Retry-After", f.retryAfter)
	}
	if f.status == http.StatusUnauthorized {
		v := `Bearer realm="parcelgate"`
		if f.oauthCode != "" {
			v += fmt.Sprintf(`, error=%q, error_description=%q`, f.oauthCode, f.message)
		}
		w.Header().Set("WWW-Authenticate", v)
	}
	s.writeErrorBody(w, r, sf, f.status, f.code, f.message, nil)
}

// gateway wraps a handler of the versioned gateway (sending codes, shipment
// data): the {version} path segment must be a version this server serves
// (404 naming them) and one the token's targets include (403), and the
// token must be a gateway token.
func (s *Server) gateway(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.PathValue("version")
		if !s.supportedVersion(v) {
			s.writeErrorBody(w, r, gatewaySurface, http.StatusNotFound, "", fmt.Sprintf("API version %q is not served; supported versions: %s.", v, strings.Join(s.cfg.Versions, ", ")), nil)
			return
		}
		c, fail := s.authenticate(r, parcelgate.KindGateway)
		if fail != nil {
			s.refuse(w, r, gatewaySurface, fail)
			return
		}
		if !c.AllowsVersion(v) {
			s.writeErrorBody(w, r, gatewaySurface, http.StatusForbidden, "", fmt.Sprintf("This client may not use API version %s; its token lists: %s.", v, versionList(c)), nil)
			return
		}
		s.serve(w, withCaller(r, c), gatewaySurface, h)
	})
}

func versionList(c *parcelgate.Caller) string {
	var vs []string
	for _, g := range c.Versions {
		vs = append(vs, g.Version)
	}
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}

// errand wraps a handler of the errand-code API. Its path segment selects
// the environment (decisions §3): parcel serves production, parcel-uat test; a
// token of the other environment is told which path to use.
func (s *Server) errand(env parcelgate.Environment, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, fail := s.authenticate(r, parcelgate.KindGateway)
		if fail != nil {
			s.refuse(w, r, gatewaySurface, fail)
			return
		}
		if c.Environment != env {
			seg := "/parcel/v1/"
			if c.Environment == parcelgate.Test {
				seg = "/parcel-uat/v1/"
			}
			s.writeErrorBody(w, r, gatewaySurface, http.StatusForbidden, "", fmt.Sprintf("This token belongs to the %s environment; use %s.", c.Environment, seg), nil)
			return
		}
		s.serve(w, withCaller(r, c), gatewaySurface, h)
	})
}

// ecomService wraps a handler of the ecom API whose service decides who
// may act (decisions §50): an ecom token, and the service's EFORBIDDEN,
// answered as any error of the handler is, is the refusal. It serves the
// routes whose handler asks nothing of the request before the service:
// the refusal comes at the same point, in the same words, as ecom's.
func (s *Server) ecomService(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, fail := s.authenticate(r, parcelgate.KindEcom)
		if fail != nil {
			s.refuse(w, r, ecomSurface, fail)
			return
		}
		s.serve(w, withCaller(r, c), ecomSurface, h)
	})
}

// asker asks a route's service, with c and no input, who may act: c is
// marked by Caller.Unread, so the service answers at its first May
// (EFORBIDDEN, or the mark's error) and does nothing else.
type asker func(ctx context.Context, c *parcelgate.Caller) error

// ecomReading wraps a handler of the ecom API that reads its input (a
// body, a query, a path) before its service (decisions §57). The service
// decides who may act, before the input: when the handler fails, its
// error is handed to the route's service through ask, and the service's
// answer is the route's, so a caller that may not act is refused in the
// service's words whatever it sent (as the early check refused it), and
// one that may gets the handler's error. An error the service itself
// answered comes back unchanged: the service asked May first.
func (s *Server) ecomReading(ask asker, h handlerFunc) http.Handler {
	return s.ecomService(func(w http.ResponseWriter, r *http.Request) error {
		err := h(w, r)
		if err == nil {
			return nil
		}
		if decided := ask(r.Context(), caller(r).Unread(err)); decided != nil {
			return decided
		}
		return err
	})
}

// errAsked marks a caller whose handler has nothing for the service to do
// (mayAct).
var errAsked = errors.New("httpapi: asked who may act")

// mayAct is the service's decision of who may act, where the handler
// reads its input well but has nothing for the service to write (every
// entry of a batch failed its reading): nil when c may act.
func mayAct(ctx context.Context, c *parcelgate.Caller, ask asker) error {
	if err := ask(ctx, c.Unread(errAsked)); err != errAsked {
		return err
	}
	return nil
}

// ecom wraps a handler of the ecom API that no tenant's service answers
// (the delivery services and the pick-up point network take no caller):
// an ecom token whose caller May do action, the root's one table of who
// may act, asked before the handler runs (decisions §57).
func (s *Server) ecom(action parcelgate.Action, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, fail := s.authenticate(r, parcelgate.KindEcom)
		if fail != nil {
			s.refuse(w, r, ecomSurface, fail)
			return
		}
		if err := c.May(action); err != nil {
			s.writeErrorBody(w, r, ecomSurface, http.StatusForbidden, "", parcelgate.ErrorMessage(err), nil)
			return
		}
		s.serve(w, withCaller(r, c), ecomSurface, h)
	})
}

// admin wraps an operator API handler: the admin bearer token.
func (s *Server) admin(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := bearer(r)
		ok, wait := s.guard.Verify(r, "api", tok)
		if wait > 0 {
			// decisions §21: too many wrong tokens from this address.
			w.Header().Set("Retry-After", retryAfter(wait))
			s.writeErrorBody(w, r, ecomSurface, http.StatusTooManyRequests, "",
				"Too many wrong admin tokens from this address; try again in "+retryAfter(wait)+" seconds.", nil)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="parcelgate-admin"`)
			s.writeErrorBody(w, r, ecomSurface, http.StatusUnauthorized, "", "The operator API needs the admin token: Authorization: Bearer <admin token>.", nil)
			return
		}
		s.serve(w, r, ecomSurface, h)
	})
}

// serve runs h and answers its error in the surface's shape.
//
// A tenant whose data an operator job is resetting or restoring in batches
// (decisions §54) is answered 503 with Retry-After, reads and writes
// alike: it would see, or write into, a state that is neither the old nor
// the new one.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, sf surface, h handlerFunc) {
	if c := caller(r); c != nil && s.controls != nil {
		if orgID, one := c.Organization(); one && s.controls.TenantBusy(r.Context(), c.Environment, orgID) {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterBusy))
			s.writeError(w, r, sf, errTenantBusy)
			return
		}
	}
	if err := h(w, r); err != nil {
		s.writeError(w, r, sf, err)
	}
}

// withCaller returns r acting for c: its context carries c
// (parcelgate.NewContext), the one place CallerFrom reads it.
func withCaller(r *http.Request, c *parcelgate.Caller) *http.Request {
	return r.WithContext(parcelgate.NewContext(r.Context(), c))
}

// caller returns the authenticated caller of a wrapped handler.
func caller(r *http.Request) *parcelgate.Caller { return parcelgate.CallerFrom(r.Context()) }

// errTenantBusy answers a tenant's call while an operator job resets or
// restores its data.
var errTenantBusy = parcelgate.Errorf(parcelgate.EUNAVAILABLE, "The operator is resetting or restoring this organization's data; try again when it is done.")

// retryAfterBusy is the Retry-After of errTenantBusy, in seconds.
const retryAfterBusy = 5
