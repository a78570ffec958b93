package auth

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

func TestClientID(t *testing.T) {
	re := regexp.MustCompile(`^pg_[a-z2-7]{20}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewClientID()
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("NewClientID() = %q (repeated: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

func TestClientSecret(t *testing.T) {
	s := NewClientSecret()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 32 {
		t.Fatalf("NewClientSecret() = %q: %d bytes, %v", s, len(b), err)
	}
	if NewClientSecret() == s {
		t.Error("two secrets are equal")
	}
}

func TestSecretHash(t *testing.T) {
	// SHA-256("abc"), FIPS 180-2.
	if got := HashSecret("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashSecret(abc) = %s", got)
	}
	s := NewClientSecret()
	h := HashSecret(s)
	if len(h) != 64 || !CheckSecret(h, s) {
		t.Fatalf("secret does not check against its hash %q", h)
	}
	for _, wrong := range []string{"", s[:len(s)-1], s + "x", strings.ToUpper(s), NewClientSecret()} {
		if CheckSecret(h, wrong) {
			t.Errorf("CheckSecret accepts %q", wrong)
		}
	}
	for _, bad := range []string{"", h[:63], h + "0", strings.ToUpper(h), s} {
		if CheckSecret(bad, s) {
			t.Errorf("CheckSecret accepts hash %q", bad)
		}
	}
}
