package sqlstore

import (
	"context"
	"crypto/rand"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// FaultService keeps the injected faults every instance applies to the APIs.
type FaultService struct{ db *DB }

// NewFaultService returns the FaultService over db.
func NewFaultService(db *DB) *FaultService { return &FaultService{db: db} }

var _ parcelgate.FaultService = (*FaultService)(nil)

// CreateFault stores a fault for every instance to apply. f.BusinessID,
// when set, must name an organization of f.Environment. Faults live in
// wall-clock time: they are about the service, not the domain's clock.
// Only a caller that may ActionOperate, in f's environment; an operator on
// one organization sets that organization's faults only (decisions §21).
func (s *FaultService) CreateFault(ctx context.Context, c *parcelgate.Caller, f *parcelgate.Fault) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if !c.Reaches(f.Environment) || c.Scope == parcelgate.ScopeOrganization && f.BusinessID == "" {
		return parcelgate.Errorf(parcelgate.EFORBIDDEN, "This operator cannot set a fault outside its own scope.")
	}
	if f.BusinessID != "" {
		org, err := NewOrganizationService(s.db).findOrganization(ctx, f.Environment, f.BusinessID)
		if err == nil && !c.Covers(org.Environment, org.ID) {
			err = parcelgate.Errorf(parcelgate.ENOTFOUND, "organization %s not found in %s", org.BusinessID, f.Environment)
		}
		if err != nil {
			return &parcelgate.Error{Code: parcelgate.ENOTFOUND, Message: parcelgate.ErrorMessage(err),
				Fields: []parcelgate.FieldError{{Field: "businessId", Message: "is not an organization of " + string(f.Environment)}}}
		}
		f.OrgID, f.BusinessID = org.ID, org.BusinessID
	}
	f.ID = "F" + strings.ToLower(rand.Text()[:12])
	f.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
	var expires int64
	if f.ExpiresAt != nil {
		expires = micros(*f.ExpiresAt)
	}
	_, err := s.db.exec(ctx, `INSERT INTO faults (id, environment, org_id, business_id, method, route, status, latency_us, retry_after, probability, remaining, fired, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
		f.ID, string(f.Environment), f.OrgID, f.BusinessID, f.Method, f.Route, f.Status, f.Latency.Microseconds(), f.RetryAfter, f.Probability, f.Remaining, micros(f.CreatedAt), expires)
	return err
}

const faultCols = `id, environment, org_id, business_id, method, route, status, latency_us, retry_after, probability, remaining, fired, created_at, expires_at`

// Faults lists the faults in c's scope that may still fire (not spent,
// not expired), oldest first: of c's environment, of every environment
// for AllOperator(), of c's organization for an OperatorCaller.
// Only a caller that may ActionOperate; the HTTP layer reads every
// environment's to apply them as AllOperator().
func (s *FaultService) Faults(ctx context.Context, c *parcelgate.Caller) ([]*parcelgate.Fault, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	var scope filterSQL
	scope.tenant(c, "environment", "org_id")
	rows, err := s.db.query(ctx, `SELECT `+faultCols+` FROM faults WHERE remaining <> 0 AND (expires_at = 0 OR expires_at > ?) AND `+scope.sql()+` ORDER BY created_at, id`,
		append([]any{micros(time.Now())}, scope.args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*parcelgate.Fault{}
	for rows.Next() {
		var f parcelgate.Fault
		var env string
		var latency, created, expires int64
		if err := rows.Scan(&f.ID, &env, &f.OrgID, &f.BusinessID, &f.Method, &f.Route, &f.Status, &latency, &f.RetryAfter, &f.Probability, &f.Remaining, &f.Fired, &created, &expires); err != nil {
			return nil, err
		}
		f.Environment, f.Latency, f.CreatedAt = parcelgate.Environment(env), time.Duration(latency)*time.Microsecond, fromMicros(created)
		if expires != 0 {
			t := fromMicros(expires)
			f.ExpiresAt = &t
		}
		out = append(out, &f)
	}
	return out, rows.Err()
}

// DeleteFault removes a fault in c's scope. Only a caller that may
// ActionOperate; a fault outside c's scope is ENOTFOUND.
func (s *FaultService) DeleteFault(ctx context.Context, c *parcelgate.Caller, id string) error {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return err
	}
	var scope filterSQL
	scope.tenant(c, "environment", "org_id")
	res, err := s.db.exec(ctx, `DELETE FROM faults WHERE id = ? AND `+scope.sql(), append([]any{id}, scope.args...)...)
	return affectedOne(res, err, "fault %s not found", id)
}

// FireFault counts one answer of fault id and reports whether it may give
// it: a fault with a count gives exactly that many answers across all
// instances (the decrement is conditional), one without always may. It
// takes no caller: it is the server's own machinery, on the request path
// of whichever tenant the fault matched.
func (s *FaultService) FireFault(ctx context.Context, id string) (bool, error) {
	res, err := s.db.exec(ctx, `UPDATE faults SET fired = fired + 1, remaining = CASE WHEN remaining > 0 THEN remaining - 1 ELSE remaining END WHERE id = ? AND remaining <> 0`, id)
	n, err := rowsAffected(res, err)
	return n == 1, err
}
