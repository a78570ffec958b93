package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/parcelgate/parcelgate/openapi"
)

func (s *Server) operationalRoutes() {
	s.handle("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	s.handle("GET /readyz", http.HandlerFunc(s.ready))
	s.handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	s.handle("GET /openapi.yaml", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(openapi.Spec)
	}))
	s.handle("GET /docs", http.HandlerFunc(s.docs))
}

// ready answers 200 when the database answers, else 503, so a load balancer
// stops sending requests to an instance that cannot serve them; with read
// replicas, the body lists each one's state and lag.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.database.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "not ready", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "database unreachable"})
		return
	}
	// A replica that is down or lagging leaves the instance ready: its
	// reads go to the primary meanwhile. The body says so.
	if reps := s.replicaReports(); reps != nil {
		writeJSON(w, http.StatusOK, struct {
			Status   string          `json:"status"`
			Replicas []replicaReport `json:"replicas"`
		}{"ok", reps})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// docs is the API reference rendered from the embedded openapi.yaml. The
// page loads nothing from any host (a sandbox may run offline); the policy
// header makes browsers hold it to that.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	page, err := openapi.Page()
	if err != nil {
		s.log.ErrorContext(r.Context(), "rendering /docs", "err", err)
		http.Error(w, "the API reference could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src 'self'")
	w.Write(page)
}
