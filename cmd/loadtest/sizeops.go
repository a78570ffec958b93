package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

// opResult is one operator operation at size: what it answered, how long
// it took, this process's resident memory before and after.
type opResult struct {
	name      string
	outcome   string // "200", "503 ...", "202, job succeeded", "timed out after 5m0s", ...
	took      time.Duration
	rssBefore int64
	rssAfter  int64
	success   bool
	// detail is the whole of what a failed operation answered: a job's
	// error, note and progress, printed under its line (the table keeps
	// the outcome's start).
	detail string
}

func (o opResult) ok() bool { return o.success }

func (o opResult) print(engine string) {
	fmt.Printf("  %s %-34s %-40s %10s  RSS %d → %d MiB, %s\n", engine, o.name, o.outcome, ms(o.took), o.rssBefore>>20, o.rssAfter>>20, loadAverage())
	if o.detail != "" {
		for line := range strings.SplitSeq(o.detail, "\n") {
			fmt.Printf("      %s\n", line)
		}
	}
}

// opProfile, when set (-cpuprofile), is where each operator operation's
// CPU profile goes (suffixed with the engine and the operation): the
// server runs in this process, so it is the server's work on the job.
var opProfile string

// jobPending are the states of a job still running, as a job resource
// might name them.
var jobPending = []string{"", "queued", "pending", "running", "accepted", "started", "active", "in_progress", "inprogress", "in progress", "processing", "created"}

// jobFailed are the states of a job that ended without success.
var jobFailed = []string{"failed", "failure", "error", "errored", "cancelled", "canceled", "aborted", "timeout", "timedout"}

// operatorOp sends one operator request and, when it is answered 202 with
// a job to follow (a Location header, or an id, href or location in the
// body), polls the job until it ends; the whole bounded by timeout, so a
// slow operation is recorded, never waited for without end.
func (e *env) operatorOp(name, method, path string, body []byte, timeout time.Duration) (res opResult) {
	res = opResult{name: name, rssBefore: currentRSS()}
	if opProfile != "" {
		f, err := os.Create(opProfile + ".op." + e.engine + "." + strings.Join(strings.Fields(name), "-"))
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() {
				pprof.StopCPUProfile()
				f.Close()
			}()
		}
	}
	start := time.Now()
	defer func() {
		res.took = time.Since(start)
		res.rssAfter = currentRSS()
	}()
	client := &http.Client{Timeout: timeout}
	do := func(method, target string, body []byte) (*http.Response, []byte, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, target, rd)
		if err != nil {
			return nil, nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+adminToken)
		client.Timeout = max(time.Millisecond, time.Until(start.Add(timeout)))
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		return resp, raw, err
	}
	resp, raw, err := do(method, e.url+path, body)
	if err != nil {
		res.outcome = failure(err, timeout)
		return res
	}
	if resp.StatusCode != http.StatusAccepted {
		res.outcome = answer(resp.StatusCode, raw)
		res.success = resp.StatusCode/100 == 2
		if !res.success {
			res.detail = jobDetail(raw)
		}
		return res
	}
	job := jobURL(e.url, resp, raw)
	if job == "" {
		res.outcome = "202, no job to follow: " + short(raw)
		return res
	}
	polls := 0
	for {
		time.Sleep(min(time.Second, 100*time.Millisecond<<min(polls, 4)))
		polls++
		resp, raw, err := do("GET", job, nil)
		if err != nil {
			res.outcome = "202, job " + failure(err, timeout)
			return res
		}
		if resp.StatusCode == http.StatusAccepted {
			continue
		}
		if resp.StatusCode/100 != 2 {
			res.outcome = "202, job answered " + answer(resp.StatusCode, raw)
			res.detail = jobDetail(raw)
			return res
		}
		state := jobState(raw)
		if slices.Contains(jobPending, state) && state != "" || (state == "" && jobRunning(raw)) {
			continue
		}
		res.success = !slices.Contains(jobFailed, state)
		res.outcome = fmt.Sprintf("202, job %s after %d polls", cmpStr(state, "ended"), polls)
		if !res.success {
			res.outcome += ": " + short(raw)
			res.detail = jobDetail(raw)
		}
		return res
	}
}

// jobURL is the job a 202 answer names: its Location, else a URL or an id
// in its body (an id alone is looked for at /admin/v1/jobs/{id}).
func jobURL(base string, resp *http.Response, raw []byte) string {
	resolve := func(ref string) string {
		u, err := url.Parse(ref)
		if err != nil {
			return ""
		}
		b, _ := url.Parse(base)
		return b.ResolveReference(u).String()
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		return resolve(loc)
	}
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	if j, ok := body["job"].(map[string]any); ok {
		body = j
	}
	for _, k := range []string{"href", "location", "url", "self", "statusUrl", "jobUrl"} {
		if s, ok := body[k].(string); ok && s != "" {
			return resolve(s)
		}
	}
	for _, k := range []string{"jobId", "id"} {
		switch v := body[k].(type) {
		case string:
			if v != "" {
				return resolve("/admin/v1/jobs/" + url.PathEscape(v))
			}
		case float64:
			return resolve("/admin/v1/jobs/" + strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
	return ""
}

// jobDetail is the whole of a failed job's (or a failed call's) answer
// that says why and how far it got: its error, note, phase, batches,
// organizations and progress by table, one per line; the raw answer when
// it is not a job.
func jobDetail(raw []byte) string {
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return strings.TrimSpace(string(raw))
	}
	if j, ok := body["job"].(map[string]any); ok {
		body = j
	}
	number := func(v any) string {
		if f, ok := v.(float64); ok {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return fmt.Sprint(v)
	}
	var lines []string
	add := func(k string, v any) {
		if v == nil || v == "" {
			return
		}
		lines = append(lines, fmt.Sprintf("%s: %v", k, v))
	}
	for _, k := range []string{"errorCode", "error", "note", "message", "detail", "phase", "batches"} {
		if v, ok := body[k]; ok {
			if _, ok := v.(float64); ok {
				v = number(v)
			}
			add(k, v)
		}
	}
	progress := func(t map[string]any) string {
		s := fmt.Sprint(t["name"], " ", number(t["done"]))
		if total, ok := t["total"]; ok && total != nil {
			s += " of " + number(total)
		}
		return s
	}
	if o, ok := body["organizations"].(map[string]any); ok {
		add("organizations", progress(o))
	}
	if ts, ok := body["tables"].([]any); ok && len(ts) > 0 {
		var parts []string
		for _, t := range ts {
			if m, ok := t.(map[string]any); ok {
				parts = append(parts, progress(m))
			}
		}
		add("tables", strings.Join(parts, ", "))
	}
	if len(lines) == 0 {
		return strings.TrimSpace(string(raw))
	}
	return strings.Join(lines, "\n")
}

// jobState is the lower-cased state a job resource reports (status,
// state, or the same inside "job").
func jobState(raw []byte) string {
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return "ended" // not JSON: the job's result itself
	}
	if j, ok := body["job"].(map[string]any); ok {
		body = j
	}
	for _, k := range []string{"status", "state", "phase"} {
		if s, ok := body[k].(string); ok {
			return strings.ToLower(s)
		}
	}
	return ""
}

// jobRunning: a job resource without a state that says it is not done
// (done: false, or no finishedAt/endedAt while it has a startedAt).
func jobRunning(raw []byte) bool {
	var body map[string]any
	if json.Unmarshal(raw, &body) != nil {
		return false
	}
	if d, ok := body["done"].(bool); ok {
		return !d
	}
	return false
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func answer(status int, raw []byte) string {
	if status/100 == 2 {
		return strconv.Itoa(status)
	}
	return strconv.Itoa(status) + " " + short(raw)
}

func short(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func failure(err error, timeout time.Duration) string {
	if e, ok := err.(interface{ Timeout() bool }); ok && e.Timeout() {
		return fmt.Sprintf("timed out after %s", timeout)
	}
	return "error: " + err.Error()
}

// currentRSS is this process's resident memory now (VmRSS), in bytes.
func currentRSS() int64 { return procStatus("VmRSS:") }

// peakRSS is this process's peak resident memory (VmHWM) since it started
// or resetPeakRSS was called, in bytes.
func peakRSS() int64 { return procStatus("VmHWM:") }

func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// resetPeakRSS starts the peak resident memory over from the current one
// (Linux: 5 written to clear_refs), so the server's peak is not the
// generator's that ran before it in this process.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// freeMemory returns what the generator left to the operating system.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}
