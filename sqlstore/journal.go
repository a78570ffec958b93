package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/parcelgate/parcelgate"
)

// JournalService keeps the request journal.
type JournalService struct{ db *DB }

// NewJournalService returns the JournalService over db.
func NewJournalService(db *DB) *JournalService { return &JournalService{db: db} }

var _ parcelgate.JournalService = (*JournalService)(nil)

const journalCols = `id, request_id, environment, org_id, business_id, at, method, path, query, route, status, latency_us, request_body, response_body, truncated`

// WriteJournal stores a batch of journal entries in one transaction. The
// HTTP layer calls it off the request path.
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
// orgIDs and deletes the older ones.
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

// Journal lists journal entries matching q, newest first, without their
// bodies, and the cursor of the next page (0 when there is none).
func (s *JournalService) Journal(ctx context.Context, q parcelgate.JournalQuery) ([]*parcelgate.JournalEntry, int64, error) {
	var f journalFilter
	if err := s.scopeJournal(ctx, &f, q); err != nil {
		return nil, 0, err
	}
	if q.Route != "" {
		f.add("route = ?", q.Route)
	}
	switch {
	case q.StatusClass:
		f.add("status >= ? AND status < ?", q.Status*100, q.Status*100+100)
	case q.Status != 0:
		f.add("status = ?", q.Status)
	}
	if !q.From.IsZero() {
		f.add("at >= ?", micros(q.From))
	}
	if !q.To.IsZero() {
		f.add("at < ?", micros(q.To))
	}
	if q.Before > 0 {
		f.add("id < ?", q.Before)
	}
	limit := q.Limit
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	where := ""
	if len(f.conds) > 0 {
		where = " WHERE " + strings.Join(f.conds, " AND ")
	}
	rows, err := s.db.query(ctx, `SELECT `+journalCols+` FROM request_journal`+where+` ORDER BY id DESC LIMIT ?`, append(f.args, limit+1)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*parcelgate.JournalEntry{}
	for rows.Next() {
		e, err := scanJournal(rows)
		if err != nil {
			return nil, 0, err
		}
		e.RequestBody, e.ResponseBody = "", ""
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	var next int64
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// JournalEntries returns the entries of the request ID that match q's
// environment and organization, newest first, with bodies: at most
// MaxJournalMatches. A request ID is the client's, so several
// organizations may have used the same one (decisions §21): a lookup on
// behalf of a tenant passes its organization, and never sees another's.
func (s *JournalService) JournalEntries(ctx context.Context, q parcelgate.JournalQuery, requestID string) ([]*parcelgate.JournalEntry, error) {
	f := journalFilter{conds: []string{"request_id = ?"}, args: []any{requestID}}
	if err := s.scopeJournal(ctx, &f, q); err != nil {
		return nil, err
	}
	rows, err := s.db.query(ctx, `SELECT `+journalCols+` FROM request_journal WHERE `+strings.Join(f.conds, " AND ")+` ORDER BY id DESC LIMIT ?`, append(f.args, MaxJournalMatches)...)
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

// scopeJournal adds q's environment and organization to f.
func (s *JournalService) scopeJournal(ctx context.Context, f *journalFilter, q parcelgate.JournalQuery) error {
	if q.Environment != "" {
		f.add("environment = ?", string(q.Environment))
	}
	if q.OrgID != 0 {
		f.add("org_id = ?", q.OrgID)
	}
	if q.BusinessID != "" {
		org, err := NewOrganizationService(s.db).findOrganization(ctx, q.Environment, q.BusinessID)
		if err != nil {
			return err
		}
		f.add("org_id = ?", org.ID)
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

type journalFilter struct {
	conds []string
	args  []any
}

func (f *journalFilter) add(cond string, args ...any) {
	f.conds = append(f.conds, cond)
	f.args = append(f.args, args...)
}
