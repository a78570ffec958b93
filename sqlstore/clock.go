package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// ClockRefresh is how often an instance reads the shared environment clock, so
// a move made on one instance is seen by all within it.
const ClockRefresh = 500 * time.Millisecond

// offsetClock returns the store's clock when it is an OffsetClock, which
// AdvanceClock may move.
func (db *DB) offsetClock() (*parcelgate.OffsetClock, bool) {
	sc, ok := db.clock.(*parcelgate.OffsetClock)
	return sc, ok
}

// hasOffsetClock reports whether the store runs on an OffsetClock that
// AdvanceClock may move.
func (db *DB) hasOffsetClock() bool {
	_, ok := db.offsetClock()
	return ok
}

// RefreshClock reads the stored environment clock offsets into this instance's
// clock. It does nothing on a store without an OffsetClock.
func (db *DB) RefreshClock(ctx context.Context) error {
	sc, ok := db.offsetClock()
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

// watchClock keeps the OffsetClock in step with the stored offsets until
// the store closes. Migrate starts it, once the table exists.
func (db *DB) watchClock() {
	if !db.hasOffsetClock() {
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
