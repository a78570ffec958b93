package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// NextStampForTest takes one stamp in a transaction of its own.
func (db *DB) NextStampForTest(ctx context.Context, env parcelgate.Environment) (time.Time, error) {
	var t time.Time
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		t, err = tx.nextStamp(ctx, env)
		return err
	})
	return t, err
}
