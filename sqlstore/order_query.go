package sqlstore

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// ListOrders answers the order queries of spec 4.3.
//
// Orders are ordered by modification stamp, then by their internal key,
// which never changes. A client that passes the newest updateDate it has
// seen as updatedFrom sees every later change: stamps grow in commit order
// (see nextStamp), and updatedFrom is strictly after. A client that follows
// the next links is paged by key (the cursor is the last row's stamp and
// key), so a late page costs what the first does and rows updated meanwhile
// are neither skipped nor repeated: an order updated while the client pages
// moves behind the cursor and is met again later, with its new stamp.
func (db *DB) ListOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.PageOf[*parcelgate.Order], error) {
	var res parcelgate.PageOf[*parcelgate.Order]
	where := []string{"o.org_id = ?"}
	args := []any{c.OrgID}
	if !q.UpdatedFrom.IsZero() {
		where, args = append(where, "o.updated_at > ?"), append(args, micros(q.UpdatedFrom))
	}
	if !q.UpdatedTo.IsZero() {
		where, args = append(where, "o.updated_at <= ?"), append(args, micros(q.UpdatedTo))
	}
	if q.RefName != "" {
		where = append(where, "EXISTS (SELECT 1 FROM order_refs f WHERE f.order_pk = o.id AND f.org_id = o.org_id AND f.name = ? AND f.value = ?)")
		args = append(args, strings.ToUpper(q.RefName), q.RefValue)
	}
	if q.Warehouse != "" {
		where, args = append(where, "EXISTS (SELECT 1 FROM order_rows w WHERE w.order_pk = o.id AND w.warehouse_external_id = ?)"), append(args, q.Warehouse)
	}
	if len(q.Statuses) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(q.Statuses)), ", ")
		where = append(where, "o.status IN ("+marks+")")
		for _, s := range q.Statuses {
			args = append(args, string(s))
		}
	}
	filter := strings.Join(where, " AND ")
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM orders o WHERE `+filter, args...).Scan(&res.Total); err != nil {
		return res, err
	}
	page := `SELECT ` + orderColumns + ` FROM orders o WHERE ` + filter
	pageArgs := append([]any{}, args...)
	if p.After != "" {
		stamp, pk, err := parseOrderCursor(p.After)
		if err != nil {
			return res, err
		}
		page += ` AND (o.updated_at, o.id) > (?, ?)`
		pageArgs = append(pageArgs, stamp, pk)
	}
	page += ` ORDER BY o.updated_at, o.id LIMIT ?`
	pageArgs = append(pageArgs, p.Size)
	if p.After == "" && p.Number > 0 {
		page += ` OFFSET ?`
		pageArgs = append(pageArgs, p.Offset())
	}
	rows, err := db.query(ctx, page, pageArgs...)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	var last *orderRecord
	for rows.Next() {
		rec, err := scanOrderRecord(rows)
		if err != nil {
			return res, err
		}
		res.Items = append(res.Items, rec.view())
		last = rec
	}
	if err := rows.Err(); err != nil {
		return res, err
	}
	if last != nil && len(res.Items) == p.Size {
		res.Next = orderCursor(last.updatedAt, last.pk)
	}
	return res, nil
}

// The cursor of an order listing is the stamp and key of the row before
// the page, opaque to clients.
func orderCursor(stamp, pk int64) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "o1:%d:%d", stamp, pk))
}

func parseOrderCursor(s string) (stamp, pk int64, err error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		_, err = fmt.Sscanf(string(b), "o1:%d:%d", &stamp, &pk)
	}
	if err != nil {
		return 0, 0, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: after is not a cursor of this listing.",
			Fields: []parcelgate.FieldError{{Field: "after", Message: "is not a cursor this server made; follow the next link or use page"}}}
	}
	return stamp, pk, nil
}
