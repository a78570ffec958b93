package parcelgate_test

import (
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
)

// decisions §3: Finnish business IDs carry the mod-11 check digit over the
// weights 7,9,10,5,8,4,2; remainder 1 is never issued.
func TestNormalizeBusinessID(t *testing.T) {
	valid := map[string]string{
		"1234567-1": "1234567-1", " 0737546-2 ": "0737546-2", "0000000-0": "0000000-0",
		"se5560360793": "SE5560360793", "DE-123": "DE-123", "FI": "FI",
	}
	for in, want := range valid {
		got, err := parcelgate.NormalizeBusinessID(in)
		if err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	// 1000000-? : 7*1 = 7, 11-7 = 4. 1000001-? : 7+2 = 9 → 2. 0000010-? : 4 → 7.
	for in, want := range map[string]bool{"1000000-4": true, "1000000-5": false, "1000001-2": true, "0000010-7": true, "0000010-6": false} {
		_, err := parcelgate.NormalizeBusinessID(in)
		if (err == nil) != want {
			t.Errorf("%q: err %v, want valid=%v", in, err, want)
		}
	}
	// 0000006: 6*2 = 12, remainder 1: no check digit is valid.
	for c := '0'; c <= '9'; c++ {
		if _, err := parcelgate.NormalizeBusinessID("0000006-" + string(c)); err == nil {
			t.Errorf("0000006-%c accepted; remainder 1 is never issued", c)
		}
	}
	for _, in := range []string{"", "1234567", "1234567-", "123456-1", "12345678-1", "X", "1FI", "ÄÖ", strings.Repeat("A", 21)} {
		if _, err := parcelgate.NormalizeBusinessID(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func FuzzNormalizeBusinessID(f *testing.F) {
	for _, s := range []string{"1234567-1", "SE5560360793", "", "0000006-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := parcelgate.NormalizeBusinessID(s)
		if err != nil {
			return
		}
		if len(id) < 2 || len(id) > 20 {
			t.Fatalf("%q normalized to %q", s, id)
		}
		again, err := parcelgate.NormalizeBusinessID(id)
		if err != nil || again != id {
			t.Fatalf("not idempotent: %q → %q → %q %v", s, id, again, err)
		}
	})
}

// Problems carries every field error at once, with array indexes.
func TestProblems(t *testing.T) {
	var p parcelgate.Problems
	if p.Err() != nil {
		t.Fatal("no problems is no error")
	}
	p.Add("a", "is %s", "required")
	p.AddAt(3, "b", "too long")
	err := p.Err()
	fields := parcelgate.ErrorFields(err)
	if parcelgate.ErrorCode(err) != parcelgate.EINVALID || len(fields) != 2 || *fields[1].Index != 3 || fields[0].Message != "is required" {
		t.Fatalf("%v %+v", err, fields)
	}
	if !strings.Contains(parcelgate.ErrorMessage(err), "and 1 more") {
		t.Errorf("message %q", parcelgate.ErrorMessage(err))
	}
}
