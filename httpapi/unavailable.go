package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/parcelgate/parcelgate"
)

// When the database goes away (its connections cut, refused or silent) a
// request must not hang and must not be answered as a fault of ours: it is
// answered 503 in its surface's error shape (EUNAVAILABLE), with
// Retry-After, as soon as the store reports the database out of reach, and
// at the latest when the request's database deadline (Config.DBTimeout)
// passes. The store's connection pool recovers by itself when the database
// returns; /readyz answers 503 meanwhile, so a load balancer can stop
// sending requests here.

// errDBUnavailable is what a client is told; the cause is logged.
var errDBUnavailable = parcelgate.Errorf(parcelgate.EUNAVAILABLE, "The database is unavailable or did not answer in time; try again shortly.")

// retryAfterUnavailable is the Retry-After of a 503 for an unavailable
// database, in seconds: short, since pools reconnect by themselves.
const retryAfterUnavailable = 1

// withDBDeadline gives the request's context the database deadline.
func (s *Server) withDBDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.cfg.DBTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.cfg.DBTimeout)
}

// unavailable turns an internal error that the store classifies as the
// database being out of reach into EUNAVAILABLE, keeping the cause for the
// log. Errors of the domain pass unchanged.
func (s *Server) unavailable(w http.ResponseWriter, err error) error {
	if parcelgate.ErrorCode(err) != parcelgate.EINTERNAL || !s.database.Unavailable(err) {
		return err
	}
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterUnavailable))
	return fmt.Errorf("%w (%w)", errDBUnavailable, err)
}
