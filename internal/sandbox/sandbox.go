// Package sandbox runs a parcelgate server in the process, over SQLite in a
// temporary directory and seeded with the demo tenant, for the runnable
// examples of the client package, which have no *testing.T to run apitest
// with.
package sandbox

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/demo"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/sqlstore"
)

// Sandbox is a running server with the demo tenant (demo.Tenants).
type Sandbox struct {
	// URL is the base URL of every surface.
	URL   string
	Clock *parcelgate.SandboxClock
	// AdminToken opens the operator API.
	AdminToken string

	http *httptest.Server
	srv  *httpapi.Server
	db   *sqlstore.DB
	dir  string
}

// Start starts a sandbox. Close it when done.
func Start() (*Sandbox, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "parcelgate-sandbox-")
	if err != nil {
		return nil, err
	}
	s := &Sandbox{Clock: new(parcelgate.SandboxClock), AdminToken: rand.Text(), dir: dir}
	if s.db, err = sqlstore.Open(ctx, "sqlite:"+filepath.Join(dir, "sandbox.db"), s.Clock); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.db.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	keys, err := s.db.TokenKeys(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	if _, err := demo.Seed(ctx, s.db, parcelgate.DefaultVersions); err != nil {
		s.Close()
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s.srv = httpapi.New(s.db, auth.NewKeyring(keys), s.Clock, log, httpapi.Config{AdminToken: s.AdminToken, SandboxClock: s.Clock, Sandbox: true})
	s.http = httptest.NewServer(s.srv)
	s.URL = s.http.URL
	return s, nil
}

// Close stops the server and removes its database.
func (s *Sandbox) Close() {
	if s.http != nil {
		s.http.Close()
	}
	if s.srv != nil {
		s.srv.Close()
	}
	if s.db != nil {
		s.db.Close()
	}
	os.RemoveAll(s.dir)
}
