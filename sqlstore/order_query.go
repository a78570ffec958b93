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
	var cursorStamp, cursorPK int64
	if p.After != "" {
		var err error
		if cursorStamp, cursorPK, err = parseOrderCursor(p.After); err != nil {
			return res, err
		}
	}
	var f sqlFilter
	f.add("o.org_id = ?", c.OrgID)
	if !q.UpdatedTo.IsZero() {
		f.add("o.updated_at <= ?", micros(q.UpdatedTo))
	}
	if q.RefName != "" {
		f.add("EXISTS (SELECT 1 FROM order_refs f WHERE f.order_pk = o.id AND f.org_id = o.org_id AND f.name = ? AND f.value = ?)", strings.ToUpper(q.RefName), q.RefValue)
	}
	if q.Warehouse != "" {
		f.add("EXISTS (SELECT 1 FROM order_rows w WHERE w.order_pk = o.id AND w.warehouse_external_id = ?)", q.Warehouse)
	}
	if len(q.Statuses) > 0 {
		var st []any
		for _, s := range q.Statuses {
			st = append(st, string(s))
		}
		f.add("o.status IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(st)), ", ")+")", st...)
	}
	count, page := f, f
	if !q.UpdatedFrom.IsZero() {
		count.add("o.updated_at > ?", micros(q.UpdatedFrom))
		if p.After == "" || cursorStamp < micros(q.UpdatedFrom) {
			page.add("o.updated_at > ?", micros(q.UpdatedFrom))
		}
	}
	if p.After != "" {
		// The range starts at the cursor, so a late page does not walk the
		// index entries of the pages before it.
		page.add("o.updated_at >= ? AND (o.updated_at > ? OR o.id > ?)", cursorStamp, cursorStamp, cursorPK)
	}
	if err := db.queryRow(ctx, `SELECT COUNT(*) FROM orders o WHERE `+count.sql(), count.args...).Scan(&res.Total); err != nil {
		return res, err
	}
	query := `SELECT ` + orderColumns + ` FROM orders o WHERE ` + page.sql() + ` ORDER BY o.updated_at, o.id LIMIT ?`
	args := append(page.args, p.Size)
	if p.After == "" && p.Number > 0 {
		query += ` OFFSET ?`
		args = append(args, p.Offset())
	}
	rows, err := db.query(ctx, query, args...)
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

// sqlFilter is a conjunction of conditions with their arguments. Copies
// share nothing: add appends to fresh slices when the copy has no room.
type sqlFilter struct {
	conds []string
	args  []any
}

func (f *sqlFilter) add(cond string, args ...any) {
	f.conds = append(f.conds[:len(f.conds):len(f.conds)], cond)
	f.args = append(f.args[:len(f.args):len(f.args)], args...)
}

func (f sqlFilter) sql() string { return strings.Join(f.conds, " AND ") }

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
