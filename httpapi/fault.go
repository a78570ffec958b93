package httpapi

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// FaultRefresh is how long an instance uses its copy of the faults before
// reading them again: a fault set on one instance applies on all within it.
const FaultRefresh = time.Second

// routeOf is the pattern r was routed by ("POST /ecommerce/v3/order").
func routeOf(r *http.Request) string { return stateOf(r.Context()).route }

// faultCache is this instance's copy of the stored faults.
type faultCache struct {
	mu     sync.Mutex
	faults []*parcelgate.Fault
	read   time.Time
}

func (s *Server) faultRoutes() {
	s.handle("POST /admin/v1/faults", s.admin(s.createFault))
	s.handle("GET /admin/v1/faults", s.admin(s.listFaults))
	s.handle("DELETE /admin/v1/faults/{id}", s.admin(s.deleteFault))
	s.metric.faults = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "parcelgate_faults_injected_total",
		Help: "API calls this instance answered with an injected fault (status 0: latency added to a real answer), by environment and status.",
	}, []string{"environment", "status"})
	s.reg.MustRegister(s.metric.faults)
}

// activeFaults returns the faults, read again when the copy is older than
// FaultRefresh. A failed read keeps the old copy: a fault is a test aid,
// and the database being away is answered elsewhere.
func (s *Server) activeFaults(ctx context.Context) []*parcelgate.Fault {
	c := &s.faultCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.read) < FaultRefresh {
		return c.faults
	}
	// The server applies every environment's faults: it reads them as the
	// operator of every environment.
	if fs, err := s.faults.Faults(ctx, parcelgate.AllOperator()); err == nil {
		c.faults = fs
	}
	c.read = time.Now()
	return c.faults
}

// forgetFaults makes the next call read the faults again, after this
// instance changed them.
func (s *Server) forgetFaults() {
	s.faultCache.mu.Lock()
	s.faultCache.read = time.Time{}
	s.faultCache.mu.Unlock()
}

// injectFault applies the first fault matching the authenticated call of
// c: it waits the fault's latency, then either answers the fault's status
// (returned as the refusal, so the handler never runs and nothing is
// written) or lets the real answer go on.
func (s *Server) injectFault(r *http.Request, c *parcelgate.Caller) *authFailure {
	fs := s.activeFaults(r.Context())
	if len(fs) == 0 {
		return nil
	}
	_, route, _ := strings.Cut(routeOf(r), " ")
	now := time.Now()
	for _, f := range fs {
		// A production fault stored before the server lost --sandbox (or
		// by an older version, which took a missing environment for
		// production) never fails a real call (decisions §21).
		if f.Environment == parcelgate.Production && !s.cfg.Sandbox {
			continue
		}
		if !f.Matches(c.Environment, c.OrgID, r.Method, route, r.URL.Path, now) || !f.Fires(rand.Float64()) {
			continue
		}
		ok, err := s.faults.FireFault(r.Context(), f.ID)
		if err != nil || !ok {
			// Spent on another instance meanwhile, or deleted.
			continue
		}
		if f.Remaining > 0 {
			s.forgetFaults()
		}
		s.metric.faults.WithLabelValues(string(c.Environment), strconv.Itoa(f.Status)).Inc()
		if f.Latency > 0 {
			select {
			case <-time.After(f.Latency):
			case <-r.Context().Done():
			}
		}
		if f.Status == 0 {
			return nil
		}
		fail := &authFailure{status: f.Status, message: f.Message()}
		switch f.Status {
		case http.StatusBadGateway:
			fail.code = "BAD_GATEWAY"
		case http.StatusGatewayTimeout:
			fail.code = "GATEWAY_TIMEOUT"
		}
		if f.RetryAfter > 0 {
			fail.retryAfter = strconv.Itoa(f.RetryAfter)
		}
		return fail
	}
	return nil
}

type createFaultRequest struct {
	Environment  string   `json:"environment"`
	BusinessID   string   `json:"businessId"`
	Method       string   `json:"method"`
	Route        string   `json:"route"`
	Status       int      `json:"status"`
	Latency      string   `json:"latency"`
	RetryAfter   int      `json:"retryAfter"`
	Probability  *float64 `json:"probability"`
	Count        *int64   `json:"count"`
	ExpiresAfter string   `json:"expiresAfter"`
}

func (s *Server) createFault(w http.ResponseWriter, r *http.Request) error {
	var req createFaultRequest
	if err := decodeStrict(r, &req); err != nil {
		return err
	}
	env, err := s.sandboxControl(req.Environment, parcelgate.ControlFault)
	if err != nil {
		return err
	}
	var p parcelgate.Problems
	f := &parcelgate.Fault{Environment: env, BusinessID: req.BusinessID, Method: req.Method,
		Route: req.Route, Status: req.Status, RetryAfter: req.RetryAfter, Remaining: -1}
	if req.Latency != "" {
		d, err := time.ParseDuration(req.Latency)
		if err != nil {
			p.Add("latency", "must be a Go duration such as 250ms or 2s, not %q", req.Latency)
		}
		f.Latency = d
	}
	switch {
	case req.Probability != nil && req.Count != nil:
		p.Add("count", "give a probability or a count, not both")
	case req.Probability != nil:
		f.Probability = *req.Probability
		if f.Probability <= 0 {
			p.Add("probability", "must be more than 0 and at most 1")
		}
	case req.Count != nil:
		f.Remaining = *req.Count
		if f.Remaining < 1 {
			p.Add("count", "must be at least 1")
			f.Remaining = -1
		}
	}
	if req.ExpiresAfter != "" {
		d, err := time.ParseDuration(req.ExpiresAfter)
		if err != nil || d <= 0 {
			p.Add("expiresAfter", "must be a positive Go duration such as 10m, not %q", req.ExpiresAfter)
		} else {
			t := time.Now().Add(d).UTC().Truncate(time.Microsecond)
			f.ExpiresAt = &t
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	if err := s.faults.CreateFault(r.Context(), parcelgate.OperatorOver(f.Environment), f); err != nil {
		return err
	}
	s.forgetFaults()
	writeJSON(w, http.StatusCreated, faultJSON(f))
	return nil
}

// FaultRecord is a fault as the operator API shows it.
type FaultRecord struct {
	*parcelgate.Fault
	// Latency is a Go duration; empty for none.
	Latency string `json:"latency,omitempty"`
}

func faultJSON(f *parcelgate.Fault) FaultRecord {
	rec := FaultRecord{Fault: f}
	if f.Latency > 0 {
		rec.Latency = f.Latency.String()
	}
	return rec
}

func (s *Server) listFaults(w http.ResponseWriter, r *http.Request) error {
	var env parcelgate.Environment
	if r.URL.Query().Get("environment") != "" {
		e, err := envParam(r)
		if err != nil {
			return err
		}
		env = e
	}
	fs, err := s.faults.Faults(r.Context(), parcelgate.OperatorOver(env))
	if err != nil {
		return err
	}
	out := make([]FaultRecord, len(fs))
	for i, f := range fs {
		out[i] = faultJSON(f)
	}
	writeJSON(w, http.StatusOK, List[FaultRecord]{out})
	return nil
}

func (s *Server) deleteFault(w http.ResponseWriter, r *http.Request) error {
	if err := s.faults.DeleteFault(r.Context(), parcelgate.AllOperator(), r.PathValue("id")); err != nil {
		return err
	}
	s.forgetFaults()
	w.WriteHeader(http.StatusNoContent)
	return nil
}
