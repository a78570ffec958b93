package auth

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
)

var t0 = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)

func mustKey(t testing.TB, id uint32, created time.Time) Key {
	t.Helper()
	k, err := GenerateKey(id, created)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func retired(k Key, at time.Time) Key {
	k.RetiredAt = at
	return k
}

func fullCaller() *parcelgate.Caller {
	return &parcelgate.Caller{
		Subject:     "pg_abcdefghijklmnopqrst",
		OrgID:       -9_007_199_254_740_993,
		BusinessID:  "1234567-8",
		Environment: parcelgate.Test,
		Kind:        parcelgate.KindEcom,
		Roles:       []parcelgate.Role{parcelgate.RoleMerchant, parcelgate.RoleSupplier, parcelgate.RoleRetailer, "auditor"},
		Versions:    []parcelgate.VersionGrant{{Version: "v1", Tier: 1}, {Version: "v2.1", Tier: -3}, {Version: "", Tier: 1 << 40}},
		IssuedAt:    t0,
		ExpiresAt:   t0.Add(parcelgate.TokenLifetime),
	}
}

func gatewayCaller() *parcelgate.Caller {
	return &parcelgate.Caller{
		Subject:     "pg_k3j5h2m4n6p7q2r3s4t5",
		OrgID:       4711,
		BusinessID:  "2345678-9",
		Environment: parcelgate.Production,
		Kind:        parcelgate.KindGateway,
		Versions:    []parcelgate.VersionGrant{{Version: "v1", Tier: 2}, {Version: "v2", Tier: 2}},
		IssuedAt:    t0.Truncate(time.Second),
		ExpiresAt:   t0.Truncate(time.Second).Add(parcelgate.TokenLifetime),
	}
}

// sameCaller compares times with Equal, since the decoded times are in UTC
// and carry no monotonic reading.
func sameCaller(t *testing.T, got, want *parcelgate.Caller) {
	t.Helper()
	if !got.IssuedAt.Equal(want.IssuedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
		t.Errorf("times: got %v–%v, want %v–%v", got.IssuedAt, got.ExpiresAt, want.IssuedAt, want.ExpiresAt)
	}
	g, w := *got, *want
	g.IssuedAt, g.ExpiresAt, w.IssuedAt, w.ExpiresAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %+v\nwant %+v", g, w)
	}
}

func TestRoundTrip(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	for name, c := range map[string]*parcelgate.Caller{
		"ecom":    fullCaller(),
		"gateway": gatewayCaller(),
		"local times": {
			Subject:     "svc",
			Environment: "staging",
			Kind:        99,
			IssuedAt:    t0.In(time.FixedZone("EET", 2*3600)),
			ExpiresAt:   time.Now().Add(time.Hour), // with a monotonic reading
		},
		"far future": {ExpiresAt: time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			tok, err := ring.Seal(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d chars", len(tok))
			got, err := ring.Open(tok, t0)
			if err != nil {
				t.Fatal(err)
			}
			sameCaller(t, got, c)
		})
	}
}

func TestZeroTimesStayZero(t *testing.T) {
	var c parcelgate.Caller
	got, err := decodeCaller(appendCaller(nil, &c))
	if err != nil {
		t.Fatal(err)
	}
	if !got.IssuedAt.IsZero() || !got.ExpiresAt.IsZero() || got.IssuedAt != (time.Time{}) {
		t.Errorf("zero times came back as %v, %v", got.IssuedAt, got.ExpiresAt)
	}
}

func TestSealIsRandomized(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	a, _ := ring.Seal(gatewayCaller())
	b, _ := ring.Seal(gatewayCaller())
	if a == b {
		t.Error("two seals of one caller gave the same token")
	}
}

func TestExpired(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	c := gatewayCaller()
	tok, err := ring.Seal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.Open(tok, c.ExpiresAt.Add(-time.Nanosecond)); err != nil {
		t.Errorf("a nanosecond before expiry: %v", err)
	}
	for _, now := range []time.Time{c.ExpiresAt, c.ExpiresAt.Add(time.Second), c.ExpiresAt.Add(24 * time.Hour)} {
		if _, err := ring.Open(tok, now); err != ErrExpiredToken {
			t.Errorf("at %v: got %v, want ErrExpiredToken", now, err)
		}
	}
	// A caller without an expiry time is never valid.
	tok, _ = ring.Seal(&parcelgate.Caller{Subject: "x"})
	if _, err := ring.Open(tok, t0); err != ErrExpiredToken {
		t.Errorf("zero ExpiresAt: got %v, want ErrExpiredToken", err)
	}
}

func TestTamperedBytes(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0), mustKey(t, 2, t0.Add(-time.Hour))})
	tok, err := ring.Seal(fullCaller())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tokenEncoding.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			b := append([]byte(nil), raw...)
			b[i] ^= mask
			_, err := ring.Open(tokenEncoding.EncodeToString(b), t0)
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("byte %d ^ %#x: got %v, want ErrInvalidToken", i, mask, err)
			}
		}
	}
	// Re-sealed under the other key's ID, the token must not open either.
	b := append([]byte(nil), raw...)
	binary.BigEndian.PutUint32(b[1:5], 2)
	if _, err := ring.Open(tokenEncoding.EncodeToString(b), t0); err != ErrInvalidToken {
		t.Errorf("other key's ID: got %v, want ErrInvalidToken", err)
	}
	// Truncated and extended.
	for _, b := range [][]byte{raw[:len(raw)-1], raw[:minRawLen], append(raw[:len(raw):len(raw)], 0)} {
		if _, err := ring.Open(tokenEncoding.EncodeToString(b), t0); err != ErrInvalidToken {
			t.Errorf("%d of %d bytes: got %v, want ErrInvalidToken", len(b), len(raw), err)
		}
	}
}

func TestTamperedChars(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	tok, err := ring.Seal(gatewayCaller())
	if err != nil {
		t.Fatal(err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/.\n\r \x00"
	for i := range len(tok) {
		for _, r := range alphabet {
			if byte(r) == tok[i] {
				continue
			}
			bad := tok[:i] + string(r) + tok[i+1:]
			if _, err := ring.Open(bad, t0); !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("char %d -> %q: got %v, want ErrInvalidToken", i, r, err)
			}
		}
	}
	for _, bad := range []string{tok + "\n", tok[:10] + "\r\n" + tok[10:], " " + tok, tok + "=", tok + "A"} {
		if _, err := ring.Open(bad, t0); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%q: got %v, want ErrInvalidToken", bad, err)
		}
	}
}

func TestGarbage(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	for _, s := range []string{
		"",
		"a",
		"Bearer",
		"not a token at all, not even base64!",
		strings.Repeat("A", 44),
		strings.Repeat("A", 200),
		strings.Repeat("_", maxTokenLen+1),
		"AQAAAAE" + strings.Repeat("A", 60),
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
		"\x00\x01\x02\xff\xfe",
	} {
		c, err := ring.Open(s, t0)
		if c != nil || !errors.Is(err, ErrInvalidToken) {
			t.Errorf("Open(%.40q) = %v, %v; want nil, ErrInvalidToken", s, c, err)
		}
	}
}

func TestUnknownKey(t *testing.T) {
	old := NewKeyring([]Key{mustKey(t, 7, t0)})
	tok, err := old.Seal(gatewayCaller())
	if err != nil {
		t.Fatal(err)
	}
	ring := NewKeyring([]Key{mustKey(t, 8, t0)})
	_, err = ring.Open(tok, t0)
	if !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("got %v, want ErrUnknownKey that is an ErrInvalidToken", err)
	}
	if errors.Is(ErrInvalidToken, ErrUnknownKey) {
		t.Error("every ErrInvalidToken is an ErrUnknownKey")
	}
	// A token under a known ID but another secret is tampered, not unknown.
	impostor := NewKeyring([]Key{mustKey(t, 8, t0)})
	tok, _ = impostor.Seal(gatewayCaller())
	if _, err := ring.Open(tok, t0); err != ErrInvalidToken {
		t.Errorf("same ID, other secret: got %v, want ErrInvalidToken", err)
	}
	var zero Keyring
	if _, err := zero.Open(tok, t0); err != ErrUnknownKey {
		t.Errorf("zero Keyring: got %v, want ErrUnknownKey", err)
	}
}

func TestRotation(t *testing.T) {
	oldKey := mustKey(t, 1, t0.Add(-30*24*time.Hour))
	ring := NewKeyring([]Key{oldKey})
	before, err := ring.Seal(gatewayCaller())
	if err != nil {
		t.Fatal(err)
	}

	newKey := mustKey(t, 2, t0)
	ring.Replace([]Key{retired(oldKey, t0), newKey})
	if ring.Len() != 2 || !ring.Has(1) || !ring.Has(2) || ring.Has(3) {
		t.Fatalf("Len %d, Has(1) %v, Has(2) %v, Has(3) %v", ring.Len(), ring.Has(1), ring.Has(2), ring.Has(3))
	}
	if _, err := ring.Open(before, t0); err != nil {
		t.Errorf("token of the retired key: %v", err)
	}
	after, err := ring.Seal(gatewayCaller())
	if err != nil {
		t.Fatal(err)
	}
	if id := keyID(t, after); id != 2 {
		t.Errorf("sealed with key %d, want 2", id)
	}

	// Once the old key is gone, so are its tokens; the new ones stay.
	ring.Replace([]Key{newKey})
	if _, err := ring.Open(before, t0); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("after removal: got %v, want ErrUnknownKey", err)
	}
	if _, err := ring.Open(after, t0); err != nil {
		t.Errorf("token of the new key: %v", err)
	}

	// With every key retired there is nothing to seal with.
	ring.Replace([]Key{retired(newKey, t0)})
	if _, err := ring.Seal(gatewayCaller()); err != ErrNoActiveKey {
		t.Errorf("all retired: got %v, want ErrNoActiveKey", err)
	}
	if _, err := ring.Open(after, t0); err != nil {
		t.Errorf("token of a retired key: %v", err)
	}
}

func keyID(t *testing.T, tok string) uint32 {
	t.Helper()
	raw, err := tokenEncoding.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(raw[1:5])
}

func TestActiveKeyChoice(t *testing.T) {
	a := mustKey(t, 10, t0)
	b := mustKey(t, 3, t0.Add(time.Minute)) // newest
	c := mustKey(t, 20, t0.Add(time.Hour))  // newer, but retired
	c.RetiredAt = t0.Add(2 * time.Hour)
	ring := NewKeyring([]Key{a, c, b})
	if tok, _ := ring.Seal(gatewayCaller()); keyID(t, tok) != 3 {
		t.Errorf("sealed with %d, want the newest active key 3", keyID(t, tok))
	}
	// Created at the same time: the highest ID wins.
	d := mustKey(t, 11, t0.Add(time.Minute))
	ring.Replace([]Key{d, a, b})
	if tok, _ := ring.Seal(gatewayCaller()); keyID(t, tok) != 11 {
		t.Errorf("sealed with %d, want 11", keyID(t, tok))
	}
}

func TestReplaceBadKeys(t *testing.T) {
	good := mustKey(t, 1, t0)
	short := Key{ID: 2, Secret: make([]byte, 16), CreatedAt: t0.Add(time.Hour)}
	ring := NewKeyring([]Key{good, short, {ID: 3}})
	if ring.Len() != 1 || ring.Has(2) || ring.Has(3) {
		t.Fatalf("Len %d, Has(2) %v, Has(3) %v; want only key 1", ring.Len(), ring.Has(2), ring.Has(3))
	}
	if tok, err := ring.Seal(gatewayCaller()); err != nil || keyID(t, tok) != 1 {
		t.Errorf("Seal: %v", err)
	}

	// Of duplicate IDs the last one is kept.
	dup := mustKey(t, 1, t0)
	ring.Replace([]Key{good, dup})
	if ring.Len() != 1 {
		t.Fatalf("Len %d, want 1", ring.Len())
	}
	tok, _ := NewKeyring([]Key{dup}).Seal(gatewayCaller())
	if _, err := ring.Open(tok, t0); err != nil {
		t.Errorf("the later duplicate was not kept: %v", err)
	}

	// The secret is not retained: changing it afterwards changes nothing.
	k := mustKey(t, 5, t0)
	ring.Replace([]Key{k})
	tok, _ = ring.Seal(gatewayCaller())
	clear(k.Secret)
	if _, err := ring.Open(tok, t0); err != nil {
		t.Errorf("after the caller cleared the secret: %v", err)
	}
}

func TestNoKeys(t *testing.T) {
	var zero Keyring
	if _, err := zero.Seal(gatewayCaller()); err != ErrNoActiveKey {
		t.Errorf("zero Keyring: got %v", err)
	}
	if zero.Len() != 0 || zero.Has(0) {
		t.Error("zero Keyring has keys")
	}
	if _, err := NewKeyring(nil).Seal(gatewayCaller()); err != ErrNoActiveKey {
		t.Errorf("empty Keyring: got %v", err)
	}
	if _, err := NewKeyring([]Key{mustKey(t, 1, t0)}).Seal(nil); err == nil {
		t.Error("sealed a nil caller")
	}
}

func TestSealTooLarge(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	c := gatewayCaller()
	c.Subject = strings.Repeat("x", maxTokenLen)
	if _, err := ring.Seal(c); err == nil {
		t.Error("sealed a token longer than Open accepts")
	}
	c.Subject = strings.Repeat("x", 2000)
	tok, err := ring.Seal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.Open(tok, t0); err != nil {
		t.Error(err)
	}
}

func TestDecodeRejects(t *testing.T) {
	valid := appendCaller(nil, fullCaller())
	for i := range len(valid) {
		if _, err := decodeCaller(valid[:i]); err == nil {
			t.Errorf("decoded a prefix of %d of %d bytes", i, len(valid))
		}
	}
	if _, err := decodeCaller(append(valid, 0)); err == nil {
		t.Error("decoded trailing bytes")
	}
	// A list count far beyond the input must fail without allocating it.
	huge := appendString(nil, "s")
	huge = append(huge, 0, 0, 1, 2)                   // OrgID, BusinessID, env production, kind
	huge = append(huge, 0xff, 0xff, 0xff, 0xff, 0x0f) // roles count 2³²-1
	if _, err := decodeCaller(huge); err == nil {
		t.Error("decoded a huge roles count")
	}
}

func TestConcurrentRotation(t *testing.T) {
	ring := NewKeyring([]Key{mustKey(t, 1, t0)})
	var (
		mu   sync.Mutex
		keys = []Key{mustKey(t, 1, t0)}
	)
	ring.Replace(keys)

	stop := make(chan struct{})
	var rotator sync.WaitGroup
	rotator.Go(func() {
		for id := uint32(2); ; id++ {
			select {
			case <-stop:
				return
			default:
			}
			mu.Lock()
			for i := range keys {
				if keys[i].Active() {
					keys[i].RetiredAt = t0
				}
			}
			keys = append(keys, mustKey(t, id, t0.Add(time.Duration(id)*time.Second)))
			ring.Replace(keys)
			mu.Unlock()
			time.Sleep(50 * time.Microsecond)
		}
	})

	var workers sync.WaitGroup
	for range 8 {
		workers.Go(func() {
			c := gatewayCaller()
			for range 500 {
				tok, err := ring.Seal(c)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := ring.Open(tok, t0)
				if err != nil {
					t.Error(err)
					return
				}
				if got.Subject != c.Subject || !ring.Has(keyID(t, tok)) {
					t.Error("wrong caller or key")
					return
				}
				_ = ring.Len()
			}
		})
	}
	workers.Wait()
	close(stop)
	rotator.Wait()
	if ring.Len() < 2 {
		t.Logf("only %d keys: the rotator barely ran", ring.Len())
	}
}

func FuzzOpen(f *testing.F) {
	key := Key{ID: 1, Secret: make([]byte, KeySize), CreatedAt: t0}
	ring := NewKeyring([]Key{key})
	for _, c := range []*parcelgate.Caller{fullCaller(), gatewayCaller(), {}} {
		tok, err := ring.Seal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tok)
	}
	f.Add("")
	f.Add("AQAAAAE")
	f.Add(strings.Repeat("A", 64))
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := ring.Open(tok, t0)
		if (c == nil) == (err == nil) {
			t.Fatalf("Open = %v, %v", c, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidToken) && err != ErrExpiredToken {
			t.Fatalf("unexpected error %v", err)
		}
	})
}

// FuzzDecodeCaller reaches the decoder directly, which FuzzOpen cannot: no
// random input gets past the authentication of the cipher.
func FuzzDecodeCaller(f *testing.F) {
	f.Add(appendCaller(nil, fullCaller()))
	f.Add(appendCaller(nil, gatewayCaller()))
	f.Add(appendCaller(nil, &parcelgate.Caller{}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCaller(b)
		if err != nil {
			return
		}
		again, err := decodeCaller(appendCaller(nil, c))
		if err != nil {
			t.Fatalf("re-encoding of a decoded caller does not decode: %v", err)
		}
		sameCaller(t, again, c)
	})
}

func BenchmarkSeal(b *testing.B) {
	ring := NewKeyring([]Key{mustKey(b, 1, t0)})
	c := gatewayCaller()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ring.Seal(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	ring := NewKeyring([]Key{mustKey(b, 1, t0)})
	tok, err := ring.Seal(gatewayCaller())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ring.Open(tok, t0); err != nil {
			b.Fatal(err)
		}
	}
}

// decisions §26: a token opened once is remembered by the keys' snapshot,
// and a remembered token answers exactly as opening it again would: the
// same caller (a copy of its own each time), the expiry checked at every
// call, nothing for another string whose keyed hash collides, nothing
// after the keys are replaced, and no more than openedMax tokens held.
func TestOpenedTokensAnswerAsOpen(t *testing.T) {
	key := mustKey(t, 1, t0)
	ring := NewKeyring([]Key{key})
	want := fullCaller()
	tok, err := ring.Seal(want)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ring.Open(tok, t0)
	if err != nil {
		t.Fatal(err)
	}
	snap := ring.snap.Load()
	if snap.opened.lookup(maphash.String(snap.opened.seed, tok), tok) == nil {
		t.Fatal("an opened token is not remembered")
	}
	first.Subject, first.OrgID = "changed by a handler", 1
	hit, err := ring.Open(tok, t0)
	if err != nil {
		t.Fatal(err)
	}
	sameCaller(t, hit, want)
	hit.Subject, hit.OrgID = "changed by a handler", 1
	again, err := ring.Open(tok, t0)
	if err != nil {
		t.Fatal(err)
	}
	sameCaller(t, again, want)
	if _, err := ring.Open(tok, want.ExpiresAt); err != ErrExpiredToken {
		t.Errorf("remembered token at its expiry: got %v, want ErrExpiredToken", err)
	}

	// Another token filed under tok's hash is not tok.
	other, _ := ring.Seal(gatewayCaller())
	h := maphash.String(snap.opened.seed, tok)
	snap.opened.m.Store(h, &openedToken{token: other, caller: *gatewayCaller()})
	got, err := ring.Open(tok, t0)
	if err != nil {
		t.Fatal(err)
	}
	sameCaller(t, got, want)

	// New keys, no memory: a removed key's token no longer opens.
	ring.Replace([]Key{mustKey(t, 2, t0)})
	if _, err := ring.Open(tok, t0); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("after the key's removal: got %v, want ErrUnknownKey", err)
	}

	ring.Replace([]Key{key})
	for i := range openedMax + 10 {
		c := gatewayCaller()
		c.OrgID = int64(i)
		tok, _ := ring.Seal(c)
		if got, err := ring.Open(tok, t0); err != nil || got.OrgID != int64(i) {
			t.Fatalf("token %d: %v %v", i, got, err)
		}
	}
	held := 0
	ring.snap.Load().opened.m.Range(func(any, any) bool { held++; return true })
	if held > openedMax {
		t.Errorf("%d tokens held, over %d", held, openedMax)
	}
}
