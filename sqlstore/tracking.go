package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// TrackingService finds parcels for the Tracking API (decisions §30) and
// stores the operator's moves of them. The journey itself is decided by
// parcelgate.ParcelTimeline from what it returns.
type TrackingService struct{ db *DB }

// NewTrackingService returns the tracking store over db.
func NewTrackingService(db *DB) *TrackingService { return &TrackingService{db: db} }

var _ parcelgate.TrackingService = (*TrackingService)(nil)

// trackedColumns are the shipment's columns (shipmentColumns, prefixed)
// and the parcel's, in the order scanTracked reads them.
const trackedColumns = `s.id, s.org_id, s.environment, s.tracking_number, s.service_code, s.sender, s.receiver, s.status, s.created_at, s.delivered_at, s.origin, s.pickup_point, s.additional_services, s.contract_number, s.reference, s.print_media,
	p.parcel_id, p.package_code, p.weight, p.length, p.width, p.height, p.locker_size, p.contents,
	p.position, (SELECT COUNT(*) FROM parcels n WHERE n.shipment_id = s.id)`

// readTracked runs a query of trackedColumns and returns its rows as
// tracked parcels, own when of c's organization, with their moves.
func (t *TrackingService) readTracked(ctx context.Context, c *parcelgate.Caller, q string, args ...any) ([]parcelgate.TrackedParcel, error) {
	rows, err := t.db.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	var out []parcelgate.TrackedParcel
	scan := trackedScanner(c)
	for rows.Next() {
		tp, _, err := scan(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, tp)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return nil, err
	}
	rows.Close()
	return out, t.readMoves(ctx, out)
}

// trackedScanner reads rows of trackedColumns as tracked parcels, own
// when of c's organization, and their keys in the searches' order; the
// parcels of one shipment share its *Shipment.
func trackedScanner(c *parcelgate.Caller) func(*sql.Rows) (parcelgate.TrackedParcel, pageKey, error) {
	orgID, _ := c.Organization()
	shipments := map[int64]*parcelgate.Shipment{}
	return func(rows *sql.Rows) (parcelgate.TrackedParcel, pageKey, error) {
		var tp parcelgate.TrackedParcel
		var p parcelgate.Parcel
		var w, l, wd, h sql.NullFloat64
		var size string
		var row shipmentRow
		dest := append(row.dest(), &p.ParcelID, &p.PackageCode, &w, &l, &wd, &h, &size, &p.Contents, &tp.Index, &tp.Count)
		if err := rows.Scan(dest...); err != nil {
			return tp, pageKey{}, err
		}
		sh, err := row.shipment()
		if err != nil {
			return tp, pageKey{}, err
		}
		if known, ok := shipments[sh.ID]; ok {
			sh = known
		} else {
			shipments[sh.ID] = sh
		}
		p.Weight, p.Length, p.Width, p.Height, p.LockerSize = floatPtr(w), floatPtr(l), floatPtr(wd), floatPtr(h), parcelgate.LockerSize(size)
		tp.Shipment, tp.Parcel, tp.Own = sh, p, sh.OrgID == orgID
		return tp, pageKey{modified: micros(sh.CreatedAt), id: sh.ID, sub: int64(tp.Index)}, nil
	}
}

// readMoves fills in the parcels' moves with one query.
func (t *TrackingService) readMoves(ctx context.Context, ps []parcelgate.TrackedParcel) error {
	if len(ps) == 0 {
		return nil
	}
	var ids []any
	for _, p := range ps {
		if !slices.Contains(ids, any(p.Shipment.ID)) {
			ids = append(ids, p.Shipment.ID)
		}
	}
	rows, err := t.db.query(ctx, `SELECT shipment_id, parcel_id, status, at FROM tracking_moves WHERE shipment_id IN (`+placeholders(len(ids))+`) ORDER BY id`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sid, at int64
		var pid, status string
		if err := rows.Scan(&sid, &pid, &status, &at); err != nil {
			return err
		}
		for i := range ps {
			if ps[i].Shipment.ID == sid && ps[i].Parcel.ParcelID == pid {
				ps[i].Moves = append(ps[i].Moves, parcelgate.TrackingMove{Status: parcelgate.ParcelStatus(status), At: fromMicros(at)})
			}
		}
	}
	return rows.Err()
}

// TrackNumbers finds the environment's parcels by their numbers or their
// shipments' tracking numbers, in any organization (see trackNumbers).
// Only a caller that may ActionTrackParcels (decisions §30).
func (t *TrackingService) TrackNumbers(ctx context.Context, c *parcelgate.Caller, numbers []string) ([]parcelgate.TrackedParcel, error) {
	if err := c.May(parcelgate.ActionTrackParcels); err != nil {
		return nil, err
	}
	return t.trackNumbers(ctx, c, numbers)
}

// trackNumbers is TrackNumbers without the permission, for MoveParcel,
// which asked its own.
func (t *TrackingService) trackNumbers(ctx context.Context, c *parcelgate.Caller, numbers []string) ([]parcelgate.TrackedParcel, error) {
	if len(numbers) == 0 {
		return nil, nil
	}
	norm := make([]string, len(numbers))
	args := []any{string(c.Environment)}
	for i, n := range numbers {
		norm[i] = parcelgate.NormalizeID(n)
		args = append(args, norm[i])
	}
	args = append(args, string(c.Environment))
	for _, n := range norm {
		args = append(args, n)
	}
	// Two index lookups (parcels_parcel_id, shipments_env_tracking) in
	// one statement: an OR across the two tables would scan them.
	found, err := t.readTracked(ctx, c, `SELECT `+trackedColumns+` FROM parcels p JOIN shipments s ON s.id = p.shipment_id
		WHERE s.environment = ? AND p.parcel_id IN (`+placeholders(len(norm))+`)
		UNION ALL SELECT `+trackedColumns+` FROM shipments s JOIN parcels p ON p.shipment_id = s.id
		WHERE s.environment = ? AND s.tracking_number IN (`+placeholders(len(norm))+`)`, args...)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(found, func(a, b parcelgate.TrackedParcel) int {
		return cmp.Or(cmp.Compare(a.Shipment.ID, b.Shipment.ID), cmp.Compare(a.Index, b.Index))
	})
	// In the order asked, each parcel once. A number that is a parcel's is
	// that parcel (a shipment's tracking number is its first parcel's);
	// else it is every parcel of the shipment with the tracking number.
	var out []parcelgate.TrackedParcel
	seen := map[[2]any]bool{}
	for _, n := range norm {
		isParcel := slices.ContainsFunc(found, func(tp parcelgate.TrackedParcel) bool { return tp.Parcel.ParcelID == n })
		for _, tp := range found {
			key := [2]any{tp.Shipment.ID, tp.Parcel.ParcelID}
			if (tp.Parcel.ParcelID == n || (!isParcel && tp.Shipment.TrackingNumber == n)) && !seen[key] {
				seen[key] = true
				out = append(out, tp)
			}
		}
	}
	return out, nil
}

// FindParcels searches c's own parcels by number, tracking number or
// reference, each only when fields has it (the find's keys; decisions
// §30). Only a caller that may ActionTrackParcels (decisions §30).
func (t *TrackingService) FindParcels(ctx context.Context, c *parcelgate.Caller, keywords []string, fields parcelgate.FindFields, page parcelgate.PageRequest) ([]parcelgate.TrackedParcel, error) {
	if err := c.May(parcelgate.ActionTrackParcels); err != nil {
		return nil, err
	}
	return t.findParcels(ctx, c, keywords, fields, page)
}

// findParcels is FindParcels without the permission, for TrackBy's
// reference keys, which asked their own.
func (t *TrackingService) findParcels(ctx context.Context, c *parcelgate.Caller, keywords []string, fields parcelgate.FindFields, page parcelgate.PageRequest) ([]parcelgate.TrackedParcel, error) {
	if len(keywords) == 0 {
		return nil, nil
	}
	var ids, refs []any
	for _, k := range keywords {
		ids = append(ids, parcelgate.NormalizeID(k))
		refs = append(refs, strings.TrimSpace(k))
	}
	// Only the chosen fields' conditions, so that a field left out is
	// not compared at all. match is the exact condition a parcel meets;
	// drive finds, through each field's own index, the shipments that can
	// hold such a parcel, and the statement starts from them (see
	// fromFound). For an OR across three columns the engines otherwise
	// read every shipment of the environment (docs/performance.md,
	// "Tracking searches by index").
	var match, drive []string
	var matchArgs, driveArgs []any
	own := tenantOf(c, "", "org_id")
	if fields.Has(parcelgate.FindParcelNumber) {
		match = append(match, `p.parcel_id IN (`+placeholders(len(ids))+`)`)
		matchArgs = append(matchArgs, ids...)
		drive = append(drive, `SELECT shipment_id AS id FROM parcels WHERE `+own.sql()+` AND parcel_id IN (`+placeholders(len(ids))+`)`)
		driveArgs = append(driveArgs, own.with(ids...)...)
	}
	if fields.Has(parcelgate.FindShipmentNumber) {
		match = append(match, `s.tracking_number IN (`+placeholders(len(ids))+`)`)
		matchArgs = append(matchArgs, ids...)
		drive = append(drive, `SELECT id FROM shipments WHERE `+own.sql()+` AND tracking_number IN (`+placeholders(len(ids))+`)`)
		driveArgs = append(driveArgs, own.with(ids...)...)
	}
	if fields.Has(parcelgate.FindReference) {
		match = append(match, `UPPER(s.reference) IN (`+upperPlaceholders(len(refs))+`)`)
		matchArgs = append(matchArgs, refs...)
		drive = append(drive, `SELECT id FROM shipments WHERE `+own.sql()+` AND UPPER(reference) IN (`+upperPlaceholders(len(refs))+`)`)
		driveArgs = append(driveArgs, own.with(refs...)...)
	}
	if len(match) == 0 {
		return nil, nil
	}
	q := trackedQuery(`(`+strings.Join(drive, ` UNION `)+`) f `+fromFound, driveArgs...)
	q.where.tenant(c, "", "s.org_id")
	q.where.add("s.environment = ?", string(c.Environment))
	q.where.add("("+strings.Join(match, ` OR `)+")", matchArgs...)
	return t.trackedPage(ctx, c, q, page)
}

// fromFound joins the shipments found by a subquery f (column 1: their
// IDs) and their parcels, as s and p. CROSS JOIN keeps SQLite from
// reordering the join: without statistics (parcelgate runs no ANALYZE)
// its planner would rather read every shipment of the environment through
// shipments_env_created, which also gives the order asked for, than the
// few that f found (PostgreSQL plans the same statement from f either way).
const fromFound = `CROSS JOIN shipments s JOIN parcels p ON p.shipment_id = s.id AND s.id = f.id`

// upperPlaceholders is n "UPPER(?)" placeholders. A reference is compared
// with UPPER on both sides, so that each engine folds both the same way:
// SQLite's UPPER folds ASCII only, and a keyword upper-cased in Go would
// miss a stored "Tilaus-å" that the same keyword typed as stored matches.
func upperPlaceholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("UPPER(?), ", n), ", ")
}

// TrackBy finds parcels by one of the Tracking API's other keys
// (parcelgate.TrackingKey; decisions §30, §39). A lookup key (a
// consignment number) finds any organization's parcels in c's environment,
// as TrackNumbers does; a search key (a reference, an order number, an
// errand code) c's own only. A receiver reference is stored nowhere and
// the freight keys (a waybill number, a goods item ID) search freight,
// which parcelgate does not carry, so they find nothing. Only a caller that may
// ActionTrackParcels (decisions §30).
func (t *TrackingService) TrackBy(ctx context.Context, c *parcelgate.Caller, key parcelgate.TrackingKey, value string, page parcelgate.PageRequest) ([]parcelgate.TrackedParcel, error) {
	if err := c.May(parcelgate.ActionTrackParcels); err != nil {
		return nil, err
	}
	v, err := key.Value(value)
	if err != nil {
		return nil, err
	}
	env := string(c.Environment)
	switch key.Match() {
	case parcelgate.MatchShipmentNumber:
		q := trackedQuery(`shipments s JOIN parcels p ON p.shipment_id = s.id`)
		q.where.add("s.environment = ?", env)
		q.where.add("s.tracking_number = ?", v)
		return t.trackedPage(ctx, c, q, page)
	case parcelgate.MatchReference:
		// A reference is found as find finds one, keys=senderreference.
		return t.findParcels(ctx, c, []string{v}, parcelgate.FindReference, page)
	case parcelgate.MatchErrandCode:
		// An errand code names its parcel and the parcel's shipment
		// (decisions §5); an expired or released one names nothing.
		q := trackedQuery(`codes k
			JOIN parcels p ON p.org_id = k.org_id AND p.parcel_id = k.parcel_id
			JOIN shipments s ON s.id = p.shipment_id AND s.tracking_number = k.tracking_number`)
		q.where.add("k.environment = ?", env)
		q.where.tenant(c, "", "k.org_id")
		q.where.add("k.code = ?", v)
		q.where.add("k.parcel_id <> ''")
		q.where.add("k.released_at = 0")
		q.where.addVolatile("k.expires_at > ?", micros(t.db.clock.Now(c.Environment)))
		return t.trackedPage(ctx, c, q, page)
	}
	return nil, nil
}

// ParcelsCreatedBetween lists c's parcels by their shipments' creation.
// Only a caller that may ActionTrackParcels (decisions §30).
func (t *TrackingService) ParcelsCreatedBetween(ctx context.Context, c *parcelgate.Caller, from, to time.Time, page parcelgate.PageRequest) ([]parcelgate.TrackedParcel, error) {
	if err := c.May(parcelgate.ActionTrackParcels); err != nil {
		return nil, err
	}
	q := trackedQuery(`parcels p JOIN shipments s ON s.id = p.shipment_id`)
	q.where.add("s.environment = ?", string(c.Environment))
	q.where.tenant(c, "", "s.org_id")
	q.where.add("s.created_at >= ?", micros(from))
	q.where.add("s.created_at < ?", micros(to))
	return t.trackedPage(ctx, c, q, page)
}

// trackedQuery is a Tracking API search (decisions §59, §66): its
// parcels p and their shipments s read from from (whose own arguments are
// args) under the conditions the search adds to its where, in the order
// (s.created_at, s.id, p.position), by position alone: a positional list
// of the one pager, keyed by the shipment's creation and id and the
// parcel's place in it (s.id is unique, so a shipment's parcels are the
// rows that share its created_at and id).
func trackedQuery(from string, args ...any) *keysetQuery {
	return &keysetQuery{table: from, args: args, alias: "s", byModified: true, stampCol: "created_at", subCol: "p.position", positional: true}
}

// trackedPage reads the page of q the Tracking API's edge asked for: at
// most page.Size parcels from the position page.Offset() (its start=),
// by key, never by OFFSET over the rows (decisions §59). The position is
// resolved as every list's is (keysetPage, fastpath.Boundaries.Start): a
// client's consecutive start values find the key the previous page
// recorded; a cold start walks the search's keys only, from the nearest
// recorded position before it. The boundaries are the search's own: the
// scope names the statement and all its arguments, the caller's
// organization (where the search is c's own) and environment among them.
func (t *TrackingService) trackedPage(ctx context.Context, c *parcelgate.Caller, q *keysetQuery, page parcelgate.PageRequest) ([]parcelgate.TrackedParcel, error) {
	if page.Size <= 0 {
		return nil, nil
	}
	res, err := keysetPage(ctx, t.db.primary(), q, page, trackedColumns, "", trackedScanner(c))
	if err != nil {
		return nil, err
	}
	return res.Items, t.readMoves(ctx, res.Items)
}

// MoveParcel records the operator's move of a parcel of c's organization
// at the environment's now. Only the operator (ActionOperate; decisions
// §30): c is an OperatorCaller of the parcel's organization, so another
// organization's parcel is not its own and answers like a missing one.
func (t *TrackingService) MoveParcel(ctx context.Context, c *parcelgate.Caller, number string, status parcelgate.ParcelStatus) (*parcelgate.TrackedParcel, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return nil, err
	}
	env := c.Environment
	ps, err := t.trackNumbers(ctx, c, []string{number})
	if err != nil {
		return nil, err
	}
	var own []parcelgate.TrackedParcel
	for _, p := range ps {
		if p.Own {
			own = append(own, p)
		}
	}
	switch {
	case len(own) == 0:
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "Parcel %s not found.", parcelgate.NormalizeID(number))
	case len(own) > 1:
		return nil, parcelgate.Errorf(parcelgate.EINVALID, "%s is a shipment of %d parcels; move one parcel by its number.", parcelgate.NormalizeID(number), len(own))
	}
	tp := own[0]
	at := t.db.clock.Now(env).UTC().Truncate(time.Microsecond)
	if n := len(tp.Moves); n > 0 && !at.After(tp.Moves[n-1].At) {
		at = tp.Moves[n-1].At.Add(time.Microsecond) // moves stay in order on a clock moved back
	}
	if err := t.db.inTx(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO tracking_moves (org_id, environment, shipment_id, parcel_id, status, at) VALUES (?, ?, ?, ?, ?, ?)`,
			c.OrgID, string(env), tp.Shipment.ID, tp.Parcel.ParcelID, string(status), micros(at))
		return err
	}); err != nil {
		return nil, err
	}
	tp.Moves = append(tp.Moves, parcelgate.TrackingMove{Status: status, At: at})
	return &tp, nil
}
