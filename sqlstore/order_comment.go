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
		before := len(rec.order.Comments)
		if before >= parcelgate.MaxOrderComments && parcelgate.FindComment(rec.order.Comments, comment.ExternalID) < 0 {
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Order %s already has %d comments, the most an order keeps; delete one first.", rec.order.ExternalID, before)
		}
		now := tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond)
		rec.order.Comments = parcelgate.MergeComments(rec.order.Comments, []parcelgate.OrderComment{comment}, now)
		added = len(rec.order.Comments) > before
		i := len(rec.order.Comments) - 1
		if !added {
			i = mergedAt(rec.order.Comments, comment)
		}
		out = rec.order.Comments[i]
		return tx.saveDocument(ctx, rec)
	})
	if err != nil {
		return nil, false, err
	}
	return &out, added, nil
}

// mergedAt finds the comment that MergeComments replaced with c.
func mergedAt(comments []parcelgate.OrderComment, c parcelgate.OrderComment) int {
	for i, e := range comments {
		if (c.ExternalID != "" && e.ExternalID == c.ExternalID) || (c.ExternalID == "" && e.ExternalID == "" && e.Type == c.Type && e.Value == c.Value) {
			return i
		}
	}
	return len(comments) - 1
}

func (s *OrderService) DeleteOrderComment(ctx context.Context, c *parcelgate.Caller, id, commentID string) error {
	_, err := s.withOrder(ctx, c.OrgID, c.BusinessID, id, func(tx *Tx, rec *orderRecord) error {
		i := parcelgate.FindComment(rec.order.Comments, commentID)
		if i < 0 {
			return parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s has no comment %s.", rec.order.ExternalID, commentID)
		}
		rec.order.Comments = append(rec.order.Comments[:i], rec.order.Comments[i+1:]...)
		return tx.saveDocument(ctx, rec)
	})
	return err
}
