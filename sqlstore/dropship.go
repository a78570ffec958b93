package sqlstore

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

var _ parcelgate.DropshipService = (*DropshipService)(nil)

// DropshipService keeps the shipments of dropshipping orders
// (decisions §34): made with the retailer's order, in its transaction
// (fillOrder); read and written by their supplier only. Every write locks
// the order first, then the shipment, then takes the change clock and
// then the balances: the lock order of every order writer, so two
// suppliers confirming parts of one order, or a supplier racing the
// retailer's cancellation, run one after the other and each copies back
// what the other left.
type DropshipService struct{ db *DB }

// NewDropshipService returns the shipment service of db.
func NewDropshipService(db *DB) *DropshipService {
	return &DropshipService{db: db}
}

// shipmentRecord is a shipment as stored.
type shipmentRecord struct {
	pk, orderPK, supplierOrg, retailerOrg int64
	env                                   parcelgate.Environment
	status                                parcelgate.DropshipStatus
	insertedAt, updatedAt, readyAt        int64
	// lines are the order rows the shipment's rows ship, by row.
	lines []int
	s     *parcelgate.DropshipShipment
}

const supplyColumns = `s.id, s.environment, s.supplier_org_id, s.retailer_org_id, s.order_pk, s.status, s.doc, s.inserted_at, s.updated_at, s.ready_at`

// shipmentDoc is a shipment's stored document: the shipment as answered
// and the order rows it ships.
type shipmentDoc struct {
	*parcelgate.DropshipShipment
	Lines []int `json:"lines"`
}

func (r *shipmentRecord) document() (string, error) {
	b, err := json.Marshal(shipmentDoc{DropshipShipment: r.s, Lines: r.lines})
	return string(b), err
}

func scanSupply(s rowScanner) (*shipmentRecord, error) {
	var r shipmentRecord
	var env, status, doc string
	if err := s.Scan(&r.pk, &env, &r.supplierOrg, &r.retailerOrg, &r.orderPK, &status, &doc, &r.insertedAt, &r.updatedAt, &r.readyAt); err != nil {
		return nil, err
	}
	r.env, r.status = parcelgate.Environment(env), parcelgate.DropshipStatus(status)
	d := shipmentDoc{DropshipShipment: new(parcelgate.DropshipShipment)}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return nil, fmt.Errorf("shipment %d: document: %w", r.pk, err)
	}
	r.s, r.lines = d.DropshipShipment, d.Lines
	return &r, nil
}

// view is the shipment as answered: the document with the stamps of the
// columns.
func (r *shipmentRecord) view() *parcelgate.DropshipShipment {
	s := *r.s
	s.Metadata.InsertDate, s.Metadata.UpdateDate = fromMicros(r.insertedAt), fromMicros(r.updatedAt)
	if s.References == nil {
		s.References = []parcelgate.OrderReference{}
	}
	return &s
}

// newShipmentID makes a shipment ID: 20 characters of A-Z and 2-7, unique
// per environment by its key.
func newShipmentID() string { return rand.Text()[:20] }

// splitShipments splits rec's order, just allocated, into one shipment per
// supplier (parcelgate.SplitOrder) of the rows that carry one (supply, the
// allocation's, by row; Order.Apply set each row's SupplierID from it),
// gives those rows the status Created, and returns the statements that
// insert the shipments, naming the order by pk (inserted earlier in the
// same pipeline when new). stock gives the products' flags (Fragile,
// Oversized). Rows from the retailer's own warehouse are left to the
// warehouse engine.
func splitShipments(org *parcelgate.Organization, rec *orderRecord, supply []parcelgate.OrderRowSupply, stock []*parcelgate.RowStock, pk orderPK, stamp, now time.Time) ([]step, error) {
	o := rec.order
	if !o.Dropship() {
		return nil, nil
	}
	services := make([][]string, len(o.Rows))
	for i, b := range stock {
		if b == nil || o.Rows[i].SupplierID == "" {
			continue
		}
		if b.Fragile {
			services[i] = append(services[i], parcelgate.ServiceFragile)
		}
		if b.Oversized {
			services[i] = append(services[i], parcelgate.ServiceOversized)
		}
	}
	parts := parcelgate.SplitOrder(o, org, supply, services, newShipmentID, stamp)
	steps := make([]step, 0, len(parts))
	for _, part := range parts {
		for _, line := range part.Lines {
			o.Rows[line].Status = parcelgate.OrderState{Value: parcelgate.OrderCreated, Timestamp: stamp}
		}
		r := &shipmentRecord{lines: part.Lines, s: part.Shipment}
		doc, err := r.document()
		if err != nil {
			return nil, err
		}
		steps = append(steps, step{q: `INSERT INTO supplier_shipments (shipment_id, environment, supplier_org_id, retailer_org_id, order_pk, status, doc, inserted_at, updated_at, ready_at)
			VALUES (?, ?, ?, ?, ` + pk.expr + `, ?, ?, ?, ?, ?)`,
			args: slices.Concat([]any{part.Shipment.ShipmentID, string(rec.env), part.SupplierOrg, rec.orgID}, pk.args,
				[]any{string(parcelgate.DropshipCreated), doc, micros(stamp), micros(stamp), micros(now)})})
	}
	return steps, nil
}

// FindShipment returns the caller's shipment id. Only a caller that may
// ActionSupplyShipments (decisions §34).
func (s *DropshipService) FindShipment(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.DropshipShipment, error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return nil, err
	}
	own := tenantOf(c, "", "s.supplier_org_id")
	r, err := scanSupply(s.db.queryRow(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s WHERE s.environment = ? AND s.shipment_id = ? AND `+own.sql(),
		append([]any{string(c.Environment), strings.TrimSpace(id)}, own.with()...)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shipmentNotFound(id)
	}
	if err != nil {
		return nil, err
	}
	return r.view(), nil
}

func shipmentNotFound(id string) error {
	return parcelgate.Errorf(parcelgate.ENOTFOUND, "Shipment %s not found.", strings.TrimSpace(id))
}

// ListShipments answers GET /shipments: the caller's shipments changed
// after q.From, in stamp order, paged by key, held to the change poll's
// window as order lists are (see stamp.go), so a supplier that polls from
// the newest updateDate it has seen misses nothing. Only a caller that may
// ActionSupplyShipments (decisions §34).
func (s *DropshipService) ListShipments(ctx context.Context, c *parcelgate.Caller, q parcelgate.DropshipQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.DropshipShipment], error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return parcelgate.Page[*parcelgate.DropshipShipment]{}, err
	}
	ks := &keysetQuery{table: "supplier_shipments s", alias: "s", byModified: true, stampCol: "updated_at"}
	f := &ks.where
	f.tenant(c, "", "s.supplier_org_id")
	w, err := pollWindow(ctx, s.db.primary(), c.Environment, q.From)
	if err != nil {
		return parcelgate.Page[*parcelgate.DropshipShipment]{}, err
	}
	addWindow(f, "s", "updated_at", w, !q.From.IsZero())
	if len(q.Statuses) > 0 {
		st := make([]any, len(q.Statuses))
		for i, v := range q.Statuses {
			st[i] = string(v)
		}
		f.in("s.status", st)
	}
	if q.From.IsZero() {
		// decisions §63: the supplier's shipments in the statuses, a
		// kept count less the window's held-back rows; a poll from a
		// stamp counts its few rows from the index range after it.
		statuses := make([]string, len(q.Statuses))
		for i, v := range q.Statuses {
			statuses[i] = string(v)
		}
		ks.keptTotal = func(ctx context.Context, r reader) (int64, error) {
			return keptWindowTotal(ctx, r, c, w, keptRows{kind: parcelgate.TallySupplierShipments, table: "supplier_shipments", orgCol: "supplier_org_id"}, statuses)
		}
	}
	return keysetPage(ctx, s.db.primary(), ks, p, supplyColumns, "", func(rows *sql.Rows) (*parcelgate.DropshipShipment, pageKey, error) {
		r, err := scanSupply(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		return r.view(), pageKey{modified: r.updatedAt, id: r.pk}, nil
	})
}

// OrderShipments returns the shipments of the caller's order id, for the
// retailer, in the order they were made. Only a caller that may
// ActionReadOrders (interface §5.2: the order is the retailer's).
func (s *DropshipService) OrderShipments(ctx context.Context, c *parcelgate.Caller, orderID string) ([]*parcelgate.DropshipShipment, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, err
	}
	o, err := readOrder(ctx, s.db.primary(), c, orderID)
	if err != nil {
		return nil, err
	}
	order, asRetailer := tenantOf(c, "", "o.org_id"), tenantOf(c, "", "s.retailer_org_id")
	rows, err := s.db.query(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s JOIN orders o ON o.id = s.order_pk
		WHERE o.environment = ? AND o.order_id = ? AND `+order.sql()+` AND `+asRetailer.sql()+` ORDER BY s.id`,
		slices.Concat([]any{string(c.Environment), o.ID}, order.with(), asRetailer.with())...)
	recs, err := collectRows(rows, err, func(rows *sql.Rows) (*shipmentRecord, error) { return scanSupply(rows) })
	if err != nil {
		return nil, err
	}
	out := make([]*parcelgate.DropshipShipment, len(recs))
	for i, r := range recs {
		out[i] = r.view()
	}
	return out, nil
}

// UpdateShipment applies a supplier's PATCH (parcelgate.MoveShipment).
// Only a caller that may ActionSupplyShipments (decisions §34).
func (s *DropshipService) UpdateShipment(ctx context.Context, c *parcelgate.Caller, id string, u parcelgate.DropshipUpdate) (*parcelgate.DropshipShipment, error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return nil, err
	}
	return withShipment(ctx, s.db, c, id, func(sh *parcelgate.DropshipShipment, now time.Time) (*parcelgate.DropshipShipment, bool, error) {
		return parcelgate.MoveShipment(sh, u, parcelgate.PlatformParcelNumber, now)
	})
}

// SplitShipment applies a supplier's PUT (parcelgate.SplitShipment): the
// split, and the status it carries (Delivered confirms, with the stock
// settled and copied back to the order as a PATCH's).
// Only a caller that may ActionSupplyShipments (decisions §34).
func (s *DropshipService) SplitShipment(ctx context.Context, c *parcelgate.Caller, id string, u parcelgate.DropshipUpdate) (*parcelgate.DropshipShipment, error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return nil, err
	}
	return withShipment(ctx, s.db, c, id, func(sh *parcelgate.DropshipShipment, now time.Time) (*parcelgate.DropshipShipment, bool, error) {
		out, err := parcelgate.SplitShipment(sh, u, parcelgate.PlatformParcelNumber, now)
		return out, err == nil, err
	})
}

// ConfirmShipment fast-confirms a shipment (parcelgate.FastConfirm).
// Only a caller that may ActionSupplyShipments (decisions §34).
func (s *DropshipService) ConfirmShipment(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.DropshipShipment, error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return nil, err
	}
	return withShipment(ctx, s.db, c, id, func(sh *parcelgate.DropshipShipment, now time.Time) (*parcelgate.DropshipShipment, bool, error) {
		return parcelgate.FastConfirm(sh, parcelgate.PlatformParcelNumber, now)
	})
}

// AddShipmentEvent keeps a supplier's event on its shipment
// (parcelgate.AddShipmentEvent). The shipment's updateDate moves, so the
// supplier's poll and the retailer's view of its suppliers' shipments see
// it; the retailer's order is not changed (nothing of it is). Locks: the
// order, the shipment, then the change clock, as every shipment writer.
// Only a caller that may ActionSupplyShipments (decisions §38).
func (s *DropshipService) AddShipmentEvent(ctx context.Context, c *parcelgate.Caller, id string, e parcelgate.DropshipEventInput) (*parcelgate.DropshipShipment, bool, error) {
	if err := c.May(parcelgate.ActionSupplyShipments); err != nil {
		return nil, false, err
	}
	var out *parcelgate.DropshipShipment
	var added bool
	err := s.db.inTx(ctx, func(tx *Tx) error {
		added = false
		// The order is locked though not written: every shipment writer
		// keeps the order writers' lock order (order, shipment, clock).
		_, rec, err := lockShipment(ctx, tx, c, id)
		if err != nil {
			return err
		}
		now := tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond)
		next, changed, err := parcelgate.AddShipmentEvent(rec.view(), e, now)
		if err != nil || !changed {
			out = rec.view()
			return err
		}
		stamp, err := nextOrgStamp(ctx, tx, rec.env, rec.supplierOrg)
		if err != nil {
			return err
		}
		rec.s, rec.updatedAt = next, micros(stamp)
		doc, err := rec.document()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE supplier_shipments SET doc = ?, updated_at = ? WHERE id = ?`, doc, rec.updatedAt, rec.pk); err != nil {
			return err
		}
		out, added = rec.view(), true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, added, nil
}

// shipmentChange decides a change of a shipment at now: the shipment to
// store, and whether anything changed.
type shipmentChange func(s *parcelgate.DropshipShipment, now time.Time) (*parcelgate.DropshipShipment, bool, error)

// withShipment runs change on the caller's shipment id in a write
// transaction and answers the shipment as it leaves it. Locks: the order
// the shipment belongs to, then the shipment, then (when something
// changes) the change clock, then the balances its rows hold.
func withShipment(ctx context.Context, db *DB, c *parcelgate.Caller, id string, change shipmentChange) (*parcelgate.DropshipShipment, error) {
	var out *parcelgate.DropshipShipment
	err := db.inTx(ctx, func(tx *Tx) error {
		ord, rec, err := lockShipment(ctx, tx, c, id)
		if err != nil {
			return err
		}
		now := tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond)
		next, changed, err := change(rec.view(), now)
		if err != nil {
			return err
		}
		if !changed {
			out = rec.view()
			return nil
		}
		stamp, err := nextOrgStamp(ctx, tx, rec.env, rec.supplierOrg)
		if err != nil {
			return err
		}
		if err := writeShipment(ctx, tx, ord, rec, next, stamp); err != nil {
			return err
		}
		out = rec.view()
		return nil
	})
	return out, err
}

// lockShipment reads and locks, in tx, the caller's shipment id and the
// retailer's order it belongs to: the order first, then the shipment.
func lockShipment(ctx context.Context, tx *Tx, c *parcelgate.Caller, id string) (*orderRecord, *shipmentRecord, error) {
	var pk, orderPK, retailerOrg int64
	own := tenantOf(c, "", "supplier_org_id")
	err := tx.QueryRow(ctx, `SELECT id, order_pk, retailer_org_id FROM supplier_shipments WHERE environment = ? AND shipment_id = ? AND `+own.sql(),
		append([]any{string(c.Environment), strings.TrimSpace(id)}, own.with()...)...).Scan(&pk, &orderPK, &retailerOrg)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, shipmentNotFound(id)
	}
	if err != nil {
		return nil, nil, err
	}
	// The retailer's order, which the shipment names.
	ord, err := scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.id = ? AND o.org_id = ?`+forUpdate(tx), orderPK, retailerOrg))
	if err != nil {
		return nil, nil, err
	}
	shipment := tenantOf(c, "", "s.supplier_org_id")
	rec, err := scanSupply(tx.QueryRow(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s WHERE s.id = ? AND `+shipment.sql()+forUpdate(tx), append([]any{pk}, shipment.with()...)...))
	if err != nil {
		return nil, nil, err
	}
	return ord, rec, nil
}

// writeShipment stores next as rec's new state with stamp, settles the
// stock of its rows when it reaches a final status, and copies every
// shipment of the order back to ord. The caller holds ord's and rec's
// locks and has taken stamp.
func writeShipment(ctx context.Context, tx *Tx, ord *orderRecord, rec *shipmentRecord, next *parcelgate.DropshipShipment, stamp time.Time) error {
	if next.Status.Value.Final() && !rec.status.Final() {
		if err := settleShipment(ctx, tx, ord, rec, next, stamp); err != nil {
			return err
		}
	}
	if next.Status.Value != rec.status && !next.Status.Value.Final() {
		// The automatic supplier's wait counts from the last move.
		rec.readyAt = micros(tx.db.clock.Now(rec.env))
		tx.wakesEngines()
	}
	rec.s, rec.status, rec.updatedAt = next, next.Status.Value, micros(stamp)
	doc, err := rec.document()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE supplier_shipments SET status = ?, doc = ?, updated_at = ?, ready_at = ? WHERE id = ?`,
		string(rec.status), doc, rec.updatedAt, rec.readyAt, rec.pk); err != nil {
		return err
	}
	return copyBack(ctx, tx, ord, rec, stamp, actorSupplier)
}

// actorSupplier is who moved an order whose status follows its suppliers'
// shipments, in order_history.
const actorSupplier = "supplier"

// settleShipment applies the stock effect of rec reaching next's final
// status (interface §2.5, parcelgate.SettleShipment): on the supplier's
// balances its rows hold, delivered quantities leave allocated and the
// rest returns to quantity. The rows then hold nothing (balance_id 0), so
// a later cancellation of the order returns nothing twice.
func settleShipment(ctx context.Context, tx *Tx, ord *orderRecord, rec *shipmentRecord, next *parcelgate.DropshipShipment, stamp time.Time) error {
	if len(rec.lines) == 0 {
		return nil
	}
	lineArgs := make([]any, len(rec.lines))
	for i, l := range rec.lines {
		lineArgs[i] = l
	}
	type held struct {
		line, balance int64
		parcelgate.StockLevel
	}
	rows, err := tx.Query(ctx, `SELECT r.line, r.balance_id, b.quantity, b.allocated FROM order_rows r JOIN balances b ON b.id = r.balance_id
		WHERE r.order_pk = ? AND r.balance_id <> 0 AND b.removed_at = 0 AND r.line IN (`+placeholders(len(lineArgs))+`) ORDER BY r.line`+forUpdateOf(tx, "b"),
		append([]any{ord.pk}, lineArgs...)...)
	hs, err := collect(rows, err, func(h *held) []any { return []any{&h.line, &h.balance, &h.Quantity, &h.Allocated} })
	if err != nil {
		return err
	}
	byLine := map[int64]int64{}
	levels := map[int64]parcelgate.StockLevel{}
	for _, h := range hs {
		byLine[h.line], levels[h.balance] = h.balance, h.StockLevel
	}
	balances := make([]int64, len(rec.lines))
	for i, l := range rec.lines {
		balances[i] = byLine[int64(l)]
	}
	if err := applyStockMoves(ctx, tx, parcelgate.SettleHolds(levels, parcelgate.SettleShipment(next, balances)), stamp); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE order_rows SET balance_id = 0 WHERE order_pk = ? AND line IN (`+placeholders(len(lineArgs))+`)`, append([]any{ord.pk}, lineArgs...)...); err != nil {
		return err
	}
	var left int64
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM order_rows WHERE order_pk = ? AND balance_id <> 0`, ord.pk).Scan(&left); err != nil {
		return err
	}
	ord.allocated = left > 0
	return nil
}

// warehousePart is the warehouse part of a mixed order (decisions §38),
// nil for any other order: its status, its rows and their codes.
func (r *orderRecord) warehousePart() *parcelgate.WarehousePart {
	if r.warehouseStatus == "" {
		return nil
	}
	wh := &parcelgate.WarehousePart{Status: r.warehouseStatus}
	for i, row := range r.order.Rows {
		if row.SupplierID == "" {
			wh.Lines = append(wh.Lines, i)
			wh.Codes = append(wh.Codes, row.TrackingCodes)
		}
	}
	return wh
}

// copyBack copies the order's shipments (changed, as it now is, and the
// others as stored) and its warehouse part, if any, to ord and stores it
// with stamp (parcelgate.Progress):
// its rows' statuses, delivered quantities and tracking codes, its
// tracking codes and its status, which a change of status records in the
// order's history as actor's. The order's updateDate moves, so the
// retailer's change polls see it.
func copyBack(ctx context.Context, tx *Tx, ord *orderRecord, changed *shipmentRecord, stamp time.Time, actor string) error {
	rows, err := tx.Query(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s WHERE s.order_pk = ? ORDER BY s.id`, ord.pk)
	recs, err := collectRows(rows, err, func(rows *sql.Rows) (*shipmentRecord, error) { return scanSupply(rows) })
	if err != nil {
		return err
	}
	parts := make([]parcelgate.DropshipOfRows, len(recs))
	for i, r := range recs {
		if changed != nil && r.pk == changed.pk {
			r = changed
		}
		parts[i] = parcelgate.DropshipOfRows{Shipment: r.s, Lines: r.lines}
	}
	p := parcelgate.Progress(len(ord.order.Rows), parts, ord.warehousePart())
	o := ord.order
	for i, rp := range p.Rows {
		if rp.Status == "" {
			continue
		}
		row := &o.Rows[i]
		if row.Status.Value != rp.Status {
			row.Status = parcelgate.OrderState{Value: rp.Status, Timestamp: stamp}
		}
		row.DeliveredQuantity, row.TrackingCodes = rp.DeliveredQuantity, rp.TrackingCodes
	}
	o.TrackingCodes = p.TrackingCodes
	if len(p.TrackingCodes) > 0 {
		o.DeliveryOperator = parcelgate.DeliveryOperator
	}
	moved := ord.status != p.Status
	if moved {
		ord.status, ord.statusAt, ord.reason = p.Status, micros(stamp), ""
		tx.wakesEngines() // a status reached: the engines look again
	}
	ord.updatedAt = micros(stamp)
	doc, err := ord.document()
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE orders SET status = ?, status_at = ?, reason = ?, allocated = ?, doc = ?, updated_at = ?, ready_at = ?, warehouse_status = ? WHERE id = ? AND org_id = ?`,
		string(ord.status), ord.statusAt, ord.reason, boolInt(ord.allocated), doc, ord.updatedAt, ord.readyAt, string(ord.warehouseStatus), ord.pk, ord.orgID); err != nil {
		return err
	}
	if moved {
		return recordHistory(ctx, tx, ord, actor)
	}
	return nil
}

// cancelOrderShipments ends the open shipments of ord, which its retailer
// (or the operator) cancelled: each becomes Cancelled with nothing
// delivered, and the order's rows show it. The order's stock has been
// returned by the caller (releaseOrder); shipments already final keep
// their state.
func cancelOrderShipments(ctx context.Context, tx *Tx, ord *orderRecord, stamp time.Time) error {
	rows, err := tx.Query(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s WHERE s.order_pk = ? ORDER BY s.id`+forUpdate(tx), ord.pk)
	recs, err := collectRows(rows, err, func(rows *sql.Rows) (*shipmentRecord, error) { return scanSupply(rows) })
	if err != nil {
		return err
	}
	now := tx.db.clock.Now(ord.env).UTC().Truncate(time.Microsecond)
	if ord.warehouseStatus != "" && !ord.warehouseStatus.Terminal() {
		// The warehouse part of a mixed order ends with it (decisions §38).
		ord.warehouseStatus = parcelgate.OrderCancelled
	}
	parts := make([]parcelgate.DropshipOfRows, len(recs))
	for i, r := range recs {
		if !r.status.Final() {
			cancelled := parcelgate.DropshipCancelled
			next, _, err := parcelgate.MoveShipment(r.view(), parcelgate.DropshipUpdate{Status: &cancelled}, parcelgate.PlatformParcelNumber, now)
			if err != nil {
				return err
			}
			r.s, r.status, r.updatedAt = next, next.Status.Value, micros(stamp)
			doc, err := r.document()
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE supplier_shipments SET status = ?, doc = ?, updated_at = ? WHERE id = ?`, string(r.status), doc, r.updatedAt, r.pk); err != nil {
				return err
			}
		}
		parts[i] = parcelgate.DropshipOfRows{Shipment: r.s, Lines: r.lines}
	}
	p := parcelgate.Progress(len(ord.order.Rows), parts, ord.warehousePart())
	for i, rp := range p.Rows {
		if rp.Status == "" {
			continue
		}
		row := &ord.order.Rows[i]
		if row.Status.Value != rp.Status {
			row.Status = parcelgate.OrderState{Value: rp.Status, Timestamp: stamp}
		}
		row.DeliveredQuantity, row.TrackingCodes = rp.DeliveredQuantity, rp.TrackingCodes
	}
	return nil
}

// SetAutoSupplier switches the automatic supplier of c's organization on
// or off (decisions §34) and answers the setting. Only the operator
// (ActionOperate): c is an OperatorCaller of the organization.
func (s *DropshipService) SetAutoSupplier(ctx context.Context, c *parcelgate.Caller, a parcelgate.AutoSupplier) (parcelgate.AutoSupplier, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.AutoSupplier{}, err
	}
	if err := a.Validate(); err != nil {
		return parcelgate.AutoSupplier{}, err
	}
	if c.Scope != parcelgate.ScopeOrganization {
		// An EnvironmentOperator names no organization to switch.
		return parcelgate.AutoSupplier{}, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization not found")
	}
	if !a.Enabled {
		own := tenantOf(c, "", "org_id")
		_, err := s.db.exec(ctx, `DELETE FROM auto_suppliers WHERE `+own.sql(), own.with()...)
		return parcelgate.AutoSupplier{}, err
	}
	_, err := s.db.exec(ctx, `INSERT INTO auto_suppliers (org_id, delay_s) VALUES (?, ?) ON CONFLICT (org_id) DO UPDATE SET delay_s = excluded.delay_s`, c.OrgID, a.DelaySeconds)
	if err == nil {
		// Switched on, or a shorter delay: its shipments may be due now.
		s.db.due.notify()
	}
	return a, err
}

// AutoSupplierOf answers the automatic supplier setting of c's
// organization. Only the operator (ActionOperate): c is an OperatorCaller
// of the organization.
func (s *DropshipService) AutoSupplierOf(ctx context.Context, c *parcelgate.Caller) (parcelgate.AutoSupplier, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return parcelgate.AutoSupplier{}, err
	}
	var a parcelgate.AutoSupplier
	own := tenantOf(c, "", "org_id")
	err := s.db.queryRow(ctx, `SELECT delay_s FROM auto_suppliers WHERE `+own.sql(), own.with()...).Scan(&a.DelaySeconds)
	if errors.Is(err, sql.ErrNoRows) {
		return parcelgate.AutoSupplier{}, nil
	}
	a.Enabled = err == nil
	return a, err
}

// DueShipments returns, oldest first, up to limit open shipments of env
// whose supplier has the automatic supplier on and whose delay since
// their last move has passed at now (env's time). It takes no caller: it
// is the automatic supplier's (fulfillment.SupplierStore), the server's
// own machinery acting on every organization of env.
//
// It reads the suppliers that have the automatic supplier on (a handful
// of rows), then, per supplier, only its open shipments of env whose wait
// has passed, from the partial index supplier_shipments_auto (migration
// 0046), each supplier's delay applied to the bound and not to the rows.
// One statement joining the two read every open shipment of env on each
// sweep, four times a second, to compare its own time plus its supplier's
// delay with now (issue 39; decisions §55): a sweep with nothing due now
// reads no shipment row.
func (s *DropshipService) DueShipments(ctx context.Context, env parcelgate.Environment, now time.Time, limit int) ([]int64, error) {
	type auto struct{ org, delay int64 }
	rows, err := s.db.query(ctx, `SELECT org_id, delay_s FROM auto_suppliers`)
	if err != nil {
		return nil, err
	}
	var autos []auto
	for rows.Next() {
		var a auto
		if err := rows.Scan(&a.org, &a.delay); err != nil {
			rows.Close()
			return nil, err
		}
		autos = append(autos, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	type due struct{ id, readyAt int64 }
	var all []due
	for _, a := range autos {
		rows, err := s.db.query(ctx, dueShipments, a.org, string(env), micros(now)-a.delay*1_000_000, limit)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var d due
			if err := rows.Scan(&d.id, &d.readyAt); err != nil {
				rows.Close()
				return nil, err
			}
			all = append(all, d)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(x, y due) int { return cmp.Or(cmp.Compare(x.readyAt, y.readyAt), cmp.Compare(x.id, y.id)) })
	out := make([]int64, 0, min(len(all), limit))
	for _, d := range all[:min(len(all), limit)] {
		out = append(out, d.id)
	}
	return out, nil
}

// dueShipments are a supplier's open shipments of an environment whose
// wait began at or before a time, oldest first: the status list is the
// partial index's predicate term for term (migration 0046), so that SQLite
// can prove the index covers the statement.
const dueShipments = `SELECT id, ready_at FROM supplier_shipments WHERE supplier_org_id = ? AND environment = ?
	AND status IN ('Created', 'Submitted', 'Viewed', 'Picking', 'Packing', 'Shipping') AND ready_at <= ?
	ORDER BY ready_at, id LIMIT ?`

// NextDue returns when the next open shipment of env whose supplier has
// the automatic supplier on becomes due after now (env's time): the
// earliest of each such supplier's first shipment that waits past now less
// its delay, plus that delay. The zero time when none waits. The automatic
// supplier sleeps until then (decisions §70). One statement: per supplier
// that switched it on, one row of the partial index
// supplier_shipments_auto (migration 0046), the first past the bound. Like
// DueShipments it takes no caller: it is the automatic supplier's
// (fulfillment.SupplierStore).
func (s *DropshipService) NextDue(ctx context.Context, env parcelgate.Environment, now time.Time) (time.Time, error) {
	var due sql.NullInt64
	if err := s.db.queryRow(ctx, nextDueShipment, string(env), micros(now)).Scan(&due); err != nil {
		return time.Time{}, err
	}
	if !due.Valid {
		return time.Time{}, nil
	}
	return fromMicros(due.Int64), nil
}

// nextDueShipment is NextDue's statement: dueShipments's probe, past the
// bound instead of up to it, per row of auto_suppliers.
const nextDueShipment = `SELECT MIN(a.delay_s * 1000000 + (SELECT s.ready_at FROM supplier_shipments s WHERE s.supplier_org_id = a.org_id AND s.environment = ?
	AND s.status IN ('Created', 'Submitted', 'Viewed', 'Picking', 'Packing', 'Shipping') AND s.ready_at > ? - a.delay_s * 1000000
	ORDER BY s.ready_at LIMIT 1)) FROM auto_suppliers a`

// AutoConfirm has the automatic supplier handle shipment pk at now, if it
// is still due (parcelgate.AutoSupply: confirmed in full, or a test
// scenario), with the locks and the copy-back of every shipment write. It
// reports whether this call moved it; a shipment another instance or its
// supplier moved meanwhile is left alone. It takes no caller: like
// DueShipments it is the automatic supplier's machinery.
func (s *DropshipService) AutoConfirm(ctx context.Context, pk int64, now time.Time) (bool, error) {
	var moved bool
	err := s.db.inTx(ctx, func(tx *Tx) error {
		moved = false
		var orderPK, retailerOrg, supplierOrg int64
		var delay sql.NullInt64
		err := tx.QueryRow(ctx, `SELECT s.order_pk, s.retailer_org_id, s.supplier_org_id, a.delay_s FROM supplier_shipments s
			LEFT JOIN auto_suppliers a ON a.org_id = s.supplier_org_id WHERE s.id = ?`, pk).Scan(&orderPK, &retailerOrg, &supplierOrg, &delay)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !delay.Valid {
			return nil
		}
		if err != nil {
			return err
		}
		ord, err := scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.id = ? AND o.org_id = ?`+forUpdate(tx), orderPK, retailerOrg))
		if err != nil {
			return err
		}
		rec, err := scanSupply(tx.QueryRow(ctx, `SELECT `+supplyColumns+` FROM supplier_shipments s WHERE s.id = ? AND s.supplier_org_id = ?`+forUpdate(tx), pk, supplierOrg))
		if err != nil {
			return err
		}
		if rec.status.Final() || rec.readyAt+delay.Int64*1_000_000 > micros(now) {
			return nil
		}
		next, changed, err := parcelgate.AutoSupply(rec.env, ord.order.ExternalID, rec.view(), parcelgate.PlatformParcelNumber, now.UTC().Truncate(time.Microsecond))
		if err != nil || !changed {
			return err
		}
		stamp, err := nextOrgStamp(ctx, tx, rec.env, rec.supplierOrg)
		if err != nil {
			return err
		}
		moved = true
		return writeShipment(ctx, tx, ord, rec, next, stamp)
	})
	return moved, err
}
