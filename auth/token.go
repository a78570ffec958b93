package auth

import (
	"cmp"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parcelgate/parcelgate"
)

// KeySize is the length in bytes of a key's secret: AES-256.
const KeySize = 32

// Errors returned by [Keyring.Open] and [Keyring.Seal].
var (
	// ErrInvalidToken means the token was not sealed by us or was altered:
	// it is malformed, truncated, tampered with, or sealed with a key we do
	// not know.
	ErrInvalidToken = errors.New("auth: invalid token")

	// ErrUnknownKey means the token names a key that is not in the ring. It
	// is also an ErrInvalidToken; it is told apart so that the caller may
	// reload the keys, because another instance may have rotated them.
	ErrUnknownKey = fmt.Errorf("%w: unknown key", ErrInvalidToken)

	// ErrExpiredToken means the token was sealed by us, but its time is up.
	ErrExpiredToken = errors.New("auth: expired token")

	// ErrNoActiveKey means the ring has no key to seal with: every key is
	// retired, or there are none.
	ErrNoActiveKey = errors.New("auth: no active key")
)

const (
	// tokenFormat is the first byte of every token. A change of layout or of
	// the encoding of the caller gets a new value, so that a token of the old
	// form is refused rather than misread.
	tokenFormat = 1

	headerLen = 1 + 4 // format, key ID
	nonceLen  = 12    // the standard GCM nonce
	tagLen    = 16    // the standard GCM tag
	minRawLen = headerLen + nonceLen + tagLen

	// maxTokenLen bounds the work Open does for an arbitrary input. A caller
	// with a handful of roles and version grants seals to 100–200 characters.
	maxTokenLen = 4096
)

// tokenEncoding is strict so that each token has exactly one spelling:
// non-zero trailing bits are refused rather than ignored.
var tokenEncoding = base64.RawURLEncoding.Strict()

// Key is one token sealing key as stored in the database.
type Key struct {
	ID        uint32
	Secret    []byte // KeySize bytes
	CreatedAt time.Time
	RetiredAt time.Time // the zero time while the key is active
}

// Active reports whether k may seal new tokens.
func (k Key) Active() bool { return k.RetiredAt.IsZero() }

// GenerateKey returns a new active key with a random secret.
func GenerateKey(id uint32, now time.Time) (Key, error) {
	secret := make([]byte, KeySize)
	if _, err := rand.Read(secret); err != nil {
		return Key{}, fmt.Errorf("auth: generate key: %w", err)
	}
	return Key{ID: id, Secret: secret, CreatedAt: now}, nil
}

// A Keyring seals and opens tokens with a set of keys. It is safe for
// concurrent use. The keys are held in an immutable snapshot that
// [Keyring.Replace] swaps atomically, so Seal and Open take no lock. The
// zero Keyring has no keys.
type Keyring struct {
	snap atomic.Pointer[snapshot]
}

// snapshot is the state of a Keyring between two calls of Replace. Its
// keys are never modified once published.
type snapshot struct {
	keys   []ringKey // sorted by ID
	active *ringKey  // nil when no key is active
	// opened is the one part that changes: the tokens opened with these
	// keys (see openedTokens).
	opened openedTokens
}

// openedTokens remembers the tokens a snapshot has opened, so a client
// sending the same token with every request does not have it decoded,
// decrypted and authenticated every time: about a tenth of the server's
// own CPU time on a small read. What is remembered is exactly what Open
// returned for the same string with the same keys, so a hit answers as
// Open would have: only a token that opened (authentic, readable) is
// remembered; a token is one exact string, and the same string opens to
// the same caller under the same keys; the expiry is checked again on
// every hit; and the memory belongs to the snapshot, so Replace (a key
// retired, removed or added) starts with none. Entries are found by a
// keyed hash of the token (maphash, a random seed per snapshot) and
// confirmed by comparing the whole token: a client cannot choose a string
// that reaches the comparison with another client's token. At most
// openedMax tokens are held; past it the memory is emptied and fills
// again.
type openedTokens struct {
	seed maphash.Seed
	m    sync.Map // uint64 → *openedToken
	n    atomic.Int64
}

type openedToken struct {
	token  string
	caller parcelgate.Caller
}

// openedMax bounds the tokens a snapshot remembers: a few hundred bytes
// each.
const openedMax = 4096

// lookup returns a copy of the caller token opened to, or nil.
func (o *openedTokens) lookup(h uint64, token string) *parcelgate.Caller {
	v, ok := o.m.Load(h)
	if !ok {
		return nil
	}
	t := v.(*openedToken)
	if t.token != token {
		return nil
	}
	// A copy, so a caller changing its own does not change the next
	// request's; Roles and Versions are shared and never written.
	c := t.caller
	return &c
}

func (o *openedTokens) remember(h uint64, token string, c *parcelgate.Caller) {
	if o.n.Add(1) > openedMax {
		o.m.Clear()
		o.n.Store(1)
	}
	o.m.Store(h, &openedToken{token: strings.Clone(token), caller: *c})
}

// ringKey is a key ready for use. The AEAD is built once here, because
// expanding the AES key schedule on every call would dominate Open.
type ringKey struct {
	id        uint32
	createdAt time.Time
	active    bool
	aead      cipher.AEAD
}

// NewKeyring returns a Keyring holding keys; see [Keyring.Replace].
func NewKeyring(keys []Key) *Keyring {
	k := new(Keyring)
	k.Replace(keys)
	return k
}

// Replace makes keys the keys of the ring. Tokens sealed with a key that is
// not among them no longer open, so keep a retired key until every token it
// sealed has expired.
//
// Keys whose secret is not [KeySize] bytes long are left out (Has reports
// false for them) rather than failing the whole reload because of one bad
// row. Of several keys with the same ID the last one is kept.
func (k *Keyring) Replace(keys []Key) {
	s := &snapshot{keys: make([]ringKey, 0, len(keys))}
	s.opened.seed = maphash.MakeSeed()
	for _, key := range keys {
		if len(key.Secret) != KeySize {
			continue
		}
		block, err := aes.NewCipher(key.Secret)
		if err != nil {
			continue
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			continue
		}
		s.keys = append(s.keys, ringKey{
			id:        key.ID,
			createdAt: key.CreatedAt,
			active:    key.Active(),
			aead:      aead,
		})
	}
	// A stable sort keeps duplicates in input order, so the last of them
	// survives the compaction below.
	slices.SortStableFunc(s.keys, func(a, b ringKey) int { return cmp.Compare(a.id, b.id) })
	s.keys = compactLast(s.keys)
	for i := range s.keys {
		rk := &s.keys[i]
		if !rk.active {
			continue
		}
		if a := s.active; a == nil || rk.createdAt.After(a.createdAt) ||
			(rk.createdAt.Equal(a.createdAt) && rk.id > a.id) {
			s.active = rk
		}
	}
	k.snap.Store(s)
}

// compactLast drops all but the last of each run of keys with equal IDs.
func compactLast(keys []ringKey) []ringKey {
	out := keys[:0]
	for i, rk := range keys {
		if i+1 < len(keys) && keys[i+1].id == rk.id {
			continue
		}
		out = append(out, rk)
	}
	return out
}

func (s *snapshot) find(id uint32) *ringKey {
	if s == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(s.keys, id, func(rk ringKey, id uint32) int { return cmp.Compare(rk.id, id) })
	if !ok {
		return nil
	}
	return &s.keys[i]
}

// Has reports whether the ring holds the key with the given ID, so that a
// caller that got [ErrUnknownKey] can tell whether a reload found it.
func (k *Keyring) Has(id uint32) bool { return k.snap.Load().find(id) != nil }

// Len returns the number of keys in the ring, retired ones included.
func (k *Keyring) Len() int {
	s := k.snap.Load()
	if s == nil {
		return 0
	}
	return len(s.keys)
}

// Seal returns a token carrying c, sealed with the newest active key: the
// one created last, and of those created at the same time the one with the
// highest ID. It fails with [ErrNoActiveKey] when there is none.
func (k *Keyring) Seal(c *parcelgate.Caller) (string, error) {
	if c == nil {
		return "", errors.New("auth: seal nil caller")
	}
	s := k.snap.Load()
	if s == nil || s.active == nil {
		return "", ErrNoActiveKey
	}
	key := s.active

	// The caller is encoded straight into the token buffer after the header
	// and the nonce, and encrypted in place.
	raw := make([]byte, headerLen+nonceLen, minRawLen+callerSizeHint(c))
	raw[0] = tokenFormat
	binary.BigEndian.PutUint32(raw[1:headerLen], key.id)
	if _, err := rand.Read(raw[headerLen : headerLen+nonceLen]); err != nil {
		return "", fmt.Errorf("auth: seal: %w", err)
	}
	raw = appendCaller(raw, c)
	if tokenEncoding.EncodedLen(len(raw)+tagLen) > maxTokenLen {
		return "", errors.New("auth: seal: caller too large for a token")
	}
	body := raw[headerLen+nonceLen:]
	raw = key.aead.Seal(raw[:headerLen+nonceLen], raw[headerLen:headerLen+nonceLen], body, raw[:headerLen])
	return tokenEncoding.EncodeToString(raw), nil
}

// Open returns the caller carried by token. It fails with [ErrInvalidToken]
// unless token was sealed by a key of the ring and is unaltered; with
// [ErrUnknownKey], which is also an ErrInvalidToken, when the key is not in
// the ring; and with [ErrExpiredToken] when now is not before the token's
// ExpiresAt (the zero now skips that check, for a caller that checks expiry
// with a clock of its own). Retired keys still open their tokens.
func (k *Keyring) Open(token string, now time.Time) (*parcelgate.Caller, error) {
	if len(token) < tokenEncoding.EncodedLen(minRawLen) || len(token) > maxTokenLen {
		return nil, ErrInvalidToken
	}
	// The decoder skips line breaks; refuse them so that a token has one
	// spelling only.
	if strings.ContainsAny(token, "\r\n") {
		return nil, ErrInvalidToken
	}
	snap := k.snap.Load()
	var h uint64
	if snap != nil {
		h = maphash.String(snap.opened.seed, token)
		if c := snap.opened.lookup(h, token); c != nil {
			if !now.Before(c.ExpiresAt) {
				return nil, ErrExpiredToken
			}
			return c, nil
		}
	}
	raw := make([]byte, tokenEncoding.DecodedLen(len(token)))
	n, err := tokenEncoding.Decode(raw, []byte(token))
	if err != nil || n < minRawLen {
		return nil, ErrInvalidToken
	}
	raw = raw[:n]
	if raw[0] != tokenFormat {
		return nil, ErrInvalidToken
	}
	key := snap.find(binary.BigEndian.Uint32(raw[1:headerLen]))
	if key == nil {
		return nil, ErrUnknownKey
	}
	sealed := raw[headerLen+nonceLen:]
	plain, err := key.aead.Open(sealed[:0], raw[headerLen:headerLen+nonceLen], sealed, raw[:headerLen])
	if err != nil {
		return nil, ErrInvalidToken
	}
	c, err := decodeCaller(plain)
	if err != nil {
		// Authentic but unreadable: only a bug of ours gets here.
		return nil, ErrInvalidToken
	}
	snap.opened.remember(h, token, c)
	if !now.Before(c.ExpiresAt) {
		return nil, ErrExpiredToken
	}
	return c, nil
}
