package sqlstore

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// PostgreSQL writes a WAL position as two hex halves, "HI/LO".
func TestParseLSN(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0/0", 0, true},
		{"0/16B3748", 0x16B3748, true},
		{"1/0", 1 << 32, true},
		{"FFFFFFFF/FFFFFFFF", 1<<64 - 1, true},
		{"16B3748", 0, false},
		{"0/XYZ", 0, false},
		{"100000000/0", 0, false},
		{"", 0, false},
	} {
		got, ok := parseLSN(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseLSN(%q) = %x, %v; want %x, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// decisions §20, lag: how long ago the primary was last at a position the
// replica has not replayed; zero once it has replayed the newest sample,
// however long ago that was taken (an idle primary is no lag).
func TestReplicaLag(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rs := &replicaSet{maxLag: time.Second}
	if got, known := rs.lagOf(0, t0); got != 0 || known {
		t.Fatalf("no samples yet: lag %s, known %v", got, known)
	}
	rs.addSample(lsnSample{t0, 100})
	rs.addSample(lsnSample{t0.Add(100 * time.Millisecond), 200})
	rs.addSample(lsnSample{t0.Add(200 * time.Millisecond), 300})
	now := t0.Add(time.Hour)
	for _, c := range []struct {
		replayed uint64
		want     time.Duration
	}{
		{300, 0},                                // caught up with the newest sample
		{400, 0},                                // past it
		{250, time.Hour - 200*time.Millisecond}, // behind since the primary reached 300
		{200, time.Hour - 200*time.Millisecond},
		{150, time.Hour - 100*time.Millisecond},
		{50, time.Hour}, // behind every sample: at least the oldest's age
	} {
		if got, _ := rs.lagOf(c.replayed, now); got != c.want {
			t.Errorf("replayed %d: lag %s, want %s", c.replayed, got, c.want)
		}
	}
	// Old samples are dropped past twice the limit (and a second).
	rs.addSample(lsnSample{t0.Add(time.Hour), 400})
	if len(rs.samples) != 1 {
		t.Fatalf("%d samples kept", len(rs.samples))
	}
}

// The pooler mode names pgx's cache_describe unless the URL chose a mode.
func TestPoolerMode(t *testing.T) {
	got, err := withPoolerMode("postgres://u@h/db?sslmode=disable")
	if err != nil || got != "postgres://u@h/db?default_query_exec_mode=cache_describe&sslmode=disable" {
		t.Fatalf("%s %v", got, err)
	}
	got, _ = withPoolerMode("postgres://u@h/db?default_query_exec_mode=exec")
	if got != "postgres://u@h/db?default_query_exec_mode=exec" {
		t.Fatalf("a chosen mode was replaced: %s", got)
	}
}

// Review of decisions §20, lag: a replica that has replayed none of the
// samples kept is not within the limit, however young the oldest sample.
// Just after the monitor starts the only sample is milliseconds old, and a
// replica hours behind was taken as lagging by those milliseconds, so it
// served reads (of data its readers did not write, which no floor guards)
// for up to --db-replica-max-lag.
func TestReplicaBehindEverySampleIsNotUsable(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rs := &replicaSet{maxLag: 5 * time.Second}
	if _, ok := rs.withinLimit(0, t0); ok {
		t.Fatal("usable before the primary was ever sampled")
	}
	rs.addSample(lsnSample{t0, 1 << 40}) // the monitor's first sample
	now := t0.Add(10 * time.Millisecond)
	if lag, ok := rs.withinLimit(1<<20, now); ok {
		t.Fatalf("a replica that has replayed none of the primary's samples is usable (lag %s)", lag)
	}
	if lag, ok := rs.withinLimit(1<<40, now); !ok || lag != 0 {
		t.Fatalf("a replica at the primary's position: lag %s, usable %v", lag, ok)
	}
	rs.addSample(lsnSample{t0.Add(time.Second), 1<<40 + 100})
	if lag, ok := rs.withinLimit(1<<40, t0.Add(1100*time.Millisecond)); !ok || lag != 100*time.Millisecond {
		t.Fatalf("a replica one sample behind: lag %s, usable %v", lag, ok)
	}
}

// Review of decisions §20, read-your-writes: a replica seen down forgets
// the replay position seen before. A standby that crashes replays again
// from its last restartpoint and takes reads once consistent, possibly
// short of what it had replayed; trusting the old position, pick would
// send a read whose floor it had not replayed yet to it.
func TestReplicaSeenDownForgetsItsReplayPosition(t *testing.T) {
	pool, err := sql.Open("pgx", "postgres://postgres@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rs := &replicaSet{maxLag: time.Second}
	r := &replica{name: "127.0.0.1:1", pool: pool}
	rs.list = []*replica{r}
	r.advance(1 << 40)
	r.set("ok", true)
	rs.checkReplica(context.Background(), r)
	if st := rs.status()[0].State; st != "down" {
		t.Fatalf("an unreachable replica is %q", st)
	}
	if got := r.replayed.Load(); got != 0 {
		t.Fatalf("the replica, down, still counts as having replayed %x", got)
	}
	r.advance(1 << 40)
	r.markDown() // a read failed there
	if got := r.replayed.Load(); got != 0 {
		t.Fatalf("marked down by a failed read, the replica still counts as having replayed %x", got)
	}
}
