package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/sqlstore/internal/fastpath"
)

// ListOrders answers the order queries of interface §4.3. Only a caller
// that may ActionReadOrders (interface §5.2).
//
// Orders are ordered by modification stamp, then by their internal key,
// which never changes. A client that passes the newest updateDate it has
// seen as updatedFrom sees every later change: the window of the poll
// (parcelgate.PollWindow, see stamp.go) holds back what may still be
// followed by the commit of a smaller stamp. A client that follows
// the next links, or loops page=0,1,2..., is paged by key (see keysetQuery),
// so a late page costs what the first does and rows updated meanwhile are
// neither skipped nor repeated: an order updated while the client pages
// moves behind the cursor and is met again later, with its new stamp.
func (s *OrderService) ListOrders(ctx context.Context, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Order], error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return parcelgate.Page[*parcelgate.Order]{}, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (parcelgate.Page[*parcelgate.Order], error) {
		if q.NewestFirst {
			return s.listNewestOrders(ctx, r, c, q, p)
		}
		ks, err := s.orderListQuery(ctx, r, c, q)
		if err != nil {
			return parcelgate.Page[*parcelgate.Order]{}, err
		}
		return keysetPage(ctx, r, ks, p, orderColumns, "", func(rows *sql.Rows) (*parcelgate.Order, pageKey, error) {
			rec, err := scanOrderRecord(rows)
			if err != nil {
				return nil, pageKey{}, err
			}
			return rec.view(), pageKey{modified: rec.updatedAt, id: rec.pk}, nil
		})
	})
}

// orderListQuery is the list of the caller's orders that q selects.
func (s *OrderService) orderListQuery(ctx context.Context, r reader, c *parcelgate.Caller, q parcelgate.OrderQuery) (*keysetQuery, error) {
	ks := &keysetQuery{table: "orders o", alias: "o", byModified: true, stampCol: "updated_at"}
	f := &ks.where
	f.tenant(c, "", "o.org_id")
	// Every list of orders is in stamp order, and a client may take its
	// first cursor from one without updatedFrom: each is held to the
	// window (decisions §22).
	w, err := pollWindow(ctx, r, c.Environment, q.UpdatedFrom)
	if err != nil {
		return nil, err
	}
	addWindow(f, "o", "updated_at", w, !q.UpdatedFrom.IsZero())
	if !q.UpdatedTo.IsZero() {
		f.add("o.updated_at <= ?", micros(q.UpdatedTo))
	}
	if q.RefName != "" {
		f.add("EXISTS (SELECT 1 FROM order_refs f WHERE f.order_pk = o.id AND f.org_id = o.org_id AND f.name = ? AND f.value = ?)", strings.ToUpper(q.RefName), q.RefValue)
	}
	if q.Warehouse != "" {
		f.add("EXISTS (SELECT 1 FROM order_rows w WHERE w.order_pk = o.id AND w.warehouse_external_id = ?)", q.Warehouse)
	}
	if !q.Selects() {
		// decisions §37: parcelgate holds sales orders only.
		f.add("1 = 0")
	}
	// decisions §37: from inclusive, to exclusive, on orderDate (stored
	// to the microsecond, so a bound between two is rounded up).
	if !q.OrderedFrom.IsZero() {
		f.add("o.order_date >= ?", ceilMicros(q.OrderedFrom))
	}
	if !q.OrderedTo.IsZero() {
		f.add("o.order_date < ?", ceilMicros(q.OrderedTo))
	}
	var statuses []string
	if len(q.Statuses) > 0 {
		var st []any
		for _, status := range q.Statuses {
			st = append(st, string(status))
			statuses = append(statuses, string(status))
		}
		f.in("o.status", st)
	}
	if q.UpdatedFrom.IsZero() && q.UpdatedTo.IsZero() && q.RefName == "" && q.Warehouse == "" && q.Selects() && q.OrderedFrom.IsZero() && q.OrderedTo.IsZero() {
		ks.keptTotal = func(ctx context.Context, r reader) (int64, error) {
			return keptOrderTotal(ctx, r, c, w, statuses)
		}
		// The walk's conditions are the organization and the statuses
		// alone (the window's is held back): the bucket sums count them.
		ks.seek = orderSeek(c.OrgID, statuses)
	} else if q.Warehouse != "" && q.UpdatedFrom.IsZero() && q.UpdatedTo.IsZero() && q.RefName == "" && q.Selects() && q.OrderedFrom.IsZero() && q.OrderedTo.IsZero() {
		ks.keptTotal = func(ctx context.Context, r reader) (int64, error) {
			return keptWarehouseTotal(ctx, r, c, w, q.Warehouse, statuses)
		}
	} else if q.UpdatedFrom.IsZero() && q.Selects() {
		ks.keptTotal = func(ctx context.Context, r reader) (int64, error) {
			return provenOrderTotal(ctx, r, c, ks, w)
		}
	}
	return ks, nil
}

// provenOrderTotal is the total of a list of the caller's orders that no
// kept count answers (order dates, updatedTo, a reference, a warehouse
// with one of them: decisions §63): counted, and kept between pages
// while it is provably the count the database would give, as catalogs'
// totals are (§17, fastpath.Counts). Every write of an order (create, re-send, status
// move, comment, the warehouse engine's, an operator's restore) stamps it
// past every stamp of its environment taken before, so the
// organization's newest order stamp and its number of orders (the kept
// count, which moves with every insert and delete: an operator's reset)
// are unchanged exactly when no order of it was written since. On
// PostgreSQL that holds only while the poll window holds back no order
// of the organization: a writer still running may commit below the
// newest stamp, so while any of the organization's orders is held back
// the total is counted afresh and not kept. A poll (updatedFrom) counts
// its index range and keeps nothing. Read in the page's read
// transaction: the total, its proof and the rows are of one snapshot.
func provenOrderTotal(ctx context.Context, r reader, c *parcelgate.Caller, ks *keysetQuery, w parcelgate.ChangeWindow) (int64, error) {
	if w.SettledBelow > 0 {
		var held int64
		own := tenantOf(c, "", "org_id")
		if err := r.QueryRow(ctx, `SELECT COUNT(*) FROM orders WHERE `+own.sql()+` AND changed_xid >= ?`, own.with(w.SettledBelow)...).Scan(&held); err != nil {
			return 0, err
		}
		if held > 0 {
			return total(ctx, r, ks)
		}
	}
	all, err := keptCount(ctx, r, parcelgate.TallyOrders, c.Environment, c.OrgID, nil)
	if err != nil {
		return 0, err
	}
	var newest sql.NullInt64
	own := tenantOf(c, "", "org_id")
	if err := r.QueryRow(ctx, `SELECT MAX(updated_at) FROM orders WHERE `+own.sql(), own.with()...).Scan(&newest); err != nil {
		return 0, err
	}
	key := fastpath.CountKey{Scope: "orders|" + strconv.FormatInt(all, 10), Filters: ks.where.scope.String()}
	return r.db.counts.Total(key, newest.Int64, 0, func() (int64, error) { return total(ctx, r, ks) }, nil)
}

// keptOrderTotal is the number of the caller's orders in statuses (none:
// all) that a list held to the poll window w shows (decisions §52): the
// kept count less the window's rows, those whose writer's ticket is not
// below w.SettledBelow, which the list holds back. Those are the changes
// of writers still running when the poll looked (a few), found through
// the index orders_changed_xid; on SQLite the window holds nothing back.
// Both are read in the page's read transaction, so the total is the
// number of rows the list's pages hold.
func keptOrderTotal(ctx context.Context, r reader, c *parcelgate.Caller, w parcelgate.ChangeWindow, statuses []string) (int64, error) {
	return keptWindowTotal(ctx, r, parcelgate.TallyOrders, c, w, "orders", "org_id", statuses)
}

// keptWarehouseTotal is the number of the caller's orders with a row of
// warehouse wh in statuses (none: all) that a list held to the poll
// window w shows (decisions §63): the kept count by warehouse less the
// window's held-back orders with such a row (a few, from
// orders_changed_xid), as keptOrderTotal.
func keptWarehouseTotal(ctx context.Context, r reader, c *parcelgate.Caller, w parcelgate.ChangeWindow, wh string, statuses []string) (int64, error) {
	n, err := keptWarehouseCount(ctx, r, c.Environment, c.OrgID, wh, statuses)
	if err != nil || w.SettledBelow == 0 {
		return n, err
	}
	var f filterSQL
	f.tenant(c, "", "o.org_id")
	f.add("o.changed_xid >= ?", w.SettledBelow)
	if len(statuses) > 0 {
		f.in("o.status", anys(statuses))
	}
	f.add("EXISTS (SELECT 1 FROM order_rows x WHERE x.order_pk = o.id AND x.warehouse_external_id = ?)", wh)
	var held int64
	err = r.QueryRow(ctx, `SELECT COUNT(*) FROM orders o WHERE `+f.sql(), f.args...).Scan(&held)
	return n - held, err
}

// keptWindowTotal is the number of rows of table (kind's rows, whose
// organization is orgCol) of the caller's organization in statuses (none:
// all) that a list held to the poll window w shows: the kept count less
// the rows the window holds back (changed_xid not below w.SettledBelow),
// found from an index on (orgCol, changed_xid).
func keptWindowTotal(ctx context.Context, r reader, kind parcelgate.TallyKind, c *parcelgate.Caller, w parcelgate.ChangeWindow, table, orgCol string, statuses []string) (int64, error) {
	n, err := keptCount(ctx, r, kind, c.Environment, c.OrgID, statuses)
	if err != nil || w.SettledBelow == 0 {
		return n, err
	}
	var f filterSQL
	f.tenant(c, "", orgCol)
	f.add("changed_xid >= ?", w.SettledBelow)
	if len(statuses) > 0 {
		f.in("status", anys(statuses))
	}
	var held int64
	err = r.QueryRow(ctx, `SELECT COUNT(*) FROM `+table+` WHERE `+f.sql(), f.args...).Scan(&held)
	return n - held, err
}

// listNewestOrders pages the caller's orders most recently changed first
// (the console's list, decisions §47), by key both ways from the page
// cursor p.After (newestFirstPage), without a total. It reads the
// filters of q the console offers: Statuses, ChangedSince, Reference and
// Warehouse.
func (s *OrderService) listNewestOrders(ctx context.Context, r reader, c *parcelgate.Caller, q parcelgate.OrderQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.Order], error) {
	var f filterSQL
	f.tenant(c, "", "o.org_id")
	f.add("o.environment = ?", string(c.Environment))
	if len(q.Statuses) > 0 {
		st := make([]any, len(q.Statuses))
		for i, status := range q.Statuses {
			st[i] = string(status)
		}
		f.in("o.status", st)
	}
	if !q.ChangedSince.IsZero() {
		f.add("o.updated_at >= ?", micros(q.ChangedSince))
	}
	if ref := strings.TrimSpace(q.Reference); ref != "" {
		// The orders a reference names are found first, each way by its own
		// index; an OR inside the paged query would make PostgreSQL walk
		// every order of the organization to find them.
		own := tenantOf(c, "", "org_id")
		pks, err := scanColumn[int64](r.Query(ctx, `SELECT id FROM orders WHERE `+own.sql()+` AND external_id = ?
			UNION SELECT id FROM orders WHERE `+own.sql()+` AND own_id = ?
			UNION SELECT id FROM orders WHERE environment = ? AND order_id = ? AND `+own.sql()+`
			UNION SELECT order_pk FROM order_refs WHERE `+own.sql()+` AND value = ?
			LIMIT 1000`, slices.Concat(own.with(ref), own.with(ref), []any{string(c.Environment), strings.ToUpper(ref)}, own.with(), own.with(ref))...))
		if err != nil {
			return parcelgate.Page[*parcelgate.Order]{}, err
		}
		if len(pks) == 0 {
			return parcelgate.Page[*parcelgate.Order]{}, nil
		}
		f.in("o.id", anys(pks))
	}
	if wh := strings.TrimSpace(q.Warehouse); wh != "" {
		f.add("EXISTS (SELECT 1 FROM order_rows w WHERE w.order_pk = o.id AND w.warehouse_external_id = ?)", wh)
	}
	return keysetPage(ctx, r, newestFirstQuery(&f, "orders o", "o", "updated_at"), p, orderColumns, "", func(rows *sql.Rows) (*parcelgate.Order, pageKey, error) {
		rec, err := scanOrderRecord(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		return rec.view(), pageKey{modified: rec.updatedAt, id: rec.pk}, nil
	})
}

// ceilMicros is t in microseconds, rounded up: the first stored instant
// at or after t.
func ceilMicros(t time.Time) int64 {
	us := micros(t)
	if t.Sub(time.UnixMicro(us)) > 0 {
		us++
	}
	return us
}
