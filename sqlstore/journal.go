package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/parcelgate/parcelgate"
)

// JournalService keeps the request journal.
type JournalService struct{ db *DB }

// NewJournalService returns the JournalService over db.
func NewJournalService(db *DB) *JournalService { return &JournalService{db: db} }

var _ parcelgate.JournalService = (*JournalService)(nil)

const journalCols = `id, request_id, environment, org_id, business_id, at, method, path, query, route, status, latency_us, request_body, response_body, truncated`

// WriteJournal stores a batch of journal entries in one transaction. It
// takes no caller: the HTTP layer calls it off the request path for calls
// already answered, each entry naming its own tenant (decisions §21).
func (s *JournalService) WriteJournal(ctx context.Context, entries []*parcelgate.JournalEntry) error {
	if len(entries) == 0 {
		return nil
	}
	const cols = 14
	return s.db.inTx(ctx, func(tx *Tx) error {
		for rest := entries; len(rest) > 0; {
			chunk := rest[:min(len(rest), maxParams/cols)]
			rest = rest[len(chunk):]
			args := make([]any, 0, len(chunk)*cols)
			for _, e := range chunk {
				args = append(args, e.RequestID, string(e.Environment), e.OrgID, e.BusinessID, micros(e.At), e.Method, e.Path, e.Query, e.Route,
					e.Status, int64(e.LatencyMs*1000), e.RequestBody, e.ResponseBody, boolInt(e.Truncated))
			}
			if _, err := tx.Exec(ctx, `INSERT INTO request_journal (request_id, environment, org_id, business_id, at, method, path, query, route, status, latency_us, request_body, response_body, truncated)
				VALUES `+valueRows(len(chunk), placeholders(cols)), args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// PruneJournal keeps the newest keep entries of each organization of
// orgIDs and deletes the older ones. It takes no caller: it is the journal
// writer's bound (JournalPerTenant), not anyone's request.
func (s *JournalService) PruneJournal(ctx context.Context, orgIDs []int64, keep int) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		for _, org := range orgIDs {
			// The id of the oldest entry kept; older ones go.
			var oldest int64
			err := tx.QueryRow(ctx, `SELECT id FROM request_journal WHERE org_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?`, org, keep-1).Scan(&oldest)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM request_journal WHERE org_id = ? AND id < ?`, org, oldest); err != nil {
				return err
			}
		}
		return nil
	})
}

// Journal pages the entries of c's scope matching q, newest first,
// without their bodies; Next is the cursor of the older entries, when
// older ones follow. Only a caller that may
// ActionViewTenant: a service account reads its own organization's
// entries in its environment, the operator any tenant's (decisions §16,
// §21).
func (s *JournalService) Journal(ctx context.Context, c *parcelgate.Caller, q parcelgate.JournalQuery, p parcelgate.PageRequest) (parcelgate.Page[*parcelgate.JournalEntry], error) {
	if err := c.May(parcelgate.ActionViewTenant); err != nil {
		return parcelgate.Page[*parcelgate.JournalEntry]{}, err
	}
	page := parcelgate.Page[*parcelgate.JournalEntry]{}
	// Newest first by id, onwards only (decisions §64); cursors handed
	// out before §64 were the oldest entry's id in decimal.
	jq := &keysetQuery{table: "request_journal", uncounted: true, desc: true, defaultSize: 100, maxSize: 500, legacy: legacyDecimal,
		badCursor: &parcelgate.Error{Code: parcelgate.EINVALID, Message: "The page cursor is not one of the journal's; start again from the first page.",
			Fields: []parcelgate.FieldError{{Field: "before", Message: "must be the next cursor of an earlier page"}}}}
	if _, err := jq.decodeCursor(p.After); err != nil {
		return page, err
	}
	var f filterSQL
	if err := s.scopeJournal(ctx, &f, c, q); err != nil {
		return page, err
	}
	if q.Route != "" {
		f.add("route = ?", q.Route)
	}
	// Each status filter is served by an index that also gives the
	// order (migration 0040: by environment or organization, then the
	// status or its class, then id), so a rare status reads its own rows,
	// not the journal until enough match. The class is written as the
	// index's expression, status / 100, for the planner to match it;
	// the class (a digit) is written into the statement, one statement a
	// class (decisions §58): bound as a parameter, PostgreSQL's generic
	// plan, which cannot know a class is rare, walked the primary key
	// backwards and filtered the environment's journal.
	switch {
	case q.StatusClass && q.Status >= 1 && q.Status <= 9:
		f.add("status / 100 = " + strconv.Itoa(q.Status))
	case q.StatusClass:
		f.add("status / 100 = ?", q.Status)
	case q.Status != 0:
		f.add("status = ?", q.Status)
	}
	if !q.From.IsZero() {
		f.add("at >= ?", micros(q.From))
	}
	if !q.To.IsZero() {
		f.add("at < ?", micros(q.To))
	}
	jq.where = f
	return keysetPage(ctx, s.db.primary(), jq, p, journalCols, "", func(rows *sql.Rows) (*parcelgate.JournalEntry, pageKey, error) {
		e, err := scanJournal(rows)
		if err != nil {
			return nil, pageKey{}, err
		}
		e.RequestBody, e.ResponseBody = "", ""
		return e, pageKey{id: e.ID}, nil
	})
}

// JournalEntries returns the entries of the request ID in c's scope (and
// q's BusinessID, for the operator), newest first, with bodies: at most
// MaxJournalMatches. A request ID is the client's, so several
// organizations may have used the same one (decisions §21): a tenant's
// lookup sees its own organization's only. Only a caller that may
// ActionViewTenant.
func (s *JournalService) JournalEntries(ctx context.Context, c *parcelgate.Caller, q parcelgate.JournalQuery, requestID string) ([]*parcelgate.JournalEntry, error) {
	if err := c.May(parcelgate.ActionViewTenant); err != nil {
		return nil, err
	}
	var f filterSQL
	f.add("request_id = ?", requestID)
	if err := s.scopeJournal(ctx, &f, c, q); err != nil {
		return nil, err
	}
	rows, err := s.db.query(ctx, `SELECT `+journalCols+` FROM request_journal WHERE `+f.sql()+` ORDER BY id DESC LIMIT ?`, append(f.args, MaxJournalMatches)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*parcelgate.JournalEntry
	for rows.Next() {
		e, err := scanJournal(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, parcelgate.Errorf(parcelgate.ENOTFOUND, "No journal entry for request %s: the journal keeps the last %d calls of each organization.", requestID, parcelgate.JournalPerTenant)
	}
	return out, nil
}

// MaxJournalMatches bounds the entries one request ID returns.
const MaxJournalMatches = 50

// scopeJournal adds c's scope to f: the operator's (decisions §4: its
// environment, none for AllOperator(), and its organization
// when it names one), which for a caller that is not the operator is its
// own organization (and environment), so a tenant never reads another's
// entries, nor those journaled under no organization. Only the operator
// narrows by q.BusinessID, within its environment.
func (s *JournalService) scopeJournal(ctx context.Context, f *filterSQL, c *parcelgate.Caller, q parcelgate.JournalQuery) error {
	// A caller of no organization (a tenant's scope naming none) sees
	// nothing: the helper keeps it to no row.
	f.tenant(c, "environment", "org_id")
	if c.Kind == parcelgate.KindOperator && q.BusinessID != "" {
		org, err := NewOrganizationService(s.db).findOrganization(ctx, c.Environment, q.BusinessID)
		if err != nil {
			return err
		}
		// The operator narrowed to one organization reads as that
		// organization's operator.
		f.tenant(parcelgate.OperatorCaller(org), "", "org_id")
	}
	return nil
}

func scanJournal(r rowScanner) (*parcelgate.JournalEntry, error) {
	var e parcelgate.JournalEntry
	var env string
	var at, latency int64
	var truncated int
	if err := r.Scan(&e.ID, &e.RequestID, &env, &e.OrgID, &e.BusinessID, &at, &e.Method, &e.Path, &e.Query, &e.Route, &e.Status, &latency, &e.RequestBody, &e.ResponseBody, &truncated); err != nil {
		return nil, err
	}
	e.Environment, e.At, e.LatencyMs, e.Truncated = parcelgate.Environment(env), fromMicros(at), float64(latency)/1000, truncated != 0
	return &e, nil
}
