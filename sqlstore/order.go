package sqlstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

var _ parcelgate.OrderService = (*DB)(nil)

// Who moved an order, as written in order_history.
const (
	actorClient   = "client"
	actorEngine   = "engine"
	actorOperator = "operator"
)

// orderRecord is an order as stored: the document and the columns that
// queries, the engine and allocation use.
type orderRecord struct {
	pk         int64
	env        parcelgate.Environment
	orgID      int64
	status     parcelgate.OrderStatus
	statusAt   int64
	reason     string
	autoSubmit bool
	allocated  bool
	hash       string
	insertedAt int64
	updatedAt  int64
	readyAt    int64
	order      *parcelgate.Order
}

const orderColumns = `o.id, o.environment, o.org_id, o.status, o.status_at, o.reason, o.auto_submit, o.allocated, o.content_hash, o.doc, o.inserted_at, o.updated_at, o.ready_at`

func scanOrderRecord(s rowScanner) (*orderRecord, error) {
	var r orderRecord
	var env, status, doc string
	var auto, alloc int
	if err := s.Scan(&r.pk, &env, &r.orgID, &status, &r.statusAt, &r.reason, &auto, &alloc, &r.hash, &doc, &r.insertedAt, &r.updatedAt, &r.readyAt); err != nil {
		return nil, err
	}
	r.env, r.status, r.autoSubmit, r.allocated = parcelgate.Environment(env), parcelgate.OrderStatus(status), auto == 1, alloc == 1
	r.order = new(parcelgate.Order)
	if err := json.Unmarshal([]byte(doc), r.order); err != nil {
		return nil, fmt.Errorf("order %d: document: %w", r.pk, err)
	}
	return &r, nil
}

// view returns the order as answered: the document with the status,
// stamps and preferences of the columns.
func (r *orderRecord) view() *parcelgate.Order {
	o := *r.order
	o.Status = parcelgate.OrderState{Value: r.status, Timestamp: fromMicros(r.statusAt)}
	if r.status == parcelgate.OrderError || r.status == parcelgate.OrderCancelled {
		o.Status.Reason = r.reason
	}
	o.Metadata = parcelgate.OrderMetadata{InsertDate: fromMicros(r.insertedAt), UpdateDate: fromMicros(r.updatedAt), DocumentType: "SalesOrder"}
	o.Preferences.AutoSubmit = r.autoSubmit
	o.Rows = make([]parcelgate.OrderRow, len(r.order.Rows))
	for i, row := range r.order.Rows {
		row.Status = parcelgate.OrderState{Value: r.status, Timestamp: o.Status.Timestamp}
		o.Rows[i] = row
	}
	return &o
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// forUpdate locks the rows a SELECT reads until the transaction ends, on
// PostgreSQL; SQLite's single writer already excludes other writers.
func (tx *Tx) forUpdate() string {
	if tx.d.name == "postgres" {
		return " FOR UPDATE"
	}
	return ""
}

// orderByID reads the caller's order by service ID or externalId, locked
// for the rest of tx. Another tenant's order is not found, like a missing
// one.
func (tx *Tx) orderByID(ctx context.Context, orgID int64, id string) (*orderRecord, error) {
	id = strings.TrimSpace(id)
	r, err := scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.org_id = ? AND (o.order_id = ? OR o.external_id = ?)`+tx.forUpdate(), orgID, id, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
	}
	return r, err
}

func (db *DB) FindOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	id = strings.TrimSpace(id)
	r, err := scanOrderRecord(db.queryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.org_id = ? AND (o.order_id = ? OR o.external_id = ?)`, c.OrgID, id, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	return r.view(), nil
}

// warehouses returns the external IDs of the organization's warehouse
// catalogs: the warehouses its order rows may name.
func (db *DB) warehouses(ctx context.Context, orgID int64) ([]string, error) {
	return scanColumn[string](db.query(ctx, `SELECT external_id FROM catalogs WHERE retailer_org_id = ? AND catalog_type = ? ORDER BY external_id`, orgID, string(parcelgate.CatalogWarehouse)))
}

// scanColumn reads the single column of every row of a query.
func scanColumn[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// defaultWarehouse fills in externalWarehouseId of rows that leave it out:
// spec 2.3 calls it constant when there is one warehouse, so a merchant
// with exactly one may omit it.
func defaultWarehouse(req *parcelgate.OrderRequest, warehouses []string) error {
	var p parcelgate.Problems
	for i := range req.Rows {
		row := &req.Rows[i]
		if row.ExternalWarehouseID != "" {
			continue
		}
		switch len(warehouses) {
		case 1:
			row.ExternalWarehouseID = warehouses[0]
		case 0:
			p.Add(fmt.Sprintf("rows[%d].externalWarehouseId", i), "is required: your organization has no warehouse")
		default:
			p.Add(fmt.Sprintf("rows[%d].externalWarehouseId", i), "is required: your organization has several warehouses (%s)", strings.Join(warehouses, ", "))
		}
	}
	return p.Err()
}

// contentHash identifies an order's content: a re-send with the same hash
// is a retry (DESIGN §7). The request's JSON form leaves externalId out.
func contentHash(req *parcelgate.OrderRequest) string {
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newOrderID returns a service order ID: 16 characters of A-Z and 2-7. It
// never holds '-', so it can never equal an externalId ({businessId}-...).
func newOrderID() string { return rand.Text()[:16] }

// newExternalID generates an externalId for an order that came without
// one (spec 4.3 rule 2, option 1): the business ID, '-', and random
// characters up to 20 in all.
func newExternalID(businessID string) (string, error) {
	n := parcelgate.MaxOrderIDLength - len(businessID) - 1
	if n < 6 {
		return "", &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: externalId is required for this business ID.",
			Fields: []parcelgate.FieldError{{Field: "externalId", Message: fmt.Sprintf("is required: business ID %s leaves too little of the 20 characters for a generated ID", businessID)}}}
	}
	return businessID + "-" + rand.Text()[:min(n, 10)], nil
}

// newOrder builds the order document of a request. vendor, sender and
// orderDate default to the organization's profile and the time of receipt
// (DESIGN §7).
func newOrder(org *parcelgate.Organization, req *parcelgate.OrderRequest, received time.Time) *parcelgate.Order {
	profile := parcelgate.Address{ExternalID: org.BusinessID, Name: org.Name}
	if org.Address != nil {
		profile = *org.Address
		if profile.ExternalID == "" {
			profile.ExternalID = org.BusinessID
		}
		if profile.Name == "" {
			profile.Name = org.Name
		}
	}
	o := &parcelgate.Order{
		ExternalID:      req.ExternalID,
		ClientID:        org.BusinessID,
		OrderDate:       req.OrderDate,
		Vendor:          req.Vendor,
		Sender:          req.Sender,
		DeliveryAddress: req.DeliveryAddress,
		ServiceCode:     req.ServiceCode,
		PickupPointID:   req.PickupPointID,
		References:      append([]parcelgate.OrderReference{}, req.References...),
	}
	if o.OrderDate.IsZero() {
		o.OrderDate = received
	}
	if o.Vendor == nil {
		v := profile
		o.Vendor = &v
	}
	if o.Sender == nil {
		s := profile
		o.Sender = &s
	}
	for _, r := range req.Rows {
		o.Rows = append(o.Rows, parcelgate.OrderRow{
			ExternalProductID:   r.ExternalProductID,
			ProductEANCode:      r.ProductEANCode,
			ExternalWarehouseID: r.ExternalWarehouseID,
			Quantity:            parcelgate.Quantity(r.Quantity),
		})
	}
	return o
}

// orderLockKey names the advisory lock that serializes creates of one
// organization's orders with one SO reference and no externalId, so two
// concurrent retries of one order cannot both create it.
func orderLockKey(orgID int64, so string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "order-so:%d:%s", orgID, so)
	return int64(h.Sum64())
}

func (db *DB) CreateOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest) (*parcelgate.Order, error) {
	return db.placeOrder(ctx, c, req, nil)
}

func (db *DB) UpdateOrder(ctx context.Context, c *parcelgate.Caller, id string, req *parcelgate.OrderRequest) (*parcelgate.Order, error) {
	return db.placeOrder(ctx, c, req, &id)
}

// placeOrder creates or re-sends an order. With target, the request is a
// re-send of that existing order (PUT /orders/{id}); its externalId, when
// given, must be that order's.
func (db *DB) placeOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest, target *string) (*parcelgate.Order, error) {
	org, err := db.organizationByID(ctx, c.OrgID)
	if err != nil {
		return nil, err
	}
	whs, err := db.warehouses(ctx, c.OrgID)
	if err != nil {
		return nil, err
	}
	if err := defaultWarehouse(req, whs); err != nil {
		return nil, err
	}
	hash := contentHash(req)
	var out *parcelgate.Order
	// Two first sends of one externalId may race to insert it; the loser's
	// insert fails on the unique key, and its second attempt finds the
	// winner's order and answers as a re-send.
	for attempt := 0; ; attempt++ {
		err = db.inTx(ctx, func(tx *Tx) error {
			var err error
			out, err = tx.placeOrder(ctx, org, req, hash, target)
			return err
		})
		if !isUniqueViolation(err) || attempt == 2 {
			return out, err
		}
	}
}

func (tx *Tx) placeOrder(ctx context.Context, org *parcelgate.Organization, req *parcelgate.OrderRequest, hash string, target *string) (*parcelgate.Order, error) {
	var existing *orderRecord
	var err error
	switch {
	case target != nil:
		if existing, err = tx.orderByID(ctx, org.ID, *target); err != nil {
			return nil, err
		}
		if req.ExternalID != "" && req.ExternalID != existing.order.ExternalID {
			return nil, &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: externalId does not name the order of the path.",
				Fields: []parcelgate.FieldError{{Field: "externalId", Message: fmt.Sprintf("must be %s, the order of the path, or left out", existing.order.ExternalID)}}}
		}
	case req.ExternalID != "":
		existing, err = tx.orderByID(ctx, org.ID, req.ExternalID)
	case req.SORef() != "":
		// DESIGN §7: a retry without externalId is known by its SO reference.
		if tx.d.name == "postgres" {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, orderLockKey(org.ID, req.SORef())); err != nil {
				return nil, err
			}
		}
		var pk int64
		err = tx.QueryRow(ctx, `SELECT order_pk FROM order_refs WHERE org_id = ? AND name = ? AND value = ? ORDER BY order_pk LIMIT 1`, org.ID, parcelgate.RefSO, req.SORef()).Scan(&pk)
		if errors.Is(err, sql.ErrNoRows) {
			err = parcelgate.Errorf(parcelgate.ENOTFOUND, "no order with this SO reference")
		} else if err == nil {
			existing, err = scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.id = ?`+tx.forUpdate(), pk))
		}
	default:
		err = parcelgate.Errorf(parcelgate.ENOTFOUND, "new order")
	}
	switch {
	case err == nil:
		return tx.resend(ctx, org, existing, req, hash)
	case parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND:
		return nil, err
	}
	return tx.insertOrder(ctx, org, req, hash)
}

// resend answers a create whose order exists (DESIGN §7): the same content
// is a retry and changes nothing; new content replaces an order that is
// still Created; anything else is a conflict.
func (tx *Tx) resend(ctx context.Context, org *parcelgate.Organization, rec *orderRecord, req *parcelgate.OrderRequest, hash string) (*parcelgate.Order, error) {
	if rec.hash == hash {
		return rec.view(), nil
	}
	if rec.status != parcelgate.OrderCreated {
		return nil, parcelgate.Errorf(parcelgate.ECONFLICT, "Order %s is %s; only an order in Created can be changed by sending it again.", rec.order.ExternalID, rec.status)
	}
	return tx.replaceOrder(ctx, org, rec, req, hash, actorClient)
}

func (tx *Tx) insertOrder(ctx context.Context, org *parcelgate.Organization, req *parcelgate.OrderRequest, hash string) (*parcelgate.Order, error) {
	now := tx.db.clock.Now(org.Environment).UTC().Truncate(time.Microsecond)
	o := newOrder(org, req, now)
	o.ID = newOrderID()
	if o.ExternalID == "" {
		id, err := newExternalID(org.BusinessID)
		if err != nil {
			return nil, err
		}
		o.ExternalID = id
	}
	var pk int64
	err := tx.QueryRow(ctx, `INSERT INTO orders (order_id, environment, org_id, external_id, status, status_at, auto_submit, content_hash, doc, inserted_at, updated_at, ready_at)
		VALUES (?, ?, ?, ?, ?, 0, ?, ?, '', 0, 0, ?) RETURNING id`,
		o.ID, string(org.Environment), org.ID, o.ExternalID, string(parcelgate.OrderCreated), boolInt(req.AutoSubmit), hash, micros(now)).Scan(&pk)
	if err != nil {
		return nil, err
	}
	rec := &orderRecord{pk: pk, env: org.Environment, orgID: org.ID, status: parcelgate.OrderCreated, autoSubmit: req.AutoSubmit, hash: hash, readyAt: micros(now), order: o}
	stamp, err := tx.nextStamp(ctx, rec.env)
	if err != nil {
		return nil, err
	}
	return tx.fillOrder(ctx, rec, actorClient, true, stamp)
}

// replaceOrder gives an existing order new content: its stock is returned,
// the new rows are allocated, and it is answered as a new order would be
// (Created, Error or Cancelled), keeping its IDs and insert date.
func (tx *Tx) replaceOrder(ctx context.Context, org *parcelgate.Organization, rec *orderRecord, req *parcelgate.OrderRequest, hash, actor string) (*parcelgate.Order, error) {
	// The change clock first, then balances: the lock order of every
	// balance writer (see moveStock).
	stamp, err := tx.nextStamp(ctx, rec.env)
	if err != nil {
		return nil, err
	}
	if rec.allocated {
		if err := tx.releaseOrder(ctx, rec, true, stamp); err != nil {
			return nil, err
		}
	}
	now := tx.db.clock.Now(rec.env).UTC().Truncate(time.Microsecond)
	o := newOrder(org, req, now)
	o.ID, o.ExternalID = rec.order.ID, rec.order.ExternalID
	for _, q := range []string{`DELETE FROM order_rows WHERE order_pk = ?`, `DELETE FROM order_refs WHERE order_pk = ?`} {
		if _, err := tx.Exec(ctx, q, rec.pk); err != nil {
			return nil, err
		}
	}
	rec.order, rec.hash, rec.autoSubmit, rec.readyAt = o, hash, req.AutoSubmit, micros(now)
	return tx.fillOrder(ctx, rec, actor, false, stamp)
}

// fillOrder allocates the stock of a new or replaced order, writes its
// rows, references and document, and stamps it and the balances it moved
// with stamp, which the caller took before touching any balance.
func (tx *Tx) fillOrder(ctx context.Context, rec *orderRecord, actor string, inserted bool, stamp time.Time) (*parcelgate.Order, error) {
	outcome, err := tx.allocateOrder(ctx, rec, stamp)
	if err != nil {
		return nil, err
	}
	rec.status, rec.reason, rec.allocated = outcome.status, outcome.reason, outcome.allocated
	for i, row := range rec.order.Rows {
		if _, err := tx.Exec(ctx, `INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity, balance_id) VALUES (?, ?, ?, ?, ?, ?)`,
			rec.pk, i, row.ExternalProductID, row.ExternalWarehouseID, int64(row.Quantity), outcome.balanceIDs[i]); err != nil {
			return nil, err
		}
	}
	seen := map[[2]string]bool{}
	for _, ref := range rec.order.References {
		k := [2]string{strings.ToUpper(ref.Name), ref.Value}
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, err := tx.Exec(ctx, `INSERT INTO order_refs (org_id, name, value, order_pk) VALUES (?, ?, ?, ?)`, rec.orgID, k[0], k[1], rec.pk); err != nil {
			return nil, err
		}
	}
	rec.statusAt, rec.updatedAt = micros(stamp), micros(stamp)
	if inserted {
		rec.insertedAt = rec.statusAt
	}
	doc, err := json.Marshal(rec.order)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE orders SET status = ?, status_at = ?, reason = ?, auto_submit = ?, allocated = ?, content_hash = ?, doc = ?, inserted_at = CASE WHEN inserted_at = 0 THEN ? ELSE inserted_at END, updated_at = ?, ready_at = ? WHERE id = ?`,
		string(rec.status), rec.statusAt, rec.reason, boolInt(rec.autoSubmit), boolInt(rec.allocated), rec.hash, string(doc), rec.updatedAt, rec.updatedAt, rec.readyAt, rec.pk); err != nil {
		return nil, err
	}
	if !inserted {
		if err := tx.QueryRow(ctx, `SELECT inserted_at FROM orders WHERE id = ?`, rec.pk).Scan(&rec.insertedAt); err != nil {
			return nil, err
		}
	}
	if err := tx.recordHistory(ctx, rec, actor); err != nil {
		return nil, err
	}
	return rec.view(), nil
}

func (tx *Tx) recordHistory(ctx context.Context, rec *orderRecord, actor string) error {
	_, err := tx.Exec(ctx, `INSERT INTO order_history (order_pk, status, reason, actor, at) VALUES (?, ?, ?, ?, ?)`, rec.pk, string(rec.status), rec.reason, actor, rec.statusAt)
	return err
}

// moveOrder moves rec to status to with the side effects of the move
// (DESIGN §7): Delivered releases the allocation and registers a shipment
// per parcel; Cancelled and Error return allocated stock to quantity.
//
// The UPDATE is conditional on the status rec was read with, so of several
// movers (engine instances, the operator, the client) exactly one moves
// the order; the others get false and change nothing.
func (tx *Tx) moveOrder(ctx context.Context, rec *orderRecord, to parcelgate.OrderStatus, reason, actor string) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE orders SET status = ? WHERE id = ? AND status = ?`, string(to), rec.pk, string(rec.status))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	stamp, err := tx.nextStamp(ctx, rec.env)
	if err != nil {
		return false, err
	}
	switch to {
	case parcelgate.OrderDelivered:
		if rec.allocated {
			if err := tx.releaseOrder(ctx, rec, false, stamp); err != nil {
				return false, err
			}
		}
		if err := tx.deliverOrder(ctx, rec); err != nil {
			return false, err
		}
	case parcelgate.OrderCancelled, parcelgate.OrderError:
		if rec.allocated {
			if err := tx.releaseOrder(ctx, rec, true, stamp); err != nil {
				return false, err
			}
		}
	}
	rec.status, rec.reason = to, reason
	if to != parcelgate.OrderSubmitted {
		rec.allocated = false
	}
	rec.statusAt, rec.updatedAt = micros(stamp), micros(stamp)
	if to == parcelgate.OrderSubmitted {
		// The delay before delivery counts from submission.
		rec.readyAt = micros(tx.db.clock.Now(rec.env))
	}
	doc, err := json.Marshal(rec.order)
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE orders SET status_at = ?, reason = ?, allocated = ?, doc = ?, updated_at = ?, ready_at = ? WHERE id = ?`,
		rec.statusAt, rec.reason, boolInt(rec.allocated), string(doc), rec.updatedAt, rec.readyAt, rec.pk); err != nil {
		return false, err
	}
	return true, tx.recordHistory(ctx, rec, actor)
}
