// Package seedgen fills an empty, migrated parcelgate database with data
// at a provider's volumes (issue 39): organizations of very different
// sizes (the first holds about half of everything), their products and
// warehouse balances, dropshipping catalogs with their suppliers'
// balances, warehouse orders in every status with their rows, references
// and histories, the shipments of delivered orders and the shipment data
// clients registered, parcels, dropshipping shipments, tracking moves,
// sending codes and request journal entries over months. It is a tool, not
// part of the server: cmd/loadtest's seed and size modes use it.
//
// Rows are made in Go from the root's own types (parcelgate.NewOrder,
// SplitOrder, DeliveryParcels, FitLocker) and encoded with encoding/json
// as the store encodes them, so every document has the shape the server
// reads; they are written in bulk, by COPY on PostgreSQL and by prepared
// multi-row INSERTs in one transaction a table on SQLite. Everything is
// deterministic for a given seed: the same flags give the same data, its
// times relative to the end of the history (Config.Now).
package seedgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// Sizes are the volumes of a fill. Parcels follow from Shipments (about
// two a shipment); dropshipping shipments from the orders with a row of a
// supplier's catalog; tracking moves and codes are a share of the
// shipments.
type Sizes struct {
	Orgs      int // organizations; the first holds about half of the data
	Products  int // products over every merchant's warehouse catalog
	PerShop   int // products a supplier publishes to a dropshipping catalog of the retailers' mean weight (a sample; at most all)
	Orders    int // warehouse orders
	Shipments int // shipments, those of delivered orders included
	Journal   int // request journal entries before the journal's cap of JournalPerTenant an organization
}

// Large is issue 39's production order of magnitude: 2,000 organizations,
// 1,000,000 shipments (about 2,000,000 parcels), 300,000 orders.
var Large = Sizes{Orgs: 2000, Products: 40_000, PerShop: 1000, Orders: 300_000, Shipments: 1_000_000, Journal: 200_000}

// Scale is s with every volume multiplied by f (at least a handful of
// each, so a tiny scale still has every kind of object).
func (s Sizes) Scale(f float64) Sizes {
	n := func(v, least int) int { return max(least, int(math.Round(float64(v)*f))) }
	return Sizes{Orgs: n(s.Orgs, 4), Products: n(s.Products, 40), PerShop: n(s.PerShop, 10), Orders: n(s.Orders, 40), Shipments: n(s.Shipments, 40), Journal: n(s.Journal, 20)}
}

// Config is one fill.
type Config struct {
	// DSN is the store's: sqlite:PATH or a PostgreSQL URL.
	DSN   string
	Sizes Sizes
	// Seed makes the data; the same seed, sizes and Now give the same rows.
	Seed uint64
	// Now is the end of the history (default: the time of the fill); the
	// data spans Span before it (default 180 days).
	Now  time.Time
	Span time.Duration
	// Log receives a line per table with its rows and time (nil: none).
	Log io.Writer
}

// Tenant is a generated organization with credentials a load can use.
type Tenant struct {
	BusinessID   string
	ClientID     string // gateway client (every version, tier 1)
	ClientSecret string
	Username     string // service account with every role
	Password     string
	Orders       int // its warehouse orders
	// Statuses counts its orders by status.
	Statuses  map[parcelgate.OrderStatus]int
	Shipments int // its shipments
	// Supplied counts its dropshipping shipments, as the supplier, by
	// status (filled by Run only).
	Supplied map[parcelgate.DropshipStatus]int
}

// Report is what a fill made.
type Report struct {
	Engine string
	Sizes  Sizes
	// Big is the organization that holds about half of the data; Small
	// the smallest, a merchant that is also a new supplier of a few
	// retailers (its dropshipping shipments of the last weeks).
	Big, Small Tenant
	// Rows per table, in the order written.
	Tables []TableRows
	Took   time.Duration
}

// TableRows is the rows written to a table and how long it took.
type TableRows struct {
	Table string
	Rows  int64
	Took  time.Duration
}

// Rows is the number of rows written in all.
func (r *Report) Rows() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Rows
	}
	return n
}

// Known credentials of the two tenants the load logs in as.
const (
	BigClientSecret   = "seed-big-client-secret"
	BigPassword       = "seed-big-password"
	SmallClientSecret = "seed-small-client-secret"
	SmallPassword     = "seed-small-password"
)

// Run migrates the database at cfg.DSN, which must hold no organization
// yet, fills it, creates the two tenants' credentials, sets the change
// clocks past every stamp written and analyzes the tables, as autovacuum
// would after such a load.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	if cfg.Span == 0 {
		cfg.Span = 180 * 24 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := cfg.Sizes
	if s.Orgs < 4 || s.Products < s.Orgs || s.Orders < 1 || s.Shipments < 1 || s.Journal < 0 || s.PerShop < 1 {
		return nil, fmt.Errorf("seed: sizes %+v: at least 4 organizations, a product each, an order and a shipment", s)
	}
	if s.Orders > 50_000_000 || s.Shipments > 100_000_000 || s.Orgs > 1_000_000 || cfg.Span.Microseconds()/int64(max(s.Orders, s.Shipments, s.Products*2, s.Journal)) < 8 {
		return nil, fmt.Errorf("seed: sizes %+v too large for a span of %s", s, cfg.Span)
	}
	db, err := sqlstore.Open(ctx, cfg.DSN, parcelgate.SystemClock{})
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.Close()

	out, err := openSink(ctx, cfg.DSN)
	if err != nil {
		return nil, err
	}
	defer out.close()
	var n int64
	if err := out.queryRow(ctx, `SELECT COUNT(*) FROM organizations`, &n); err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, errors.New("seed: the database already has organizations; fill a new one")
	}
	g := newModel(cfg)
	rep := &Report{Engine: out.engine(), Sizes: s}
	if err := g.write(ctx, out, rep); err != nil {
		return nil, err
	}
	if err := out.finish(ctx, micros(cfg.Now)); err != nil {
		return nil, err
	}
	out.close()

	// Credentials through the store, hashed by auth as every credential is.
	db, err = sqlstore.Open(ctx, cfg.DSN, parcelgate.SystemClock{})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	creds := sqlstore.NewCredentialService(db)
	rep.Big = g.tenant(0, "seed-big", BigClientSecret, BigPassword)
	rep.Small = g.tenant(len(g.orgs)-1, "seed-small", SmallClientSecret, SmallPassword)
	var grants []parcelgate.VersionGrant
	for _, v := range parcelgate.DefaultVersions {
		grants = append(grants, parcelgate.VersionGrant{Version: v, Tier: 1})
	}
	op := parcelgate.EnvironmentOperator(parcelgate.Production)
	for _, t := range []Tenant{rep.Big, rep.Small} {
		if err := creds.CreateGatewayClient(ctx, op, &parcelgate.GatewayClient{ClientID: t.ClientID, Environment: parcelgate.Production, BusinessID: t.BusinessID, Versions: grants}, auth.HashSecret(t.ClientSecret)); err != nil {
			return nil, fmt.Errorf("seed: gateway client of %s: %w", t.BusinessID, err)
		}
		hash, err := auth.HashPassword(t.Password)
		if err != nil {
			return nil, err
		}
		if err := creds.CreateServiceAccount(ctx, op, &parcelgate.ServiceAccount{Username: t.Username, Environment: parcelgate.Production, BusinessID: t.BusinessID, Roles: parcelgate.Roles}, hash); err != nil {
			return nil, fmt.Errorf("seed: service account of %s: %w", t.BusinessID, err)
		}
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// tenant is organization k with the credentials named after prefix.
func (g *model) tenant(k int, prefix, secret, password string) Tenant {
	o := g.orgs[k]
	return Tenant{BusinessID: o.bid, ClientID: prefix + "-client", ClientSecret: secret, Username: prefix, Password: password,
		Orders: g.orderCount[k], Shipments: g.shipCount[k], Statuses: g.statuses[k], Supplied: g.supplied[k]}
}

// String renders the report: rows and time per table, and the tenants.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows in %s\n", r.Engine, r.Rows(), r.Took.Round(time.Millisecond))
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "  %-20s %10d rows  %s\n", t.Table, t.Rows, t.Took.Round(time.Millisecond))
	}
	for _, t := range []Tenant{r.Big, r.Small} {
		fmt.Fprintf(&b, "  tenant %s: %d orders, %d shipments, as a supplier %v; gateway client %s / %s; service account %s / %s\n",
			t.BusinessID, t.Orders, t.Shipments, t.Supplied, t.ClientID, t.ClientSecret, t.Username, t.Password)
	}
	return b.String()
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// Tenants finds the two tenants a fill made in the database at dsn (by
// their service accounts), with their orders and shipments counted; nil,
// nil when the database holds no fill (it is migrated first, as Run
// does). A kept database is measured again this way.
func Tenants(ctx context.Context, dsn string) (big, small *Tenant, err error) {
	db, err := sqlstore.Open(ctx, dsn, parcelgate.SystemClock{})
	if err != nil {
		return nil, nil, err
	}
	err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return nil, nil, err
	}
	out, err := openSink(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	defer out.close()
	find := func(prefix, secret, password string) (*Tenant, error) {
		t := &Tenant{ClientID: prefix + "-client", ClientSecret: secret, Username: prefix, Password: password}
		var org int64
		err := out.queryRow(ctx, `SELECT o.id, o.business_id FROM service_accounts a JOIN organizations o ON o.id = a.org_id WHERE a.username = '`+prefix+`'`, &org, &t.BusinessID)
		if err != nil {
			return nil, err
		}
		if err := out.queryRow(ctx, fmt.Sprintf(`SELECT COUNT(*) FROM orders WHERE org_id = %d`, org), &t.Orders); err != nil {
			return nil, err
		}
		if err := out.queryRow(ctx, fmt.Sprintf(`SELECT COUNT(*) FROM shipments WHERE org_id = %d`, org), &t.Shipments); err != nil {
			return nil, err
		}
		return t, nil
	}
	var n int64
	if err := out.queryRow(ctx, `SELECT COUNT(*) FROM service_accounts WHERE username = 'seed-big'`, &n); err != nil || n == 0 {
		return nil, nil, err
	}
	if big, err = find("seed-big", BigClientSecret, BigPassword); err != nil {
		return nil, nil, err
	}
	if small, err = find("seed-small", SmallClientSecret, SmallPassword); err != nil {
		return nil, nil, err
	}
	return big, small, nil
}
