package sqlstore

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// A URL of several hosts: the host that last gave a connection is tried
// first (a lost primary that hangs is not tried before the new one at
// every connection), the others after it in the URL's order, each with a
// share of the connect timeout.
func TestHostOrderTriesTheLastPrimaryFirst(t *testing.T) {
	cfg, err := pgx.ParseConfig("postgres://u@127.0.0.2:5001,127.0.0.3:5002,127.0.0.4:5003/db?sslmode=disable&target_session_attrs=read-write&connect_timeout=3")
	if err != nil {
		t.Fatal(err)
	}
	order := func(c *pgx.ConnConfig) []string {
		out := []string{c.Host}
		for _, f := range c.Fallbacks {
			out = append(out, f.Host)
		}
		return out
	}
	h := new(hostOrder)
	c := *cfg
	h.before(context.Background(), &c)
	if got := order(&c); got[0] != "127.0.0.2" || len(got) != 3 {
		t.Fatalf("before any connection: %v, want the URL's order", got)
	}
	h.last = "127.0.0.3:5002"
	c = *cfg
	h.before(context.Background(), &c)
	if got := order(&c); got[0] != "127.0.0.3" || got[1] != "127.0.0.2" || got[2] != "127.0.0.4" || c.Port != 5002 {
		t.Fatalf("after a connection to the second host: %v port %d, want it first, then the URL's order", got, c.Port)
	}
	if order(cfg)[0] != "127.0.0.2" {
		t.Fatal("the pool's own configuration was changed")
	}

}
