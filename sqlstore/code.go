package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/parcelgate/parcelgate"
)

// CodeService keeps sending codes and errand codes (interface §4.1, 4.2): their
// allocation from the code space, reuse and release (decisions §5).
type CodeService struct{ db *DB }

// NewCodeService returns the CodeService over db.
func NewCodeService(db *DB) *CodeService { return &CodeService{db: db} }

var _ parcelgate.CodeService = (*CodeService)(nil)

// CodeRetention sets how long a code stays active when its shipment is not
// delivered first (decisions §5; default parcelgate.DefaultCodeRetention).
func CodeRetention(d time.Duration) Option {
	return func(o *options) { o.codeRetention = d }
}

// codeConfig is how a DB hands out codes.
type codeConfig struct {
	retention time.Duration
	// draw replaces parcelgate.NewCode in benchmarks that simulate a full
	// code space in a small part of it.
	draw func() string
}

func retention(db *DB) time.Duration {
	if db.codes.retention <= 0 {
		return parcelgate.DefaultCodeRetention
	}
	return db.codes.retention
}

func (s *CodeService) newCode() string {
	if s.db.codes.draw != nil {
		return s.db.codes.draw()
	}
	return parcelgate.NewCode()
}

// holder is what an active code is held by: a shipment's tracking number
// (a sending code, parcelID empty) or one of its parcels (an errand code).
// c is the caller whose organization holds it.
type holder struct {
	c              *parcelgate.Caller
	trackingNumber string
	parcelID       string
}

// The allocation of a new code, and what happens as the space fills up.
//
// Let f be the fraction of an environment's 16^6 ≈ 16.7M codes that are
// active. A code drawn at random is free with probability 1-f, so drawing
// and inserting until one fits takes 1/(1-f) tries on average: 2 at 50%,
// 10 at 90%, 100 at 99%, each a round trip. allocateCode keeps the common
// case at one statement and bounds the rest: the first try is a plain
// insert; after a collision it draws probeBatch candidates at once and asks
// in one query which of them are taken, then inserts a free one. A probe
// round finds no free candidate with probability f^probeBatch (0.03 at 90%,
// 0.53 at 99%), so up to about 95% full a new code costs at most three
// statements on average, and a request fails (EUNAVAILABLE, "code space
// exhausted") only when maxProbeRounds rounds in a row find nothing — about
// 1e-4 of requests at 99% full. The metric parcelgate_active_codes shows how
// full the space is; the remedy is a shorter --code-retention.
//
// Expired codes are reusable without a background job: every read treats a
// code whose expires_at has passed as gone, and when an allocation draws a
// code whose row is expired but not yet released, it releases that row and
// takes the code (reclaimCode).
const (
	probeBatch     = 64
	maxProbeRounds = 16
)

// allocateCode gives h a new active code, expiring at expires, and returns
// it. The unique index codes_active_code is what keeps two instances from
// handing out one code: the insert of a code that an unreleased row holds
// does nothing (ON CONFLICT DO NOTHING), and another code is tried.
func allocateCode(ctx context.Context, tx *Tx, h holder, now, expires time.Time) (string, error) {
	candidates := []string{NewCodeService(tx.db).newCode()}
	for round := 0; round <= maxProbeRounds; round++ {
		if round > 0 {
			var err error
			if candidates, err = freeCandidates(ctx, tx, h.c.Environment, now); err != nil {
				return "", err
			}
		}
		for _, code := range candidates {
			ok, err := tryCode(ctx, tx, h, code, now, expires)
			if err != nil || ok {
				return code, err
			}
		}
	}
	return "", parcelgate.Errorf(parcelgate.EUNAVAILABLE, "The code space of the %s environment is exhausted; try again later.", h.c.Environment)
}

// freeCandidates draws probeBatch codes and returns those no active code
// holds; expired ones count as free. Expiry is checked here rather than in
// the query, whose plan must be the probes of codes_active_code: with an
// expires_at range in it, SQLite prefers scanning codes_active_expiry.
func freeCandidates(ctx context.Context, tx *Tx, env parcelgate.Environment, now time.Time) ([]string, error) {
	draw := make([]string, probeBatch)
	args := []any{string(env)}
	for i := range draw {
		draw[i] = NewCodeService(tx.db).newCode()
		args = append(args, draw[i])
	}
	rows, err := tx.Query(ctx, `SELECT code, expires_at FROM codes WHERE environment = ? AND code IN (`+placeholders(probeBatch)+`) AND released_at = 0`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	taken := map[string]bool{}
	for rows.Next() {
		var c string
		var expires int64
		if err := rows.Scan(&c, &expires); err != nil {
			return nil, err
		}
		taken[c] = expires > micros(now)
	}
	var free []string
	for _, c := range draw {
		if !taken[c] {
			free = append(free, c)
		}
	}
	return free, rows.Err()
}

// tryCode gives h code if no active code holds it, reclaiming it from an
// expired holder, and reports whether it did.
func tryCode(ctx context.Context, tx *Tx, h holder, code string, now, expires time.Time) (bool, error) {
	ok, err := insertCode(ctx, tx, h, code, now, expires)
	if err != nil || ok {
		return ok, err
	}
	if ok, err := reclaimCode(ctx, tx, h.c.Environment, code, now); err != nil || !ok {
		return false, err
	}
	return insertCode(ctx, tx, h, code, now, expires)
}

func insertCode(ctx context.Context, tx *Tx, h holder, code string, now, expires time.Time) (bool, error) {
	var id int64
	err := tx.QueryRow(ctx, `INSERT INTO codes (environment, code, org_id, tracking_number, parcel_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment, code) WHERE released_at = 0 DO NOTHING RETURNING id`,
		string(h.c.Environment), code, h.c.OrgID, h.trackingNumber, h.parcelID, micros(now), micros(expires)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// reclaimCode releases code when the row holding it has expired, and
// reports whether it did.
func reclaimCode(ctx context.Context, tx *Tx, env parcelgate.Environment, code string, now time.Time) (bool, error) {
	res, err := tx.Exec(ctx, `UPDATE codes SET released_at = ? WHERE environment = ? AND code = ? AND released_at = 0 AND expires_at <= ?`, micros(now), string(env), code, micros(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// activeCode returns the code h holds now, or "" when it holds none.
func activeCode(ctx context.Context, q querier, h holder, now time.Time) (code string, created, expires time.Time, err error) {
	var c, e int64
	own := tenantOf(h.c, "", "org_id")
	err = q.QueryRow(ctx, `SELECT code, created_at, expires_at FROM codes WHERE `+own.sql()+` AND tracking_number = ? AND parcel_id = ? AND released_at = 0 AND expires_at > ?`,
		own.with(h.trackingNumber, h.parcelID, micros(now))...).Scan(&code, &c, &e)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, time.Time{}, nil
	}
	return code, fromMicros(c), fromMicros(e), err
}

// lockLiveShipment locks the organization's shipment row until tx ends and
// reports its state: "" when there is none, else its status. Holding the
// lock while a code is given to the shipment or its parcels orders that
// against a concurrent delivery (which releases the codes) and against
// concurrent requests for the same code, on PostgreSQL; on SQLite the single
// writer already does.
func lockLiveShipment(ctx context.Context, tx *Tx, c *parcelgate.Caller, trackingNumber string) (parcelgate.ShipmentStatus, error) {
	var status string
	own := tenantOf(c, "", "org_id")
	err := tx.QueryRow(ctx, `UPDATE shipments SET status = status WHERE `+own.sql()+` AND tracking_number = ? RETURNING status`, own.with(trackingNumber)...).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return parcelgate.ShipmentStatus(status), err
}

// giveCode returns the code h holds, or gives it a new one. The caller
// holds the shipment's lock when there is a shipment. An expired code of
// h's is released first, so that h may hold a new one.
func giveCode(ctx context.Context, tx *Tx, h holder) (code string, created, expires time.Time, err error) {
	now := tx.db.clock.Now(h.c.Environment).UTC().Truncate(time.Microsecond)
	if code, created, expires, err = activeCode(ctx, tx, h, now); err != nil || code != "" {
		return code, created, expires, err
	}
	// Only an expired code is released here. On PostgreSQL a code that a
	// concurrent request committed since activeCode looked is visible to
	// this statement; releasing it too would hand the holder two codes. Left
	// alone, it makes this transaction's insert fail on the holder's unique
	// index, and retryOnRace's next run returns it.
	own := tenantOf(h.c, "", "org_id")
	if _, err := tx.Exec(ctx, `UPDATE codes SET released_at = ? WHERE `+own.sql()+` AND tracking_number = ? AND parcel_id = ? AND released_at = 0 AND expires_at <= ?`,
		append([]any{micros(now)}, own.with(h.trackingNumber, h.parcelID, micros(now))...)...); err != nil {
		return "", time.Time{}, time.Time{}, err
	}
	expires = now.Add(retention(tx.db))
	code, err = allocateCode(ctx, tx, h, now, expires)
	return code, now, expires, err
}

// retryOnRace runs fn in a transaction and again when it lost a race to a
// concurrent one on a unique index (two first requests for one code on
// PostgreSQL): the next run finds the winner's code.
func retryOnRace(ctx context.Context, db *DB, fn func(tx *Tx) error) error {
	var err error
	for range 3 {
		if err = db.inTx(ctx, fn); !isUniqueViolation(err) {
			return err
		}
	}
	return err
}

// CreateSendingCode returns or gives the tracking number's sending code.
// Only a caller that may ActionCreateCodes (interface §5.1).
func (s *CodeService) CreateSendingCode(ctx context.Context, c *parcelgate.Caller, trackingNumber string, noEdiCheck bool) (*parcelgate.SendingCode, error) {
	if err := c.May(parcelgate.ActionCreateCodes); err != nil {
		return nil, err
	}
	tn := parcelgate.NormalizeID(trackingNumber)
	var p parcelgate.Problems
	parcelgate.CheckTrackingNumber(&p, "trackingNumber", tn, true)
	if err := p.Err(); err != nil {
		return nil, err
	}
	if err := parcelgate.SendingCodeScenario(c.Environment, tn); err != nil {
		return nil, err
	}
	if sc, err := s.findSendingCode(ctx, c, tn); parcelgate.ErrorCode(err) != parcelgate.ENOTFOUND {
		return sc, err
	}
	h := holder{c: c, trackingNumber: tn}
	sc := &parcelgate.SendingCode{TrackingNumber: tn}
	err := retryOnRace(ctx, s.db, func(tx *Tx) error {
		status, err := lockLiveShipment(ctx, tx, c, tn)
		if err != nil {
			return err
		}
		if err := parcelgate.SendingCodeDecision(tn, status, noEdiCheck); err != nil {
			return err
		}
		if status != "" {
			own := tenantOf(c, "", "org_id")
			sh, err := scanShipment(tx.QueryRow(ctx, `SELECT `+shipmentColumns+` FROM shipments WHERE `+own.sql()+` AND tracking_number = ?`, own.with(tn)...))
			if err != nil {
				return err
			}
			if err := parcelgate.LabellessDecision(sh); err != nil {
				return err
			}
		}
		sc.SendingCode, sc.CreatedAt, sc.ExpiresAt, err = giveCode(ctx, tx, h)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// FindSendingCode returns the active sending code of c's tracking
// number. Only a caller that may ActionReadCodes (interface §5.1).
func (s *CodeService) FindSendingCode(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.SendingCode, error) {
	if err := c.May(parcelgate.ActionReadCodes); err != nil {
		return nil, err
	}
	return s.findSendingCode(ctx, c, trackingNumber)
}

// findSendingCode is FindSendingCode without the permission, for
// CreateSendingCode, which asked its own.
func (s *CodeService) findSendingCode(ctx context.Context, c *parcelgate.Caller, trackingNumber string) (*parcelgate.SendingCode, error) {
	tn := parcelgate.NormalizeID(trackingNumber)
	code, created, expires, err := activeCode(ctx, s.db.primary(), holder{c: c, trackingNumber: tn}, s.db.clock.Now(c.Environment))
	if err != nil {
		return nil, err
	}
	if code == "" {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "No sending code for tracking number %s.", tn)
	}
	return &parcelgate.SendingCode{TrackingNumber: tn, SendingCode: code, CreatedAt: created, ExpiresAt: expires}, nil
}

// FindSendingCodeByCode returns c's active sending code with its
// shipment data. Only a caller that may ActionReadCodes (interface §5.1).
func (s *CodeService) FindSendingCodeByCode(ctx context.Context, c *parcelgate.Caller, code string) (*parcelgate.SendingCode, error) {
	if err := c.May(parcelgate.ActionReadCodes); err != nil {
		return nil, err
	}
	code = parcelgate.NormalizeCode(code)
	notFound := parcelgate.Errorf(parcelgate.ENOTFOUND, "No sending code %s.", code)
	if !parcelgate.ValidCode(code) {
		return nil, notFound
	}
	sc := parcelgate.SendingCode{SendingCode: code}
	var created, expires int64
	own := tenantOf(c, "", "org_id")
	err := s.db.queryRow(ctx, `SELECT tracking_number, created_at, expires_at FROM codes WHERE environment = ? AND code = ? AND released_at = 0 AND expires_at > ? AND `+own.sql()+` AND parcel_id = ''`,
		append([]any{string(c.Environment), code, micros(s.db.clock.Now(c.Environment))}, own.with()...)...).Scan(&sc.TrackingNumber, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	sc.CreatedAt, sc.ExpiresAt = fromMicros(created), fromMicros(expires)
	sh, err := findShipment(ctx, s.db.primary(), c, sc.TrackingNumber)
	switch parcelgate.ErrorCode(err) {
	case "":
		sc.Shipment = sh
	case parcelgate.ENOTFOUND:
	default:
		return nil, err
	}
	return &sc, nil
}

// parcelState is what the errand code of one parcel depends on.
type parcelState struct {
	trackingNumber string
	status         parcelgate.ShipmentStatus
	code           string
}

// ErrandCodes answers the errand codes of c's parcels. Only a caller that
// may ActionReadErrandCodes (interface §5.1).
func (s *CodeService) ErrandCodes(ctx context.Context, c *parcelgate.Caller, parcelIDs []string) ([]parcelgate.ErrandCodeResult, error) {
	if err := c.May(parcelgate.ActionReadErrandCodes); err != nil {
		return nil, err
	}
	var valid []string
	for _, id := range parcelIDs {
		if id := parcelgate.NormalizeID(id); parcelgate.ValidParcelID(id) {
			valid = append(valid, id)
		}
	}
	states, err := parcelStates(ctx, s.db.primary(), c, valid, s.db.clock.Now(c.Environment))
	if err != nil {
		return nil, err
	}
	var missing []string
	for id, st := range states {
		if _, holds := parcelgate.ErrandCodeOutcome(id, st.status); holds && st.code == "" {
			missing = append(missing, id)
		}
	}
	// Locking the shipments in one order keeps two requests for parcels of
	// the same shipments from deadlocking on PostgreSQL.
	slices.SortFunc(missing, func(a, b string) int {
		return cmp.Or(strings.Compare(states[a].trackingNumber, states[b].trackingNumber), strings.Compare(a, b))
	})
	if len(missing) > 0 {
		err := retryOnRace(ctx, s.db, func(tx *Tx) error {
			for _, id := range missing {
				st := states[id]
				status, err := lockLiveShipment(ctx, tx, c, st.trackingNumber)
				if err != nil {
					return err
				}
				st.status = status
				if _, holds := parcelgate.ErrandCodeOutcome(id, status); holds {
					h := holder{c: c, trackingNumber: st.trackingNumber, parcelID: id}
					if st.code, _, _, err = giveCode(ctx, tx, h); err != nil {
						return err
					}
				}
				states[id] = st
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]parcelgate.ErrandCodeResult, len(parcelIDs))
	for i, raw := range parcelIDs {
		id := parcelgate.NormalizeID(raw)
		st := states[id] // the zero state, status "", when the caller has no such parcel
		r := parcelgate.ErrandCodeResult{ParcelID: raw}
		var holds bool
		if r.ResultText, holds = parcelgate.ErrandCodeOutcome(id, st.status); holds {
			r.ErrandCode = st.code
		}
		out[i] = r
	}
	return out, nil
}

// parcelStates reads, in one query, the shipment and active errand code of
// each of the organization's parcels among ids.
func parcelStates(ctx context.Context, q querier, c *parcelgate.Caller, ids []string, now time.Time) (map[string]parcelState, error) {
	states := map[string]parcelState{}
	if len(ids) == 0 {
		return states, nil
	}
	own := tenantOf(c, "", "p.org_id")
	args := append([]any{micros(now)}, own.with()...)
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := q.Query(ctx, `SELECT p.parcel_id, s.tracking_number, s.status, COALESCE(c.code, '')
		FROM parcels p
		JOIN shipments s ON s.id = p.shipment_id
		LEFT JOIN codes c ON c.org_id = p.org_id AND c.tracking_number = s.tracking_number AND c.parcel_id = p.parcel_id AND c.released_at = 0 AND c.expires_at > ?
		WHERE `+own.sql()+` AND p.parcel_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		var st parcelState
		if err := rows.Scan(&id, &st.trackingNumber, &status, &st.code); err != nil {
			return nil, err
		}
		st.status = parcelgate.ShipmentStatus(status)
		states[id] = st
	}
	return states, rows.Err()
}

// ActiveCodes counts the active codes of c's environment, every
// organization's (decisions §5). Only the operator (ActionOperate): c is
// the EnvironmentOperator of the environment the metric counts.
func (s *CodeService) ActiveCodes(ctx context.Context, c *parcelgate.Caller) (int64, error) {
	if err := c.May(parcelgate.ActionOperate); err != nil {
		return 0, err
	}
	env := c.Environment
	var n int64
	err := s.db.queryRow(ctx, `SELECT COUNT(*) FROM codes WHERE environment = ? AND released_at = 0 AND expires_at > ?`, string(env), micros(s.db.clock.Now(env))).Scan(&n)
	return n, err
}
