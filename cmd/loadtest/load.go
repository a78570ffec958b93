package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// getLoad drives GET rawURL with header over conns keep-alive connections
// for d and returns the requests per second. wrk is used when asked for
// and installed: it costs the machine less than a Go client does, so more
// of the two cores go to the server under test.
//
// With paths (wrk only), the requests go to rawURL's server at each of
// paths in turn, each connection starting at its own.
func getLoad(ctx context.Context, rawURL string, header http.Header, conns int, d time.Duration, useWrk bool, paths ...string) (float64, string, error) {
	if useWrk {
		if path, err := exec.LookPath("wrk"); err == nil {
			rps, err := wrkLoad(ctx, path, rawURL, header, conns, d, paths)
			return rps, "wrk", err
		}
	}
	if len(paths) > 0 {
		return 0, "", fmt.Errorf("several paths need wrk")
	}
	rps, err := goGetLoad(rawURL, header, conns, d)
	return rps, "built-in generator", err
}

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
var wrkErrors = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)

func wrkLoad(ctx context.Context, path, rawURL string, header http.Header, conns int, d time.Duration, paths []string) (float64, error) {
	args := []string{"-t2", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", int(d.Seconds()))}
	if len(paths) > 0 {
		var lua strings.Builder
		lua.WriteString("local paths = {")
		for _, p := range paths {
			fmt.Fprintf(&lua, "%q,", p)
		}
		lua.WriteString("}\nlocal i = math.random(#paths)\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n")
		f, err := os.CreateTemp("", "loadtest-*.lua")
		if err != nil {
			return 0, err
		}
		defer os.Remove(f.Name())
		if _, err := f.WriteString(lua.String()); err != nil {
			return 0, err
		}
		f.Close()
		args = append(args, "-s", f.Name())
	}
	for k, vs := range header {
		for _, v := range vs {
			args = append(args, "-H", k+": "+v)
		}
	}
	out, err := exec.CommandContext(ctx, path, append(args, rawURL)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if m := wrkErrors.FindSubmatch(out); m != nil {
		return 0, fmt.Errorf("wrk: %s non-2xx responses", m[1])
	}
	m := wrkRate.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk: no rate in %s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// goGetLoad is the generator used without wrk: each connection writes one
// prepared request and reads the answer with http.ReadResponse, in a loop,
// which is about the least a Go client can do per request.
func goGetLoad(rawURL string, header http.Header, conns int, d time.Duration) (float64, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, err
	}
	var req bytes.Buffer
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\n", u.RequestURI(), u.Host)
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(&req, "%s: %s\r\n", k, v)
		}
	}
	req.WriteString("\r\n")
	raw := req.Bytes()
	var done atomic.Int64
	var firstErr error
	var once sync.Once
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				once.Do(func() { firstErr = err })
				return
			}
			defer c.Close()
			br := bufio.NewReaderSize(c, 64<<10)
			for time.Now().Before(deadline) {
				if _, err := c.Write(raw); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					once.Do(func() { firstErr = fmt.Errorf("status %d", resp.StatusCode) })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(done.Load()) / d.Seconds(), firstErr
}

// latencies are the durations of completed requests of a run.
type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// postLoad runs clients workers for d, each sending the bodies body(worker,
// n) with method to path as bearers[worker], and returns the latencies of the answered
// requests; any status but 200 is an error.
func postLoad(e *env, method, path string, bearers []string, clients int, d time.Duration, body func(worker, n int) []byte) (latencies, error) {
	return runLoad(clients, d, func(w, n int) *http.Request {
		req, _ := http.NewRequest(method, e.url+path, bytes.NewReader(body(w, n)))
		req.Header.Set("Authorization", "Bearer "+bearers[w])
		req.Header.Set("Content-Type", "application/json")
		return req
	})
}

// runLoad runs clients workers for d, each sending the requests
// newRequest(worker, n) one after another, and returns the latencies of
// the answered requests; any status but 200 is an error, which stops that
// worker.
func runLoad(clients int, d time.Duration, newRequest func(worker, n int) *http.Request) (latencies, error) {
	client := newClient(clients)
	var mu sync.Mutex
	var all latencies
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		firstErr = cmpErr(firstErr, err)
		mu.Unlock()
	}
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			var mine latencies
			defer func() {
				mu.Lock()
				all = append(all, mine...)
				mu.Unlock()
			}()
			for n := 0; time.Now().Before(deadline); n++ {
				req := newRequest(w, n)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					fail(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Errorf("%s %s: %d %.300s", req.Method, req.URL.RequestURI(), resp.StatusCode, b))
					return
				}
				mine = append(mine, time.Since(t0))
			}
		})
	}
	wg.Wait()
	return all, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
}
