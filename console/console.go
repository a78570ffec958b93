// Package console is parcelgate's web console, served by the same binary
// at /console: server-rendered HTML (html/template) with its templates,
// stylesheet and a little plain JavaScript embedded, nothing loaded from
// another host.
//
// Who signs in, and what they see:
//   - Operators sign in with the admin token and see every environment and
//     organization; they pick the tenant they look at.
//   - Integrators sign in with a service account (username and password,
//     checked by the same store call and lockout as GET /auth/token) and see
//     their own organization in that account's environment, with what its
//     roles allow.
//
// The console reaches the store only through the root's interfaces (Store
// below), never sqlstore: every read is scoped to the tenant's organization
// and environment, and every action calls the same services and rules as
// the API (CancelOrder, SetOrderStatus with ParseOrderMove,
// auth.CreateGatewayClient and auth.CreateServiceAccount, ErrorStatus for
// an error's page, ConsoleProductScope for which products a caller sees):
// the console implements no rule of its own. Its workbench (workbench.go)
// creates orders and products, sets stock and moves test orders through
// the same calls (OrderRequest.Validate and CreateOrder,
// InventoryInput.Validate and PutInventory, ParseStockCount and
// PutBalances), where DecideWorkbench allows. Another tenant's object is a
// 404 page, exactly like a missing one.
//
// Sessions live in the database (views.Session), so instances
// behind a load balancer share them and signing out ends them everywhere.
// The cookie holds a random value whose hash is the session's key; it is
// HttpOnly, SameSite=Lax, Secure when the console is reached over TLS, and
// expires with the session. Every state-changing request passes the
// standard library's cross-origin protection.
package console

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	views "github.com/parcelgate/parcelgate/console/view"
	"github.com/parcelgate/parcelgate/internal/adminguard"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Prefix is the path the console is served under.
const Prefix = "/console"

const cookieName = "parcelgate_console"

// Config holds the settings of a Console.
type Config struct {
	// AdminToken signs operators in; empty means no operator sign-in.
	AdminToken string
	// AdminGuard checks the admin token and throttles guessing it
	// (decisions §21); the server's (httpapi.Server.AdminGuard), so the
	// operator API and the sign-in count one address's failures together.
	// Nil: a guard of the console's own over AdminToken.
	AdminGuard *adminguard.Guard
	// Clock is the server's clock, shown on the overview.
	Clock parcelgate.Clock
	// OffsetClock is the server's clock when environments' clocks may be
	// moved: the operator may then advance the test environment's from the
	// overview, and production's under Sandbox.
	OffsetClock *parcelgate.OffsetClock
	// Sandbox is set when the server runs with --sandbox (decisions §21):
	// production's data is disposable too, so its reset, restore, faults
	// and clock are offered. Without it only the test environment's are.
	Sandbox bool
	// SessionNow times sessions. It is the wall clock (time.Now) unless a
	// test sets it: advancing the environment clock by two weeks must not sign
	// out the operator who did it.
	SessionNow func() time.Time
	// SessionLifetime is how long a session lives at most (default 12 h);
	// IdleTimeout ends one unused for that long (default 2 h).
	SessionLifetime time.Duration
	IdleTimeout     time.Duration
	// ManualFulfillment is set under --fulfillment manual: the warehouse
	// moves orders only when an operator says so, and the order page offers
	// the moves. SubmitAfter and DeliverAfter describe the auto engine.
	ManualFulfillment bool
	SubmitAfter       time.Duration
	DeliverAfter      time.Duration
	// Versions are the gateway API versions a new gateway client is granted.
	Versions []string
	// PollInterval is how often live updates look for changes (default 2 s).
	PollInterval time.Duration
	Log          *slog.Logger
}

// Services are what the console needs from storage: one field per root
// service it uses (the same the API calls) and the console's own reads and
// sessions. internal/wiring fills them from sqlstore's services; every
// field must be set.
type Services struct {
	Organizations OrganizationFinder
	Credentials   CredentialStore
	Orders        OrderStore
	Inventory     InventoryStore
	// Catalogs is the catalog service's list the operator API answers
	// too (a chosen organization's catalogs on the credentials page).
	Catalogs CatalogLister
	Controls ControlStore
	Faults   FaultStore
	Journal  JournalReader
	// The parcels area (decisions §40), through the services the API
	// calls: shipment data, the codes a label prints (the shipping API's),
	// the codes a shipment held, the Tracking API's parcels and moves, and
	// the pick-up point finder.
	Shipments    ShipmentReader
	Shipping     LabelCodes
	Codes        CodeHistory
	Tracking     ParcelTracker
	PickupPoints PickupFinder
	// Estimates is the estimate model of the parcels' journeys (decisions
	// §19, §32).
	Estimates parcelgate.DeliveryEstimator
	// Reads are the pages of one tenant; Operator the operator's pages.
	Reads    Reader
	Operator OperatorReader
	Sessions SessionStore
	// SupplierShipments are dropshipping's shipments (decisions §34): a
	// supplier's pages, and its suppliers' progress on a retailer's order.
	SupplierShipments SupplyStore
	// Dropship lists dropshipping's shipments in the parcels area, for
	// the supplier and for the retailer (decisions §51).
	Dropship DropshipLister
	// Database tells the database being out of reach or late from a
	// fault, so the console answers it as the API does (503).
	Database Database
}

// Console is the web console's handler. Build it with New.
type Console struct {
	orgs        OrganizationFinder
	credentials CredentialStore
	orders      OrderStore
	inventory   InventoryStore
	catalogs    CatalogLister
	shipments   ShipmentReader
	shipping    LabelCodes
	codes       CodeHistory
	tracking    ParcelTracker
	pickups     PickupFinder
	estimates   parcelgate.DeliveryEstimator
	controls    ControlStore
	faults      FaultStore
	journal     JournalReader
	reads       Reader
	operator    OperatorReader
	sessions    SessionStore
	supplies    SupplyStore
	dropship    DropshipLister
	database    Database

	cfg     Config
	handler http.Handler
	pages   map[string]*page
	assetV  string
}

// New returns the console over the services of svc.
func New(svc Services, cfg Config) *Console {
	if cfg.Clock == nil {
		cfg.Clock = parcelgate.SystemClock{}
	}
	if cfg.SessionNow == nil {
		cfg.SessionNow = time.Now
	}
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = 12 * time.Hour
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Hour
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	if len(cfg.Versions) == 0 {
		cfg.Versions = parcelgate.DefaultVersions
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.AdminGuard == nil {
		cfg.AdminGuard = adminguard.New(cfg.AdminToken, nil, cfg.Log)
	}
	c := &Console{
		orgs: svc.Organizations, credentials: svc.Credentials, orders: svc.Orders, inventory: svc.Inventory, catalogs: svc.Catalogs,
		shipments: svc.Shipments, shipping: svc.Shipping, codes: svc.Codes, tracking: svc.Tracking, pickups: svc.PickupPoints, estimates: svc.Estimates, controls: svc.Controls, faults: svc.Faults, journal: svc.Journal,
		reads: svc.Reads, operator: svc.Operator, sessions: svc.Sessions, supplies: svc.SupplierShipments, dropship: svc.Dropship,
		database: svc.Database,
		cfg:      cfg,
	}
	c.loadTemplates()
	mux := http.NewServeMux()
	c.routes(mux)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.errorPage(w, r, nil, http.StatusForbidden, "This request came from another site, so it was refused. Use the console's own pages and buttons.")
	}))
	c.handler = securityHeaders(cop.Handler(c.checkText(mux)))
	return c
}

// checkText holds every text of a request's form and query to the text
// rule (parcelgate.TextProblem: valid UTF-8, no NUL) before any page or
// action reads it, as the API does where text enters (decisions §8): a bad
// field is 400 naming it, and no store call ever sees such text (a NUL
// would be stored, bytes that are not UTF-8 silently replaced).
func (c *Console) checkText(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			c.errorPage(w, r, nil, http.StatusBadRequest, "The form could not be read.")
			return
		}
		for _, name := range slices.Sorted(maps.Keys(r.Form)) {
			if msg := parcelgate.TextProblem(name); msg != "" {
				c.errorPage(w, r, nil, http.StatusBadRequest, "A field's name "+msg+"; nothing was changed.")
				return
			}
			for _, v := range r.Form[name] {
				if msg := parcelgate.TextProblem(v); msg != "" {
					c.errorPage(w, r, nil, http.StatusBadRequest, "The field "+name+" "+msg+"; nothing was changed.")
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}

func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.handler.ServeHTTP(w, r) }

func (c *Console) routes(mux *http.ServeMux) {
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /console/static/", http.StripPrefix("/console/static/", cacheForever(http.FileServerFS(static))))
	mux.HandleFunc("GET /console", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, Prefix+"/", http.StatusFound) })
	mux.HandleFunc("GET /console/sign-in", c.signInPage)
	mux.HandleFunc("POST /console/sign-in", c.signIn)
	mux.HandleFunc("POST /console/sign-out", c.signOut)

	mux.Handle("GET /console/{$}", c.authed(c.overview))
	mux.Handle("POST /console/tenant", c.authed(c.chooseTenant))
	mux.Handle("POST /console/clock", c.authed(c.advanceClock))
	mux.Handle("POST /console/sandbox/reset", c.authed(c.resetTenant))
	mux.Handle("POST /console/sandbox/demo", c.authed(c.restoreDemo))
	mux.Handle("POST /console/sandbox/faults", c.authed(c.createFault))
	mux.Handle("POST /console/sandbox/faults/{id}/delete", c.authed(c.deleteFault))
	mux.Handle("POST /console/sandbox/snapshots", c.authed(c.takeSnapshot))
	mux.Handle("POST /console/sandbox/snapshots/{name}/restore", c.authed(c.restoreSnapshot))
	mux.Handle("POST /console/sandbox/snapshots/{name}/delete", c.authed(c.dropSnapshot))
	mux.Handle("GET /console/jobs", c.authed(c.jobsPage))
	mux.Handle("POST /console/jobs/{id}/cancel", c.authed(c.cancelJob))
	mux.Handle("GET /console/orders", c.authed(c.ordersPage))
	mux.Handle("GET /console/orders/new", c.authed(c.newOrderPage))
	mux.Handle("POST /console/orders", c.authed(c.createOrder))
	mux.Handle("GET /console/orders/{id}", c.authed(c.order))
	mux.Handle("POST /console/orders/{id}/cancel", c.authed(c.cancelOrder))
	mux.Handle("POST /console/orders/{id}/status", c.authed(c.moveOrder))
	mux.Handle("GET /console/products", c.authed(c.products))
	mux.Handle("GET /console/products/new", c.authed(c.newProductPage))
	mux.Handle("POST /console/products", c.authed(c.saveProduct))
	mux.Handle("GET /console/products/{id}", c.authed(c.product))
	mux.Handle("GET /console/products/{id}/edit", c.authed(c.editProductPage))
	mux.Handle("POST /console/products/{id}/stock", c.authed(c.setStock))
	mux.Handle("GET /console/shipments", c.authed(c.shipmentsPage))
	mux.Handle("GET /console/shipments/dropship", c.authed(c.dropshipPage))
	mux.Handle("GET /console/shipments/{tn}", c.authed(c.shipment))
	mux.Handle("GET /console/shipments/{tn}/label.pdf", c.authed(c.shipmentLabel))
	mux.Handle("POST /console/shipments/{tn}/parcels/{parcel}/status", c.authed(c.moveParcel))
	mux.Handle("POST /console/shipments/{tn}/journey", c.authed(c.driveJourney))
	mux.Handle("GET /console/pickup-points", c.authed(c.pickupPointsPage))
	mux.Handle("GET /console/pickup-points/{id}", c.authed(c.pickupPointPage))
	mux.Handle("GET /console/supplier-shipments", c.authed(c.supplierShipmentsPage))
	mux.Handle("GET /console/supplier-shipments/{id}", c.authed(c.supplierShipment))
	mux.Handle("POST /console/supplier-shipments/{id}/status", c.authed(c.moveSupplierShipment))
	mux.Handle("POST /console/supplier-shipments/{id}/delivered", c.authed(c.confirmSupplierShipment))
	mux.Handle("POST /console/supplier-shipments/{id}/parcels", c.authed(c.confirmWithParcels))
	mux.Handle("POST /console/supplier-shipments/{id}/split", c.authed(c.splitSupplierShipment))
	mux.Handle("GET /console/requests", c.authed(c.requests))
	mux.Handle("GET /console/requests/{requestId}", c.authed(c.request))
	mux.Handle("GET /console/credentials", c.authed(c.credentialsPage))
	mux.Handle("POST /console/credentials/gateway-clients", c.authed(c.createGatewayClient))
	mux.Handle("POST /console/credentials/gateway-clients/{id}/revoke", c.authed(c.revokeGatewayClient))
	mux.Handle("POST /console/credentials/service-accounts", c.authed(c.createServiceAccount))
	mux.Handle("POST /console/credentials/service-accounts/{username}/revoke", c.authed(c.revokeServiceAccount))
	mux.Handle("POST /console/credentials/service-accounts/{username}/unlock", c.authed(c.unlockServiceAccount))
	mux.Handle("GET /console/events", c.authed(c.events))
	mux.HandleFunc("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.errorPage(w, r, nil, http.StatusNotFound, "There is no such page.")
	})
}

// securityHeaders forbids framing and any script or style from elsewhere,
// and keeps tenant data out of caches.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("X-Frame-Options", "DENY")
		if !strings.HasPrefix(r.URL.Path, Prefix+"/static/") {
			hd.Set("Cache-Control", "no-store")
		}
		h.ServeHTTP(w, r)
	})
}

// cacheForever serves assets whose URLs carry their content's hash.
func cacheForever(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		h.ServeHTTP(w, r)
	})
}

// session is the signed-in browser of a request, with the caller it acts
// as: the service account, or the operator on the tenant it chose.
type session struct {
	*views.Session
	idHash string
	caller *parcelgate.Caller
}

// Operator reports whether the session is an operator's.
func (s *session) Operator() bool { return s.Kind == views.SessionOperator }

// HasTenant reports whether the session looks at one organization.
func (s *session) HasTenant() bool {
	return parcelgate.ScopeOf(s.Environment, s.OrgID) == parcelgate.ScopeOrganization
}

// The Can methods let templates show only what the session may use.

func (s *session) CanReadOrders() bool    { return s.caller.May(parcelgate.ActionReadOrders) == nil }
func (s *session) CanReadShipments() bool { return s.caller.May(parcelgate.ActionReadShipments) == nil }

// CanReadLocations: the pick-up points (ActionReadLocations).
func (s *session) CanReadLocations() bool { return s.caller.May(parcelgate.ActionReadLocations) == nil }

// CanSupply: a supplier's dropshipping shipments (decisions §34).
func (s *session) CanSupply() bool { return s.caller.May(parcelgate.ActionSupplyShipments) == nil }

// CanReadProducts: suppliers and merchants read the products they supply,
// retailers those published to their catalogs (MayReadConsoleProducts).
func (s *session) CanReadProducts() bool { return parcelgate.MayReadConsoleProducts(s.caller) == nil }

type sessionKey struct{}

func hashSessionID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// lookupSession returns the request's live session, or nil.
func (c *Console) lookupSession(r *http.Request) (*session, error) {
	ck, err := r.Cookie(cookieName)
	if err != nil || ck.Value == "" || len(ck.Value) > 100 {
		return nil, nil
	}
	h := hashSessionID(ck.Value)
	s, err := c.sessions.FindConsoleSession(r.Context(), h, c.cfg.SessionNow(), c.cfg.IdleTimeout)
	if parcelgate.ErrorCode(err) == parcelgate.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sess := &session{Session: s, idHash: h}
	sess.caller = callerOf(s)
	return sess, nil
}

// callerOf is the caller a session acts as in the store's services.
func callerOf(s *views.Session) *parcelgate.Caller {
	if s.Kind == views.SessionOperator {
		// The operator's scope is decided here, once per request: the
		// organization it chose, else the environment it chose, else
		// every environment.
		return &parcelgate.Caller{Subject: "operator", OrgID: s.OrgID, BusinessID: s.BusinessID, Environment: s.Environment, Kind: parcelgate.KindOperator, Scope: parcelgate.ScopeOf(s.Environment, s.OrgID)}
	}
	return &parcelgate.Caller{Subject: s.Username, OrgID: s.OrgID, BusinessID: s.BusinessID, Environment: s.Environment, Kind: parcelgate.KindEcom, Roles: s.Roles}
}

// handler is a console page or action of a signed-in session.
type handler func(w http.ResponseWriter, r *http.Request, s *session)

// authed runs h for a signed-in session; anyone else is sent to sign in,
// and comes back to the page they asked for afterwards.
func (c *Console) authed(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := c.lookupSession(r)
		if err != nil {
			c.fail(w, r, nil, err)
			return
		}
		if s == nil {
			next := ""
			if r.Method == http.MethodGet && r.URL.Path != Prefix+"/events" {
				next = r.URL.RequestURI()
			}
			target := Prefix + "/sign-in"
			if next != "" && next != Prefix+"/" {
				target += "?next=" + url.QueryEscape(next)
			}
			if r.Header.Get("Accept") == "text/event-stream" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		ctx := context.WithValue(r.Context(), sessionKey{}, s)
		if s.HasTenant() {
			// The store records what this session writes for the tenant,
			// so the console's next page reads it even on a read replica
			// (decisions §20).
			ctx = parcelgate.NewContext(ctx, s.caller)
			if c.controls != nil && !fenceExempt(r) && c.controls.TenantBusy(ctx, s.caller.Environment, s.caller.OrgID) {
				c.busyPage(w, r.WithContext(ctx), s)
				return
			}
		}
		h(w, r.WithContext(ctx), s)
	})
}

// safeNext keeps a post-sign-in destination only when it is a console page
// of this site, so the sign-in form cannot be used to send people away.
func safeNext(next string) string {
	if !strings.HasPrefix(next, Prefix+"/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return Prefix + "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return Prefix + "/"
	}
	return next
}

type signInForm struct {
	Kind     string
	Username string
	Next     string
	Errors   map[string]string
}

func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	if s, err := c.lookupSession(r); err == nil && s != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	c.render(w, r, http.StatusOK, "sign-in", nil, "Sign in", &signInForm{Kind: "account", Next: r.URL.Query().Get("next")})
}

// signIn checks a service account's password with the store call behind
// GET /auth/token (the same lockout: five failures lock the account for an
// hour, across instances), or the admin token, and starts a session. Every
// failure reads the same, as it does on the API.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		c.errorPage(w, r, nil, http.StatusBadRequest, "The form could not be read.")
		return
	}
	f := &signInForm{Kind: r.PostForm.Get("kind"), Username: strings.TrimSpace(r.PostForm.Get("username")), Next: r.PostForm.Get("next"), Errors: map[string]string{}}
	var kind, username string
	switch f.Kind {
	case "operator":
		tok := r.PostForm.Get("token")
		if tok == "" {
			f.Errors["token"] = "Enter the admin token."
			break
		}
		ok, wait := c.cfg.AdminGuard.Verify(r, "console", tok)
		switch {
		case wait > 0:
			secs := strconv.Itoa(max(1, int(math.Ceil(wait.Seconds()))))
			w.Header().Set("Retry-After", secs)
			f.Errors["token"] = "Too many wrong admin tokens from this address; try again in " + secs + " seconds."
			c.render(w, r, http.StatusTooManyRequests, "sign-in", nil, "Sign in", f)
			return
		case !ok:
			f.Errors["token"] = "This is not the admin token."
		}
		kind = views.SessionOperator
	case "account":
		password := r.PostForm.Get("password")
		if f.Username == "" {
			f.Errors["username"] = "Enter the service account's username."
		}
		if password == "" {
			f.Errors["password"] = "Enter the password."
		}
		if len(f.Errors) == 0 {
			acct, err := c.credentials.AuthenticateServiceAccount(r.Context(), f.Username, password)
			switch {
			case parcelgate.ErrorCode(err) == parcelgate.EUNAUTHORIZED:
				f.Errors["password"] = "Wrong username or password, or the account is locked after too many failed attempts."
				// Journaled under the account's organization;
				// an unknown username under none.
				if owner, err := c.credentials.CredentialOwner(r.Context(), parcelgate.KindEcom, f.Username); err == nil {
					parcelgate.JournalUnder(r.Context(), owner)
				}
			case err != nil:
				c.fail(w, r, nil, err)
				return
			default:
				username = acct.Username
				parcelgate.JournalUnder(r.Context(), &parcelgate.Caller{Subject: acct.Username, OrgID: acct.OrgID, BusinessID: acct.BusinessID,
					Environment: acct.Environment, Kind: parcelgate.KindEcom, Roles: acct.Roles})
			}
		}
		kind = views.SessionAccount
	default:
		f.Kind = "account"
		f.Errors["username"] = "Choose how to sign in."
	}
	if len(f.Errors) > 0 {
		c.render(w, r, http.StatusUnauthorized, "sign-in", nil, "Sign in", f)
		return
	}
	// A session this browser had ends: a sign-in always starts a new one,
	// so a session ID planted before the sign-in is worth nothing after it.
	if ck, err := r.Cookie(cookieName); err == nil && ck.Value != "" && len(ck.Value) <= 100 {
		if err := c.sessions.DeleteConsoleSession(r.Context(), hashSessionID(ck.Value)); err != nil {
			c.fail(w, r, nil, err)
			return
		}
	}
	id := randomToken()
	now := c.cfg.SessionNow()
	expires := now.Add(c.cfg.SessionLifetime)
	if err := c.sessions.CreateConsoleSession(r.Context(), hashSessionID(id), kind, username, now, expires); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: id, Path: Prefix, Expires: expires, MaxAge: int(c.cfg.SessionLifetime.Seconds()),
		HttpOnly: true, Secure: secureRequest(r), SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, safeNext(f.Next), http.StatusSeeOther)
}

// secureRequest reports whether the browser reached the console over TLS,
// directly or through a proxy that says so.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// signOut ends the session on the server, not only in this browser.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(cookieName); err == nil && ck.Value != "" {
		if err := c.sessions.DeleteConsoleSession(r.Context(), hashSessionID(ck.Value)); err != nil {
			c.fail(w, r, nil, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: secureRequest(r), SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, Prefix+"/sign-in", http.StatusSeeOther)
}

// fail answers an error of a store call with the status the API answers
// it with (parcelgate.ErrorStatus): a domain error as its page (404 for a
// missing object, which is also what another tenant's is); the database
// out of reach or past the request's deadline (Database.Unavailable, as
// the API decides it) as 503 with Retry-After; anything else as a 500
// page that shows no detail and logs it.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, s *session, err error) {
	status := parcelgate.ErrorStatus(err)
	if parcelgate.ErrorCode(err) == parcelgate.EINTERNAL && c.database.Unavailable(err) {
		status = http.StatusServiceUnavailable
	}
	switch {
	case status == http.StatusNotFound:
		c.errorPage(w, r, s, status, "There is no such page, or it is not yours to see.")
	case status == http.StatusServiceUnavailable:
		c.cfg.Log.WarnContext(r.Context(), "console: the database is unavailable", "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
		c.errorPage(w, r, s, status, "The database is not answering; try again in a moment.")
	case status < http.StatusInternalServerError:
		c.errorPage(w, r, s, status, parcelgate.ErrorMessage(err))
	default:
		if errors.Is(err, context.Canceled) {
			return
		}
		c.cfg.Log.ErrorContext(r.Context(), "console", "path", r.URL.Path, "err", err)
		c.errorPage(w, r, s, http.StatusInternalServerError, "Something went wrong on the server. It has been logged; try again.")
	}
}

// retryAfterUnavailable is the Retry-After of a 503 for an unavailable
// database, in seconds: the API's, since pools reconnect by themselves.
const retryAfterUnavailable = 1
