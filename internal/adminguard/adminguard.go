// Package adminguard checks the admin token of the operator API and of the
// console's operator sign-in, and throttles guessing it (decisions §21):
// wrong tokens are counted per client address, and an address past a
// small burst is refused with 429 and Retry-After — before its token is
// even compared, so a throttled guesser learns nothing — until its bucket
// refills. The right token from an address that is not throttled keeps
// working, so an attacker can lock out only their own addresses, never
// the operator. One Guard serves both surfaces of an instance; behind a
// load balancer each instance counts its own.
package adminguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// The throttle: Burst wrong tokens from one address, then one more every
// Every (10 a minute).
const (
	Burst = 10
	Every = 6 * time.Second
)

// MaxAddrs bounds the addresses remembered. Only wrong tokens add one; an
// address idle for a minute has a full bucket again and is forgotten
// first, so a flood of distinct addresses costs at most this many entries.
const MaxAddrs = 10000

// Guard checks one admin token. The zero value is not usable; build one
// with New.
type Guard struct {
	token   []byte // the token's SHA-256; nil: no token opens anything
	trusted []netip.Prefix
	log     *slog.Logger

	mu    sync.Mutex
	addrs map[netip.Prefix]*entry

	failures  *prometheus.CounterVec
	throttled *prometheus.CounterVec
}

type entry struct {
	lim  *rate.Limiter
	seen time.Time
}

// Hash is the SHA-256 of an admin token: what a guard compares, and what
// the database keeps of a token parcelgate generated. A generated token has
// 130 random bits, so a fast hash is enough.
func Hash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// New returns a guard of token (empty: no token opens anything). trusted
// are the networks of the reverse proxies whose X-Forwarded-For is
// believed.
func New(token string, trusted []netip.Prefix, log *slog.Logger) *Guard {
	var h []byte
	if token != "" {
		h = Hash(token)
	}
	return NewHashed(h, trusted, log)
}

// NewHashed returns a guard of the token whose Hash is hash (nil: no token
// opens anything), for a token only the hash of which is known.
func NewHashed(hash []byte, trusted []netip.Prefix, log *slog.Logger) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Guard{token: hash, trusted: trusted, log: log, addrs: map[netip.Prefix]*entry{},
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "parcelgate_admin_token_failures_total",
			Help: "Wrong admin tokens given to this instance, by surface (api: the operator API, console: the operator sign-in)."}, []string{"surface"}),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "parcelgate_admin_token_throttled_total",
			Help: "Admin-token attempts this instance refused with 429 because their address gave too many wrong tokens, by surface."}, []string{"surface"}),
	}
}

// Collectors are the guard's metrics, for the instance's /metrics.
func (g *Guard) Collectors() []prometheus.Collector {
	return []prometheus.Collector{g.failures, g.throttled}
}

// Configured reports whether the guard has a token at all.
func (g *Guard) Configured() bool { return len(g.token) > 0 }

// Verify checks token given by the client of r on surface ("api" or
// "console"). ok is set for the right token; retryAfter is set instead
// when the client's address is throttled: the token was not compared.
func (g *Guard) Verify(r *http.Request, surface, token string) (ok bool, retryAfter time.Duration) {
	addr := g.ClientAddr(r)
	key := keyOf(addr)
	now := time.Now()
	if d := g.wait(key, now); d > 0 {
		g.throttled.WithLabelValues(surface).Inc()
		return false, d
	}
	if len(g.token) > 0 && token != "" && subtle.ConstantTimeCompare(Hash(token), g.token) == 1 {
		return true, 0
	}
	if token == "" {
		// No token given: a caller who forgot it, not a guess.
		return false, 0
	}
	g.fail(key, now)
	g.failures.WithLabelValues(surface).Inc()
	g.log.WarnContext(r.Context(), "wrong admin token", "surface", surface, "client", addr.String(), "remote", r.RemoteAddr)
	return false, 0
}

// wait is how long key must wait before its next attempt; 0 when it may
// try now.
func (g *Guard) wait(key netip.Prefix, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.addrs[key]
	if !ok {
		return 0
	}
	tokens := e.lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) * float64(Every)))
}

// fail counts a wrong token from key.
func (g *Guard) fail(key netip.Prefix, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.addrs[key]
	if !ok {
		if len(g.addrs) >= MaxAddrs {
			g.evict(now)
		}
		e = &entry{lim: rate.NewLimiter(rate.Every(Every), Burst)}
		g.addrs[key] = e
	}
	e.seen = now
	e.lim.AllowN(now, 1)
}

// evict makes room: addresses idle for a minute first (their buckets are
// full again, so forgetting them changes nothing), else the one idle
// longest.
func (g *Guard) evict(now time.Time) {
	var oldest netip.Prefix
	var oldestSeen time.Time
	for k, e := range g.addrs {
		if now.Sub(e.seen) >= Burst*Every {
			delete(g.addrs, k)
			continue
		}
		if oldestSeen.IsZero() || e.seen.Before(oldestSeen) {
			oldest, oldestSeen = k, e.seen
		}
	}
	if len(g.addrs) >= MaxAddrs {
		delete(g.addrs, oldest)
	}
}

// Len is how many addresses the guard remembers.
func (g *Guard) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.addrs)
}

// ClientAddr is the address of r's client: the peer's, or, when the peer
// is a trusted proxy, the nearest address in X-Forwarded-For that is not
// one (the proxies append the address they saw, so the entries left of
// the last untrusted one may be forged by the client).
func (g *Guard) ClientAddr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if !g.isTrusted(peer) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer
		}
		a = a.Unmap()
		if !g.isTrusted(a) {
			return a
		}
	}
	return peer
}

func (g *Guard) isTrusted(a netip.Addr) bool {
	for _, p := range g.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func parseAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// keyOf is what failures are counted by: an IPv4 address, or an IPv6
// address's /64 (one host usually holds a whole /64).
func keyOf(a netip.Addr) netip.Prefix {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p
	}
	if !a.IsValid() {
		return netip.Prefix{}
	}
	return netip.PrefixFrom(a, a.BitLen())
}
