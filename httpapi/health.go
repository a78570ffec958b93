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
// stops sending requests to an instance that cannot serve them.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.WarnContext(ctx, "not ready", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "reason": "database unreachable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// docs is a page that points at the API description; it loads nothing from
// elsewhere, since a sandbox may run without internet access.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(docsPage))
}

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>parcelgate API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}</style>
</head><body>
<h1>parcelgate</h1>
<p>The OpenAPI 3 description of every route is at <a href="/openapi.yaml"><code>/openapi.yaml</code></a>.
Load it into any OpenAPI viewer or client generator.</p>
<ul>
<li>Gateway token: <code>POST /api/v1/token</code> (client_credentials)</li>
<li>Ecom token: <code>GET /auth/token</code> (HTTP Basic)</li>
<li>Operator API: <code>/admin/v1/...</code> (admin bearer token)</li>
<li>Health: <code>/healthz</code>, <code>/readyz</code>; metrics: <code>/metrics</code></li>
</ul>
</body></html>
`
