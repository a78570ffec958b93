package httpapi

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzhttp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	faults   *prometheus.CounterVec // see fault.go
	// aborted counts answers broken after their start was sent
	// (decisions §61), by route: their status says 200, so without it
	// a broken answer would look like a served one.
	aborted *prometheus.CounterVec
	// series holds each route, method and status's counter and histogram
	// once looked up, so a request does not hash its labels again.
	series *sync.Map // seriesKey → seriesOf
}

type seriesKey struct {
	route, method string
	status        int
}

type seriesOf struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// of returns the request counter and the latency histogram of a request.
// The routes are the router's patterns (and "unmatched"), methods other
// than HTTP's own are counted as OTHER: a client choosing the method must
// not add series without bound.
func (m metrics) of(route, method string, status int) (prometheus.Counter, prometheus.Observer) {
	method = methodLabel(method)
	k := seriesKey{route, method, status}
	if v, ok := m.series.Load(k); ok {
		s := v.(seriesOf)
		return s.requests, s.duration
	}
	s := seriesOf{m.requests.WithLabelValues(route, method, strconv.Itoa(status)), m.duration.WithLabelValues(route, method)}
	m.series.Store(k, s)
	return s.requests, s.duration
}

// routeSeries remembers, for one route, the series its last request was
// counted in: a route's requests mostly share their method and status, and
// the comparison costs less than hashing the labels (metrics.of).
type routeSeries struct {
	last atomic.Pointer[routeSeriesEntry]
}

type routeSeriesEntry struct {
	route  string
	method string // the request's method, not its label
	status int
	seriesOf
}

// ofRoute is of for a request of a route whose series rs remembers; rs
// may be nil.
func (m metrics) ofRoute(rs *routeSeries, route, method string, status int) (prometheus.Counter, prometheus.Observer) {
	if rs == nil {
		return m.of(route, method, status)
	}
	if e := rs.last.Load(); e != nil && e.status == status && e.method == method && e.route == route {
		return e.requests, e.duration
	}
	c, d := m.of(route, method, status)
	rs.last.Store(&routeSeriesEntry{route, method, status, seriesOf{c, d}})
	return c, d
}

func newMetrics(reg *prometheus.Registry) metrics {
	m := metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parcelgate_http_requests_total",
			Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "parcelgate_http_request_duration_seconds",
			Help:    "HTTP request latency by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		aborted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "parcelgate_http_answers_aborted_total",
			Help: "Answers broken off after their status was sent (the client sees a broken answer), by route pattern.",
		}, []string{"route"}),
		series: &sync.Map{},
	}
	reg.MustRegister(m.requests, m.duration, m.aborted)
	return m
}

// methodLabel is method when it is one of HTTP's, and OTHER otherwise.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// requestState is what the middleware learns of a request for the
// handlers below it, one context value for all of it.
type requestState struct {
	id    string // the request ID (X-Request-Id)
	route string // the pattern it was routed by, or "unmatched"
	// journal is filled in for the request journal; journaled is false
	// when the journal is off.
	journal   journalRecord
	journaled bool
	// The request's recorder, its X-Request-Id header value, its body's
	// tee for the journal and the router's turn live here, so a request
	// allocates them once.
	rec      recorder
	idHeader [1]string
	tee      teeBody
	turn     routerTurn
	series   *routeSeries // the route's, once a route's handler names it
}

// routerTurn is what the recorder needs to answer a request the router
// answers itself (Server.routerAnswer).
type routerTurn struct {
	s  *Server
	r  *http.Request
	st *requestState
}

// routerAnswers are the statuses net/http's ServeMux answers with itself:
// no route, a wrong method, a redirect to the cleaned or slash-ended path,
// a malformed CONNECT.
func routerAnswers(code int) bool {
	switch code {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusBadRequest,
		http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

type requestStateKey struct{}

func stateOf(ctx context.Context) *requestState {
	st, _ := ctx.Value(requestStateKey{}).(*requestState)
	if st == nil {
		return &requestState{}
	}
	return st
}

func requestID(ctx context.Context) string { return stateOf(ctx).id }

// requestIDHeader is X-Request-ID in the spelling http.Header keeps, so
// reading and setting it skip canonicalizing the name.
const requestIDHeader = "X-Request-Id"

// A client's own X-Request-ID is kept when it is short and plain, so it can
// follow a request through its logs and ours.
var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// recorder remembers the status and size of a response.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	// capture keeps the start of the body for the request journal, when
	// capturing.
	capture   cappedBuffer
	capturing bool
	// router is set while the router has the request and no route's
	// handler has taken it (Server.routed clears it): an answer written
	// then is the router's own (no route, a wrong method, a redirect),
	// which the server answers in the surface's shape instead
	// (Server.routerAnswer); dropped says the router's body is replaced.
	router  *routerTurn
	dropped bool
}

func (r *recorder) WriteHeader(code int) {
	if t := r.router; t != nil {
		r.router = nil
		r.dropped = t.s.routerAnswer(r, t, code)
		if r.dropped {
			return
		}
	}
	if r.dropped {
		return
	}
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) { return r.write(b, false) }

// writeShared is Write of an answer that is never written again
// (writeAnswer): the journal keeps it by reference rather than a copy.
func (r *recorder) writeShared(b []byte) (int, error) { return r.write(b, true) }

func (r *recorder) write(b []byte, shared bool) (int, error) {
	if r.router != nil {
		r.WriteHeader(http.StatusOK)
	}
	if r.dropped {
		return len(b), nil
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	if r.capturing {
		if shared {
			r.capture.keepShared(b[:n])
		} else {
			r.capture.keep(b[:n])
		}
	}
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// middleware wraps the router with what every request gets: a request ID,
// panic recovery, the database deadline, the request journal, the body cap,
// the text rule on the URL (checkURL), JSON answers for unknown routes and wrong
// methods, compression when asked (interface §4.4 GET rule 4), metrics by route
// and one structured log line.
func (s *Server) middleware(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get(requestIDHeader)
		if !clientRequestID.MatchString(id) {
			id = rand.Text()[:20]
		}
		st := &requestState{id: id, journaled: s.journal != nil}
		ctx, cancel := s.withDBDeadline(context.WithValue(r.Context(), requestStateKey{}, st))
		defer cancel()
		var jr *journalRecord
		if st.journaled {
			jr = &st.journal
			ctx = parcelgate.WithJournalSubject(ctx, jr)
		}
		prefix, mounted := s.mounted(r.URL.Path)
		if mounted != nil {
			st.route = prefix
		}
		r = r.WithContext(ctx)
		st.idHeader[0] = id
		w.Header()[requestIDHeader] = st.idHeader[:]
		rec := &st.rec
		rec.ResponseWriter, rec.capturing = w, jr != nil
		defer func() {
			rec.router = nil
			// An answer broken on purpose after its start was sent
			// (http.ErrAbortHandler: decisions §61) is still a request
			// served: it is counted, journaled and logged like any other,
			// marked aborted, before net/http is told to drop the
			// connection.
			aborted := false
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					aborted = true
				} else {
					s.log.ErrorContext(ctx, "panic", slog.String("request_id", id), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
					if rec.status == 0 {
						s.writeErrorBody(rec, r, surfaceOf(r.URL.Path), http.StatusInternalServerError, "", "Internal error; the request ID is "+id+".", nil)
					}
				}
			}
			route := cmp.Or(st.route, "unmatched")
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			end := time.Now()
			elapsed := end.Sub(start)
			counter, duration := s.metric.ofRoute(st.series, route, r.Method, status)
			counter.Inc()
			duration.Observe(elapsed.Seconds())
			if jr != nil && jr.caller != nil {
				s.journalCall(jr, rec, r, route, status, end, elapsed, id)
			}
			level := slog.LevelInfo
			if status >= 500 || aborted {
				level = slog.LevelError
			}
			attrs := [...]slog.Attr{
				slog.String("request_id", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", elapsed),
				slog.String("remote", r.RemoteAddr),
				slog.Bool("aborted", true),
			}
			if !aborted {
				s.logRequest(ctx, level, end, attrs[:len(attrs)-1]...)
				return
			}
			s.metric.aborted.WithLabelValues(route).Inc()
			s.logRequest(ctx, level, end, attrs[:]...)
			panic(http.ErrAbortHandler)
		}()
		if n := headerBytes(r); n > s.cfg.MaxHeaderBytes {
			s.writeErrorBody(rec, r, surfaceOf(r.URL.Path), http.StatusRequestHeaderFieldsTooLarge, "", fmt.Sprintf("The request line and headers are %d bytes, over the limit of %d bytes.", n, s.cfg.MaxHeaderBytes), nil)
			return
		}
		if r.ContentLength > s.cfg.MaxBodyBytes {
			s.writeErrorBody(rec, r, surfaceOf(r.URL.Path), http.StatusRequestEntityTooLarge, "", fmt.Sprintf("The request body is over the limit of %d bytes.", s.cfg.MaxBodyBytes), nil)
			return
		}
		// A request without a body (http.NoBody, as net/http gives every
		// request with none) has nothing to cap or to journal.
		if r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(rec, r.Body, s.cfg.MaxBodyBytes)
			if jr != nil {
				st.tee = teeBody{r.Body, &jr.body}
				r.Body = &st.tee
			}
		}
		if mounted != nil {
			if err := checkURL(r, prefix); err != nil {
				s.writeError(rec, r, surfaceOf(r.URL.Path), err)
				return
			}
			mounted.ServeHTTP(rec, r)
			return
		}
		// The router looks the request up and calls its route's handler,
		// which takes the request over (Server.routed); until one does,
		// what is written is the router answering itself, which the
		// recorder hands to Server.routerAnswer.
		st.turn = routerTurn{s, r, st}
		rec.router = &st.turn
		mux.ServeHTTP(rec, r)
		if rec.router != nil {
			// Nothing written and no route's handler entered: only a
			// handler registered without Server.handle does that.
			rec.WriteHeader(http.StatusOK)
		}
	})
}

// routed wraps the handler of a route as the router serves it, inside the
// router's dispatch: it takes the request over from the router (the
// recorder's writes are the route's own from now on), names the route
// (the router's pattern, r.Pattern) for the log line, the metrics and the
// journal, holds the URL to the text rule (checkURL), and serves the
// request compressed when the client accepts gzip. Given a writer that is
// not the middleware's, it serves as is.
func (s *Server) routed(h http.Handler) http.Handler {
	compressed := s.gzip(h)
	series := new(routeSeries) // of the one pattern h is registered for
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec, ok := w.(*recorder)
		if !ok || rec.router == nil {
			h.ServeHTTP(w, r)
			return
		}
		st := rec.router.st
		rec.router = nil
		st.route, st.series = r.Pattern, series
		if err := checkURL(r, r.Pattern); err != nil {
			s.writeError(rec, r, surfaceOf(r.URL.Path), err)
			return
		}
		serveEncoded(h, compressed, rec, r)
	})
}

// routerAnswer answers a request the router answers itself, in place of
// the router's plain-text answer with status code: a wrong method 405 with
// the router's Allow header, no route 404, in the surface's error shape
// (the URL held to the text rule first); a redirect as the router writes
// it. It reports whether it replaced the router's answer, whose body is
// then dropped. An answer the router never gives itself comes from a
// handler registered without Server.handle, which ran once and is
// answered 500 (TestUnroutedHandlerIsNeverRunTwice).
func (s *Server) routerAnswer(w *recorder, t *routerTurn, code int) (replaced bool) {
	r := t.r
	_, pattern := s.mux.Handler(r)
	t.st.route = pattern
	sf := surfaceOf(r.URL.Path)
	h := w.Header()
	allow := h.Get("Allow")
	if !routerAnswers(code) {
		s.log.ErrorContext(r.Context(), "handler registered without Server.handle", slog.String("request_id", t.st.id), slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", code))
		clearRouterHeaders(h)
		s.writeErrorBody(w, r, sf, http.StatusInternalServerError, "", "Internal error; the request ID is "+t.st.id+".", nil)
		return true
	}
	if err := checkURL(r, pattern); err != nil {
		clearRouterHeaders(h)
		s.writeError(w, r, sf, err)
		return true
	}
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		if pattern == "" {
			// A redirect to a path no route serves: its status and
			// headers, without the router's body.
			w.WriteHeader(code)
			return true
		}
		addVaryAcceptEncoding(h)
		return false
	case http.StatusMethodNotAllowed:
		clearRouterHeaders(h)
		h.Set("Allow", allow)
		s.writeErrorBody(w, r, sf, http.StatusMethodNotAllowed, "", fmt.Sprintf("Method %s is not allowed here; allowed: %s.", r.Method, allow), nil)
	default:
		clearRouterHeaders(h)
		s.writeErrorBody(w, r, sf, http.StatusNotFound, "", fmt.Sprintf("No route for %s %s.", r.Method, r.URL.Path), nil)
	}
	return true
}

// clearRouterHeaders removes the headers the router's plain-text answer
// set (http.Error), which the server's own answer replaces.
func clearRouterHeaders(h http.Header) {
	delete(h, "Content-Type")
	delete(h, "X-Content-Type-Options")
	delete(h, "Allow")
}

// serveEncoded serves r with plain, or with compressed (plain behind the
// gzip wrapper) when the client accepts gzip; either answer varies by
// Accept-Encoding.
func serveEncoded(plain, compressed http.Handler, w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		compressed.ServeHTTP(w, r)
		return
	}
	addVaryAcceptEncoding(w.Header())
	plain.ServeHTTP(w, r)
}

// Header values shared by every answer that sets them, so setting them
// does not allocate a slice per request. Their capacity is their length:
// a header added to them later (Header.Add) is appended to a copy.
var (
	varyAcceptEncoding = []string{"Accept-Encoding"}
	jsonContentType    = []string{"application/json"}
)

// addVaryAcceptEncoding is h.Add("Vary", "Accept-Encoding").
func addVaryAcceptEncoding(h http.Header) {
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", "Accept-Encoding")
		return
	}
	h["Vary"] = varyAcceptEncoding[:1:1]
}

// newGzip is the compressing wrapper of answers (interface §4.4 GET rule 4).
func newGzip() func(http.Handler) http.HandlerFunc {
	gz, err := gzhttp.NewWrapper(gzhttp.MinSize(1024))
	if err != nil {
		panic(err)
	}
	return gz
}

// logRequest writes the access log line, the same record LogAttrs would
// make, at the time the request ended. It builds the record itself so that
// every request does not pay for reading the caller's program counter
// (runtime.Callers): the line's source would be this middleware's own, of no
// use to a reader, and the server's handlers do not add it.
func (s *Server) logRequest(ctx context.Context, level slog.Level, at time.Time, attrs ...slog.Attr) {
	h := s.log.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	rec := slog.NewRecord(at, level, "request", 0)
	rec.AddAttrs(attrs...)
	_ = h.Handle(ctx, rec)
}

// headerBytes is the size of the request line and headers as they came on
// the wire (HTTP/1.1 framing), the measure http.Server's MaxHeaderBytes
// uses.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	n += len("Host: ") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n + 2
}
