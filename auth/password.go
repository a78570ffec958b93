package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// The argon2id parameters of new hashes: OWASP's minimum for argon2id (19 MiB
// of memory, two passes, one lane), which costs some tens of milliseconds.
// Each hash records its own parameters, so raising them later leaves
// existing hashes checkable.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonSaltLen = 16
	argonKeyLen  = 32
)

// Ceilings on the parameters CheckPassword accepts from an encoded hash, so
// that a corrupt or planted row cannot make one login allocate gigabytes or
// run for minutes.
const (
	maxArgonMemory  = 256 * 1024 // KiB
	maxArgonTime    = 16
	maxArgonThreads = 16
	minArgonSaltLen = 8
	maxArgonSaltLen = 64
	minArgonKeyLen  = 16
	maxArgonKeyLen  = 64
)

// phcEncoding is the base64 of the PHC string format: standard alphabet, no
// padding.
var phcEncoding = base64.RawStdEncoding.Strict()

// HashPassword returns the argon2id hash of pw with a random salt, in the PHC
// string format:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads,
		phcEncoding.EncodeToString(salt), phcEncoding.EncodeToString(key)), nil
}

// CheckPassword reports whether pw is the password whose hash is encoded, as
// made by [HashPassword]. The parameters are read from encoded. It reports
// false for an encoded hash that is malformed or whose parameters are out of
// bounds. The hashes are compared in constant time.
func CheckPassword(encoded, pw string) bool {
	h, ok := parsePHC(encoded)
	if !ok {
		return false
	}
	key := argon2.IDKey([]byte(pw), h.salt, h.time, h.memory, h.threads, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(key, h.key) == 1
}

// DummyHash returns the hash of a random password that is then thrown away.
// A login for a user that does not exist checks the offered password against
// it and fails, instead of failing at once: both kinds of failed login then
// take the time of one argon2id hash, so response times do not tell which
// usernames exist. Nothing matches it, as no one knows the password. It is
// computed on first use, since hashing is slow by design.
var DummyHash = sync.OnceValue(func() string {
	h, err := HashPassword(NewPassword())
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return h
})

type phcHash struct {
	memory, time uint32
	threads      uint8
	salt, key    []byte
}

func parsePHC(s string) (phcHash, bool) {
	var h phcHash
	// "", "argon2id", "v=19", "m=…,t=…,p=…", salt, hash
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" ||
		parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return h, false
	}
	params := strings.Split(parts[3], ",")
	if len(params) != 3 {
		return h, false
	}
	m, ok1 := param(params[0], "m=", maxArgonMemory)
	t, ok2 := param(params[1], "t=", maxArgonTime)
	p, ok3 := param(params[2], "p=", maxArgonThreads)
	if !ok1 || !ok2 || !ok3 || t < 1 || p < 1 || m < 8*p {
		return h, false
	}
	salt, err1 := phcEncoding.DecodeString(parts[4])
	key, err2 := phcEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil ||
		len(salt) < minArgonSaltLen || len(salt) > maxArgonSaltLen ||
		len(key) < minArgonKeyLen || len(key) > maxArgonKeyLen {
		return h, false
	}
	return phcHash{memory: m, time: t, threads: uint8(p), salt: salt, key: key}, true
}

// param reads "name=value" with value a decimal of at most max.
func param(s, name string, max uint32) (uint32, bool) {
	v, ok := strings.CutPrefix(s, name)
	if !ok || v == "" || v[0] == '+' || (len(v) > 1 && v[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil || n > uint64(max) {
		return 0, false
	}
	return uint32(n), true
}

// passwordAlphabet is base62: letters and digits, nothing that a shell, a
// URL or a spreadsheet would read as special.
const passwordAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// passwordLen characters of base62 carry about 143 bits.
const passwordLen = 24

// NewPassword returns a random password of 24 letters and digits, for a
// service account created without one.
func NewPassword() string {
	return randomString(passwordLen, passwordAlphabet)
}

// randomString returns n characters drawn uniformly from alphabet, which has
// at most 256 characters. Random bytes that would bias the draw, those at or
// above the largest multiple of len(alphabet), are thrown away.
func randomString(n int, alphabet string) string {
	limit := 256 - 256%len(alphabet)
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/4)
	for len(out) < n {
		rand.Read(buf) // never fails: crypto/rand crashes the program instead
		for _, b := range buf {
			if int(b) < limit {
				out = append(out, alphabet[int(b)%len(alphabet)])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}
