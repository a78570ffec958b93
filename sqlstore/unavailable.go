package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Unavailable reports whether err says the database could not be reached or
// did not answer in time, rather than that the request or the data was
// wrong: the connection was refused, cut or timed out, the server is
// shutting down or out of connections, the caller's deadline for the
// database passed, SQLite stayed busy past its busy timeout, or SQLite met
// an I/O error (SQLITE_IOERR and its extended codes: the file system
// failed a read, write, lock or mapping). Such a request may succeed when
// tried again; the HTTP layer answers it 503. An I/O error is no fault of
// the request; when it outlasts a retry, the operator reads the cause in
// the log, which keeps the error.
//
// A write that fails this way was not acknowledged, but it may have been
// committed (the commit's answer can be what was lost), so clients retry
// writes that are idempotent by key, as every parcelgate write is.
func (db *DB) Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) || pgconn.Timeout(err) {
		return true
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	if e, ok := errors.AsType[*pgconn.PgError](err); ok {
		// Class 08: connection exception; 57P01-57P03: the server is
		// shutting down, crashed or is starting; 53300: too many
		// connections.
		return strings.HasPrefix(e.Code, "08") || e.Code == "57P01" || e.Code == "57P02" || e.Code == "57P03" || e.Code == "53300"
	}
	if e, ok := errors.AsType[*sqlite.Error](err); ok {
		c := e.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED || c == sqlite3.SQLITE_IOERR
	}
	return false
}

// isSQLiteIOError reports a SQLite I/O error: SQLITE_IOERR or one of its
// extended codes (SQLITE_IOERR_IN_PAGE, 8714, is a fault reading the
// mapped -shm file).
func isSQLiteIOError(err error) bool {
	e, ok := errors.AsType[*sqlite.Error](err)
	return ok && e.Code()&0xff == sqlite3.SQLITE_IOERR
}

// Option is a setting of Open.
type Option func(*options)

type options struct {
	connectTimeout time.Duration
	timeout        time.Duration // see DBTimeout
	maxConns       int
	// replicas, replicaMaxLag and pooler: see replica.go.
	replicas      []string
	replicaMaxLag time.Duration
	pooler        bool
	codeRetention time.Duration // see CodeRetention
}

// DefaultConnectTimeout bounds how long opening a PostgreSQL connection may
// take when neither ConnectTimeout nor the DSN's connect_timeout says.
const DefaultConnectTimeout = 5 * time.Second

// ConnectTimeout bounds how long opening one PostgreSQL connection may take
// (TCP, TLS and start-up), so a database that accepts connections but does
// not answer fails requests fast instead of holding them. PostgreSQL counts
// it in whole seconds; a part of a second counts as a whole one. A
// connect_timeout in the DSN wins.
func ConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// withConnectTimeout returns dsn with connect_timeout set to d (rounded up
// to whole seconds) unless it already has one.
func withConnectTimeout(dsn string, d time.Duration) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", err
	}
	q := u.Query()
	if q.Has("connect_timeout") || d <= 0 {
		return dsn, nil
	}
	q.Set("connect_timeout", strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10))
	u.RawQuery = q.Encode()
	return u.String(), nil
}
