package httpapi

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// JournalBodyCap is how much of each request and response body the journal
// keeps.
const JournalBodyCap = 16 << 10

// journalQueue is how many calls may wait for the journal writer; beyond
// it calls are dropped (and counted) rather than slowing requests down.
const journalQueue = 4096

// journalRecord is filled in while a request is served: the middleware
// owns it, authenticate names the caller.
type journalRecord struct {
	caller *parcelgate.Caller
	body   cappedBuffer
}

// JournalAs names the caller the request is journaled under
// (parcelgate.JournalUnder).
func (jr *journalRecord) JournalAs(c *parcelgate.Caller) { jr.caller = c }

// journalFrom returns the journal record of r, nil when the journal is
// off.
func journalFrom(r *http.Request) *journalRecord {
	if st := stateOf(r.Context()); st.journaled {
		return &st.journal
	}
	return nil
}

// cappedBuffer keeps the first JournalBodyCap bytes written to it, and
// whether more came.
type cappedBuffer struct {
	b    []byte
	more bool
	// shared: b is a shared answer held by reference (keepShared), the
	// only bodies the writer remembers the redaction of.
	shared bool
}

func (c *cappedBuffer) keep(p []byte) {
	room := JournalBodyCap - len(c.b)
	if len(p) > room {
		p, c.more = p[:room], true
	}
	c.b = append(c.b, p...)
	if len(p) > 0 {
		c.shared = false // appended: an array of the buffer's own now
	}
}

// keepShared keeps p as keep does, without copying it when it is the
// first of the body: p is then an answer that is never written again
// (writeAnswer), held by reference. Its capacity is cut to its length, so
// what a later keep appends is copied into an array of the buffer's own.
func (c *cappedBuffer) keepShared(p []byte) {
	if len(c.b) > 0 {
		c.keep(p)
		return
	}
	if len(p) > JournalBodyCap {
		p, c.more = p[:JournalBodyCap], true
	}
	c.b = p[:len(p):len(p)]
	c.shared = true
}

// teeBody copies what the handler reads of a request body into the
// journal record.
type teeBody struct {
	io.ReadCloser
	to *cappedBuffer
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.to.keep(p[:n])
	return n, err
}

// pendingEntry is a call waiting for the writer: raw, so that redaction
// and decompression happen off the request path.
type pendingEntry struct {
	entry       parcelgate.JournalEntry
	reqBody     cappedBuffer
	respBody    cappedBuffer
	reqType     string
	respType    string
	respGzipped bool
	seq         int64 // arrival order within its batch
}

// journal writes calls to the store in batches from one goroutine per
// instance.
type journal struct {
	store   parcelgate.JournalService
	log     *slog.Logger
	keep    int
	queue   chan *pendingEntry
	done    chan struct{}
	closing sync.Once

	written    prometheus.Counter
	dropped    prometheus.Counter
	failed     prometheus.Counter
	superseded prometheus.Counter
}

func newJournal(store parcelgate.JournalService, log *slog.Logger, keep int, reg *prometheus.Registry) *journal {
	j := &journal{store: store, log: log, keep: keep, queue: make(chan *pendingEntry, journalQueue), done: make(chan struct{}),
		written: prometheus.NewCounter(prometheus.CounterOpts{Name: "parcelgate_journal_written_total", Help: "API calls this instance wrote to the request journal."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "parcelgate_journal_dropped_total", Help: "API calls not journaled because the journal writer was behind."}),
		failed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "parcelgate_journal_failed_total", Help: "API calls not journaled because writing them failed."}),
		superseded: prometheus.NewCounter(prometheus.CounterOpts{Name: "parcelgate_journal_superseded_total",
			Help: "API calls not written because their organization made as many newer calls as the journal keeps, within one batch."}),
	}
	reg.MustRegister(j.written, j.dropped, j.failed, j.superseded)
	go j.run()
	return j
}

// add queues a call without ever blocking the request.
func (j *journal) add(p *pendingEntry) {
	select {
	case j.queue <- p:
	default:
		j.dropped.Inc()
	}
}

// The writer's pace. Calls are gathered for journalLinger after the first
// (or until journalBatch calls or journalBatchBytes of captured bodies are
// waiting), so a busy instance writes a few times a second rather than once
// per call. While they are gathered, only the newest j.keep of each
// organization are held (see gathering): at a sustained rate above keep
// calls per batch, the rest would be pruned by the bound the moment they
// were written. A batch in which some organization has already made more
// calls than the journal keeps gathers for journalBusyLinger instead: its
// calls are flooding the journal, and written every quarter second they
// would cost the database up to four times keep writes a second for that
// organization, each soon superseded, while a reader of the journal sees
// the newest keep calls either way. The calls are written journalWriteChunk
// to a transaction, so the journal never holds SQLite's one writer for
// long. Organizations are pruned at most every journalPruneEvery (and when
// the writer stops), so the journal may hold a few seconds' calls over its
// bound.
const (
	journalBatch      = 8192
	journalBatchBytes = 32 << 20
	journalLinger     = 250 * time.Millisecond
	journalBusyLinger = time.Second
	journalWriteChunk = 500
	journalPruneEvery = 2 * time.Second
	// journalPoll is how often the writer takes what has queued while it
	// gathers a batch. It sleeps between the takes rather than waiting on
	// the queue: a request queuing its call then finds no writer to wake,
	// and waking it on every call cost the request path more than the
	// send itself. The queue holds journalQueue calls, 5 ms of 800,000
	// calls a second.
	journalPoll = 5 * time.Millisecond
)

// run writes what is queued, a batch at a time, until close.
func (j *journal) run() {
	defer close(j.done)
	touched := map[int64]bool{}
	lastPrune := time.Now()
	prune := func() {
		if len(touched) == 0 {
			return
		}
		orgs := make([]int64, 0, len(touched))
		for org := range touched {
			orgs = append(orgs, org)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := j.store.PruneJournal(ctx, orgs, j.keep); err != nil {
			j.log.Warn("request journal: pruning", "err", err)
			return
		}
		clear(touched)
		lastPrune = time.Now()
	}
	defer prune()
	var answers redactedAnswers
	for p := range j.queue {
		g := newGathering(j.keep)
		g.add(p)
		until := g.started.Add(journalLinger)
	more:
		for g.calls < journalBatch && g.size < journalBatchBytes {
			select {
			case p, ok := <-j.queue:
				if !ok {
					break more
				}
				if g.add(p) && g.superseded == 1 {
					// The first call let go: the batch is flooded.
					until = g.started.Add(journalBusyLinger)
				}
				continue
			default:
			}
			wait := time.Until(until)
			if wait <= 0 {
				break
			}
			time.Sleep(min(wait, journalPoll))
		}
		j.superseded.Add(float64(g.superseded))
		for chunk := range slices.Chunk(g.kept(), journalWriteChunk) {
			entries := make([]*parcelgate.JournalEntry, len(chunk))
			for i, p := range chunk {
				entries[i] = p.finish(&answers)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := j.store.WriteJournal(ctx, entries)
			cancel()
			if err != nil {
				j.failed.Add(float64(len(entries)))
				j.log.Warn("request journal", "err", err, "entries", len(entries))
				continue
			}
			j.written.Add(float64(len(entries)))
			for _, e := range entries {
				touched[e.OrgID] = true
			}
		}
		if time.Since(lastPrune) >= journalPruneEvery {
			prune()
		}
	}
}

// gathering holds the calls of one batch that the bound of keep calls per
// organization would keep: the newest keep of each organization. An older
// call is let go the moment its organization has keep newer ones, so a
// batch of one busy organization holds keep calls however long it
// gathers.
type gathering struct {
	keep    int
	started time.Time
	orgs    map[int64][]*pendingEntry // oldest first
	next    int64                     // arrival number of the next call
	// calls and size are what is held; superseded counts the calls let go.
	calls, size, superseded int
}

func newGathering(keep int) *gathering {
	return &gathering{keep: keep, started: time.Now(), orgs: map[int64][]*pendingEntry{}}
}

// add holds p, and reports whether an older call of its organization was
// let go for it.
func (g *gathering) add(p *pendingEntry) (superseded bool) {
	p.seq = g.next
	g.next++
	q := append(g.orgs[p.entry.OrgID], p)
	if superseded = len(q) > g.keep; superseded {
		g.size -= q[0].size()
		g.calls--
		g.superseded++
		// Cleared so the backing array does not hold the bodies of a
		// call let go until append moves it.
		q[0] = nil
		q = q[1:]
	}
	g.orgs[p.entry.OrgID] = q
	g.calls++
	g.size += p.size()
	return superseded
}

// kept returns the calls held, in arrival order.
func (g *gathering) kept() []*pendingEntry {
	all := make([]*pendingEntry, 0, g.calls)
	for _, q := range g.orgs {
		all = append(all, q...)
	}
	if len(g.orgs) > 1 {
		slices.SortFunc(all, func(a, b *pendingEntry) int { return cmp.Compare(a.seq, b.seq) })
	}
	return all
}

// size is what the call holds in memory while it waits: its captured
// bodies.
func (p *pendingEntry) size() int { return len(p.reqBody.b) + len(p.respBody.b) }

// close writes what is queued and stops the writer.
func (j *journal) close() {
	j.closing.Do(func() { close(j.queue) })
	<-j.done
}

// redactedAnswers remembers the redacted text of the shared answers the
// writer redacted last, by the identity of their bytes: the journal keeps
// a shared answer by reference (writeAnswer), so the calls reading one
// order hold the very same bytes, and their redaction is done once. The
// bytes a call captured are never written once it is queued, and an entry
// holds its bytes, so their array cannot be reused for others while it
// is remembered: the same array and length are the same bytes, and
// redactBody, a function of the bytes alone, gives the same text.
type redactedAnswers struct {
	byArray map[*byte]redactedAnswer
}

type redactedAnswer struct {
	body []byte
	text string
}

// redactedAnswersMax bounds the answers remembered (each holds its body,
// up to JournalBodyCap).
const redactedAnswersMax = 256

func (m *redactedAnswers) redact(b []byte) string {
	if len(b) == 0 {
		return redactBody(b, "application/json")
	}
	if a, ok := m.byArray[&b[0]]; ok && len(a.body) == len(b) {
		return a.text
	}
	text := redactBody(b, "application/json")
	if m.byArray == nil || len(m.byArray) >= redactedAnswersMax {
		m.byArray = make(map[*byte]redactedAnswer, redactedAnswersMax)
	}
	m.byArray[&b[0]] = redactedAnswer{b, text}
	return text
}

// finish turns the raw call into its entry: bodies decompressed, capped,
// made valid UTF-8 and redacted.
func (p *pendingEntry) finish(answers *redactedAnswers) *parcelgate.JournalEntry {
	e := p.entry
	resp := p.respBody.b
	if p.respGzipped {
		zr, err := gzip.NewReader(bytes.NewReader(resp))
		if err == nil {
			// The capture may end mid-stream: keep what decodes.
			plain, _ := io.ReadAll(io.LimitReader(zr, JournalBodyCap+1))
			resp = plain
			if len(plain) > JournalBodyCap {
				resp, p.respBody.more = plain[:JournalBodyCap], true
			}
		}
	}
	e.RequestBody = redactBody(p.reqBody.b, p.reqType)
	if binaryBody(p.reqType, p.reqBody.b) {
		e.RequestBody = binaryNotKept(p.reqType, p.reqBody)
	}
	if binaryBody(p.respType, resp) {
		e.ResponseBody = binaryNotKept(p.respType, cappedBuffer{b: resp, more: p.respBody.more})
	} else if p.respBody.shared && !p.respGzipped {
		e.ResponseBody = answers.redact(resp)
	} else {
		// Only shared answers are remembered: a body of its own (a
		// page of 2,000 balances, say) is redacted once anyway, and
		// remembering it would keep up to redactedAnswersMax bodies of
		// JournalBodyCap alive (a catalog walk's heap went from 7 to
		// 18-20 MiB).
		e.ResponseBody = redactBody(resp, "application/json")
	}
	e.Query = redactQuery(e.Query)
	e.Truncated = p.reqBody.more || p.respBody.more
	return &e
}

// binaryBody reports whether a body is not text the journal can keep: a
// media type that is not JSON, text or a form (a label's PDF), or any NUL
// byte, which PostgreSQL's text cannot hold (a batch holding one was lost
// whole there, decisions §46).
func binaryBody(contentType string, b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	mt, _, _ := strings.Cut(strings.ToLower(contentType), ";")
	mt = strings.TrimSpace(mt)
	switch {
	case mt == "", mt == "application/json", strings.HasSuffix(mt, "+json"), strings.HasPrefix(mt, "text/"),
		mt == "application/x-www-form-urlencoded", mt == "application/problem+json", mt == "application/yaml":
		return false
	}
	return true
}

// binaryNotKept is what the journal keeps of a binary body: its type and
// size, never its bytes.
func binaryNotKept(contentType string, b cappedBuffer) string {
	mt, _, _ := strings.Cut(contentType, ";")
	if mt = strings.TrimSpace(mt); mt == "" {
		mt = "unknown type"
	}
	if b.more {
		return fmt.Sprintf("[binary body not kept: %s, over %d bytes]", mt, len(b.b))
	}
	return fmt.Sprintf("[binary body not kept: %s, %d bytes]", mt, len(b.b))
}

// journalRoutes are the operator API's reads of the journal.
func (s *Server) journalRoutes() {
	s.handle("GET /admin/v1/requests", s.admin(s.listJournal))
	s.handle("GET /admin/v1/requests/{requestId}", s.admin(s.getJournalEntry))
}

// JournalPage is a page of the journal, newest first; Next is the cursor
// (the before parameter) of the next page, absent on the last.
type JournalPage struct {
	Content []*parcelgate.JournalEntry `json:"content"`
	Next    string                     `json:"next,omitempty"`
}

// journalTenant reads the journal reads' choice of tenant: environment
// and businessId, either optional; what a businessId without its
// environment means is each read's own. The environment is the operator
// caller's (EnvironmentOperator: every environment when none is named),
// the businessId the query's filter.
func journalTenant(qv url.Values, p *parcelgate.Problems) (parcelgate.Environment, parcelgate.JournalQuery) {
	var env parcelgate.Environment
	if v := qv.Get("environment"); v != "" {
		env = parseEnvField(v, p)
	}
	return env, parcelgate.JournalQuery{BusinessID: qv.Get("businessId")}
}

func (s *Server) listJournal(w http.ResponseWriter, r *http.Request) error {
	qv := r.URL.Query()
	var p parcelgate.Problems
	env, q := journalTenant(qv, &p)
	if q.BusinessID != "" && env == "" {
		env = parcelgate.Production
	}
	var pr parcelgate.PageRequest
	q.Route = qv.Get("route")
	if v := qv.Get("status"); v != "" {
		switch {
		case len(v) == 3 && v[1:] == "xx" && v[0] >= '1' && v[0] <= '5':
			q.Status, q.StatusClass = int(v[0]-'0'), true
		default:
			n, err := strconv.Atoi(v)
			if err != nil || n < 100 || n > 599 {
				p.Add("status", "must be a status such as 503 or a class such as 5xx, not %q", v)
			}
			q.Status = n
		}
	}
	for _, tv := range []struct {
		name string
		to   *time.Time
	}{{"from", &q.From}, {"to", &q.To}} {
		if v := qv.Get(tv.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				p.Add(tv.name, "must be an RFC 3339 time such as 2025-04-01T09:30:00Z, not %q", v)
			}
			*tv.to = t
		}
	}
	if v := qv.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			p.Add("limit", "must be 1-500, not %q", v)
		}
		pr.Size = n
	}
	if v := qv.Get("before"); v != "" {
		// The cursor is the store's (decisions §64); it refuses one it did
		// not make, naming before.
		if len(v) > 200 {
			p.Add("before", "must be the next cursor of an earlier page, not %q", v)
		}
		pr.After = v
	}
	if err := p.Err(); err != nil {
		return err
	}
	page, err := s.journalStore.Journal(r.Context(), parcelgate.OperatorOver(env), q, pr)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, JournalPage{Content: page.Items, Next: page.Next})
	return nil
}

// getJournalEntry answers the newest call of one request ID. A request ID
// is the client's, so several organizations may have used it (decisions
// §21): businessId and environment choose among them, and when the ID
// still names calls of several organizations the answer says so (409,
// listing them) rather than picking one. Calls of one organization with
// the same ID (a client's retries) answer the newest, with their number in
// X-Journal-Matches.
func (s *Server) getJournalEntry(w http.ResponseWriter, r *http.Request) error {
	var p parcelgate.Problems
	env, q := journalTenant(r.URL.Query(), &p)
	if q.BusinessID != "" && env == "" {
		p.Add("environment", "is required with businessId: production or test")
	}
	if err := p.Err(); err != nil {
		return err
	}
	es, err := s.journalStore.JournalEntries(r.Context(), parcelgate.OperatorOver(env), q, r.PathValue("requestId"))
	if err != nil {
		return err
	}
	var tenants []string
	seen := map[int64]bool{}
	for _, e := range es {
		if !seen[e.OrgID] {
			seen[e.OrgID] = true
			tenants = append(tenants, e.BusinessID+" ("+string(e.Environment)+")")
		}
	}
	if len(tenants) > 1 {
		return &parcelgate.Error{Code: parcelgate.ECONFLICT,
			Message: "Request " + r.PathValue("requestId") + " names calls of several organizations: " + strings.Join(tenants, ", ") + "; choose one with businessId and environment.",
			Fields:  []parcelgate.FieldError{{Field: "businessId", Message: "is needed to choose among the organizations that used this request ID"}}}
	}
	w.Header().Set("X-Journal-Matches", strconv.Itoa(len(es)))
	writeJSON(w, http.StatusOK, es[0])
	return nil
}

// Close stops the server's background work: what the journal holds is
// written first. Call it after the HTTP server has shut down, before the
// store closes.
func (s *Server) Close() {
	if s.journal != nil {
		s.journal.close()
	}
}

// journalCall queues a served call of an authenticated caller.
func (s *Server) journalCall(jr *journalRecord, rec *recorder, r *http.Request, route string, status int, end time.Time, elapsed time.Duration, id string) {
	c := jr.caller
	_, routePath, _ := strings.Cut(route, " ")
	p := &pendingEntry{
		entry: parcelgate.JournalEntry{RequestID: id, Environment: c.Environment, OrgID: c.OrgID, BusinessID: c.BusinessID,
			At: end.UTC().Truncate(time.Microsecond), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Route: routePath,
			Status: status, LatencyMs: float64(elapsed.Microseconds()) / 1000},
		reqBody:     jr.body,
		reqType:     r.Header.Get("Content-Type"),
		respType:    rec.Header().Get("Content-Type"),
		respGzipped: rec.Header().Get("Content-Encoding") == "gzip",
	}
	if rec.capturing {
		p.respBody = rec.capture
	}
	s.journal.add(p)
}
