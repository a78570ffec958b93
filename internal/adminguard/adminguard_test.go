package adminguard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func request(remote, xff string) *http.Request {
	r := httptest.NewRequest("GET", "/admin/v1/organizations", nil)
	r.RemoteAddr = remote
	if xff != "" {
		r.Header.Set("X-Forwarded-For", xff)
	}
	return r
}

// decisions §21: past Burst wrong tokens an address is refused (with a
// wait) before its token is compared, even the right one; the right token
// from another address keeps working.
func TestGuardThrottlesGuessingPerAddress(t *testing.T) {
	g := New("right", nil, nil)
	attacker := request("203.0.113.7:5000", "")
	for i := range Burst {
		if ok, wait := g.Verify(attacker, "api", fmt.Sprint("guess-", i)); ok || wait != 0 {
			t.Fatalf("guess %d: ok %v wait %v", i, ok, wait)
		}
	}
	ok, wait := g.Verify(attacker, "api", "guess-x")
	if ok || wait <= 0 || wait > Every {
		t.Fatalf("guess past the burst: ok %v wait %v", ok, wait)
	}
	if ok, wait := g.Verify(attacker, "api", "right"); ok || wait <= 0 {
		t.Fatalf("the right token from a throttled address is compared: ok %v wait %v", ok, wait)
	}
	if ok, wait := g.Verify(request("198.51.100.1:4000", ""), "console", "right"); !ok || wait != 0 {
		t.Fatalf("the operator from another address: ok %v wait %v", ok, wait)
	}
	// A missing token is not a guess.
	for range 2 * Burst {
		if _, wait := g.Verify(request("192.0.2.9:1", ""), "api", ""); wait != 0 {
			t.Fatal("missing tokens throttled")
		}
	}
}

// decisions §21: X-Forwarded-For is believed only from a trusted proxy,
// and then its nearest untrusted entry is the client.
func TestGuardClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	g := New("right", proxies, nil)
	for _, c := range []struct{ remote, xff, want string }{
		{"203.0.113.7:1", "198.51.100.1", "203.0.113.7"},         // not a proxy: its header is ignored
		{"10.0.0.2:1", "198.51.100.1", "198.51.100.1"},           // a proxy: the address it saw
		{"10.0.0.2:1", "1.2.3.4, 198.51.100.1", "198.51.100.1"},  // the client's own entry is not believed
		{"10.0.0.2:1", "198.51.100.1, 10.0.0.3", "198.51.100.1"}, // through two proxies
		{"10.0.0.2:1", "garbage", "10.0.0.2"},                    // unreadable: the proxy
		{"[::ffff:10.0.0.2]:1", "198.51.100.1", "198.51.100.1"},  // a mapped proxy address
		{"[2001:db8::1]:1", "", "2001:db8::1"},
	} {
		if got := g.ClientAddr(request(c.remote, c.xff)); got.String() != c.want {
			t.Errorf("%s with %q: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
	// One IPv6 host's /64 counts as one address.
	if keyOf(netip.MustParseAddr("2001:db8::1")) != keyOf(netip.MustParseAddr("2001:db8::ffff")) {
		t.Error("an IPv6 /64 is several addresses")
	}
}

// decisions §21: a flood of distinct addresses does not grow the guard
// past MaxAddrs.
func TestGuardMemoryIsBounded(t *testing.T) {
	g := New("right", nil, nil)
	for i := range MaxAddrs + 5000 {
		a := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		g.Verify(request(netip.AddrPortFrom(a, 1).String(), ""), "api", "guess")
	}
	if n := g.Len(); n > MaxAddrs {
		t.Fatalf("%d addresses remembered, more than %d", n, MaxAddrs)
	}
	// Idle addresses are forgotten first.
	g.fail(netip.MustParsePrefix("192.0.2.1/32"), time.Now().Add(2*Burst*Every))
	if n := g.Len(); n > MaxAddrs {
		t.Fatalf("%d after an eviction", n)
	}
}
