package sqlstore

import (
	"context"
	"time"
)

// AdminTokenService keeps the hash of the admin token parcelgate generates
// when it is started without one, so that a restart on the same database
// keeps the token printed at the first start. Only the operator's own
// server (cmd/parcelgate serve) uses it; no API reaches it.
type AdminTokenService struct{ db *DB }

// NewAdminTokenService returns the service of db.
func NewAdminTokenService(db *DB) *AdminTokenService { return &AdminTokenService{db: db} }

// Keep stores hash as the generated admin token's unless one is stored
// already, and returns the one stored. Instances that start together race
// to insert; the losers read the winner's, so the token of every instance
// is the one that was printed by the winner (kept == hash there).
func (s *AdminTokenService) Keep(ctx context.Context, hash []byte) (kept []byte, err error) {
	if _, err := s.db.exec(ctx, `INSERT INTO admin_token (id, hash, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING`, hash, micros(time.Now())); err != nil {
		return nil, err
	}
	err = s.db.queryRow(ctx, `SELECT hash FROM admin_token WHERE id = 1`).Scan(&kept)
	return kept, err
}
