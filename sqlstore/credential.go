package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
)

// CredentialService keeps gateway clients and ecom service accounts:
// creation, authentication with its lockout, revocation.
type CredentialService struct{ db *DB }

// NewCredentialService returns the CredentialService over db.
func NewCredentialService(db *DB) *CredentialService { return &CredentialService{db: db} }

var _ parcelgate.CredentialService = (*CredentialService)(nil)

// CreateGatewayClient stores gc with the hash of its secret. Only a caller
// that may ActionOperate; an organization outside c's scope is ENOTFOUND
// (decisions §4).
func (s *CredentialService) CreateGatewayClient(ctx context.Context, c *parcelgate.Caller, gc *parcelgate.GatewayClient, secretHash string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	org, err := s.credentialOrg(ctx, c, gc.Environment, gc.BusinessID)
	if err != nil {
		return err
	}
	gc.OrgID, gc.BusinessID = org.ID, org.BusinessID
	gc.CreatedAt = s.db.clock.Now(gc.Environment).UTC().Truncate(1000)
	versions, _ := json.Marshal(gc.Versions)
	return s.db.inTx(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO gateway_clients (client_id, secret_hash, org_id, versions, created_at) VALUES (?, ?, ?, ?, ?)`,
			gc.ClientID, secretHash, gc.OrgID, string(versions), micros(gc.CreatedAt))
		if isUniqueViolation(err) {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "client %s already exists", gc.ClientID)
		}
		return err
	})
}

// credentialOrg is the organization of env with businessID that a new
// credential belongs to: ENOTFOUND when there is none, or when it is
// outside c's scope.
func (s *CredentialService) credentialOrg(ctx context.Context, c *parcelgate.Caller, env parcelgate.Environment, businessID string) (*parcelgate.Organization, error) {
	org, err := NewOrganizationService(s.db).findOrganization(ctx, env, businessID)
	if err == nil && !c.Covers(org.Environment, org.ID) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization %s not found in %s", org.BusinessID, env)
	}
	return org, err
}

const gatewayClientColumns = `c.client_id, c.secret_hash, c.org_id, o.environment, o.business_id, c.versions, c.created_at`

func scanGatewayClient(s rowScanner) (*parcelgate.GatewayClient, string, error) {
	var c parcelgate.GatewayClient
	var hash, env, versions string
	var created int64
	if err := s.Scan(&c.ClientID, &hash, &c.OrgID, &env, &c.BusinessID, &versions, &created); err != nil {
		return nil, "", err
	}
	c.Environment = parcelgate.Environment(env)
	c.CreatedAt = fromMicros(created)
	if err := json.Unmarshal([]byte(versions), &c.Versions); err != nil {
		return nil, "", err
	}
	return &c, hash, nil
}

// AuthenticateGatewayClient checks a client's secret. It takes no caller:
// it runs before there is one (it is how a token request becomes one).
func (s *CredentialService) AuthenticateGatewayClient(ctx context.Context, clientID, secret string) (*parcelgate.GatewayClient, error) {
	c, hash, err := scanGatewayClient(s.db.queryRow(ctx, `SELECT `+gatewayClientColumns+` FROM gateway_clients c JOIN organizations o ON o.id = c.org_id WHERE c.client_id = ? AND c.revoked_at = 0`, clientID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.EUNAUTHORIZED, "client authentication failed")
	}
	if err != nil {
		return nil, err
	}
	if !auth.CheckSecret(hash, secret) {
		return nil, parcelgate.Errorf(parcelgate.EUNAUTHORIZED, "client authentication failed")
	}
	return c, nil
}

// CredentialOwner answers who a client ID or username names (see
// parcelgate.CredentialService), revoked credentials included. It takes no
// caller: it runs before there is one, naming whose credentials a token
// request gave.
func (s *CredentialService) CredentialOwner(ctx context.Context, kind parcelgate.CredentialKind, name string) (*parcelgate.Caller, error) {
	var q string
	switch kind {
	case parcelgate.KindGateway:
		q = `SELECT o.id, o.business_id, o.environment FROM gateway_clients c JOIN organizations o ON o.id = c.org_id WHERE c.client_id = ?`
	case parcelgate.KindEcom:
		q = `SELECT o.id, o.business_id, o.environment FROM service_accounts a JOIN organizations o ON o.id = a.org_id WHERE a.username = ?`
	default:
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "no %s credential %s", kind, name)
	}
	c := &parcelgate.Caller{Subject: name, Kind: kind}
	var env string
	err := s.db.queryRow(ctx, q, name).Scan(&c.OrgID, &c.BusinessID, &env)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "no %s credential %s", kind, name)
	}
	if err != nil {
		return nil, err
	}
	c.Environment = parcelgate.Environment(env)
	return c, nil
}

// ListGatewayClients pages the gateway clients in c's scope that are not
// revoked, by business ID, environment and client ID (see namedPage: the
// whole list when p.Size is 0), or one environment's by client ID
// (environmentPage). Only a caller that may ActionOperate.
func (s *CredentialService) ListGatewayClients(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.GatewayClient], error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.Page[*parcelgate.GatewayClient]{}, err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "c.org_id")
	scope.add("c.revoked_at = 0")
	afterKey(&scope, "c.client_id", p)
	scan := func(rows *sql.Rows) (*parcelgate.GatewayClient, pageKey, error) {
		gc, _, err := scanGatewayClient(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		return gc, pageKey{text: gc.ClientID}, nil
	}
	if c.Scope == parcelgate.ScopeEnvironment && (p.Size > 0 || p.After != "") {
		// The operator API's pages (decisions §58): by client ID, unique,
		// in the order of its primary key from p.After; the environment
		// and the revocation filter those rows (envKeyed).
		stmt, args := envKeyed(`SELECT `+gatewayClientColumns+` FROM gateway_clients c CROSS JOIN organizations o WHERE o.id = c.org_id`, "c", "c.client_id", c, p)
		q, err := environmentQuery(c, "gateway clients", stmt, args, p)
		if err != nil {
			return parcelgate.Page[*parcelgate.GatewayClient]{Items: []*parcelgate.GatewayClient{}}, err
		}
		return keysetPage(ctx, s.db.primary(), q, p, "", "", scan)
	}
	_, oneOrg := c.Organization()
	return keysetPage(ctx, s.db.primary(), namedQuery(oneOrg, `SELECT `+gatewayClientColumns+` FROM gateway_clients c JOIN organizations o ON o.id = c.org_id WHERE `+scope.sql()+` ORDER BY o.business_id, o.environment, c.client_id`, scope.args), p, "", "", scan)
}

// RevokeGatewayClient stops clientID from getting new tokens. Only a
// caller that may ActionOperate; a client outside c's scope is ENOTFOUND.
func (s *CredentialService) RevokeGatewayClient(ctx context.Context, c *parcelgate.Caller, clientID string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	// A credential's environment is its organization's.
	var scope filterSQL
	scope.tenant(c, "o.environment", "o.id")
	res, err := s.db.exec(ctx, `UPDATE gateway_clients SET revoked_at = ? WHERE client_id = ? AND revoked_at = 0 AND org_id IN (SELECT o.id FROM organizations o WHERE `+scope.sql()+`)`,
		append([]any{micros(time.Now()), clientID}, scope.args...)...)
	return affectedOne(res, err, "gateway client %s not found", clientID)
}

func affectedOne(res sql.Result, err error, format string, args ...any) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return parcelgate.Errorf(parcelgate.ENOTFOUND, format, args...)
	}
	return nil
}

func joinRoles(roles []parcelgate.Role) string {
	s := make([]string, len(roles))
	for i, r := range roles {
		s[i] = string(r)
	}
	return strings.Join(s, ",")
}

func splitRoles(s string) []parcelgate.Role {
	var out []parcelgate.Role
	for r := range strings.SplitSeq(s, ",") {
		if r != "" {
			out = append(out, parcelgate.Role(r))
		}
	}
	return out
}

// CreateServiceAccount stores a with the hash of its password. Only a
// caller that may ActionOperate; an organization outside c's scope is
// ENOTFOUND (decisions §4).
func (s *CredentialService) CreateServiceAccount(ctx context.Context, c *parcelgate.Caller, a *parcelgate.ServiceAccount, passwordHash string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	org, err := s.credentialOrg(ctx, c, a.Environment, a.BusinessID)
	if err != nil {
		return err
	}
	a.OrgID, a.BusinessID = org.ID, org.BusinessID
	a.CreatedAt = s.db.clock.Now(a.Environment).UTC().Truncate(1000)
	return s.db.inTx(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO service_accounts (username, password_hash, org_id, roles, created_at) VALUES (?, ?, ?, ?, ?)`,
			a.Username, passwordHash, a.OrgID, joinRoles(a.Roles), micros(a.CreatedAt))
		if isUniqueViolation(err) {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "username %s is taken", a.Username)
		}
		return err
	})
}

const serviceAccountColumns = `a.username, a.password_hash, a.org_id, o.environment, o.business_id, a.roles, a.failed_logins, a.locked_until, a.created_at`

type accountRow struct {
	*parcelgate.ServiceAccount
	hash        string
	failed      int
	lockedUntil int64
}

func scanServiceAccount(s rowScanner) (*accountRow, error) {
	a := accountRow{ServiceAccount: new(parcelgate.ServiceAccount)}
	var env, roles string
	var created int64
	if err := s.Scan(&a.Username, &a.hash, &a.OrgID, &env, &a.BusinessID, &roles, &a.failed, &a.lockedUntil, &created); err != nil {
		return nil, err
	}
	a.Environment = parcelgate.Environment(env)
	a.Roles = splitRoles(roles)
	a.CreatedAt = fromMicros(created)
	return &a, nil
}

// AuthenticateServiceAccount checks a login against the lockout rule
// (parcelgate.DecideLogin). The password is checked outside any transaction
// (it is slow on purpose); the decision's new state is then written with a
// compare-and-set on the state it was decided from, so concurrent logins on
// any number of instances each count: one that lost the race decides again
// on the state the winner wrote. It takes no caller: it runs before there
// is one (it is how a login becomes one).
func (s *CredentialService) AuthenticateServiceAccount(ctx context.Context, username, password string) (*parcelgate.ServiceAccount, error) {
	denied := parcelgate.Errorf(parcelgate.EUNAUTHORIZED, "Bad credentials")
	load := func() (*accountRow, error) {
		return scanServiceAccount(s.db.queryRow(ctx, `SELECT `+serviceAccountColumns+` FROM service_accounts a JOIN organizations o ON o.id = a.org_id WHERE a.username = ? AND a.revoked_at = 0`, username))
	}
	a, err := load()
	if errors.Is(err, sql.ErrNoRows) {
		// Spend the time a real check takes, so response times do not tell
		// which usernames exist.
		auth.CheckPassword(auth.DummyHash(), password)
		return nil, denied
	}
	if err != nil {
		return nil, err
	}
	ok := auth.CheckPassword(a.hash, password)
	// Each lost race means another attempt on this account was recorded;
	// the bound only keeps a pathological storm from looping forever.
	for range 100 {
		now := s.db.clock.Now(a.Environment)
		d := parcelgate.DecideLogin(parcelgate.LoginState{Failures: a.failed, LockedUntil: fromMicros(a.lockedUntil)}, ok, now)
		next := d.Next
		nextLock := int64(0)
		if !next.LockedUntil.IsZero() {
			nextLock = micros(next.LockedUntil)
		}
		if next.Failures == a.failed && nextLock == a.lockedUntil {
			if d.Accept {
				return a.ServiceAccount, nil
			}
			return nil, denied
		}
		res, err := s.db.exec(ctx, `UPDATE service_accounts SET failed_logins = ?, locked_until = ? WHERE username = ? AND failed_logins = ? AND locked_until = ?`,
			next.Failures, nextLock, username, a.failed, a.lockedUntil)
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n == 1 {
			if d.Accept {
				return a.ServiceAccount, nil
			}
			return nil, denied
		}
		if a, err = load(); errors.Is(err, sql.ErrNoRows) {
			return nil, denied // revoked meanwhile
		} else if err != nil {
			return nil, err
		}
	}
	return nil, parcelgate.Errorf(parcelgate.EUNAVAILABLE, "Too many concurrent logins to this account; try again shortly.")
}

// ListServiceAccounts pages the service accounts in c's scope that are
// not revoked, by username (see namedPage: the whole list when p.Size is
// 0), each with its lock when one is on at its environment's now. Only a
// caller that may ActionOperate.
func (s *CredentialService) ListServiceAccounts(ctx context.Context, c *parcelgate.Caller, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.ServiceAccount], error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.Page[*parcelgate.ServiceAccount]{}, err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "a.org_id")
	scope.add("a.revoked_at = 0")
	afterKey(&scope, "a.username", p)
	stmt := `SELECT ` + serviceAccountColumns + ` FROM service_accounts a JOIN organizations o ON o.id = a.org_id WHERE ` + scope.sql() + ` ORDER BY a.username`
	scan := func(rows *sql.Rows) (*parcelgate.ServiceAccount, pageKey, error) {
		a, err := scanServiceAccount(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		if a.lockedUntil > micros(s.db.clock.Now(a.Environment)) {
			t := fromMicros(a.lockedUntil)
			a.LockedUntil = &t
		}
		return a.ServiceAccount, pageKey{text: a.Username}, nil
	}
	if c.Scope == parcelgate.ScopeEnvironment && (p.Size > 0 || p.After != "") {
		// The operator API's pages (decisions §58): by username, unique,
		// in the order of its primary key from p.After (envKeyed).
		stmt, args := envKeyed(`SELECT `+serviceAccountColumns+` FROM service_accounts a CROSS JOIN organizations o WHERE o.id = a.org_id`, "a", "a.username", c, p)
		q, err := environmentQuery(c, "service accounts", stmt, args, p)
		if err != nil {
			return parcelgate.Page[*parcelgate.ServiceAccount]{Items: []*parcelgate.ServiceAccount{}}, err
		}
		return keysetPage(ctx, s.db.primary(), q, p, "", "", scan)
	}
	_, oneOrg := c.Organization()
	return keysetPage(ctx, s.db.primary(), namedQuery(oneOrg, stmt, scope.args), p, "", "", scan)
}

// RevokeServiceAccount stops username from logging in. Only a caller that
// may ActionOperate; an account outside c's scope is ENOTFOUND.
func (s *CredentialService) RevokeServiceAccount(ctx context.Context, c *parcelgate.Caller, username string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "o.id")
	res, err := s.db.exec(ctx, `UPDATE service_accounts SET revoked_at = ? WHERE username = ? AND revoked_at = 0 AND org_id IN (SELECT o.id FROM organizations o WHERE `+scope.sql()+`)`,
		append([]any{micros(time.Now()), username}, scope.args...)...)
	return affectedOne(res, err, "service account %s not found", username)
}

// UnlockServiceAccount clears a lockout and the failure count. Only a
// caller that may ActionOperate; an account outside c's scope is
// ENOTFOUND.
func (s *CredentialService) UnlockServiceAccount(ctx context.Context, c *parcelgate.Caller, username string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	var scope filterSQL
	scope.tenant(c, "o.environment", "o.id")
	res, err := s.db.exec(ctx, `UPDATE service_accounts SET failed_logins = 0, locked_until = 0 WHERE username = ? AND revoked_at = 0 AND org_id IN (SELECT o.id FROM organizations o WHERE `+scope.sql()+`)`,
		append([]any{username}, scope.args...)...)
	return affectedOne(res, err, "service account %s not found", username)
}
