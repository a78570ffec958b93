package httpapi

import (
	_ "embed"
	"html/template"
	"mime"
	"net/http"
	"strings"
)

// The front door: what a person or a client finds at the
// server's root, pointing the way to the console, the API reference and
// the health endpoints; and the favicon browsers ask every site for.

//go:embed favicon.svg
var favicon []byte

// frontDoorLinks is GET / for API clients.
type frontDoorLinks struct {
	Name      string `json:"name"`
	Console   string `json:"console"`
	Docs      string `json:"docs"`
	OpenAPI   string `json:"openapi"`
	Liveness  string `json:"liveness"`
	Readiness string `json:"readiness"`
	Metrics   string `json:"metrics"`
}

var frontDoor = frontDoorLinks{Name: "parcelgate", Console: "/console/", Docs: "/docs", OpenAPI: "/openapi.yaml", Liveness: "/healthz", Readiness: "/readyz", Metrics: "/metrics"}

var frontDoorPage = template.Must(template.New("front").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>parcelgate</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b2430}h1{margin:0 0 .5rem}a{color:#1d5bbf}li{margin:.4rem 0}code{font-size:.92em}</style></head>
<body><h1>parcelgate</h1>
<p>A parcel-logistics provider's interface with real state behind every surface.</p>
<ul>
<li><a href="{{.Console}}">Web console</a>: see, create and move orders, products and stock; the request journal; the operator controls.</li>
<li><a href="{{.Docs}}">API reference</a>, and the document it is rendered from: <a href="{{.OpenAPI}}">openapi.yaml</a>.</li>
<li>Health: <a href="{{.Liveness}}"><code>{{.Liveness}}</code></a> (alive), <a href="{{.Readiness}}"><code>{{.Readiness}}</code></a> (the database answers), <a href="{{.Metrics}}"><code>{{.Metrics}}</code></a>.</li>
</ul></body></html>
`))

func (s *Server) frontDoorRoutes() {
	s.handle("GET /{$}", http.HandlerFunc(s.front))
	s.handle("GET /docs/{$}", http.RedirectHandler("/docs", http.StatusMovedPermanently))
	s.handle("GET /favicon.ico", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Write(favicon)
	}))
}

// front answers a browser (Accept naming text/html before any JSON) with
// a small page and anyone else with the same links as JSON.
func (s *Server) front(w http.ResponseWriter, r *http.Request) {
	w.Header().Add("Vary", "Accept")
	if wantsHTML(r.Header.Get("Accept")) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'")
		frontDoorPage.Execute(w, frontDoor)
		return
	}
	writeJSON(w, http.StatusOK, frontDoor)
}

// wantsHTML reports whether an Accept header lists text/html (or
// application/xhtml+xml) before application/json: browsers do; curl (*/*)
// and API clients do not.
func wantsHTML(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || params["q"] == "0" {
			continue
		}
		switch mt {
		case "text/html", "application/xhtml+xml":
			return true
		case "application/json":
			return false
		}
	}
	return false
}
