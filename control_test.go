package parcelgate

import "testing"

// decisions §21: every operator control names its environment; production
// only on a --sandbox server; test always.
func TestDecideControl(t *testing.T) {
	for _, tc := range []struct {
		sandbox bool
		env     string
		want    Environment
		code    string
	}{
		{false, "", "", EINVALID},
		{true, "", "", EINVALID},
		{true, "  ", "", EINVALID},
		{false, "staging", "", EINVALID},
		{false, "production", "", EFORBIDDEN},
		{false, "PRODUCTION", "", EFORBIDDEN},
		{true, "production", Production, ""},
		{false, "test", Test, ""},
		{true, "test", Test, ""},
	} {
		for _, c := range []Control{ControlReset, ControlRestore, ControlFault, ControlClock} {
			got, err := DecideControl(tc.sandbox, tc.env, c)
			if got != tc.want || ErrorCode(err) != tc.code {
				t.Errorf("DecideControl(%v, %q, %s) = %q, %v; want %q, code %q", tc.sandbox, tc.env, c, got, err, tc.want, tc.code)
			}
			if tc.code == EINVALID && (err.(*Error).Fields[0].Field != "environment") {
				t.Errorf("%q: the 400 must name environment: %v", tc.env, err)
			}
		}
	}
}
