package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// withOrder runs change on order id of c's organization, read and locked
// in a write transaction, and answers the order as change leaves it.
func (s *OrderService) withOrder(ctx context.Context, c *parcelgate.Caller, id string, change func(tx *Tx, rec *orderRecord) error) (*parcelgate.Order, error) {
	var out *parcelgate.Order
	err := s.db.inTx(ctx, func(tx *Tx) error {
		rec, err := orderByID(ctx, tx, c.OrgID, c.BusinessID, id)
		if err != nil {
			return err
		}
		if err := change(tx, rec); err != nil {
			return err
		}
		out = rec.view()
		return nil
	})
	return out, err
}

// CancelOrder is the client's cancel. Only a caller that may
// ActionPlaceOrders (interface §5.2).
func (s *OrderService) CancelOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, err
	}
	return s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		move, err := parcelgate.CancelDecision(rec.order.ExternalID, rec.status)
		if !move {
			return err
		}
		_, err = moveOrder(ctx, tx, rec, parcelgate.OrderCancelled, parcelgate.ReasonClientCancel, actorClient)
		return err
	})
}

// ReopenOrder sends an order in Error again. Only a caller that may
// ActionPlaceOrders (interface §5.2).
func (s *OrderService) ReopenOrder(ctx context.Context, c *parcelgate.Caller, id string, req *parcelgate.OrderRequest) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, err
	}
	if req != nil {
		if err := req.Validate(c.BusinessID, s.points); err != nil {
			return nil, err
		}
	}
	org, whList, drops, err := s.orderingOrganization(ctx, c)
	if err != nil {
		return nil, err
	}
	var reqHash string
	if req != nil {
		if err := req.DefaultWarehouse(whList); err != nil {
			return nil, err
		}
		reqHash = req.ContentHash()
		if err := resolveRowProducts(ctx, s.db.query, org, req); err != nil {
			return nil, err
		}
		if err := req.CheckRowCatalogs(org.BusinessID, req.DropshipRows(drops)); err != nil {
			return nil, err
		}
	}
	whs := orderCatalogs{warehouses: whList, drops: drops}
	return s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		if err := parcelgate.ReopenDecision(rec.order.ExternalID, rec.status); err != nil {
			return err
		}
		if rec.order.Dropship() {
			// decisions §34: its suppliers hold its shipments; a new order
			// makes new ones.
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Order %s was split among its suppliers, who hold its shipments: it cannot be sent again; place a new order.", rec.order.ExternalID)
		}
		// Without a body the order goes again as it was, and a later re-send
		// of its original content still reads as a retry.
		r, hash := rec.order.Request(rec.autoSubmit), rec.hash
		if req != nil {
			if err := samePathOrder(org, req, rec); err != nil {
				return err
			}
			r, hash = req, reqHash
		} else if err := resolveRowProducts(ctx, tx.Query, org, r); err != nil {
			// A row by an EAN that named no product may name one now.
			return err
		}
		whs.drop = r.DropshipRows(drops)
		_, err := replaceOrder(ctx, tx, org, whs, rec, r, hash, actorClient, time.Time{})
		return err
	})
}

// SetOrderPreferences changes an order's autoSubmit. Only a caller that
// may ActionPlaceOrders (interface §5.2).
func (s *OrderService) SetOrderPreferences(ctx context.Context, c *parcelgate.Caller, id string, p parcelgate.OrderPreferences) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, err
	}
	return s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		change, err := parcelgate.PreferencesDecision(rec.order.ExternalID, rec.status, rec.autoSubmit, p.AutoSubmit)
		if !change {
			return err
		}
		rec.autoSubmit = p.AutoSubmit
		// The engine's submission delay counts from the release.
		rec.readyAt = micros(tx.db.clock.Now(rec.env))
		stamp, err := nextOrgStamp(ctx, tx, rec.env, rec.orgID)
		if err != nil {
			return err
		}
		rec.updatedAt = micros(stamp)
		tx.wakesEngines() // released for the warehouse: its wait begins
		_, err = tx.Exec(ctx, `UPDATE orders SET auto_submit = ?, ready_at = ?, updated_at = ? WHERE id = ?`, boolInt(rec.autoSubmit), rec.readyAt, rec.updatedAt, rec.pk)
		return err
	})
}

// SetOrderStatus is the warehouse's move of an order. Only the operator
// (ActionOperate; decisions §31): c is an OperatorCaller of the order's
// organization.
func (s *OrderService) SetOrderStatus(ctx context.Context, c *parcelgate.Caller, id string, to parcelgate.OrderStatus, reason string) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	reason = parcelgate.DefaultReason(to, reason)
	return s.withOrder(ctx, c, id, func(tx *Tx, rec *orderRecord) error {
		if rec.warehouseStatus != "" {
			// decisions §38: the warehouse's hand moves the warehouse part
			// of a mixed order; the order's status follows from its rows.
			move, err := parcelgate.OperatorMoveDecision(rec.order.ExternalID, rec.warehouseStatus, to)
			if !move {
				return err
			}
			_, err = moveWarehousePart(ctx, tx, rec, to, reason, actorOperator)
			return err
		}
		if rec.order.Dropship() && to != parcelgate.OrderCancelled && to != rec.status {
			// decisions §34: its status follows its suppliers' shipments.
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Order %s is shipped by its suppliers: its status follows their shipments; it can only be cancelled.", rec.order.ExternalID)
		}
		move, err := parcelgate.OperatorMoveDecision(rec.order.ExternalID, rec.status, to)
		if !move {
			return err
		}
		_, err = moveOrder(ctx, tx, rec, to, reason, actorOperator)
		return err
	})
}

// DueOrders returns, oldest first, up to limit orders of env that the
// warehouse engine may move out of status from: Submitted orders, and
// Created ones with autoSubmit, whose wait began at or before readyBefore
// (env's time: each environment has its own clock). It takes no caller:
// it is the warehouse engine's (fulfillment.Store), the server's own
// machinery acting on every organization of env, and no front end calls
// it.
func (s *OrderService) DueOrders(ctx context.Context, env parcelgate.Environment, from parcelgate.OrderStatus, readyBefore time.Time, limit int) ([]int64, error) {
	due := parcelgate.DueForWarehouse(from, readyBefore)
	qs, ok := dueOrders(due)
	if !ok {
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "the warehouse engine moves no order out of %s", from)
	}
	whole, err := scanColumn[int64](s.db.query(ctx, qs[0], string(env), micros(due.ReadyBefore), limit))
	if err != nil {
		return nil, err
	}
	parts, err := scanColumn[int64](s.db.query(ctx, qs[1], string(env), micros(due.ReadyBefore), limit))
	if err != nil || len(parts) == 0 {
		return whole, err
	}
	// Each list is at most limit long: this round takes some of both,
	// the next round the rest (the engine sweeps until none is due).
	out := append(whole, parts...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// dueOrders is the sweep's statement for due: its status (and autoSubmit)
// written as literals, the very terms of the partial index of that status
// (migration 0024), so that both engines can prove the index covers the
// statement and read only the due orders, in the sweep's order. With the
// status bound as a parameter neither engine could (SQLite plans without
// the value, PostgreSQL's generic plan too), and every sweep read and
// sorted every order of the database (issue 39). Only the statuses the
// engine moves orders out of have an index, and a statement.
func dueOrders(due parcelgate.WarehouseDue) ([2]string, bool) {
	cond, ok := dueCondition(due)
	if !ok {
		return [2]string{}, false
	}
	// An order split among suppliers is theirs to move (decisions §34)...
	whole := `SELECT id FROM orders WHERE environment = ? AND ` + cond + ` AND ready_at <= ?
		AND NOT EXISTS (SELECT 1 FROM supplier_shipments s WHERE s.order_pk = orders.id) ORDER BY ready_at, id LIMIT ?`
	// ... but for its warehouse part, when it has one (decisions §38): a
	// statement of its own on its own partial indexes (migration 0025).
	part := `SELECT id FROM orders WHERE environment = ? AND warehouse_` + cond + ` AND ready_at <= ? ORDER BY ready_at, id LIMIT ?`
	return [2]string{whole, part}, true
}

// nextReady is NextReady's statement: per due, the first ready time past
// its bound in the whole orders' index and in the warehouse parts' one
// (decisions §38), each a probe of one row. For the engine's fixed steps
// the text is always the same, so it is prepared once.
func nextReady(env parcelgate.Environment, dues []parcelgate.WarehouseDue) (string, []any, error) {
	probes := make([]string, 0, 2*len(dues))
	args := make([]any, 0, 4*len(dues))
	for _, due := range dues {
		cond, ok := dueCondition(due)
		if !ok {
			return "", nil, parcelgate.Errorf(parcelgate.EINVALID, "the warehouse engine moves no order out of %s", due.From)
		}
		for _, c := range []string{cond, `warehouse_` + cond} {
			probes = append(probes, `(SELECT ready_at FROM orders WHERE environment = ? AND `+c+` AND ready_at > ? ORDER BY ready_at LIMIT 1)`)
			args = append(args, string(env), micros(due.ReadyBefore))
		}
	}
	return `SELECT ` + strings.Join(probes, ", "), args, nil
}

// dueCondition is the predicate of the partial index of due's status
// (migration 0024; with warehouse_ before it, 0025's), written out as
// literals for the reasons dueOrders gives.
func dueCondition(due parcelgate.WarehouseDue) (string, bool) {
	switch {
	case due.From == parcelgate.OrderCreated && due.AutoSubmitOnly:
		return `status = 'Created' AND auto_submit = 1`, true
	case due.From == parcelgate.OrderSubmitted && !due.AutoSubmitOnly:
		return `status = 'Submitted'`, true
	}
	return "", false
}

// NextReady returns, for each of dues (what the warehouse engine moves
// out of a status, as DueOrders takes it), the earliest time after
// due.ReadyBefore at which an order of env that the step's index holds
// began its wait (env's time), or the zero time when none did: the
// engine's next move of that step is due that time plus the step's delay,
// and it sleeps until then (decisions §70). It reads one row of each
// step's partial indexes (migrations 0024, 0025), the first past the
// bound, in one statement: a look with nothing due reads nothing else.
//
// The bound is exclusive because the engine has just moved every order
// ready at or before it. An order that the sweep leaves (split among
// suppliers, decisions §34) is not filtered out here: the probe would
// then walk past every such order, and each costs the engine one look
// that moves nothing, once, when its time comes. Like DueOrders it takes
// no caller: it is the warehouse engine's (fulfillment.Store).
func (s *OrderService) NextReady(ctx context.Context, env parcelgate.Environment, dues []parcelgate.WarehouseDue) ([]time.Time, error) {
	if len(dues) == 0 {
		return nil, nil
	}
	q, args, err := nextReady(env, dues)
	if err != nil {
		return nil, err
	}
	ready := make([]sql.NullInt64, 2*len(dues))
	dest := make([]any, len(ready))
	for i := range ready {
		dest[i] = &ready[i]
	}
	if err := s.db.queryRow(ctx, q, args...).Scan(dest...); err != nil {
		return nil, err
	}
	out := make([]time.Time, len(dues))
	for i := range dues {
		whole, part := ready[2*i], ready[2*i+1]
		switch {
		case whole.Valid && (!part.Valid || whole.Int64 <= part.Int64):
			out[i] = fromMicros(whole.Int64)
		case part.Valid:
			out[i] = fromMicros(part.Int64)
		}
	}
	return out, nil
}

// AdvanceOrder moves order pk from status from to status to for the
// warehouse engine, if it is still due: in from, waiting since readyBefore
// or earlier, and (from Created) with autoSubmit. It reports whether this
// call moved it; an order another instance moved first, or that changed
// meanwhile, is left alone, so each order moves exactly once per step.
// It takes no caller: like DueOrders it is the warehouse engine's
// (fulfillment.Store), the server's own machinery.
func (s *OrderService) AdvanceOrder(ctx context.Context, pk int64, from, to parcelgate.OrderStatus, readyBefore time.Time) (bool, error) {
	if !parcelgate.CanMove(from, to) {
		return false, parcelgate.Errorf(parcelgate.EINVALID, "no move from %s to %s", from, to)
	}
	var moved bool
	err := s.db.inTx(ctx, func(tx *Tx) error {
		moved = false
		rec, err := scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.id = ?`+forUpdate(tx), pk))
		if err != nil {
			return err
		}
		due := parcelgate.DueForWarehouse(from, readyBefore)
		if rec.warehouseStatus != "" {
			// decisions §38: the engine moves the warehouse part of a mixed order.
			if !due.Covers(rec.warehouseStatus, rec.autoSubmit, fromMicros(rec.readyAt)) {
				return nil
			}
			moved, err = moveWarehousePart(ctx, tx, rec, to, "", actorEngine)
			return err
		}
		if rec.order.Dropship() || !due.Covers(rec.status, rec.autoSubmit, fromMicros(rec.readyAt)) {
			return nil
		}
		moved, err = moveOrder(ctx, tx, rec, to, "", actorEngine)
		return err
	})
	return moved, err
}

// OrderHistory returns the statuses order id of the organization reached,
// oldest first, with who moved it: the audit trail of decisions §7's engine.
// Only a caller that may ActionReadOrders (decisions §31).
func (s *OrderService) OrderHistory(ctx context.Context, c *parcelgate.Caller, id string) ([]OrderEvent, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, err
	}
	own := tenantOf(c, "", "o.org_id")
	rows, err := s.db.query(ctx, `SELECT h.status, h.reason, h.actor, h.at FROM order_history h JOIN orders o ON o.id = h.order_pk
		WHERE (`+own.sql()+` AND o.order_id = ?) OR (`+own.sql()+` AND o.external_id = ?) ORDER BY h.at`, append(own.with(id), own.with(id)...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OrderEvent
	for rows.Next() {
		var e OrderEvent
		var status string
		var at int64
		if err := rows.Scan(&status, &e.Reason, &e.Actor, &at); err != nil {
			return nil, err
		}
		e.Status, e.At = parcelgate.OrderStatus(status), fromMicros(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// OrderEvent is parcelgate.OrderEvent, named here too.
type OrderEvent = parcelgate.OrderEvent
