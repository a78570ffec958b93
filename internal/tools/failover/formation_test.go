//go:build !race

// Not under the race detector: the failover tests bound every answer at
// --db-timeout + 1 s, which instrumented servers on a busy machine miss for
// reasons of their own; .ci/run runs them without it.

package failover_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/parcelgate/parcelgate/internal/tools/pgcluster"
	"github.com/parcelgate/parcelgate/internal/tools/tcpproxy"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
)

// The settings that make pg_auto_failover replace a lost primary within
// seconds (its defaults take about 50 s for a lost machine). Each is
// explained in docs/scaling.md, Automatic failover; the tests use them as
// an operator would.
var (
	// On the monitor (ALTER SYSTEM; reloaded).
	monitorSettings = []string{
		"pgautofailover.health_check_period = 1000",               // ms between the monitor's checks of each node
		"pgautofailover.health_check_timeout = 1000",              // ms a check's connection may take
		"pgautofailover.health_check_max_retries = 1",             // retries before a check fails
		"pgautofailover.health_check_retry_delay = 500",           // ms between retries
		"pgautofailover.node_considered_unhealthy_timeout = 2000", // ms without a keeper's report before a failed check counts
		"pgautofailover.primary_demote_timeout = 4000",            // ms the monitor waits for a lost primary to demote itself
	}
	// In each node's keeper configuration (pg_autoctl config set).
	keeperSettings = [][2]string{
		// A primary that reaches neither the monitor nor a standby
		// demotes itself after this many seconds: less than the
		// monitor's primary_demote_timeout, so the old primary stops
		// taking writes before the standby is promoted.
		{"timeout.network_partition_timeout", "2"},
	}
	// On the primary, copied to every standby it makes (ALTER SYSTEM).
	nodeSettings = []string{
		// A walsender whose standby went silent (a partition) ends
		// within 2 s, so a partitioned primary's keeper sees no standby
		// and demotes itself in time; the default is 60 s.
		"wal_sender_timeout = '2s'",
		"wal_receiver_timeout = '2s'",
	}
)

// installCommand installs pg_auto_failover on Debian.
func installCommand(bin string) string {
	v := filepath.Base(filepath.Dir(bin)) // /usr/lib/postgresql/15/bin
	return fmt.Sprintf("apt-get install postgresql-%s-auto-failover pg-auto-failover-cli", v)
}

// unavailable skips t with a NOTE on the terminal, or fails it under CI.
func unavailable(t *testing.T, what string, err error, enable string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s under CI: %v (.ci/run installs it: %s)", what, err, enable)
	}
	testdb.Notice("failover", fmt.Sprintf("%s: %v: the failover tests (internal/tools/failover) are SKIPPED. As root, run: %s", what, err, enable))
	t.Skipf("%s: %v (skipped; as root, run: %s)", what, err, enable)
}

// proc is a pg_autoctl process this test started, in a process group of
// its own with the PostgreSQL it runs.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill ends the whole group at once, as a lost machine ends.
func (p *proc) kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// stop asks pg_autoctl to stop its PostgreSQL, then kills what is left.
func (p *proc) stop() {
	if !p.running() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// node is one PostgreSQL of the formation. It listens on 127.0.0.1:port
// and is known to everyone (the monitor, the other nodes, parcelgate) as
// host:port, a proxy on a loopback address of its own: stalling that proxy
// and its keeper's way to the monitor partitions the node from all.
type node struct {
	name   string
	host   string
	port   int
	pgdata string
	pg     *tcpproxy.Proxy // host:port → 127.0.0.1:port
	mon    *tcpproxy.Proxy // its keeper's way to the monitor
	proc   *proc
}

func (n *node) addr() string { return net.JoinHostPort(n.host, strconv.Itoa(n.port)) }

// direct is a superuser connection to the node itself, not through its
// proxy.
func (n *node) direct(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=2", n.port, db)
}

// formation is a pg_auto_failover monitor and its nodes.
type formation struct {
	t       *testing.T
	dir     string
	bin     string
	autoctl string
	cred    *syscall.Credential
	monPort int
	monitor *proc
	monDB   *sql.DB
	nodes   []*node
	logs    []string
}

// startFormation starts a monitor and a primary with one synchronous
// standby, with the fast settings, and waits until they are in place.
func startFormation(t *testing.T) *formation {
	t.Helper()
	bin, err := pgcluster.Bin()
	if err != nil {
		unavailable(t, "PostgreSQL server binaries", err, pgcluster.Enable(err))
	}
	autoctl, err := exec.LookPath("pg_autoctl")
	if err != nil {
		unavailable(t, "pg_autoctl (pg_auto_failover)", err, installCommand(bin))
	}
	share := strings.Replace(filepath.Dir(bin), "/lib/", "/share/", 1) // /usr/share/postgresql/15
	if _, err := os.Stat(filepath.Join(share, "extension", "pgautofailover.control")); err != nil {
		unavailable(t, "the pgautofailover extension", err, installCommand(bin))
	}
	dir, cred, err := pgcluster.NewDir("parcelgate-failover-")
	if err != nil {
		t.Fatal(err)
	}
	f := &formation{t: t, dir: dir, bin: bin, autoctl: autoctl, cred: cred}
	t.Cleanup(f.close)
	if f.monPort, err = pgcluster.FreePort(); err != nil {
		t.Fatal(err)
	}
	f.run("create monitor", "create", "monitor", "--pgdata", filepath.Join(dir, "monitor"), "--pgport", strconv.Itoa(f.monPort),
		"--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--pgctl", filepath.Join(bin, "pg_ctl"))
	f.monitor = f.start("monitor", "run", "--pgdata", filepath.Join(dir, "monitor"))
	f.monDB, err = sql.Open("pgx", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/pg_auto_failover?sslmode=disable&connect_timeout=2", f.monPort))
	if err != nil {
		t.Fatal(err)
	}
	f.waitSQL(f.monDB, "the monitor")
	for _, s := range monitorSettings {
		f.exec(f.monDB, "ALTER SYSTEM SET "+s)
	}
	f.exec(f.monDB, "SELECT pg_reload_conf()")

	a := f.reserve()
	f.create(a)
	pa := f.open(a.direct("parcelgate"))
	f.waitSQL(pa, a.name)
	for _, s := range nodeSettings {
		f.exec(pa, "ALTER SYSTEM SET "+s)
	}
	f.exec(pa, "SELECT pg_reload_conf()")
	f.create(f.reserve())
	f.waitStable(3 * time.Minute)
	return f
}

// reserve sets a node's address and proxies up, before it exists: a URL
// can name it from the start.
func (f *formation) reserve() *node {
	f.t.Helper()
	i := len(f.nodes)
	port, err := pgcluster.FreePort()
	if err != nil {
		f.t.Fatal(err)
	}
	n := &node{name: fmt.Sprintf("node%d", i+1), host: fmt.Sprintf("127.0.0.%d", i+2), port: port, pgdata: filepath.Join(f.dir, fmt.Sprintf("node%d", i+1))}
	n.pg = tcpproxy.StartAt(f.t, n.addr(), fmt.Sprintf("127.0.0.1:%d", port))
	n.mon = tcpproxy.StartAt(f.t, "127.0.0.1:0", fmt.Sprintf("127.0.0.1:%d", f.monPort))
	f.nodes = append(f.nodes, n)
	return n
}

// create makes the node (the first a primary, the others standbys of the
// primary) and runs it.
func (f *formation) create(n *node) {
	f.t.Helper()
	f.run("create "+n.name, "create", "postgres", "--pgdata", n.pgdata, "--pgport", strconv.Itoa(n.port),
		"--listen", "127.0.0.1", "--hostname", n.host, "--name", n.name, "--dbname", "parcelgate",
		"--monitor", fmt.Sprintf("postgres://autoctl_node@%s/pg_auto_failover?sslmode=disable", n.mon.Addr()),
		"--auth", "trust", "--no-ssl", "--pgctl", filepath.Join(f.bin, "pg_ctl"))
	for _, kv := range keeperSettings {
		f.run("config "+n.name, "config", "set", "--pgdata", n.pgdata, kv[0], kv[1])
	}
	n.proc = f.start(n.name, "run", "--pgdata", n.pgdata)
}

// restart runs a node that was killed again: pg_auto_failover makes it a
// standby of the new primary (pg_rewind, else a new base backup).
func (f *formation) restart(n *node) {
	n.proc = f.start(n.name, "run", "--pgdata", n.pgdata)
}

func (f *formation) env() []string {
	return []string{"PATH=" + f.bin + ":/usr/local/bin:/usr/bin:/bin", "XDG_CONFIG_HOME=" + filepath.Join(f.dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(f.dir, "data"), "XDG_RUNTIME_DIR=" + filepath.Join(f.dir, "run")}
}

// run runs one pg_autoctl command to its end.
func (f *formation) run(what string, args ...string) {
	f.t.Helper()
	cmd := pgcluster.Command(f.cred, f.dir, f.env(), f.autoctl, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			if cmd.Process != nil {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		case <-done:
		}
	}()
	out, err := cmd.CombinedOutput()
	close(done)
	if err != nil {
		f.t.Fatalf("pg_autoctl %s: %v\n%s", what, err, out)
	}
}

// start starts a long-running pg_autoctl command, its output to a log.
func (f *formation) start(name string, args ...string) *proc {
	f.t.Helper()
	log := filepath.Join(f.dir, fmt.Sprintf("%s-%d.log", name, len(f.logs)))
	f.logs = append(f.logs, log)
	out, err := os.Create(log)
	if err != nil {
		f.t.Fatal(err)
	}
	cmd := pgcluster.Command(f.cred, f.dir, f.env(), f.autoctl, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		f.t.Fatalf("pg_autoctl %s: %v", strings.Join(args, " "), err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{}), log: log}
	go func() { cmd.Wait(); out.Close(); close(p.done) }()
	return p
}

func (f *formation) open(dsn string) *sql.DB {
	f.t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { db.Close() })
	return db
}

func (f *formation) exec(db *sql.DB, q string) {
	f.t.Helper()
	if _, err := db.Exec(q); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

func (f *formation) waitSQL(db *sql.DB, what string) {
	f.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := db.Ping()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s does not answer: %v\n%s", what, err, f.tail())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// state is a node's states as the monitor has them.
type state struct{ reported, goal string }

func (f *formation) states() (map[string]state, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	rows, err := f.monDB.QueryContext(ctx, `SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]state{}
	for rows.Next() {
		var name string
		var s state
		if err := rows.Scan(&name, &s.reported, &s.goal); err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, rows.Err()
}

// primary is the node the monitor has as primary (also without a
// standby: wait_primary), or nil.
func (f *formation) primary() *node {
	st, err := f.states()
	if err != nil {
		return nil
	}
	for _, n := range f.nodes {
		s := st[n.name]
		if s.reported == s.goal && (s.goal == "primary" || s.goal == "wait_primary" || s.goal == "single") {
			return n
		}
	}
	return nil
}

// stable reports whether the running nodes are one primary and the rest
// secondaries, each where the monitor wants it.
func (f *formation) stable() bool {
	st, err := f.states()
	if err != nil {
		return false
	}
	primaries, secondaries, running := 0, 0, 0
	for _, n := range f.nodes {
		if n.proc == nil || !n.proc.running() {
			continue
		}
		running++
		s := st[n.name]
		if s.reported != s.goal {
			return false
		}
		switch s.goal {
		case "primary":
			primaries++
		case "secondary":
			secondaries++
		}
	}
	return primaries == 1 && secondaries == running-1
}

// waitStable waits until stable, asking the primary for a checkpoint now
// and then: a standby's base backup waits for one, and a spread checkpoint
// can take minutes.
func (f *formation) waitStable(limit time.Duration) {
	f.t.Helper()
	deadline := time.Now().Add(limit)
	for i := 0; !f.stable(); i++ {
		if time.Now().After(deadline) {
			st, err := f.states()
			f.t.Fatalf("the formation is not one primary and its standbys after %s: %v %v\n%s", limit, st, err, f.tail())
		}
		if i%10 == 5 {
			f.checkpoint()
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (f *formation) checkpoint() {
	st, _ := f.states()
	for _, n := range f.nodes {
		if g := st[n.name].goal; g == "primary" || g == "wait_primary" || g == "single" {
			db, err := sql.Open("pgx", n.direct("postgres"))
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				db.ExecContext(ctx, "CHECKPOINT")
				cancel()
				db.Close()
			}
		}
	}
}

// url is the formation's multi-host URL, as "pg_autoctl show uri" gives
// it: every node, the one that takes writes chosen on connecting.
func (f *formation) url(nodes ...*node) string {
	if len(nodes) == 0 {
		nodes = f.nodes
	}
	var hosts []string
	for _, n := range nodes {
		hosts = append(hosts, n.addr())
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/parcelgate?sslmode=disable&target_session_attrs=read-write"
}

// killPostmaster kills the node's PostgreSQL alone; its keeper lives on.
func (f *formation) killPostmaster(n *node) {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(n.pgdata, "postmaster.pid"))
	if err != nil {
		f.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil {
		f.t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		f.t.Fatal(err)
	}
}

// partition black-holes the node: nobody's bytes reach it or leave it,
// and no connection to it is refused (they hang).
func (f *formation) partition(n *node) { n.pg.Stall(); n.mon.Stall() }

func (f *formation) heal(n *node) { n.pg.Restore(); n.mon.Restore() }

// tail is the end of every log, for a failing test's message.
func (f *formation) tail() string {
	var b strings.Builder
	for _, l := range f.logs {
		data, _ := os.ReadFile(l)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 15 {
			lines = lines[len(lines)-15:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(l), strings.Join(lines, "\n"))
	}
	return b.String()
}

func (f *formation) close() {
	for _, n := range f.nodes {
		if n.proc != nil {
			n.proc.stop()
		}
	}
	if f.monitor != nil {
		f.monitor.stop()
	}
	if f.monDB != nil {
		f.monDB.Close()
	}
	if f.t.Failed() {
		f.t.Logf("formation logs:\n%s", f.tail())
	}
	os.RemoveAll(f.dir)
}
