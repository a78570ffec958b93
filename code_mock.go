package parcelgate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Mock sending codes (decisions §39): the provider's Sending Code API
// answers a request with the header `x-test-environment: true` with mock
// data, on its production host too — a shop's client uses it to try its
// code flow without a shipment. parcelgate answers such a request from
// these functions alone: nothing is read from or written to the store, so
// the same request always gets the same answer and no code is taken from
// the environment's code space.

// MockSendingCode is the mock sending code of tracking number tn
// (normalized): 6 characters of 0-9 and A-F, as real codes are, taken from
// a hash of the number, so the same number always gets the same code.
func MockSendingCode(tn string) string {
	sum := sha256.Sum256([]byte("parcelgate mock sending code\x00" + tn))
	return strings.ToUpper(hex.EncodeToString(sum[:3]))
}

// MockTrackingNumber is the tracking number a mock lookup of sending code
// code (normalized) answers: a domestic number (JJFI and 17 digits) taken
// from a hash of the code. A mock code names no shipment, so the lookup
// cannot give back the number a mock code was made for; it answers one of
// its own, always the same for the same code.
func MockTrackingNumber(code string) string {
	sum := sha256.Sum256([]byte("parcelgate mock tracking number\x00" + code))
	n := binary.BigEndian.Uint64(sum[:8]) % 100_000_000_000_000_000
	s := strconv.FormatUint(n, 10)
	return "JJFI" + strings.Repeat("0", 17-len(s)) + s
}

// MockCodeTimes are the created and expiry times of a mock code asked at
// now: the start of now's day (UTC) and DefaultCodeRetention after it, so
// an answer is the same all day and its code never looks expired.
func MockCodeTimes(now time.Time) (created, expires time.Time) {
	created = now.UTC().Truncate(24 * time.Hour)
	return created, created.Add(DefaultCodeRetention)
}
