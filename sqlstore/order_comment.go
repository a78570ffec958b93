package sqlstore

import (
	"context"
	"time"

	"github.com/parcelgate/parcelgate"
)

// AddOrderComment adds or replaces a comment of the caller's order. Only a
// caller that may ActionPlaceOrders (interface §5.2).
func (s *OrderService) AddOrderComment(ctx context.Context, c *parcelgate.Caller, id string, comment parcelgate.OrderComment) (*parcelgate.OrderComment, bool, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, false, err
	}
	// The comment is checked here, whichever front end sent it
	// (decisions §57).
	var p parcelgate.Problems
	comment.Validate(&p, "")
	if err := p.Err(); err != nil {
		return nil, false, err
	}
	var out parcelgate.OrderComment
	var added bool
	_, err := s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		var err error
		out, added, err = rec.order.AddComment(comment, tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond))
		if err != nil {
			return err
		}
		return saveDocument(ctx, tx, rec)
	})
	if err != nil {
		return nil, false, err
	}
	return &out, added, nil
}

// DeleteOrderComment removes a comment of the caller's order. Only a
// caller that may ActionPlaceOrders (interface §5.2).
func (s *OrderService) DeleteOrderComment(ctx context.Context, c *parcelgate.Caller, id, commentID string) error {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return err
	}
	_, err := s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		if err := rec.order.DeleteComment(commentID); err != nil {
			return err
		}
		return saveDocument(ctx, tx, rec)
	})
	return err
}
