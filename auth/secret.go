package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
)

// clientIDAlphabet is lowercase base32 (RFC 4648 letters and 2–7): easy to
// read out and to type, and the same in any case-folding system.
const clientIDAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// NewClientID returns a random gateway client ID: "pg_" and 20 lowercase
// base32 characters (100 bits). The ID is public; its randomness only keeps
// IDs from colliding and from being enumerated.
func NewClientID() string {
	return "pg_" + randomString(20, clientIDAlphabet)
}

// clientSecretLen is 32 bytes: 256 bits.
const clientSecretLen = 32

// NewClientSecret returns a random gateway client secret of 256 bits,
// unpadded base64url (43 characters). It is shown to the client once and
// stored only as [HashSecret].
func NewClientSecret() string {
	b := make([]byte, clientSecretLen)
	rand.Read(b) // never fails: crypto/rand crashes the program instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret returns the hex SHA-256 of a client secret, the form in which it
// is stored.
//
// A slow hash exists to make guessing expensive: a password comes from a
// space small enough to search, and each guess against a stolen hash should
// cost as much as possible. A secret from [NewClientSecret] is 256 random
// bits; no number of guesses at any speed will find it, so a slow hash would
// add nothing but latency to every token request. A hash is still needed, so
// that a copy of the table does not give away working credentials.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CheckSecret reports whether secret hashes to hash, a value of
// [HashSecret]. The comparison takes constant time.
func CheckSecret(hash, secret string) bool {
	sum := sha256.Sum256([]byte(secret))
	var want [2 * sha256.Size]byte
	hex.Encode(want[:], sum[:])
	return subtle.ConstantTimeCompare([]byte(hash), want[:]) == 1
}
