package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// NextOrgStampForTest takes one organization stamp in a transaction of its
// own.
func (db *DB) NextOrgStampForTest(ctx context.Context, env parcelgate.Environment, orgID int64) (time.Time, error) {
	var t time.Time
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		t, err = nextOrgStamp(ctx, tx, env, orgID)
		return err
	})
	return t, err
}

// HoldOrgStampForTest takes an organization stamp in a transaction and
// keeps it open, holding the organization's clock, until release is
// called; release commits it.
func (db *DB) HoldOrgStampForTest(ctx context.Context, env parcelgate.Environment, orgID int64) (stamp time.Time, release func() error, err error) {
	taken := make(chan error, 1)
	done := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- db.tryTx(ctx, func(tx *Tx) error {
			var err error
			stamp, err = nextOrgStamp(ctx, tx, env, orgID)
			taken <- err
			if err != nil {
				return err
			}
			<-done
			return nil
		})
	}()
	if err := <-taken; err != nil {
		<-result
		return time.Time{}, nil, err
	}
	return stamp, func() error { close(done); return <-result }, nil
}
