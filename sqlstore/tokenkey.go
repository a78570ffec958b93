package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// TokenKeyService keeps the keys tokens are signed with, shared by every
// instance.
type TokenKeyService struct{ db *DB }

// NewTokenKeyService returns the TokenKeyService over db.
func NewTokenKeyService(db *DB) *TokenKeyService { return &TokenKeyService{db: db} }

// retiredKeyKept is how long a retired key still opens tokens: a token lives
// TokenLifetime, and an instance that has not yet reloaded its keys may seal
// with a just-retired key for one more reload interval.
//
// Keys live in wall-clock time: they are shared by both environments, whose
// environment clocks may differ, and a token lives its hour in either.
const retiredKeyKept = 2 * parcelgate.TokenLifetime

// TokenKeys returns the keys that may open tokens now, creating the first
// key when there is none. Instances that start together race to insert key
// 1; the loser reads the winner's. It takes no caller: it is the server's
// own machinery, run at start-up and on each reload of the keys, before
// any token is opened.
func (s *TokenKeyService) TokenKeys(ctx context.Context) ([]auth.Key, error) {
	keys, err := s.loadTokenKeys(ctx)
	if err != nil || len(keys) > 0 {
		return keys, err
	}
	k, err := auth.GenerateKey(1, time.Now())
	if err != nil {
		return nil, err
	}
	if _, err := s.db.exec(ctx, `INSERT INTO token_keys (id, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING`, int64(k.ID), k.Secret, micros(k.CreatedAt)); err != nil {
		return nil, err
	}
	return s.loadTokenKeys(ctx)
}

func (s *TokenKeyService) loadTokenKeys(ctx context.Context) ([]auth.Key, error) {
	cutoff := micros(time.Now().Add(-retiredKeyKept))
	rows, err := s.db.query(ctx, `SELECT id, secret, created_at, retired_at FROM token_keys WHERE retired_at = 0 OR retired_at > ? ORDER BY id`, cutoff)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []auth.Key
	for rows.Next() {
		var id, created, retired int64
		var k auth.Key
		if err := rows.Scan(&id, &k.Secret, &created, &retired); err != nil {
			return nil, err
		}
		k.ID, k.CreatedAt, k.RetiredAt = uint32(id), fromMicros(created), fromMicros(retired)
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// RotateTokenKey creates a new key and retires the others. Tokens sealed
// with a retired key stay valid until they expire. Only a caller that may
// ActionOperate on the whole server (AllOperator()): the keys
// seal both environments' tokens.
func (s *TokenKeyService) RotateTokenKey(ctx context.Context, c *parcelgate.Caller) (uint32, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return 0, err
	}
	if c.Scope != parcelgate.ScopeAll {
		return 0, parcelgate.Errorf(parcelgate.EFORBIDDEN, "The token keys seal every environment's tokens: only the operator of the whole server rotates them.")
	}
	now := time.Now()
	var id uint32
	err := s.db.inTx(ctx, func(tx *Tx) error {
		var last int64
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM token_keys`).Scan(&last); err != nil {
			return err
		}
		k, err := auth.GenerateKey(uint32(last+1), now)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE token_keys SET retired_at = ? WHERE retired_at = 0`, micros(now)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO token_keys (id, secret, created_at) VALUES (?, ?, ?)`, int64(k.ID), k.Secret, micros(k.CreatedAt)); err != nil {
			return err
		}
		id = k.ID
		return nil
	})
	return id, err
}
