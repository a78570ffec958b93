package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// OrderService keeps the warehouse orders of interface §4.3: their creation,
// re-sends, status moves, comments, history and reads. Each method acts for its
// caller and is scoped to the caller's organization and environment.
type OrderService struct {
	db *DB
	// points is the pick-up point network an order's pickupPointId is
	// checked against and a 2103 order's nearest point found in
	// (OrderRequest.Validate): reference data, the same for every tenant,
	// handed in by the wiring (UsePickupPoints).
	points parcelgate.PickupPointLookup
}

// NewOrderService returns the OrderService over db. Until UsePickupPoints
// hands it the network it knows no pick-up point: an order that names one
// is refused as naming a missing point.
func NewOrderService(db *DB) *OrderService { return &OrderService{db: db, points: noPickupPoints{}} }

// UsePickupPoints makes points the network the service checks orders'
// pick-up points against, and returns s.
func (s *OrderService) UsePickupPoints(points parcelgate.PickupPointLookup) *OrderService {
	s.points = points
	return s
}

// noPickupPoints is the network of a service not handed one: it holds no
// point.
type noPickupPoints struct{}

func (noPickupPoints) FindPickupPoint(string) (parcelgate.PickupPoint, bool) {
	return parcelgate.PickupPoint{}, false
}
func (noPickupPoints) NearestPickupPoint(string, string) (parcelgate.PickupPoint, bool) {
	return parcelgate.PickupPoint{}, false
}
func (noPickupPoints) HoldsPickupPoints(string) bool { return false }

var _ parcelgate.OrderService = (*OrderService)(nil)

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
	ownID      string
	insertedAt int64
	updatedAt  int64
	readyAt    int64
	// warehouseStatus is the status of the warehouse part of an order
	// that mixes warehouse and supplier rows (decisions §38); "" for any
	// other order.
	warehouseStatus parcelgate.OrderStatus
	order           *parcelgate.Order
}

const orderColumns = `o.id, o.environment, o.org_id, o.status, o.status_at, o.reason, o.auto_submit, o.allocated, o.content_hash, o.own_id, o.doc, o.inserted_at, o.updated_at, o.ready_at`

// orderDoc is an order's stored document: the order as answered, and the
// client's own services apart from those the products brought.
type orderDoc struct {
	*parcelgate.Order
	RequestedServices []parcelgate.AdditionalService `json:"requestedServices,omitempty"`
	// WarehouseStatus is orderRecord.warehouseStatus (also the column
	// warehouse_status, which the engine's sweep reads).
	WarehouseStatus parcelgate.OrderStatus `json:"warehouseStatus,omitempty"`
}

func (r *orderRecord) document() (string, error) {
	b, err := json.Marshal(orderDoc{Order: r.order, RequestedServices: r.order.RequestedServices, WarehouseStatus: r.warehouseStatus})
	return string(b), err
}

// orderRow is a row of orderColumns as scanned, before its document is
// decoded.
type orderRow struct {
	rec                orderRecord
	env, status, doc   string
	autoSubmit, allocd int
}

func (o *orderRow) dest() []any {
	r := &o.rec
	return []any{&r.pk, &o.env, &r.orgID, &o.status, &r.statusAt, &r.reason, &o.autoSubmit, &o.allocd, &r.hash, &r.ownID, &o.doc, &r.insertedAt, &r.updatedAt, &r.readyAt}
}

// record decodes the row's document into the order record.
func (o *orderRow) record() (*orderRecord, error) {
	r := o.rec
	r.env, r.status, r.autoSubmit, r.allocated = parcelgate.Environment(o.env), parcelgate.OrderStatus(o.status), o.autoSubmit == 1, o.allocd == 1
	d := orderDoc{Order: new(parcelgate.Order)}
	if err := json.Unmarshal([]byte(o.doc), &d); err != nil {
		return nil, fmt.Errorf("order %d: document: %w", r.pk, err)
	}
	r.order = d.Order
	r.order.RequestedServices = d.RequestedServices
	r.warehouseStatus = d.WarehouseStatus
	if r.order.AdditionalServices == nil {
		r.order.AdditionalServices = []parcelgate.AdditionalService{}
	}
	if r.order.Comments == nil {
		r.order.Comments = []parcelgate.OrderComment{}
	}
	return &r, nil
}

func scanOrderRecord(s rowScanner) (*orderRecord, error) {
	var o orderRow
	if err := s.Scan(o.dest()...); err != nil {
		return nil, err
	}
	return o.record()
}

// view returns the order as answered: the document with the status,
// stamps and preferences of the columns.
func (r *orderRecord) view() *parcelgate.Order {
	o := *r.order
	o.Status = parcelgate.OrderState{Value: r.status, Timestamp: fromMicros(r.statusAt)}
	if r.status == parcelgate.OrderError || r.status == parcelgate.OrderCancelled {
		o.Status.Reason = r.reason
	}
	o.Metadata = parcelgate.OrderMetadata{InsertDate: fromMicros(r.insertedAt), UpdateDate: fromMicros(r.updatedAt), DocumentType: "SalesOrder", Client: r.order.Metadata.Client}
	o.Preferences.AutoSubmit = r.autoSubmit
	o.Rows = make([]parcelgate.OrderRow, len(r.order.Rows))
	for i, row := range r.order.Rows {
		if row.SupplierID == "" && r.warehouseStatus == "" {
			row.Status = parcelgate.OrderState{Value: r.status, Timestamp: o.Status.Timestamp}
		}
		// A supplier's row keeps the status its shipment gave it
		// (decisions §34); a row of the warehouse part of a mixed order,
		// that part's (decisions §38).
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
func forUpdate(tx *Tx) string {
	if tx.d.name == "postgres" {
		return " FOR UPDATE"
	}
	return ""
}

// orderKey returns the own ID that id names for the organization with
// businessID: a service order ID or an externalId, bare or with the
// business ID. An ID that names nothing the caller can own (another
// business's prefix) gives "", which no order has.
func orderKey(businessID, id string) string {
	own, problem := parcelgate.OwnID(businessID, id)
	if problem != "" {
		return ""
	}
	return own
}

const orderByKey = ` FROM orders o WHERE (o.org_id = ? AND o.order_id = ?) OR (o.org_id = ? AND o.own_id = ?)`

// orderByKeyArgs are orderByKey's arguments for the caller's id. The
// organization is in each branch of the OR so that each is one index seek
// ((org_id, order_id) and (org_id, own_id)): written as org_id = ? AND
// (order_id = ? OR own_id = ?), both engines read every order of the
// organization to find one.
func orderByKeyArgs(orgID int64, businessID, id string) []any {
	return []any{orgID, id, orgID, orderKey(businessID, id)}
}

// lockedInOrder ends a statement that reads balances (alias) to take
// from: on PostgreSQL ordered by id and locked for the rest of tx, so that
// every writer locks balances in one order and two of them cannot
// deadlock; on SQLite, which has one writer and no row locks, nothing: an
// ORDER BY there only steers the planner towards an index that gives the
// order (see orderStockStep).
func lockedInOrder(tx *Tx, alias string) string {
	if f := forUpdateOf(tx, alias); f != "" {
		return " ORDER BY " + alias + ".id" + f
	}
	return ""
}

// forUpdateOf is forUpdate limited to the rows of one table of a join.
func forUpdateOf(tx *Tx, alias string) string {
	if f := forUpdate(tx); f != "" {
		return f + " OF " + alias
	}
	return ""
}

// orderByID reads the organization's order by service ID or externalId
// (either form), locked for the rest of tx. Another tenant's order is not
// found, like a missing one.
func orderByID(ctx context.Context, tx *Tx, orgID int64, businessID, id string) (*orderRecord, error) {
	id = strings.TrimSpace(id)
	r, err := scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+orderByKey+forUpdate(tx), orderByKeyArgs(orgID, businessID, id)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
	}
	return r, err
}

// FindOrder returns the caller's order id, read on a replica when one has
// replayed the caller's writes (readOnReplica). Only a caller that may
// ActionReadOrders (interface §5.2).
func (s *OrderService) FindOrder(ctx context.Context, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionReadOrders); err != nil {
		return nil, err
	}
	return readOnReplica(ctx, s.db, c, func(r reader) (*parcelgate.Order, error) { return readOrder(ctx, r, c, id) })
}

// readOrder reads the caller's order id (service ID or externalId) with
// q. Another tenant's order is not found, like a missing one.
func readOrder(ctx context.Context, q querier, c *parcelgate.Caller, id string) (*parcelgate.Order, error) {
	id = strings.TrimSpace(id)
	rec, err := scanOrderRecord(q.QueryRow(ctx, `SELECT `+orderColumns+orderByKey, orderByKeyArgs(c.OrgID, c.BusinessID, id)...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Order %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	return rec.view(), nil
}

// orderingOrganization returns c's organization, the external IDs
// of its warehouse catalogs and those of its dropshipping catalogs
// (decisions §34), each in order: what placing an order reads before its
// transaction, in one query (a row per catalog, or one row with none).
func (s *OrderService) orderingOrganization(ctx context.Context, c *parcelgate.Caller) (*parcelgate.Organization, []string, []string, error) {
	own := tenantOf(c, "", "o.id")
	rows, err := s.db.query(ctx, `SELECT `+orgColumnsOf("o")+`, c.external_id, c.catalog_type
		FROM organizations o LEFT JOIN catalogs c ON c.retailer_org_id = o.id AND c.catalog_type IN (?, ?)
		WHERE `+own.sql()+` ORDER BY c.external_id`, append([]any{string(parcelgate.CatalogWarehouse), string(parcelgate.CatalogDropship)}, own.with()...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	var org *parcelgate.Organization
	whs, drops := []string{}, []string{}
	for rows.Next() {
		var wh, typ sql.NullString
		o, err := scanOrganization(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &wh, &typ)...) }))
		if err != nil {
			return nil, nil, nil, err
		}
		if org == nil {
			org = o
		}
		switch {
		case !wh.Valid:
		case typ.String == string(parcelgate.CatalogDropship):
			drops = append(drops, wh.String)
		default:
			whs = append(whs, wh.String)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	if org == nil {
		return nil, nil, nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "organization not found")
	}
	return org, whs, drops, nil
}

// orderCatalogs are the catalogs an order's rows may name: the merchant's
// warehouses and the retailer's dropshipping catalogs (decisions §34).
type orderCatalogs struct {
	warehouses, drops []string
	// drop is, by row of the order being placed, whether the row comes
	// from a dropshipping catalog: OrderRequest.DropshipRows, decided once
	// per placement and carried to the choice of each row's balance.
	drop []bool
}

// all lists every catalog's external ID, for the reason of a row naming
// none of them.
func (c orderCatalogs) all() []string { return slices.Concat(c.warehouses, c.drops) }

// scanFunc is a rowScanner made of a function.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

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

// newOrderID returns a service order ID: 16 characters of A-Z and 2-7.
// An order is looked up by it beside the own IDs of the caller's orders;
// an own ID equal to another of the caller's service IDs is a 1 in 2^80
// chance.
func newOrderID() string { return rand.Text()[:16] }

// orderLockKey names the advisory lock that serializes creates of one
// organization's orders with one SO reference and no externalId, so two
// concurrent retries of one order cannot both create it.
func orderLockKey(orgID int64, so string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "order-so:%d:%s", orgID, so)
	return int64(h.Sum64())
}

// CreateOrder places an order or answers a re-send (placeOrder). Only a
// caller that may ActionPlaceOrders (interface §5.2).
func (s *OrderService) CreateOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, err
	}
	if err := req.Validate(c.BusinessID, s.points); err != nil {
		return nil, err
	}
	return s.placeOrder(ctx, c, req, nil)
}

// UpdateOrder re-sends the content of order id (placeOrder). Only a
// caller that may ActionPlaceOrders (interface §5.2).
func (s *OrderService) UpdateOrder(ctx context.Context, c *parcelgate.Caller, id string, req *parcelgate.OrderRequest) (*parcelgate.Order, error) {
	if err := c.May(parcelgate.ActionPlaceOrders); err != nil {
		return nil, err
	}
	if err := req.Validate(c.BusinessID, s.points); err != nil {
		return nil, err
	}
	return s.placeOrder(ctx, c, req, &id)
}

// placeOrder creates or re-sends an order. With target, the request is a
// re-send of that existing order; its externalId, when
// given, must name that order.
func (s *OrderService) placeOrder(ctx context.Context, c *parcelgate.Caller, req *parcelgate.OrderRequest, target *string) (*parcelgate.Order, error) {
	org, whList, drops, err := s.orderingOrganization(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := req.DefaultWarehouse(whList); err != nil {
		return nil, err
	}
	// A re-send is compared by what the client sent, before its rows by
	// EAN are given their products.
	hash := req.ContentHash()
	if err := resolveRowProducts(ctx, s.db.query, org, req); err != nil {
		return nil, err
	}
	drop := req.DropshipRows(drops)
	if err := req.CheckRowCatalogs(org.BusinessID, drop); err != nil {
		return nil, err
	}
	whs := orderCatalogs{warehouses: whList, drops: drops, drop: drop}
	var out *parcelgate.Order
	// Two first sends of one externalId may race to insert it; the loser's
	// insert fails on the unique key, and its second attempt finds the
	// winner's order and answers as a re-send. An allocation refused under
	// its locks (errStockMoved) is placed again on what is there then.
	for attempt := 0; ; attempt++ {
		err = s.db.inTx(ctx, func(tx *Tx) error {
			var err error
			out, err = placeOrder(ctx, tx, org, whs, req, hash, target)
			return err
		})
		if !isUniqueViolation(err) && !errors.Is(err, errStockMoved) || attempt == 2 {
			return out, err
		}
	}
}

// samePathOrder checks that a body's externalId, when given, names the
// order of the path, in either form.
func samePathOrder(org *parcelgate.Organization, req *parcelgate.OrderRequest, rec *orderRecord) error {
	if req.ExternalID == "" || orderKey(org.BusinessID, req.ExternalID) == rec.ownID {
		return nil
	}
	return &parcelgate.Error{Code: parcelgate.EINVALID, Message: "Validation failed: externalId does not name the order of the path.",
		Fields: []parcelgate.FieldError{{Field: "externalId", Message: fmt.Sprintf("must be %s, the order of the path, or left out", rec.order.ExternalID)}}}
}

func placeOrder(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, req *parcelgate.OrderRequest, hash string, target *string) (*parcelgate.Order, error) {
	var existing *orderRecord
	var err error
	switch {
	case target != nil:
		if existing, err = orderByID(ctx, tx, org.ID, org.BusinessID, *target); err != nil {
			return nil, err
		}
		if err := samePathOrder(org, req, existing); err != nil {
			return nil, err
		}
	case req.ExternalID != "":
		return placeByExternalID(ctx, tx, org, whs, req, hash)
	case req.SORef() != "":
		// decisions §7: a retry without externalId is known by its SO reference.
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
			existing, err = scanOrderRecord(tx.QueryRow(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.id = ?`+forUpdate(tx), pk))
		}
	default:
		err = parcelgate.Errorf(parcelgate.ENOTFOUND, "new order")
	}
	switch {
	case err == nil:
		return resend(ctx, tx, org, whs, existing, req, hash, time.Time{})
	case parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND:
		return nil, err
	}
	rec, err := newOrderRecord(tx.db.clock, org, req, hash)
	if err != nil {
		return nil, err
	}
	return insertOrder(ctx, tx, org, whs, rec)
}

// resend answers a request for an existing order (decisions §7): the
// order as it is when the request is a retry, else the order replaced by
// the request's content. stamp, when not zero, is tx's stamp, already
// taken.
func resend(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, existing *orderRecord, req *parcelgate.OrderRequest, hash string, stamp time.Time) (*parcelgate.Order, error) {
	action, err := parcelgate.ResendDecision(existing.order.ExternalID, existing.status, existing.hash == hash)
	switch {
	case err != nil:
		return nil, err
	case action == parcelgate.ResendRetry:
		return existing.view(), nil
	case existing.order.Dropship():
		return nil, parcelgate.Errorf(parcelgate.ECONFLICT, "Order %s was split among its suppliers, who hold its shipments: it cannot be changed; cancel it and place a new order.", existing.order.ExternalID)
	}
	return replaceOrder(ctx, tx, org, whs, existing, req, hash, actorClient, stamp)
}

// placeByExternalID places an order that names its externalId: a re-send
// when the organization has an order of that ID, else a new order. What
// either needs first goes in one pipeline, in the order each needs it:
// the order of that ID (locked), the stamp, and the stock of the
// request's rows (locked), read as a new order reads it. The lock order
// of a re-send is that of every order writer: its order, the change
// clock, then balances; a new order locks no order. A re-send that
// replaces its order reads the stock again after returning what the order
// held; a retry leaves the stamp and the stock's locks unused.
func placeByExternalID(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, req *parcelgate.OrderRequest, hash string) (*parcelgate.Order, error) {
	rec, err := newOrderRecord(tx.db.clock, org, req, hash)
	if err != nil {
		return nil, err
	}
	var row orderRow
	found := false
	lookup := step{q: `SELECT ` + orderColumns + orderByKey + forUpdate(tx), args: orderByKeyArgs(org.ID, org.BusinessID, strings.TrimSpace(req.ExternalID)),
		scan: func(scan func(...any) error) error { found = true; return scan(row.dest()...) }}
	var us int64
	stampStep, err := orgStampStep(tx, rec.env, &us)
	if err != nil {
		return nil, err
	}
	stockStep, stock := orderStockStep(tx, rec.orgID, org.BusinessID, rec.order.Rows, whs.drop)
	if _, err := pipeline(ctx, tx, lookup, stampStep, stockStep); err != nil {
		return nil, err
	}
	if found {
		existing, err := row.record()
		if err != nil {
			return nil, err
		}
		return resend(ctx, tx, org, whs, existing, req, hash, fromMicros(us))
	}
	return fillOrder(ctx, tx, org, whs, rec, actorClient, true, fromMicros(us), stock())
}

// newOrderRecord is the record of a new order of org for req, not yet
// allocated nor stamped.
func newOrderRecord(clock parcelgate.Clock, org *parcelgate.Organization, req *parcelgate.OrderRequest, hash string) (*orderRecord, error) {
	now := clock.Now(org.Environment).UTC().Truncate(time.Microsecond)
	o := parcelgate.NewOrder(org, req, now)
	o.ID = newOrderID()
	if o.ExternalID == "" {
		id, err := parcelgate.NewOrderExternalID(org.BusinessID)
		if err != nil {
			return nil, err
		}
		o.ExternalID = id
	}
	return &orderRecord{env: org.Environment, orgID: org.ID, status: parcelgate.OrderCreated, autoSubmit: req.AutoSubmit, hash: hash,
		ownID: orderKey(org.BusinessID, o.ExternalID), readyAt: micros(now), order: o}, nil
}

func insertOrder(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, rec *orderRecord) (*parcelgate.Order, error) {
	// The change clock first, then balances: the lock order of every
	// balance writer (see stamp.go). The stamp and the stock's read go in
	// one pipeline, which runs them in that order. The order's row is
	// written once, with its outcome, after the allocation (fillOrder).
	var us int64
	stampStep, err := orgStampStep(tx, rec.env, &us)
	if err != nil {
		return nil, err
	}
	stockStep, stock := orderStockStep(tx, rec.orgID, org.BusinessID, rec.order.Rows, whs.drop)
	if _, err := pipeline(ctx, tx, stampStep, stockStep); err != nil {
		return nil, err
	}
	return fillOrder(ctx, tx, org, whs, rec, actorClient, true, fromMicros(us), stock())
}

// replaceOrder gives an existing order new content: its stock is returned,
// the new rows are allocated, and it is answered as a new order would be
// (Created, Error or Cancelled), keeping its IDs, insert date and
// comments.
func replaceOrder(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, rec *orderRecord, req *parcelgate.OrderRequest, hash, actor string, stamp time.Time) (*parcelgate.Order, error) {
	// The change clock first, then balances: the lock order of every
	// balance writer (see moveStock). stamp, when not zero, is tx's stamp,
	// taken by the caller.
	if stamp.IsZero() {
		var err error
		if stamp, err = nextOrgStamp(ctx, tx, rec.env, rec.orgID); err != nil {
			return nil, err
		}
	}
	if rec.allocated {
		if err := releaseOrder(ctx, tx, rec, true, stamp); err != nil {
			return nil, err
		}
	}
	now := tx.db.clock.Now(org.Environment).UTC().Truncate(time.Microsecond)
	o := parcelgate.NewOrder(org, req, now)
	o.ID, o.ExternalID = rec.order.ID, rec.order.ExternalID
	o.Comments = parcelgate.MergeComments(rec.order.Comments, req.Comments, now)
	for _, q := range []string{`DELETE FROM order_rows WHERE order_pk = ?`, `DELETE FROM order_refs WHERE order_pk = ?`} {
		if _, err := tx.Exec(ctx, q, rec.pk); err != nil {
			return nil, err
		}
	}
	rec.order, rec.hash, rec.autoSubmit, rec.readyAt = o, hash, req.AutoSubmit, micros(now)
	return fillOrder(ctx, tx, org, whs, rec, actor, false, stamp, nil)
}

// fillOrder allocates the stock of a new or replaced order, writes its
// rows, references and document, and stamps it and the balances it moved
// with stamp, which the caller took before touching any balance. A new
// order (inserted) has no row yet: it is inserted here, whole. stock, when
// not nil, is the stock of its rows, read by the caller after the stamp.
//
// Once the stock is read and the domain has decided, nothing written
// depends on an answer of the database: the take of stock, the order, its
// rows, references and history go in one pipeline (one round trip on
// PostgreSQL; each kind of row in one statement), the new order's rows
// naming it by its unique service ID. A take that moved fewer balances
// than it should fails the transaction afterwards (errStockMoved), before
// anything is committed.
func fillOrder(ctx context.Context, tx *Tx, org *parcelgate.Organization, whs orderCatalogs, rec *orderRecord, actor string, inserted bool, stamp time.Time, stock []*parcelgate.RowStock) (*parcelgate.Order, error) {
	a, take, stock, err := allocateOrder(ctx, tx, org.BusinessID, whs, rec, stamp, stock)
	if err != nil {
		return nil, err
	}
	// The rows a supplier ships carry it from here (decisions §34, §38).
	rec.order.Apply(a)
	pk := orderPK{expr: "?", args: []any{rec.pk}}
	if inserted {
		pk = newOrderPK(rec)
	}
	var split []step
	rec.warehouseStatus = ""
	if a.Allocates() {
		// decisions §34: the rows of suppliers' catalogs become one shipment
		// per supplier, in this transaction; with warehouse rows beside
		// them, those are the warehouse part (decisions §38).
		if split, err = splitShipments(org, rec, a.Supply, stock, pk, stamp, tx.db.clock.Now(rec.env)); err != nil {
			return nil, err
		}
		if rec.order.MixedSupply() {
			rec.warehouseStatus = parcelgate.OrderCreated
			for i := range rec.order.Rows {
				if rec.order.Rows[i].SupplierID == "" {
					rec.order.Rows[i].Status = parcelgate.OrderState{Value: parcelgate.OrderCreated, Timestamp: stamp}
				}
			}
		}
	}
	rec.status, rec.reason, rec.allocated = a.Status, a.Reason, a.Allocates()
	rec.statusAt, rec.updatedAt = micros(stamp), micros(stamp)
	if inserted {
		rec.insertedAt = rec.statusAt
	}
	doc, err := rec.document()
	if err != nil {
		return nil, err
	}
	var steps []step
	if take.q != "" {
		steps = append(steps, take)
	}
	orderStep := len(steps)
	if inserted {
		o := rec.order
		steps = append(steps, step{q: `INSERT INTO orders (order_id, environment, org_id, external_id, own_id, status, status_at, reason, auto_submit, allocated, content_hash, doc, inserted_at, updated_at, ready_at, order_date, warehouse_status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			args: []any{o.ID, string(rec.env), rec.orgID, o.ExternalID, rec.ownID, string(rec.status), rec.statusAt, rec.reason, boolInt(rec.autoSubmit), boolInt(rec.allocated),
				rec.hash, doc, rec.insertedAt, rec.updatedAt, rec.readyAt, micros(o.OrderDate), string(rec.warehouseStatus)},
			scan: func(scan func(...any) error) error { return scan(&rec.pk) }})
	} else {
		steps = append(steps, step{q: `UPDATE orders SET status = ?, status_at = ?, reason = ?, auto_submit = ?, allocated = ?, content_hash = ?, doc = ?, updated_at = ?, ready_at = ?, order_date = ?, warehouse_status = ? WHERE id = ? RETURNING inserted_at`,
			args: []any{string(rec.status), rec.statusAt, rec.reason, boolInt(rec.autoSubmit), boolInt(rec.allocated), rec.hash, doc, rec.updatedAt, rec.readyAt, micros(rec.order.OrderDate), string(rec.warehouseStatus), rec.pk},
			scan: func(scan func(...any) error) error { return scan(&rec.insertedAt) }})
	}
	steps = append(steps, orderRowSteps(rec, a.BalanceIDs, pk)...)
	steps = append(steps, split...)
	steps = append(steps, historyStep(rec, actor, pk))
	// A new or changed order waits anew (ready_at): the engines look again.
	tx.wakesEngines()
	n, err := pipeline(ctx, tx, steps...)
	if err != nil {
		return nil, err
	}
	if take.q != "" && n[0] != take.want {
		return nil, errStockMoved
	}
	if n[orderStep] != 1 || n[len(n)-1] != 1 {
		return nil, fmt.Errorf("order %s: its row or history not written", rec.order.ExternalID)
	}
	return rec.view(), nil
}

// orderPK is how a statement names an order's key: an expression and its
// arguments.
type orderPK struct {
	expr string
	args []any
}

// newOrderPK names the key of rec's order, inserted earlier in the same
// pipeline, by its service ID, unique in its environment.
func newOrderPK(rec *orderRecord) orderPK {
	return orderPK{expr: `(SELECT id FROM orders WHERE environment = ? AND order_id = ?)`, args: []any{string(rec.env), rec.order.ID}}
}

// orderRowSteps writes the rows of rec's order and its references (each
// name and value once), a statement for each kind.
func orderRowSteps(rec *orderRecord, balances []int64, pk orderPK) []step {
	var steps []step
	rowCols := 5 + len(pk.args)
	one := pk.expr + ", ?, ?, ?, ?, ?"
	var args []any
	for i, row := range rec.order.Rows {
		args = append(append(args, pk.args...), i, row.ExternalProductID, row.ExternalWarehouseID, int64(row.Quantity), balances[i])
	}
	for chunk := range slices.Chunk(args, maxParams/rowCols*rowCols) {
		steps = append(steps, step{q: `INSERT INTO order_rows (order_pk, line, product_external_id, warehouse_external_id, quantity, balance_id) VALUES ` +
			valueRows(len(chunk)/rowCols, one), args: chunk})
	}
	refCols := 3 + len(pk.args)
	one = "?, ?, ?, " + pk.expr
	args = nil
	seen := map[[2]string]bool{}
	for _, ref := range rec.order.References {
		k := [2]string{strings.ToUpper(ref.Name), ref.Value}
		if seen[k] {
			continue
		}
		seen[k] = true
		args = append(append(args, rec.orgID, k[0], k[1]), pk.args...)
	}
	for chunk := range slices.Chunk(args, maxParams/refCols*refCols) {
		steps = append(steps, step{q: `INSERT INTO order_refs (org_id, name, value, order_pk) VALUES ` + valueRows(len(chunk)/refCols, one), args: chunk})
	}
	return steps
}

// historyStep records rec's status in its history.
func historyStep(rec *orderRecord, actor string, pk orderPK) step {
	return step{q: `INSERT INTO order_history (order_pk, status, reason, actor, at) VALUES (` + pk.expr + `, ?, ?, ?, ?)`,
		args: append(slices.Clip(pk.args), string(rec.status), rec.reason, actor, rec.statusAt)}
}

func recordHistory(ctx context.Context, tx *Tx, rec *orderRecord, actor string) error {
	s := historyStep(rec, actor, orderPK{expr: "?", args: []any{rec.pk}})
	_, err := tx.Exec(ctx, s.q, s.args...)
	return err
}

// claimMove runs update, a conditional UPDATE of rec from status from to
// to (its arguments: to, rec's key, from), and takes the organization's
// next change stamp when it moved the row. Of several movers of one order
// exactly one gets ok; the others change nothing.
func claimMove(ctx context.Context, tx *Tx, rec *orderRecord, update string, to, from parcelgate.OrderStatus) (stamp time.Time, ok bool, err error) {
	res, err := tx.Exec(ctx, update, string(to), rec.pk, string(from))
	if err != nil {
		return time.Time{}, false, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return time.Time{}, false, err
	}
	stamp, err = nextOrgStamp(ctx, tx, rec.env, rec.orgID)
	return stamp, err == nil, err
}

// moveOrder moves rec to status to with the side effects of the move
// (decisions §7): Delivered releases the allocation and registers a shipment
// per parcel; Cancelled and Error return allocated stock to quantity.
//
// The UPDATE is conditional on the status rec was read with, so of several
// movers (engine instances, the operator, the client) exactly one moves
// the order; the others get false and change nothing.
func moveOrder(ctx context.Context, tx *Tx, rec *orderRecord, to parcelgate.OrderStatus, reason, actor string) (bool, error) {
	stamp, ok, err := claimMove(ctx, tx, rec, `UPDATE orders SET status = ? WHERE id = ? AND status = ?`, to, rec.status)
	if !ok {
		return false, err
	}
	tx.wakesEngines() // a status reached: its wait begins
	effect := parcelgate.EffectOf(to)
	if effect != parcelgate.StockKeep && rec.allocated {
		if err := releaseOrder(ctx, tx, rec, effect == parcelgate.StockReturn, stamp); err != nil {
			return false, err
		}
		rec.allocated = false
	}
	if effect == parcelgate.StockReturn && rec.order.Dropship() {
		// decisions §34: the retailer's cancellation ends its suppliers'
		// open shipments; the stock they held has just been returned.
		if err := cancelOrderShipments(ctx, tx, rec, stamp); err != nil {
			return false, err
		}
	}
	if to == parcelgate.OrderDelivered {
		if err := deliverOrder(ctx, tx, rec); err != nil {
			return false, err
		}
	}
	rec.status, rec.reason = to, reason
	rec.statusAt, rec.updatedAt = micros(stamp), micros(stamp)
	if to == parcelgate.OrderSubmitted {
		// The delay before delivery counts from submission.
		rec.readyAt = micros(tx.db.clock.Now(rec.env))
	}
	doc, err := rec.document()
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, `UPDATE orders SET status_at = ?, reason = ?, allocated = ?, doc = ?, updated_at = ?, ready_at = ?, warehouse_status = ? WHERE id = ?`,
		rec.statusAt, rec.reason, boolInt(rec.allocated), doc, rec.updatedAt, rec.readyAt, string(rec.warehouseStatus), rec.pk); err != nil {
		return false, err
	}
	return true, recordHistory(ctx, tx, rec, actor)
}

// moveWarehousePart moves the warehouse part of rec, an order that mixes
// warehouse and supplier rows (decisions §38), to status to, as moveOrder
// moves a whole warehouse order: Delivered ships what its rows hold and
// packs them (deliverOrder: a tracking code per parcel, with shipment
// data); Cancelled and Error return what they hold. Only the part's own
// rows are touched; their holds are then released (balance_id 0), as a
// supplier's settled rows are. The order's status then follows from all
// its rows (copyBack), in its history as actor's when it changes.
//
// The UPDATE is conditional on the part's status as read, so of several
// movers exactly one moves it; the others get false.
func moveWarehousePart(ctx context.Context, tx *Tx, rec *orderRecord, to parcelgate.OrderStatus, reason, actor string) (bool, error) {
	stamp, ok, err := claimMove(ctx, tx, rec, `UPDATE orders SET warehouse_status = ? WHERE id = ? AND warehouse_status = ?`, to, rec.warehouseStatus)
	if !ok {
		return false, err
	}
	tx.wakesEngines() // a status reached: its wait begins
	var lines []any
	for i, row := range rec.order.Rows {
		if row.SupplierID == "" {
			lines = append(lines, i)
		}
	}
	if effect := parcelgate.EffectOf(to); effect != parcelgate.StockKeep && len(lines) > 0 {
		in := placeholders(len(lines))
		if err := releaseHeld(ctx, tx, `SELECT balance_id, quantity AS units, line AS ord FROM order_rows WHERE order_pk = ? AND balance_id <> 0 AND line IN (`+in+`)`,
			append([]any{rec.pk}, lines...), effect == parcelgate.StockReturn, stamp); err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, `UPDATE order_rows SET balance_id = 0 WHERE order_pk = ? AND line IN (`+in+`)`, append([]any{rec.pk}, lines...)...); err != nil {
			return false, err
		}
		var left int64
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM order_rows WHERE order_pk = ? AND balance_id <> 0`, rec.pk).Scan(&left); err != nil {
			return false, err
		}
		rec.allocated = left > 0
	}
	if to == parcelgate.OrderDelivered {
		if err := deliverOrder(ctx, tx, rec); err != nil {
			return false, err
		}
	}
	rec.warehouseStatus = to
	if to == parcelgate.OrderSubmitted {
		// The delay before delivery counts from submission.
		rec.readyAt = micros(tx.db.clock.Now(rec.env))
	}
	if err := copyBack(ctx, tx, rec, nil, stamp, actor); err != nil {
		return false, err
	}
	if reason != "" && (rec.status == parcelgate.OrderCancelled || rec.status == parcelgate.OrderError) {
		rec.reason = reason
		_, err = tx.Exec(ctx, `UPDATE orders SET reason = ?, updated_at = ? WHERE id = ?`, reason, rec.updatedAt, rec.pk)
	}
	return true, err
}

// saveDocument writes rec's document and gives the order a new
// modification stamp, for a change that moves neither status nor stock.
func saveDocument(ctx context.Context, tx *Tx, rec *orderRecord) error {
	stamp, err := nextOrgStamp(ctx, tx, rec.env, rec.orgID)
	if err != nil {
		return err
	}
	rec.updatedAt = micros(stamp)
	doc, err := rec.document()
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE orders SET doc = ?, updated_at = ? WHERE id = ?`, doc, rec.updatedAt, rec.pk)
	return err
}
