package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/parcelgate/parcelgate"
)

// SandboxService keeps the sandbox controls' storage: the shared clock,
// resets and snapshots.
type SandboxService struct{ db *DB }

// NewSandboxService returns the SandboxService over db.
func NewSandboxService(db *DB) *SandboxService { return &SandboxService{db: db} }

var _ parcelgate.SandboxService = (*SandboxService)(nil)

// AdvanceClock moves env's sandbox clock forward by d for every instance:
// the offset is stored, and this instance takes it at once; the others read
// it within ClockRefresh. Only a store opened with a *parcelgate.SandboxClock
// may move time (serve opens every store with one); which environment's
// clock may move on a server is DecideSandboxControl's (decisions §21).
func (s *SandboxService) AdvanceClock(ctx context.Context, env parcelgate.Environment, d time.Duration) (time.Time, error) {
	sc, ok := s.db.sandboxClock()
	if !ok {
		return time.Time{}, parcelgate.Errorf(parcelgate.EFORBIDDEN, "The clock can only be moved on a server started with --sandbox.")
	}
	if err := parcelgate.ValidAdvance(d); err != nil {
		return time.Time{}, err
	}
	var us int64
	err := s.db.write.QueryRowContext(ctx, s.db.dialect.rebind(`UPDATE sandbox_clock SET offset_us = offset_us + ? WHERE environment = ? AND offset_us <= ? RETURNING offset_us`),
		d.Microseconds(), string(env), (parcelgate.MaxAdvance - d).Microseconds()).Scan(&us)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, parcelgate.Errorf(parcelgate.EINVALID, "The %s clock may run at most %s ahead of the wall clock.", env, parcelgate.MaxAdvance)
	}
	if err != nil {
		return time.Time{}, err
	}
	sc.Observe(env, time.Duration(us)*time.Microsecond)
	return sc.Now(env), nil
}
