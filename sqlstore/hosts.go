package sqlstore

import (
	"context"
	"database/sql"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// A PostgreSQL URL may name several hosts (postgres://h1:5432,h2:5432/db?
// target_session_attrs=read-write), as HA managers such as pg_auto_failover
// hand them out: a new connection tries the hosts in turn and keeps the
// first that accepts writes, so after a failover it finds the new primary
// by itself (docs/scaling.md, Automatic failover). The driver tries them
// in the URL's order, each for the whole connect timeout, which costs a
// lot when a host is gone without refusing (a partitioned or powered-off
// machine: its connections hang). So the store, for a URL of several
// hosts:
//
//   - tries first the host that last gave it a connection (the primary,
//     as far as it knows), then the others in the URL's order; a lost
//     primary that hangs costs one connect timeout once, not at every
//     connection;
//   - gives each host an equal share of the connect timeout (at least
//     minHostTimeout), so that within one request's --db-timeout every
//     host is tried: a hanging first host no longer hides the new primary
//     behind it.

// minHostTimeout is the least a host of several is given to connect.
const minHostTimeout = 500 * time.Millisecond

// hostOrder remembers which host last gave the pool a connection.
type hostOrder struct {
	mu   sync.Mutex
	last string // "ip:port" of the last connection's server
}

// openPgxPool opens dsn through pgx's database/sql driver; a URL of several
// hosts gets a hostOrder and per-host connect timeouts.
func openPgxPool(dsn string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	hosts := map[string]bool{net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))): true}
	for _, f := range cfg.Fallbacks {
		hosts[net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port)))] = true
	}
	if len(hosts) < 2 {
		return stdlib.OpenDB(*cfg), nil
	}
	if cfg.ConnectTimeout > 0 {
		cfg.ConnectTimeout = max(minHostTimeout, cfg.ConnectTimeout/time.Duration(len(hosts)))
	}
	h := new(hostOrder)
	return stdlib.OpenDB(*cfg, stdlib.OptionBeforeConnect(h.before), stdlib.OptionAfterConnect(h.after)), nil
}

// before puts the hosts that match the last connection's server first,
// the rest in the URL's order.
func (h *hostOrder) before(ctx context.Context, cfg *pgx.ConnConfig) error {
	h.mu.Lock()
	last := h.last
	h.mu.Unlock()
	if last == "" {
		return nil
	}
	all := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
	var first, rest []*pgconn.FallbackConfig
	for _, f := range all {
		if h.is(ctx, f, last) {
			first = append(first, f)
		} else {
			rest = append(rest, f)
		}
	}
	if len(first) == 0 || first[0] == all[0] {
		return nil
	}
	order := append(first, rest...)
	cfg.Host, cfg.Port, cfg.TLSConfig = order[0].Host, order[0].Port, order[0].TLSConfig
	// A new slice: cfg is a copy of the pool's, sharing its Fallbacks.
	cfg.Fallbacks = append([]*pgconn.FallbackConfig(nil), order[1:]...)
	return nil
}

// is reports whether f names the server at addr ("ip:port").
func (h *hostOrder) is(ctx context.Context, f *pgconn.FallbackConfig, addr string) bool {
	ip, port, err := net.SplitHostPort(addr)
	if err != nil || port != strconv.Itoa(int(f.Port)) {
		return false
	}
	if f.Host == ip {
		return true
	}
	if net.ParseIP(f.Host) != nil {
		return false
	}
	ips, err := net.DefaultResolver.LookupHost(ctx, f.Host)
	if err != nil {
		return false
	}
	for _, a := range ips {
		if a == ip {
			return true
		}
	}
	return false
}

// after records the server the new connection reached: it accepted the
// connection (and, with target_session_attrs=read-write, writes).
func (h *hostOrder) after(_ context.Context, c *pgx.Conn) error {
	if nc := c.PgConn().Conn(); nc != nil {
		h.mu.Lock()
		h.last = nc.RemoteAddr().String()
		h.mu.Unlock()
	}
	return nil
}
