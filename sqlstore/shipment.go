package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// ShipmentService keeps shipment data: the gateway's registration, the
// shipping API's shipments (shipment_shipping.go), reads and the
// operator's delivery. It is the one writer of the shipments and parcels
// tables (insertShipment), which warehouse orders also call.
type ShipmentService struct {
	db *DB
	// points decides the shipping API's pick-up points (decisions §29).
	points parcelgate.PickupPointLookup
}

// NewShipmentService returns the ShipmentService over db, deciding the
// shipping API's pick-up points from points.
func NewShipmentService(db *DB, points parcelgate.PickupPointLookup) *ShipmentService {
	return &ShipmentService{db: db, points: points}
}

var _ parcelgate.ShipmentService = (*ShipmentService)(nil)

// CreateShipment registers sh for c, or answers a retry of it. Only a
// caller that may ActionCreateShipments (interface §5.1).
func (s *ShipmentService) CreateShipment(ctx context.Context, c *parcelgate.Caller, sh *parcelgate.Shipment) (bool, error) {
	if err := c.May(parcelgate.ActionCreateShipments); err != nil {
		return false, err
	}
	if err := sh.Validate(); err != nil {
		return false, err
	}
	var created bool
	err := s.db.inTx(ctx, func(tx *Tx) error {
		created = false
		if sh.TrackingNumber != "" {
			old, err := findShipment(ctx, tx, c, sh.TrackingNumber)
			switch {
			case err == nil && sameShipment(old, sh):
				*sh = *old
				return nil
			case err == nil:
				return parcelgate.Errorf(parcelgate.ECONFLICT, "Shipment %s already exists with other content.", sh.TrackingNumber)
			case parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND:
				return err
			}
		}
		created = true
		return insertShipment(ctx, tx, c.OrgID, c.Environment, sh)
	})
	return created, err
}

// sameShipment reports whether the registration request req asks for what
// stored already holds, so that a retried request is answered with the
// stored shipment: the same content, and parcel IDs equal where req gives
// them.
func sameShipment(stored, req *parcelgate.Shipment) bool {
	if stored.ServiceCode != req.ServiceCode || stored.Sender != req.Sender || stored.Receiver != req.Receiver || len(stored.Parcels) != len(req.Parcels) {
		return false
	}
	for i, p := range req.Parcels {
		if p.ParcelID == "" {
			p.ParcelID = stored.Parcels[i].ParcelID
		}
		if !reflect.DeepEqual(p, stored.Parcels[i]) {
			return false
		}
	}
	return true
}

// insertShipment registers s for the organization orgID of env inside tx.
// It is the one way shipment data is written: CreateShipment calls it after
// validating a client's request, and warehouse orders call it in their own
// transaction when an order reaches Delivered (decisions §7).
//
// It trusts the caller for validation and normalization (s.Validate or
// equivalent: IDs trimmed and upper-cased, addresses checked). It numbers
// what is not numbered (Shipment.NewParcelNumber, the one place numbers
// are made): the tracking number and parcel IDs that are empty; a shipping
// API shipment's parcels first, its tracking number being its first
// parcel's. It sets each parcel's
// LockerSize from its package code and dimensions (EINVALID when they
// disagree), and fills in s's ID, OrgID, Environment, Status and CreatedAt.
// A tracking number or parcel ID the organization already has is ECONFLICT;
// it is found by a query before any write, so the transaction stays usable.
// (Only a concurrent registration of the same number can reach the unique
// index, which then fails the statement and, on PostgreSQL, the
// transaction.)
func insertShipment(ctx context.Context, tx *Tx, orgID int64, env parcelgate.Environment, s *parcelgate.Shipment) error {
	for i := range s.Parcels {
		size, err := s.Parcels[i].FitLocker()
		if err != nil {
			return err
		}
		s.Parcels[i].LockerSize = size
	}
	if s.Origin == parcelgate.OriginShipping {
		if err := assignParcelIDs(ctx, tx, orgID, s); err != nil {
			return err
		}
		if len(s.Parcels) > 0 {
			s.TrackingNumber = s.Parcels[0].ParcelID
		}
	}
	if err := assignTrackingNumber(ctx, tx, orgID, s); err != nil {
		return err
	}
	if s.Origin != parcelgate.OriginShipping {
		if err := assignParcelIDs(ctx, tx, orgID, s); err != nil {
			return err
		}
	}
	s.OrgID, s.Environment = orgID, env
	if s.Origin == "" {
		s.Origin = parcelgate.OriginEDI
	}
	s.Status, s.DeliveredAt = parcelgate.ShipmentCreated, nil
	s.CreatedAt = tx.db.clock.Now(env).UTC().Truncate(time.Microsecond)
	sender, _ := json.Marshal(s.Sender)
	receiver, _ := json.Marshal(s.Receiver)
	err := tx.QueryRow(ctx, `INSERT INTO shipments (org_id, environment, tracking_number, service_code, sender, receiver, status, created_at, origin, pickup_point, additional_services, contract_number, reference, print_media) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		orgID, string(env), s.TrackingNumber, s.ServiceCode, string(sender), string(receiver), string(s.Status), micros(s.CreatedAt),
		string(s.Origin), s.PickupPointID, strings.Join(s.AdditionalServices, ","), s.ContractNumber, s.Reference, s.PrintMedia).Scan(&s.ID)
	if err != nil {
		return shipmentConflict(err, s)
	}
	for i, p := range s.Parcels {
		_, err := tx.Exec(ctx, `INSERT INTO parcels (shipment_id, position, org_id, parcel_id, package_code, weight, length, width, height, locker_size, contents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, i, orgID, p.ParcelID, p.PackageCode, nullFloat(p.Weight), nullFloat(p.Length), nullFloat(p.Width), nullFloat(p.Height), string(p.LockerSize), p.Contents)
		if err != nil {
			return shipmentConflict(err, s)
		}
	}
	return nil
}

func shipmentConflict(err error, s *parcelgate.Shipment) error {
	if isUniqueViolation(err) {
		return parcelgate.Errorf(parcelgate.ECONFLICT, "Shipment %s or one of its parcel IDs was registered at the same time by another request.", s.TrackingNumber)
	}
	return err
}

// assignTrackingNumber checks that s's tracking number is new for the
// organization, or generates one that is.
func assignTrackingNumber(ctx context.Context, tx *Tx, orgID int64, s *parcelgate.Shipment) error {
	generate := s.TrackingNumber == ""
	for {
		if generate {
			s.TrackingNumber = s.NewParcelNumber()
		}
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM shipments WHERE org_id = ? AND tracking_number = ?`, orgID, s.TrackingNumber).Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		case !generate:
			return parcelgate.Errorf(parcelgate.ECONFLICT, "Shipment %s already exists.", s.TrackingNumber)
		}
	}
}

// assignParcelIDs checks that the given parcel IDs are new for the
// organization and generates the missing ones, all with one query per
// round; a generated ID that is taken (a chance of about one in 10^17) is
// drawn again.
func assignParcelIDs(ctx context.Context, tx *Tx, orgID int64, s *parcelgate.Shipment) error {
	var generated []int
	for i := range s.Parcels {
		if s.Parcels[i].ParcelID == "" {
			generated = append(generated, i)
		}
	}
	redraw := generated
	for {
		for _, i := range redraw {
			s.Parcels[i].ParcelID = s.NewParcelNumber()
		}
		ids := make([]string, len(s.Parcels))
		for i, p := range s.Parcels {
			ids[i] = p.ParcelID
		}
		taken, err := takenParcelIDs(ctx, tx, orgID, ids)
		if err != nil {
			return err
		}
		redraw = redraw[:0]
		for i, p := range s.Parcels {
			dup := slices.Index(ids, p.ParcelID) != i
			if !taken[p.ParcelID] && !dup {
				continue
			}
			if !slices.Contains(generated, i) {
				if dup {
					return parcelgate.Errorf(parcelgate.EINVALID, "Parcel ID %s is given twice.", p.ParcelID)
				}
				return parcelgate.Errorf(parcelgate.ECONFLICT, "Parcel %s already belongs to another shipment.", p.ParcelID)
			}
			redraw = append(redraw, i)
		}
		if len(redraw) == 0 {
			return nil
		}
	}
}

func takenParcelIDs(ctx context.Context, tx *Tx, orgID int64, ids []string) (map[string]bool, error) {
	args := []any{orgID}
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := tx.Query(ctx, `SELECT parcel_id FROM parcels WHERE org_id = ? AND parcel_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	taken := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		taken[id] = true
	}
	return taken, rows.Err()
}

func nullFloat(f *float64) sql.NullFloat64 {
	if f == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *f, Valid: true}
}

func floatPtr(f sql.NullFloat64) *float64 {
	if !f.Valid {
		return nil
	}
	return &f.Float64
}

// FindShipment returns c's shipment. Only a caller that may
// ActionReadShipments (interface §5.1).
func (s *ShipmentService) FindShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error) {
	if err := c.May(parcelgate.ActionReadShipments); err != nil {
		return nil, err
	}
	return findShipment(ctx, s.db.primary(), c, parcelgate.NormalizeID(trackingNumber))
}

// findShipment returns c's organization's shipment with its parcels, or
// ENOTFOUND.
func findShipment(ctx context.Context, q querier, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error) {
	own := tenantOf(c, "", "org_id")
	s, err := scanShipment(q.QueryRow(ctx, `SELECT `+shipmentColumns+` FROM shipments WHERE `+own.sql()+` AND tracking_number = ?`, own.with(trackingNumber)...))
	if err != nil {
		return nil, err
	}
	return s, readParcels(ctx, q, s)
}

// shipmentColumns are the columns scanShipment reads, in its order.
const shipmentColumns = `id, org_id, environment, tracking_number, service_code, sender, receiver, status, created_at, delivered_at, origin, pickup_point, additional_services, contract_number, reference, print_media`

// shipmentRow is one row of shipmentColumns as scanned.
type shipmentRow struct {
	s                                                 parcelgate.Shipment
	env, sender, receiver, status, origin, additional string
	created, delivered                                int64
}

// dest is where Scan puts the columns of shipmentColumns.
func (r *shipmentRow) dest() []any {
	return []any{&r.s.ID, &r.s.OrgID, &r.env, &r.s.TrackingNumber, &r.s.ServiceCode, &r.sender, &r.receiver, &r.status, &r.created, &r.delivered,
		&r.origin, &r.s.PickupPointID, &r.additional, &r.s.ContractNumber, &r.s.Reference, &r.s.PrintMedia}
}

// shipment is the shipment the scanned row holds.
func (r *shipmentRow) shipment() (*parcelgate.Shipment, error) {
	s := r.s
	s.Environment, s.Status, s.CreatedAt = parcelgate.Environment(r.env), parcelgate.ShipmentStatus(r.status), fromMicros(r.created)
	s.Origin = parcelgate.ShipmentOrigin(r.origin)
	if r.additional != "" {
		s.AdditionalServices = strings.Split(r.additional, ",")
	}
	if r.delivered != 0 {
		t := fromMicros(r.delivered)
		s.DeliveredAt = &t
	}
	if err := errors.Join(json.Unmarshal([]byte(r.sender), &s.Sender), json.Unmarshal([]byte(r.receiver), &s.Receiver)); err != nil {
		return nil, err
	}
	return &s, nil
}

// scanShipment reads one row of shipmentColumns; no row is ENOTFOUND.
func scanShipment(row interface{ Scan(...any) error }) (*parcelgate.Shipment, error) {
	var r shipmentRow
	err := row.Scan(r.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Shipment not found")
	}
	if err != nil {
		return nil, err
	}
	return r.shipment()
}

// readParcels fills in s's parcels, in order.
func readParcels(ctx context.Context, q querier, s *parcelgate.Shipment) error {
	rows, err := q.Query(ctx, `SELECT parcel_id, package_code, weight, length, width, height, locker_size, contents FROM parcels WHERE shipment_id = ? ORDER BY position`, s.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	s.Parcels = []parcelgate.Parcel{}
	for rows.Next() {
		var p parcelgate.Parcel
		var w, l, wd, h sql.NullFloat64
		var size string
		if err := rows.Scan(&p.ParcelID, &p.PackageCode, &w, &l, &wd, &h, &size, &p.Contents); err != nil {
			return err
		}
		p.Weight, p.Length, p.Width, p.Height, p.LockerSize = floatPtr(w), floatPtr(l), floatPtr(wd), floatPtr(h), parcelgate.LockerSize(size)
		s.Parcels = append(s.Parcels, p)
	}
	return rows.Err()
}

// DeliverShipment is the operator's delivery of c's shipment. Only the
// operator (ActionOperate; decisions §31): c is an OperatorCaller of the
// shipment's organization.
func (s *ShipmentService) DeliverShipment(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.Shipment, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	tn := parcelgate.NormalizeID(trackingNumber)
	var sh *parcelgate.Shipment
	err := s.db.inTx(ctx, func(tx *Tx) error {
		now := micros(s.db.clock.Now(c.Environment))
		own := tenantOf(c, "", "org_id")
		res, err := tx.Exec(ctx, `UPDATE shipments SET status = ?, delivered_at = ? WHERE `+own.sql()+` AND tracking_number = ? AND status = ?`,
			append([]any{string(parcelgate.ShipmentDelivered), now}, own.with(tn, string(parcelgate.ShipmentCreated))...)...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			if _, err := tx.Exec(ctx, `UPDATE codes SET released_at = ? WHERE `+own.sql()+` AND tracking_number = ? AND released_at = 0`, append([]any{now}, own.with(tn)...)...); err != nil {
				return err
			}
		}
		sh, err = findShipment(ctx, tx, c, tn)
		return err
	})
	return sh, err
}
