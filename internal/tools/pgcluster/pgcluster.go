// Package pgcluster starts the real things the replica and pooler tests
// need next to the test PostgreSQL: a streaming replica of it
// (pg_basebackup into a temporary directory, started with the installed
// server binaries on a free port) and a PgBouncer in transaction pooling
// mode in front of it. Both run as the postgres OS user when the tests run
// as root (PostgreSQL and PgBouncer refuse to run as root). What cannot be
// started is reported as an error; callers skip on it, or fail under CI.
package pgcluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Server is a process this package started: a replica or a PgBouncer.
type Server struct {
	Port int
	Dir  string // its temporary directory, removed by Stop
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// Stop ends the process and removes its directory.
func (s *Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		// SIGQUIT: PostgreSQL's immediate shutdown; PgBouncer exits on it.
		s.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	return os.RemoveAll(s.Dir)
}

// Log returns what the process has written, for a failing test's message.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// DSN returns dsn (a postgres:// URL) pointed at this server's port.
func (s *Server) DSN(dsn string) (string, error) {
	return WithPort(dsn, s.Port)
}

// WithPort returns dsn with its host's port replaced.
func WithPort(dsn string, port int) (string, error) {
	u, err := urlParse(dsn)
	if err != nil {
		return "", err
	}
	u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
	return u.String(), nil
}

// Missing is what this machine lacks to start a server, with the one
// command that provides it: skipping tests name it, so a newcomer learns
// how to run them.
type Missing struct {
	Err    error
	Enable string // a shell command
}

func (m *Missing) Error() string { return m.Err.Error() }
func (m *Missing) Unwrap() error { return m.Err }

// Enable returns the command that provides what err says is missing, or
// "" when err is not of a missing thing.
func Enable(err error) string {
	var m *Missing
	if errors.As(err, &m) {
		return m.Enable
	}
	return ""
}

// Bin is where the PostgreSQL server binaries are: PARCELGATE_PG_BIN, else
// the newest /usr/lib/postgresql/*/bin with a postgres in it.
func Bin() (string, error) {
	if b := os.Getenv("PARCELGATE_PG_BIN"); b != "" {
		return b, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i], nil
		}
	}
	return "", &Missing{errors.New("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/postgres; set PARCELGATE_PG_BIN)"), "apt-get install postgresql"}
}

// runAs is the OS user the servers run as: postgres when this process is
// root, else nobody else (nil).
func runAs() (*syscall.Credential, string, error) {
	if os.Geteuid() != 0 {
		return nil, "", nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, "", fmt.Errorf("running as root and there is no postgres user to run the servers as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, u.HomeDir, nil
}

// newDir makes a temporary directory the servers' user owns.
func newDir(prefix string) (string, *syscall.Credential, error) {
	cred, _, err := runAs()
	if err != nil {
		return "", nil, err
	}
	parent := ""
	if cred != nil {
		// Not $TMPDIR: under root's home the postgres user could not reach it.
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", nil, err
		}
	}
	return dir, cred, nil
}

func command(cred *syscall.Credential, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	// Pdeathsig: a test binary that dies without Stop takes its servers
	// with it (SIGQUIT is PostgreSQL's immediate shutdown).
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
	// Not the test's environment: PG* variables there would redirect the
	// tools.
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME=" + dir, "LANG=C.UTF-8"}
	return cmd
}

// FreePort returns a TCP port of 127.0.0.1 nothing listens on.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func writeFile(path, text string, cred *syscall.Credential) error {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	if cred != nil {
		return os.Chown(path, int(cred.Uid), int(cred.Gid))
	}
	return nil
}

// start runs cmd with its output in dir/log and waits until ready
// answers nil (or the process ends, or a minute passes).
func start(s *Server, cmd *exec.Cmd, ready func(ctx context.Context) error) error {
	s.log = filepath.Join(s.Dir, "log")
	f, err := os.Create(s.log)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() { cmd.Wait(); f.Close(); close(s.done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := ready(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%s exited: %s", cmd.Path, s.Log())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after a minute: %v\n%s", cmd.Path, err, s.Log())
		}
	}
}

// ping opens dsn and runs one query.
func ping(ctx context.Context, dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// allowReplication is the command that lets this machine make replication
// connections to the server at dsn: a line in its pg_hba.conf (where the
// server says it is) and a reload.
func allowReplication(dsn string) string {
	hba := "/etc/postgresql/*/main/pg_hba.conf"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if db, err := sql.Open("pgx", dsn); err == nil {
		var f string
		if db.QueryRowContext(ctx, "SHOW hba_file").Scan(&f) == nil {
			hba = f
		}
		db.Close()
	}
	return fmt.Sprintf("echo 'host replication all 127.0.0.1/32 trust' >> %s && psql '%s' -c 'SELECT pg_reload_conf()'", hba, dsn)
}

// StartReplica makes a streaming replica of the PostgreSQL at primaryDSN
// (a postgres:// URL of a superuser; the server must accept a replication
// connection from it) and starts it as a hot standby on a free port.
func StartReplica(primaryDSN string) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	u, err := urlParse(primaryDSN)
	if err != nil {
		return nil, err
	}
	dir, cred, err := newDir("parcelgate-replica-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir}
	data := filepath.Join(dir, "data")
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = "5432"
	}
	userName := u.User.Username()
	if userName == "" {
		userName = "postgres"
	}
	// A copy can fail for a reason of the moment: under load PostgreSQL 15
	// may end the WAL stream of a copy whose temporary slot a concurrent
	// checkpoint did not yet count ("terminating process ... to release
	// replication slot"), and pg_basebackup then removes what it copied.
	// Such a failure is tried again; a refused connection fails the same
	// way every time, so three tries cost little.
	var out []byte
	for try := 1; ; try++ {
		bb := command(cred, dir, filepath.Join(bin, "pg_basebackup"), "-h", host, "-p", port, "-U", userName,
			"-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync")
		if pw, ok := u.User.Password(); ok {
			bb.Env = append(bb.Env, "PGPASSWORD="+pw)
		}
		if out, err = bb.CombinedOutput(); err == nil {
			break
		}
		if try == 3 {
			os.RemoveAll(dir)
			err = fmt.Errorf("pg_basebackup, %d tries (the server needs a replication line in pg_hba.conf, e.g. \"host replication all 127.0.0.1/32 trust\"): %v: %s", try, err, strings.TrimSpace(string(out)))
			if strings.Contains(string(out), "pg_hba.conf") {
				return nil, &Missing{err, allowReplication(primaryDSN)}
			}
			return nil, err
		}
		os.RemoveAll(data)
		time.Sleep(time.Duration(try) * time.Second)
	}
	if s.Port, err = FreePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A Debian cluster keeps its configuration outside the data
	// directory, so the copy has none: the standby gets its own. Its
	// limits must be at least the primary's (max_connections and the
	// others a standby checks).
	conf := fmt.Sprintf(`listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
hot_standby = on
hot_standby_feedback = on
max_connections = 200
max_worker_processes = 16
max_wal_senders = 10
max_locks_per_transaction = 128
max_prepared_transactions = 0
shared_buffers = 32MB
fsync = off
logging_collector = off
`, s.Port, dir)
	if err := writeFile(filepath.Join(data, "postgresql.conf"), conf, cred); err == nil {
		err = writeFile(filepath.Join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n", cred)
		if err == nil {
			err = writeFile(filepath.Join(data, "pg_ident.conf"), "", cred)
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// The primary's settings that a limit check compares.
	if err := matchLimits(primaryDSN, filepath.Join(data, "postgresql.conf"), cred); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	replicaDSN, _ := WithPort(primaryDSN, s.Port)
	cmd := command(cred, dir, filepath.Join(bin, "postgres"), "-D", data)
	err = start(s, cmd, func(ctx context.Context) error { return ping(ctx, replicaDSN) })
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// matchLimits appends to conf the primary's values of the settings a
// standby must not have below the primary's.
func matchLimits(primaryDSN, conf string, cred *syscall.Credential) error {
	db, err := sql.Open("pgx", primaryDSN)
	if err != nil {
		return err
	}
	defer db.Close()
	var b strings.Builder
	for _, name := range []string{"max_connections", "max_worker_processes", "max_wal_senders", "max_locks_per_transaction", "max_prepared_transactions"} {
		var v int
		if err := db.QueryRow("SELECT setting::int FROM pg_settings WHERE name = $1", name).Scan(&v); err != nil {
			return fmt.Errorf("reading the primary's %s: %w", name, err)
		}
		fmt.Fprintf(&b, "%s = %d\n", name, max(v, map[string]int{"max_connections": 200, "max_worker_processes": 16, "max_locks_per_transaction": 128}[name]))
	}
	old, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	return writeFile(conf, string(old)+b.String(), cred)
}

// StartPgBouncer starts a PgBouncer in transaction pooling mode on a free
// port in front of the PostgreSQL at serverDSN: every database name is
// passed through (the "*" entry), any user trusted. Its pgbouncer.ini is
// in Dir.
func StartPgBouncer(serverDSN string) (*Server, error) {
	exe, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr != nil {
			return nil, &Missing{errors.New("pgbouncer is not installed"), "apt-get install pgbouncer"}
		}
		exe = "/usr/sbin/pgbouncer"
	}
	u, err := urlParse(serverDSN)
	if err != nil {
		return nil, err
	}
	dir, cred, err := newDir("parcelgate-pgbouncer-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir}
	if s.Port, err = FreePort(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	ini := Config(u.Hostname(), port, s.Port, filepath.Join(dir, "userlist.txt"))
	if err := writeFile(filepath.Join(dir, "pgbouncer.ini"), ini, cred); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	name := u.User.Username()
	if name == "" {
		name = "postgres"
	}
	if err := writeFile(filepath.Join(dir, "userlist.txt"), fmt.Sprintf("%q \"\"\n", name), cred); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	dsn, _ := WithPort(serverDSN, s.Port)
	cmd := command(cred, dir, exe, filepath.Join(dir, "pgbouncer.ini"))
	if err := start(s, cmd, func(ctx context.Context) error { return ping(ctx, dsn) }); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Config is the pgbouncer.ini the tests run: transaction pooling in front
// of the server at host:port, listening on 127.0.0.1:listen. The same
// settings are docs/scaling.md's example.
func Config(host, port string, listen int, userlist string) string {
	return fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
reserve_pool_size = 5
server_reset_query =
autodb_idle_timeout = 60
log_connections = 0
log_disconnections = 0
`, host, port, listen, userlist)
}

func urlParse(dsn string) (*url.URL, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, errors.New("pgcluster: want a postgres:// URL")
	}
	return u, nil
}

// NewDir makes a temporary directory for servers started with Command:
// owned by the user they run as (postgres when this process is root).
func NewDir(prefix string) (string, *syscall.Credential, error) { return newDir(prefix) }

// Command is a server process to start in dir as cred (from NewDir), in
// a process group of its own that dies with this process, with a clean
// environment (PATH, HOME=dir, LANG) plus env.
func Command(cred *syscall.Credential, dir string, env []string, name string, args ...string) *exec.Cmd {
	cmd := command(cred, dir, name, args...)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
