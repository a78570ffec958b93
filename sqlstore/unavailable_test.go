package sqlstore

import (
	"testing"
	"time"
)

// A PostgreSQL connection takes at most the connect timeout to open; the
// DSN's own connect_timeout wins, and PostgreSQL counts whole seconds.
func TestWithConnectTimeout(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		d    time.Duration
		want string
	}{
		{"postgres://u@h:5432/db?sslmode=disable", 5 * time.Second, "postgres://u@h:5432/db?connect_timeout=5&sslmode=disable"},
		{"postgres://u@h/db", 1500 * time.Millisecond, "postgres://u@h/db?connect_timeout=2"},
		{"postgres://u@h/db?connect_timeout=30", time.Second, "postgres://u@h/db?connect_timeout=30"},
		{"postgres://u@h/db", 0, "postgres://u@h/db"},
	} {
		got, err := withConnectTimeout(c.dsn, c.d)
		if err != nil || got != c.want {
			t.Errorf("withConnectTimeout(%q, %s) = %q, %v; want %q", c.dsn, c.d, got, err, c.want)
		}
	}
}
