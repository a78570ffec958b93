package auth

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/parcelgate/parcelgate"
)

// The encoding of a caller, in order. Integers are varints (signed ones
// zigzag), strings a uvarint length and the bytes:
//
//	Subject      string
//	OrgID        varint
//	BusinessID   string
//	Environment  code byte; code 0 is followed by the name as a string
//	Kind         byte
//	Roles        uvarint count, each a code byte; code 0 followed by a string
//	Versions     uvarint count, each Version string, Tier varint
//	IssuedAt     varint Unix seconds, uvarint nanoseconds
//	ExpiresAt    varint Unix seconds, uvarint nanoseconds
//
// The known environments and roles take one byte each. Any other value is
// spelt out, so that every Caller survives the round trip. The codes are
// part of the token format: never renumber them.

const literal = 0 // the code of a value spelt out as a string

var envCodes = [...]parcelgate.Environment{1: parcelgate.Production, 2: parcelgate.Test}

var roleCodes = [...]parcelgate.Role{1: parcelgate.RoleMerchant, 2: parcelgate.RoleSupplier, 3: parcelgate.RoleRetailer}

var errMalformed = errors.New("auth: malformed caller encoding")

// callerSizeHint returns about how many bytes appendCaller writes for c, so
// that Seal allocates its buffer once.
func callerSizeHint(c *parcelgate.Caller) int {
	n := len(c.Subject) + len(c.BusinessID) + 2*len(c.Roles) + 48
	for _, v := range c.Versions {
		n += len(v.Version) + 4
	}
	return n
}

func appendCaller(b []byte, c *parcelgate.Caller) []byte {
	b = appendString(b, c.Subject)
	b = binary.AppendVarint(b, c.OrgID)
	b = appendString(b, c.BusinessID)
	b = appendCoded(b, c.Environment, envCodes[:])
	b = append(b, byte(c.Kind))
	b = binary.AppendUvarint(b, uint64(len(c.Roles)))
	for _, r := range c.Roles {
		b = appendCoded(b, r, roleCodes[:])
	}
	b = binary.AppendUvarint(b, uint64(len(c.Versions)))
	for _, v := range c.Versions {
		b = appendString(b, v.Version)
		b = binary.AppendVarint(b, int64(v.Tier))
	}
	b = appendTime(b, c.IssuedAt)
	b = appendTime(b, c.ExpiresAt)
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendCoded[T ~string](b []byte, v T, codes []T) []byte {
	for code, known := range codes {
		if code != literal && v == known {
			return append(b, byte(code))
		}
	}
	return appendString(append(b, literal), string(v))
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// decoder reads the encoding of a caller. Strings are cut from one copy of
// the whole input, so that decoding a caller allocates that copy once
// rather than once per string.
type decoder struct {
	s   string
	off int
	err error
}

func decodeCaller(b []byte) (*parcelgate.Caller, error) {
	d := decoder{s: string(b)}
	c := new(parcelgate.Caller)
	c.Subject = d.string()
	c.OrgID = d.varint()
	c.BusinessID = d.string()
	c.Environment = decodeCoded(&d, envCodes[:])
	c.Kind = parcelgate.CredentialKind(d.byte())
	// Every role takes at least one byte, so a count beyond what is left is
	// a lie; checking it first keeps a hostile count from allocating.
	if n := d.count(1); n > 0 {
		c.Roles = make([]parcelgate.Role, n)
		for i := range c.Roles {
			c.Roles[i] = decodeCoded(&d, roleCodes[:])
		}
	}
	if n := d.count(2); n > 0 {
		c.Versions = make([]parcelgate.VersionGrant, n)
		for i := range c.Versions {
			c.Versions[i].Version = d.string()
			c.Versions[i].Tier = d.int()
		}
	}
	c.IssuedAt = d.time()
	c.ExpiresAt = d.time()
	if d.err == nil && d.off != len(d.s) {
		d.err = errMalformed
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
}

func (d *decoder) fail() { d.err = errMalformed; d.off = len(d.s) }

func (d *decoder) byte() byte {
	if d.off >= len(d.s) {
		d.fail()
		return 0
	}
	c := d.s[d.off]
	d.off++
	return c
}

// uvarint and varint read at most binary.MaxVarintLen64 bytes, like their
// counterparts in encoding/binary, without converting d.s to a slice.
func (d *decoder) uvarint() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if d.off >= len(d.s) {
			break
		}
		c := d.s[d.off]
		d.off++
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	d.fail()
	return 0
}

func (d *decoder) varint() int64 {
	ux := d.uvarint()
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) int() int {
	x := d.varint()
	if int64(int(x)) != x {
		d.fail()
		return 0
	}
	return int(x)
}

// count reads the length of a list whose elements take at least min bytes.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if n > uint64((len(d.s)-d.off)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) string() string {
	n := d.count(1)
	s := d.s[d.off : d.off+n]
	d.off += n
	return s
}

func (d *decoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 || d.err != nil {
		d.fail()
		return time.Time{}
	}
	// UTC, so that the zero time comes back as the zero time.
	return time.Unix(sec, int64(nsec)).UTC()
}

func decodeCoded[T ~string](d *decoder, codes []T) T {
	code := d.byte()
	switch {
	case code == literal:
		return T(d.string())
	case int(code) < len(codes):
		return codes[code]
	}
	d.fail()
	return ""
}
