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
		return keysetPage(ctx, r, ks.keysetQuery, p, orderColumns, "", func(rows *sql.Rows) (*parcelgate.Order, pageKey, error) {
			rec, err := scanOrderRecord(rows)
			if err != nil {
				return nil, pageKey{}, err
			}
			return rec.view(), pageKey{modified: rec.updatedAt, id: rec.pk}, nil
		})
	})
}

// orderList is a list of orders as ListOrders reads it: its query, with,
// for a list whose total is proven rather than kept (provenOrderTotal),
// a prepare step that reads that total with the smallest stamp among the
// list's orders in the page's read transaction.
type orderList struct {
	*keysetQuery
	// dated is the order dates' window as orders_ordered serves it: the
	// list's own conditions hold it in a form no index serves.
	dated filterSQL
}

// orderListQuery is the list of the caller's orders that q selects.
func (s *OrderService) orderListQuery(ctx context.Context, r reader, c *parcelgate.Caller, q parcelgate.OrderQuery) (*orderList, error) {
	ks := &keysetQuery{table: "orders o", alias: "o", byModified: true, stampCol: "updated_at"}
	l := &orderList{keysetQuery: ks}
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
	// to the microsecond, so a bound between two is rounded up). The page
	// tests them on the entries of the list's index it walks in stamp
	// order; its total reads their range of orders_ordered, in the form
	// that index holds them (dated, decisions §69).
	if !q.OrderedFrom.IsZero() {
		f.add("o.order_date >= ?", ceilMicros(q.OrderedFrom))
		l.dated.add("o.order_date + 0 >= ?", ceilMicros(q.OrderedFrom))
	}
	if !q.OrderedTo.IsZero() {
		f.add("o.order_date < ?", ceilMicros(q.OrderedTo))
		l.dated.add("o.order_date + 0 < ?", ceilMicros(q.OrderedTo))
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
			return keptWindowTotal(ctx, r, c, w, keptRows{kind: parcelgate.TallyOrders, table: "orders", orgCol: "org_id"}, statuses)
		}
		// The walk's conditions are the organization and the statuses
		// alone (the window's is held back): the bucket sums count them.
		ks.seek = orderSeek(c, statuses, orderWalkMax)
	} else if q.Warehouse != "" && q.UpdatedFrom.IsZero() && q.UpdatedTo.IsZero() && q.RefName == "" && q.Selects() && q.OrderedFrom.IsZero() && q.OrderedTo.IsZero() {
		ks.keptTotal = func(ctx context.Context, r reader) (int64, error) {
			return keptWindowTotal(ctx, r, c, w, keptRows{kind: parcelgate.TallyOrders, table: "orders", orgCol: "org_id", warehouse: q.Warehouse}, statuses)
		}
	} else if q.UpdatedFrom.IsZero() && q.Selects() {
		// The total comes with the smallest stamp among the list's orders
		// (decisions §69), so the page's walk, and a page number's, start
		// there rather than at the organization's oldest order. No order
		// of the list sorts before it, so the rows are the same; the
		// condition is left out of the boundaries' name (addVolatile),
		// since the list it reads is the same list.
		ks.prepare = func(ctx context.Context, r reader) error {
			n, floor, err := provenOrderTotal(ctx, r, c, l, w)
			if err != nil {
				return err
			}
			ks.keptTotal = func(context.Context, reader) (int64, error) { return n, nil }
			if floor > 0 {
				ks.where.addVolatile("o.updated_at >= ?", floor)
			}
			return nil
		}
	}
	return l, nil
}

// provenOrderTotal is the total of a list of the caller's orders that no
// kept count answers (order dates, updatedTo, a reference, a warehouse
// with one of them: decisions §63), with the smallest stamp among the
// list's orders (0 when it has none, decisions §69): counted, and kept
// between pages while it is provably the count the database would give,
// as catalogs' totals are (§17, fastpath.Counts). Every write of an order
// (create, re-send, status move, comment, the warehouse engine's, an
// operator's restore) stamps it past every stamp of its environment
// taken before, so the organization's newest order stamp and its number
// of orders (the kept count, which moves with every insert and delete:
// an operator's reset) are unchanged exactly when no order of it was
// written since. On PostgreSQL that holds only while the poll window
// holds back no order of the organization: a writer still running may
// commit below the newest stamp, so while any of the organization's
// orders is held back the total is counted afresh and not kept. The
// count leaves the window's condition out (filterSQL.walk) and reads
// index entries only (for a window of order dates, the range of
// orders_ordered: migration 0053, l.dated); while the window holds back
// none of the organization's orders, the condition holds for every one,
// and while it holds some back, those the list selects are counted
// apart and taken off.
// A poll (updatedFrom) counts its index range and keeps nothing. Read in
// the page's read transaction: the total, its proof and the rows are of
// one snapshot.
func provenOrderTotal(ctx context.Context, r reader, c *parcelgate.Caller, l *orderList, w parcelgate.ChangeWindow) (int64, int64, error) {
	ks := l.keysetQuery
	where, args := ks.where.walk()
	if len(l.dated.conds) > 0 {
		where, args = where+" AND "+l.dated.sql(), append(args, l.dated.args...)
	}
	keep := true
	if w.SettledBelow > 0 {
		var held int64
		own := tenantOf(c, "", "org_id")
		if err := r.QueryRow(ctx, `SELECT COUNT(*) FROM orders WHERE `+own.sql()+` AND changed_xid >= ?`, own.with(w.SettledBelow)...).Scan(&held); err != nil {
			return 0, 0, err
		}
		keep = held == 0
	}
	all, err := keptCount(ctx, r, parcelgate.TallyOrders, c.Environment, c.OrgID, nil)
	if err != nil {
		return 0, 0, err
	}
	var newest sql.NullInt64
	own := tenantOf(c, "", "org_id")
	if err := r.QueryRow(ctx, `SELECT MAX(updated_at) FROM orders WHERE `+own.sql(), own.with()...).Scan(&newest); err != nil {
		return 0, 0, err
	}
	key := fastpath.CountKey{Scope: "orders|" + strconv.FormatInt(all, 10), Filters: ks.where.scope.String()}
	return r.db.counts.TotalFloor(key, newest.Int64, keep, func() (int64, int64, error) {
		var n int64
		var floor sql.NullInt64
		if err := r.QueryRow(ctx, `SELECT COUNT(*), MIN(o.updated_at) FROM `+ks.table+` WHERE `+where, args...).Scan(&n, &floor); err != nil || keep {
			return n, floor.Int64, err
		}
		// The window holds some of the organization's orders back: those
		// the list's conditions select are taken off, found from
		// orders_changed_xid (a few, the writers' still running). The
		// floor of the orders counted stays a lower bound of the list's.
		var held int64
		err := r.QueryRow(ctx, `SELECT COUNT(*) FROM `+ks.table+` WHERE `+where+` AND o.changed_xid >= ?`, append(args, w.SettledBelow)...).Scan(&held)
		return n - held, floor.Int64, err
	})
}

// keptRows names rows whose number the database keeps, for
// keptWindowTotal: those of kind in table, whose organization is orgCol,
// in kept_counts; with warehouse, orders with a row of that warehouse,
// in kept_warehouse_counts (decisions §63).
type keptRows struct {
	kind          parcelgate.TallyKind
	table, orgCol string
	warehouse     string
}

// keptWindowTotal is the number of rows k of the caller's organization in
// statuses (none: all) that a list held to the poll window w shows
// (decisions §52, §63): the kept count less the rows the window holds
// back, those whose writer's ticket (changed_xid) is not below
// w.SettledBelow. Those are the changes of writers still running when
// the poll looked (a few), found from an index on (orgCol, changed_xid);
// on SQLite the window holds nothing back. Both are read in the page's
// read transaction, so the total is the number of rows the list's pages
// hold.
func keptWindowTotal(ctx context.Context, r reader, c *parcelgate.Caller, w parcelgate.ChangeWindow, k keptRows, statuses []string) (int64, error) {
	var n int64
	var err error
	if k.warehouse != "" {
		n, err = keptWarehouseCount(ctx, r, c.Environment, c.OrgID, k.warehouse, statuses)
	} else {
		n, err = keptCount(ctx, r, k.kind, c.Environment, c.OrgID, statuses)
	}
	if err != nil || w.SettledBelow == 0 {
		return n, err
	}
	var f filterSQL
	f.tenant(c, "", "t."+k.orgCol)
	f.add("t.changed_xid >= ?", w.SettledBelow)
	if len(statuses) > 0 {
		f.in("t.status", anys(statuses))
	}
	if k.warehouse != "" {
		f.add("EXISTS (SELECT 1 FROM order_rows x WHERE x.order_pk = t.id AND x.warehouse_external_id = ?)", k.warehouse)
	}
	var held int64
	err = r.QueryRow(ctx, `SELECT COUNT(*) FROM `+k.table+` t WHERE `+f.sql(), f.args...).Scan(&held)
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
