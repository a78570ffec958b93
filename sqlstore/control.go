package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// ControlService keeps the operator controls' storage: the shared clock,
// resets and snapshots.
type ControlService struct{ db *DB }

// NewControlService returns the ControlService over db.
func NewControlService(db *DB) *ControlService { return &ControlService{db: db} }

var _ parcelgate.ControlService = (*ControlService)(nil)

// AdvanceClock moves c's environment's clock forward by d for every
// instance: the offset is stored, and this instance takes it at once; the
// others read it within ClockRefresh. Only a caller that may ActionOperate,
// naming one environment (EnvironmentOperator(env)); the console's
// workbench moves an integrator's clock as the operator, once
// DecideWorkbench allowed it (decisions §23). Only a store opened with a
// *parcelgate.OffsetClock may move time (serve opens every store with
// one); which environment's clock may move on a server is DecideControl's
// (decisions §21).
func (s *ControlService) AdvanceClock(ctx context.Context, c *parcelgate.Caller, d time.Duration) (time.Time, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return time.Time{}, err
	}
	env, err := oneEnvironment(c)
	if err != nil {
		return time.Time{}, err
	}
	sc, ok := s.db.offsetClock()
	if !ok {
		return time.Time{}, parcelgate.Errorf(parcelgate.EFORBIDDEN, "The clock can only be moved on a server started with --sandbox.")
	}
	// The offset is read and written in one transaction (locked on
	// PostgreSQL), so instances moving the clock together each decide on
	// the offset the other left.
	var next time.Duration
	err = s.db.inTx(ctx, func(tx *Tx) error {
		var us int64
		if err := tx.QueryRow(ctx, `SELECT offset_us FROM sandbox_clock WHERE environment = ?`+forUpdate(tx), string(env)).Scan(&us); err != nil {
			return err
		}
		var err error
		if next, err = parcelgate.DecideAdvance(env, time.Duration(us)*time.Microsecond, d); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE sandbox_clock SET offset_us = ? WHERE environment = ?`, next.Microseconds(), string(env))
		return err
	})
	if err != nil {
		return time.Time{}, err
	}
	sc.Observe(env, next)
	return sc.Now(env), nil
}

// oneEnvironment is the one environment an operator's environment-wide
// control acts on: c's, which must be named (decisions §21: no control
// acts on an environment by default).
func oneEnvironment(c *parcelgate.Caller) (parcelgate.Environment, error) {
	if c.Scope == parcelgate.ScopeAll || !c.Environment.Valid() {
		return "", &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Name the environment this control acts on: production or test.",
			Fields: []parcelgate.FieldError{{Field: "environment", Message: "is required: production or test"}}}
	}
	return c.Environment, nil
}
