package parcelgate

import "testing"

// NUL and invalid UTF-8 are refused as text;
// everything else valid UTF-8 is text, whatever the script.
func TestTextProblem(t *testing.T) {
	for s, bad := range map[string]bool{
		"":                                     false,
		"SO-1":                                 false,
		"Maija Meikäläinen":                    false,
		"東京 🚚":                                 false,
		"tab\tand\nnewline":                    false,
		"\x00":                                 true,
		"a\x00b":                               true,
		"\xed\xa0\x80":                         true, // a UTF-16 surrogate written as UTF-8
		"\xc1":                                 true,
		"ok\xffok":                             true,
		"\xc0\x80":                             true, // an overlong NUL
		string([]byte{0xf4, 0x90, 0x80, 0x80}): true, // above U+10FFFF
	} {
		if got := TextProblem(s) != ""; got != bad {
			t.Errorf("TextProblem(%q) = %q, want bad=%v", s, TextProblem(s), bad)
		}
	}
}
