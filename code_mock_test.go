package parcelgate

import (
	"testing"
	"time"
)

// decisions §39: mock sending codes are real codes' form (interface §2.1),
// the same for the same input, different for different inputs; a mock
// lookup's tracking number is a valid domestic number; mock times are the
// day's start and the retention after it.
func TestMockCodes(t *testing.T) {
	seen := map[string]string{}
	for _, tn := range []string{"JJFI00000000000000001", "JJFI00000000000000002", "CP123456785FI", "ABCD"} {
		c := MockSendingCode(tn)
		if !ValidCode(c) || MockSendingCode(tn) != c {
			t.Errorf("%s: mock code %q", tn, c)
		}
		if other, ok := seen[c]; ok {
			t.Errorf("%s and %s share mock code %s", tn, other, c)
		}
		seen[c] = tn
		n := MockTrackingNumber(c)
		if !ValidTrackingNumber(n) || len(n) != 21 || n[:4] != "JJFI" || MockTrackingNumber(c) != n {
			t.Errorf("%s: mock tracking number %q", c, n)
		}
	}
	created, expires := MockCodeTimes(time.Date(2026, 3, 13, 22, 30, 0, 0, time.FixedZone("EET", 2*3600)))
	if !created.Equal(time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC)) || expires.Sub(created) != DefaultCodeRetention {
		t.Errorf("mock times %v %v", created, expires)
	}
}
