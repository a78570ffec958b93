package console_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/auth"
	"github.com/parcelgate/parcelgate/console"
	"github.com/parcelgate/parcelgate/httpapi"
	"github.com/parcelgate/parcelgate/internal/tools/testdb"
	"github.com/parcelgate/parcelgate/internal/wiring"
)

// benchPages are the console's pages BenchmarkConsolePages times: those
// cmd/loadtest's size mode measures.
var benchPages = []string{"/console/", "/console/shipments", "/console/orders", "/console/products"}

// BenchmarkConsolePages times the console's list pages for the operator
// looking at one tenant, through the real router with the request
// journal on, 8 requests at a time as cmd/loadtest's size mode sends
// them: what a page costs besides its rows (the session, the layout, the
// journal), for a profile:
//
//	go test -run '^$' -bench ConsolePages -cpuprofile cpu.out ./console
//
// on the demo data of each engine, or with PARCELGATE_BENCH_DB (a
// database the generator filled: go run ./cmd/loadtest -mode seed
// -seed-db ...) and PARCELGATE_BENCH_TENANT (a business ID of its
// production environment) on that one (issue 39: every console page had
// a floor of 50-180 ms at size, whatever the tenant held).
func BenchmarkConsolePages(b *testing.B) {
	if dsn := os.Getenv("PARCELGATE_BENCH_DB"); dsn != "" {
		url, cookie := benchServer(b, dsn, os.Getenv("PARCELGATE_BENCH_TENANT"))
		benchPagesAt(b, url, cookie)
		return
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			e := newEnv(b, engine)
			br := e.operator("production")
			u, _ := http.NewRequest("GET", e.url+"/console/", nil)
			benchPagesAt(b, e.url, br.c.Jar.Cookies(u.URL)[0])
		})
	}
}

func benchPagesAt(b *testing.B, url string, cookie *http.Cookie) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	for _, path := range benchPages {
		b.Run(path, func(b *testing.B) {
			b.SetParallelism(4) // 8 at a time on 2 cores
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("GET", url+path, nil)
					req.AddCookie(cookie)
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("%s: %d", path, resp.StatusCode)
						return
					}
				}
			})
		})
	}
}

// benchServer serves the database at dsn as serve does (journal on) and
// signs the operator in on tenant bid.
func benchServer(b *testing.B, dsn, bid string) (string, *http.Cookie) {
	ctx := context.Background()
	clock := parcelgate.SystemClock{}
	db := testdb.OpenAt(b, dsn, clock)
	keys, err := wiring.HTTP(db).TokenKeys.TokenKeys(ctx)
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	srv := httpapi.New(wiring.HTTP(db), auth.NewKeyring(keys), clock, log, httpapi.Config{AdminToken: adminToken})
	srv.Mount(console.Prefix, console.New(wiring.Console(db), console.Config{AdminToken: adminToken, AdminGuard: srv.AdminGuard(), Clock: clock, Log: log}))
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	b.Cleanup(srv.Close)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm(hs.URL+"/console/sign-in", map[string][]string{"kind": {"operator"}, "token": {adminToken}})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "parcelgate_console" {
			cookie = ck
		}
	}
	if cookie == nil {
		b.Fatalf("operator sign-in: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", hs.URL+"/console/tenant", strings.NewReader("environment=production&businessId="+bid))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(cookie)
	if resp, err = noRedirect.Do(req); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("choose %s: %d", bid, resp.StatusCode)
	}
	return hs.URL, cookie
}
