package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

func (s *OrderService) AddOrderComment(ctx context.Context, c *parcelgate.Caller, id string, comment parcelgate.OrderComment) (*parcelgate.OrderComment, bool, error) {
	var out parcelgate.OrderComment
	var added bool
	_, err := s.withOrder(ctx, c.OrgID, c.BusinessID, id, func(tx *Tx, rec *orderRecord) error {
		var err error
		out, added, err = rec.order.AddComment(comment, tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond))
		if err != nil {
			return err
		}
		return tx.saveDocument(ctx, rec)
	})
	if err != nil {
		return nil, false, err
	}
	return &out, added, nil
}

func (s *OrderService) DeleteOrderComment(ctx context.Context, c *parcelgate.Caller, id, commentID string) error {
	_, err := s.withOrder(ctx, c.OrgID, c.BusinessID, id, func(tx *Tx, rec *orderRecord) error {
		if err := rec.order.DeleteComment(commentID); err != nil {
			return err
		}
		return tx.saveDocument(ctx, rec)
	})
	return err
}
