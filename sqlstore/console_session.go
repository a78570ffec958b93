package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/console/view"
)

// ConsoleSessionService keeps the web console's sessions
// (console.SessionStore). Its methods take no caller: they run before
// there is one, a session being what the console makes its caller from.
type ConsoleSessionService struct{ db *DB }

// NewConsoleSessionService returns the ConsoleSessionService over db.
func NewConsoleSessionService(db *DB) *ConsoleSessionService { return &ConsoleSessionService{db: db} }

// CreateConsoleSession stores a session known by idHash (the hash of the
// cookie value, never the value itself) and removes the sessions that have
// expired, so the table holds only live ones.
func (s *ConsoleSessionService) CreateConsoleSession(ctx context.Context, idHash, kind, username string, now, expires time.Time) error {
	if kind != view.SessionOperator && kind != view.SessionAccount {
		return parcelgate.Errorf(parcelgate.EINVALID, "unknown console session kind %q", kind)
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM console_sessions WHERE expires_at <= ?`, micros(now)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO console_sessions (id_hash, kind, username, created_at, seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
			idHash, kind, username, micros(now), micros(now), micros(expires))
		return err
	})
}

// FindConsoleSession returns the live session known by idHash: not past
// its expiry, used within idle, and, for an account session, of an account
// that is not revoked (revoking an account ends its console sessions).
// Anything else is ENOTFOUND. A session last seen more than a minute ago is
// marked seen now; the idle limit counts from that mark.
func (s *ConsoleSessionService) FindConsoleSession(ctx context.Context, idHash string, now time.Time, idle time.Duration) (*view.Session, error) {
	var sess view.Session
	var env, roles, acctEnv, acctBusiness string
	var created, seen, expires, acctOrg, tenantOrg int64
	err := s.db.queryRow(ctx, `SELECT s.kind, s.username, s.environment, s.business_id, s.created_at, s.seen_at, s.expires_at,
		COALESCE(a.org_id, 0), COALESCE(ao.environment, ''), COALESCE(ao.business_id, ''), COALESCE(a.roles, ''), COALESCE(t.id, 0)
		FROM console_sessions s
		LEFT JOIN service_accounts a ON s.kind = 'account' AND a.username = s.username AND a.revoked_at = 0
		LEFT JOIN organizations ao ON ao.id = a.org_id
		LEFT JOIN organizations t ON s.kind = 'operator' AND t.environment = s.environment AND t.business_id = s.business_id
		WHERE s.id_hash = ? AND s.expires_at > ? AND s.seen_at > ?`,
		idHash, micros(now), micros(now.Add(-idle))).Scan(&sess.Kind, &sess.Username, &env, &sess.BusinessID, &created, &seen, &expires,
		&acctOrg, &acctEnv, &acctBusiness, &roles, &tenantOrg)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "no such console session")
	}
	if err != nil {
		return nil, err
	}
	sess.CreatedAt, sess.SeenAt, sess.ExpiresAt = fromMicros(created), fromMicros(seen), fromMicros(expires)
	switch sess.Kind {
	case view.SessionAccount:
		if acctOrg == 0 {
			return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "no such console session")
		}
		sess.OrgID, sess.Environment, sess.BusinessID, sess.Roles = acctOrg, parcelgate.Environment(acctEnv), acctBusiness, splitRoles(roles)
	case view.SessionOperator:
		sess.Environment, sess.OrgID = parcelgate.Environment(env), tenantOrg
		if tenantOrg == 0 {
			sess.BusinessID = ""
		}
	}
	if now.Sub(sess.SeenAt) > time.Minute {
		if _, err := s.db.exec(ctx, `UPDATE console_sessions SET seen_at = ? WHERE id_hash = ?`, micros(now), idHash); err != nil {
			return nil, err
		}
		sess.SeenAt = now
	}
	return &sess, nil
}

// SetConsoleTenant records the tenant an operator session looks at; an
// empty businessID clears it. The organization must exist (ENOTFOUND).
// Only a caller that may ActionOperate (the session's own, decisions
// §65): choosing a tenant is the operator's, whatever tenant its session
// looked at before.
func (s *ConsoleSessionService) SetConsoleTenant(ctx context.Context, c *parcelgate.Caller, idHash string, env parcelgate.Environment, businessID string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	if businessID != "" {
		org, err := NewOrganizationService(s.db).findOrganization(ctx, env, businessID)
		if err != nil {
			return err
		}
		businessID = org.BusinessID
	}
	res, err := s.db.exec(ctx, `UPDATE console_sessions SET environment = ?, business_id = ? WHERE id_hash = ? AND kind = ?`, string(env), businessID, idHash, view.SessionOperator)
	return affectedOne(res, err, "no such operator session")
}

// DeleteConsoleSession ends a session (sign-out). Ending one that is gone
// already is not an error.
func (s *ConsoleSessionService) DeleteConsoleSession(ctx context.Context, idHash string) error {
	_, err := s.db.exec(ctx, `DELETE FROM console_sessions WHERE id_hash = ?`, idHash)
	return err
}

// ConsoleSessionLive reports whether the session known by idHash still
// exists and has not expired, without marking it seen: a page left open
// with live updates is not a person using the console.
func (s *ConsoleSessionService) ConsoleSessionLive(ctx context.Context, idHash string, now time.Time) (bool, error) {
	var n int
	err := s.db.queryRow(ctx, `SELECT COUNT(*) FROM console_sessions WHERE id_hash = ? AND expires_at > ?`, idHash, micros(now)).Scan(&n)
	return n == 1, err
}
