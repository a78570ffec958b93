package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/parcelgate/parcelgate"
)

// ClockRefresh is how often an instance reads the shared sandbox clock, so
// a move made on one instance is seen by all within it.
const ClockRefresh = 500 * time.Millisecond

// sandboxClock returns the store's clock when it is a sandbox clock.
func (db *DB) sandboxClock() (*parcelgate.SandboxClock, bool) {
	sc, ok := db.clock.(*parcelgate.SandboxClock)
	return sc, ok
}

// IsSandboxClock reports whether the store runs on a sandbox clock that
// AdvanceClock may move.
func (db *DB) IsSandboxClock() bool {
	_, ok := db.sandboxClock()
	return ok
}

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

// RefreshClock reads the stored sandbox clock offsets into this instance's
// clock. It does nothing on a store without a sandbox clock.
func (db *DB) RefreshClock(ctx context.Context) error {
	sc, ok := db.sandboxClock()
	if !ok {
		return nil
	}
	rows, err := db.query(ctx, `SELECT environment, offset_us FROM sandbox_clock`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var env string
		var us int64
		if err := rows.Scan(&env, &us); err != nil {
			return err
		}
		sc.Observe(parcelgate.Environment(env), time.Duration(us)*time.Microsecond)
	}
	return rows.Err()
}

// watchClock keeps a sandbox clock in step with the stored offsets until
// the store closes. Migrate starts it, once the table exists.
func (db *DB) watchClock() {
	if !db.IsSandboxClock() {
		return
	}
	db.watchOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		db.stopWatch = cancel
		go func() {
			t := time.NewTicker(ClockRefresh)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					// A failed read keeps the last offsets; the next tick
					// tries again.
					db.RefreshClock(ctx)
				}
			}
		}()
	})
}
