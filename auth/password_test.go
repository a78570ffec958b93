package auth

import (
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

func TestPasswordRoundTrip(t *testing.T) {
	for _, pw := range []string{"correct horse battery staple", "", "пароль✓", strings.Repeat("x", 1000)} {
		h, err := HashPassword(pw)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(h) {
			t.Errorf("hash %q is not in the expected PHC form", h)
		}
		if !CheckPassword(h, pw) {
			t.Errorf("%.20q does not match its own hash", pw)
		}
		for _, wrong := range []string{pw + "x", strings.ToUpper(pw) + "!", "x"} {
			if CheckPassword(h, wrong) {
				t.Errorf("%.20q matches the hash of %.20q", wrong, pw)
			}
		}
	}
}

func TestPasswordSalted(t *testing.T) {
	a, _ := HashPassword("same")
	b, _ := HashPassword("same")
	if a == b {
		t.Error("two hashes of one password are equal")
	}
}

func TestCheckPasswordOtherParameters(t *testing.T) {
	// A hash made with other parameters, as before they were raised, checks
	// with its own. The vector is one of golang.org/x/crypto/argon2's:
	// argon2id, "password", salt "somesalt", t=3, m=256 KiB, p=2, 24 bytes.
	key, _ := hex.DecodeString("4668d30ac4187e6878eedeacf0fd83c5a0a30db2cc16ef0b")
	salt := phcEncoding.EncodeToString([]byte("somesalt"))
	h := "$argon2id$v=19$m=256,t=3,p=2$" + salt + "$" + phcEncoding.EncodeToString(key)
	if !CheckPassword(h, "password") {
		t.Errorf("the reference hash %s does not check", h)
	}
	if CheckPassword(h, "Password") {
		t.Error("a wrong password checks")
	}
	for _, other := range []string{"m=256,t=2,p=2", "m=512,t=3,p=2", "m=256,t=3,p=1"} {
		if CheckPassword(strings.Replace(h, "m=256,t=3,p=2", other, 1), "password") {
			t.Errorf("checks under %s too: parameters are not read from the hash", other)
		}
	}
}

func TestCheckPasswordMalformed(t *testing.T) {
	good, err := HashPassword("pw")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	with := func(head string) string { return head + "$" + salt + "$" + key }
	for _, h := range []string{
		"",
		"$",
		"pw",
		"$$$$$",
		strings.TrimPrefix(good, "$"),
		good + "$",
		good + "=",
		good[:len(good)-1],
		strings.Replace(good, "argon2id", "argon2i", 1),
		strings.Replace(good, "argon2id", "ARGON2ID", 1),
		strings.Replace(good, "$v=19", "", 1),
		strings.Replace(good, "v=19", "v=16", 1),
		with("$argon2id$v=19$m=19456,t=2"),
		with("$argon2id$v=19$m=19456,t=2,p=1,x=1"),
		with("$argon2id$v=19$t=2,m=19456,p=1"),
		with("$argon2id$v=19$m=19456,t=0,p=1"),
		with("$argon2id$v=19$m=19456,t=2,p=0"),
		with("$argon2id$v=19$m=0,t=2,p=1"),
		with("$argon2id$v=19$m=7,t=1,p=1"),
		with("$argon2id$v=19$m=-1,t=2,p=1"),
		with("$argon2id$v=19$m=+19456,t=2,p=1"),
		with("$argon2id$v=19$m=019456,t=2,p=1"),
		with("$argon2id$v=19$m=19456,t=2,p=256"),
		with("$argon2id$v=19$m=4294967296,t=2,p=1"),
		with("$argon2id$v=19$m=4194304,t=2,p=1"), // 4 GiB: over the ceiling
		with("$argon2id$v=19$m=19456,t=1000,p=1"),
		with("$argon2id$v=19$m=19456,t=,p=1"),
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$",
		"$argon2id$v=19$m=19456,t=2,p=1$$" + key,
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key + "==",
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key[:10] + "-" + key[11:], // not the standard alphabet
		"$argon2id$v=19$m=19456,t=2,p=1$AAAA$" + key,                               // salt too short
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$AAAA",
	} {
		if CheckPassword(h, "pw") {
			t.Errorf("CheckPassword(%q) = true", h)
		}
	}
	if !CheckPassword(good, "pw") {
		t.Error("the unaltered hash does not check")
	}
}

func TestDummyHash(t *testing.T) {
	h := DummyHash()
	if h != DummyHash() {
		t.Error("DummyHash changes between calls")
	}
	if _, ok := parsePHC(h); !ok || !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("DummyHash %q does not use the current parameters", h)
	}
	for _, pw := range []string{"", "password", "pw"} {
		if CheckPassword(h, pw) {
			t.Errorf("DummyHash matches %q", pw)
		}
	}
}

func TestNewPassword(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		pw := NewPassword()
		if len(pw) != 24 || strings.Trim(pw, passwordAlphabet) != "" {
			t.Fatalf("NewPassword() = %q", pw)
		}
		if seen[pw] {
			t.Fatalf("NewPassword repeated %q", pw)
		}
		seen[pw] = true
	}
}

func BenchmarkHashPassword(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HashPassword("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckPassword(b *testing.B) {
	h, _ := HashPassword("correct horse battery staple")
	b.ReportAllocs()
	for b.Loop() {
		if !CheckPassword(h, "correct horse battery staple") {
			b.Fatal("no match")
		}
	}
}
