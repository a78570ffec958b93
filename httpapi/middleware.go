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
		series: &sync.Map{},
	}
	reg.MustRegister(m.requests, m.duration)
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
	// The request's recorder, its X-Request-Id header value and its body's
	// tee for the journal live here, so a request allocates them once.
	rec      recorder
	idHeader [1]string
	tee      teeBody
	// probe is the writer the router is given: a route's handler swaps in
	// rec (see routed), and entered says one did.
	probe   routeProbe
	entered bool
	series  *routeSeries // the route's, once a route's handler names it
}

// routeProbe is the writer the middleware hands the router. The router
// either calls a route's handler, which takes the request's recorder from
// it and serves the request (Server.routed), or answers the request itself
// (no route, a wrong method, a redirect), into the probe, which keeps
// nothing: the middleware then serves the request as the router answers
// it, by the pattern ServeMux.Handler names. So a routed request is looked
// up once, by the router that serves it, and the router's own answers are
// the ones it has always given.
type routeProbe struct {
	st     *requestState
	h      http.Header
	status int // what the router answered itself, 0 when nothing
}

func (p *routeProbe) Header() http.Header {
	if p.h == nil {
		p.h = http.Header{}
	}
	return p.h
}
func (p *routeProbe) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}
func (p *routeProbe) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

// routerAnswers are the statuses net/http's ServeMux answers with itself:
// no route, a wrong method, a redirect to the cleaned or slash-ended path,
// a malformed CONNECT.
func routerAnswers(code int) bool {
	switch code {
	case 0, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusBadRequest,
		http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
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
}

func (r *recorder) WriteHeader(code int) {
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
// methods, compression when asked (spec 4.4 GET rule 4), metrics by route
// and one structured log line.
func (s *Server) middleware(mux *http.ServeMux) http.Handler {
	compressed := s.gzip(mux)
	// Only a client that accepts gzip goes through the compressing writer,
	// which costs about a tenth of a small answer's time even when it does
	// not compress; the answer still varies by the header for caches.
	// routed serves the requests the router answers itself; a route's
	// handler does the same choice (Server.routed).
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		serveEncoded(mux, compressed, w, r)
	})
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
		// lookup names the request's route when no route's handler has:
		// the pattern the router gives it, "unmatched" when none.
		lookup := func() string {
			_, pattern := mux.Handler(r)
			st.route = cmp.Or(pattern, "unmatched")
			return pattern
		}
		r = r.WithContext(ctx)
		st.idHeader[0] = id
		w.Header()[requestIDHeader] = st.idHeader[:]
		rec := &st.rec
		rec.ResponseWriter, rec.capturing = w, jr != nil
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(ctx, "panic", slog.String("request_id", id), slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
				if rec.status == 0 {
					s.writeErrorBody(rec, r, surfaceOf(r.URL.Path), http.StatusInternalServerError, "", "Internal error; the request ID is "+id+".", nil)
				}
			}
			if st.route == "" {
				lookup()
			}
			route := st.route
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
			if status >= 500 {
				level = slog.LevelError
			}
			s.logRequest(ctx, level, end,
				slog.String("request_id", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", elapsed),
				slog.String("remote", r.RemoteAddr),
			)
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
		// which serves it (Server.routed); when it calls none, it has
		// answered itself into the probe, and the request is served as
		// the router's pattern for it says.
		st.probe.st, st.probe.status = st, 0
		mux.ServeHTTP(&st.probe, r)
		if st.entered {
			return
		}
		if !routerAnswers(st.probe.status) {
			// A handler put on the router without Server.handle answered
			// into the probe; serving on would run it a second time.
			panic(fmt.Sprintf("httpapi: %s %s reached a handler registered without Server.handle (status %d)", r.Method, r.URL.Path, st.probe.status))
		}
		pattern := lookup()
		if err := checkURL(r, pattern); err != nil {
			s.writeError(rec, r, surfaceOf(r.URL.Path), err)
			return
		}
		if pattern == "" {
			s.notRouted(mux, rec, r)
			return
		}
		routed.ServeHTTP(rec, r)
	})
}

// routed wraps the handler of a route as the router serves it. Given the
// middleware's probe, it takes the request over: it names the route (the
// router's pattern, r.Pattern), holds the URL to the text rule (checkURL),
// and serves the request into its recorder, compressed when the client
// accepts gzip. Given any other writer (the middleware serving a request
// the router answered itself, through routed there), it serves as is.
func (s *Server) routed(h http.Handler) http.Handler {
	compressed := s.gzip(h)
	series := new(routeSeries) // of the one pattern h is registered for
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := w.(*routeProbe)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		st := p.st
		st.entered, st.route, st.series = true, r.Pattern, series
		rec := &st.rec
		if err := checkURL(r, r.Pattern); err != nil {
			s.writeError(rec, r, surfaceOf(r.URL.Path), err)
			return
		}
		serveEncoded(h, compressed, rec, r)
	})
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

// newGzip is the compressing wrapper of answers (spec 4.4 GET rule 4).
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

// headerCapture keeps what the router's own 404 or 405 handler writes, so
// the answer can be rewritten as JSON with the router's Allow header.
type headerCapture struct {
	h      http.Header
	status int
}

func (c *headerCapture) Header() http.Header         { return c.h }
func (c *headerCapture) Write(b []byte) (int, error) { return len(b), nil }
func (c *headerCapture) WriteHeader(code int)        { c.status = code }

func (s *Server) notRouted(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	c := &headerCapture{h: http.Header{}}
	mux.ServeHTTP(c, r)
	sf := surfaceOf(r.URL.Path)
	switch c.status {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", c.h.Get("Allow"))
		s.writeErrorBody(w, r, sf, http.StatusMethodNotAllowed, "", fmt.Sprintf("Method %s is not allowed here; allowed: %s.", r.Method, c.h.Get("Allow")), nil)
	case http.StatusMovedPermanently, http.StatusPermanentRedirect, http.StatusTemporaryRedirect, http.StatusFound:
		for k, v := range c.h {
			w.Header()[k] = v
		}
		w.WriteHeader(c.status)
	default:
		s.writeErrorBody(w, r, sf, http.StatusNotFound, "", fmt.Sprintf("No route for %s %s.", r.Method, r.URL.Path), nil)
	}
}
