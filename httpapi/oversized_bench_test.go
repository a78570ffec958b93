package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parcelgate/parcelgate"
	"github.com/parcelgate/parcelgate/internal/tools/apitest"
)

// oversizedBodies are the hostile bodies that once cost gigabytes, each
// just under the
// 16 MiB body cap: an order of empty rows, and 8 million balance entries.
func oversizedBodies() map[string]struct{ path, body string } {
	const cap = 16 << 20
	rows := `{"rows":[` + strings.Repeat("{},", (cap-20)/3)
	rows = strings.TrimSuffix(rows, ",") + "]}"
	zeros := "[" + strings.Repeat("0,", 8_000_000)
	zeros = strings.TrimSuffix(zeros, ",") + "]"
	return map[string]struct{ path, body string }{
		"order-empty-rows":    {"/ecommerce/v3/order", rows},
		"balances-8M-entries": {"/ecommerce/v3/inventory/balances", zeros},
	}
}

// countingReader counts the bytes a handler read of a request body.
type countingReader struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// heapSampler follows the live heap while an operation runs, for its peak
// above the level before it.
type heapSampler struct {
	stop chan struct{}
	done chan uint64
}

func sampleHeap() *heapSampler {
	s := &heapSampler{stop: make(chan struct{}), done: make(chan uint64)}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	go func() {
		var peak uint64
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > base && v-base > peak {
				peak = v - base
			}
			select {
			case <-s.stop:
				s.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *heapSampler) peak() uint64 { close(s.stop); return <-s.done }

// BenchmarkRejectOversizedBodies measures what it costs to refuse those
// bodies through the real router on SQLite: the time, the bytes
// allocated and the peak heap above the body itself (held by the caller
// here, as a server holds what the client sent in its socket buffers), and
// how much of the body is read before the refusal. docs/performance.md
// quotes it:
//
//	go test -run '^$' -bench RejectOversizedBodies -benchtime 5x ./httpapi
func BenchmarkRejectOversizedBodies(b *testing.B) {
	e := apitest.New(b, "sqlite")
	tok := e.EcomToken(parcelgate.Production, merchantBID, parcelgate.RoleMerchant, parcelgate.RoleSupplier)
	cases := oversizedBodies()
	// The worst body every limit of jsonin lets through to the domain's
	// parser: 10000 balance entries of 48 members each, 490,001 values in
	// all (jsonin.Default.MaxValues is 500,000), refused by the domain (no entry names
	// a product).
	var worst strings.Builder
	worst.WriteString("[")
	for i := range 10000 {
		if i > 0 {
			worst.WriteString(",")
		}
		worst.WriteString("{")
		for j := range 48 {
			if j > 0 {
				worst.WriteString(",")
			}
			fmt.Fprintf(&worst, `"m%02d":0`, j)
		}
		worst.WriteString("}")
	}
	worst.WriteString("]")
	cases["balances-500k-values-accepted-by-jsonin"] = struct{ path, body string }{"/ecommerce/v3/inventory/balances", worst.String()}
	for name, c := range cases {
		b.Run(name, func(b *testing.B) {
			var status int
			var read int64
			var peak uint64
			var answer int
			b.ReportAllocs()
			runtime.GC()
			for b.Loop() {
				body := &countingReader{r: bytes.NewReader([]byte(c.body))}
				req := httptest.NewRequest("PUT", c.path, body)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				rec := httptest.NewRecorder()
				s := sampleHeap()
				e.Server.ServeHTTP(rec, req)
				peak = max(peak, s.peak())
				status, read, answer = rec.Code, body.n.Load(), rec.Body.Len()
			}
			if status < 400 || status >= 500 {
				b.Fatalf("status %d: %.300s", status, c.body)
			}
			b.ReportMetric(float64(len(c.body))/(1<<20), "body-MiB")
			b.ReportMetric(float64(read), "body-bytes-read")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(answer), "answer-bytes")
			b.ReportMetric(float64(status), "status")
		})
	}
}

// The limits are enforced while decoding. A 16 MiB order
// of empty rows took ~40 s and 2.6 GB and answered a 329 MB error; 8 million
// balance entries took 7.5 s and 0.8 GB. Each is now refused at the limit,
// allocating a small multiple of the body at most, with an answer of
// bounded size.
func TestOversizedBodiesStopAtTheLimit(t *testing.T) {
	apitest.Each(t, func(t *testing.T, e *apitest.Env) {
		tok := e.EcomToken(parcelgate.Production, merchantBID, parcelgate.RoleMerchant, parcelgate.RoleSupplier)
		for name, c := range oversizedBodies() {
			body := []byte(c.body)
			req := httptest.NewRequest("PUT", c.path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			e.Server.ServeHTTP(rec, req)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if rec.Code != http.StatusRequestEntityTooLarge && rec.Code != http.StatusBadRequest {
				t.Fatalf("%s: status %d, want 413 or 400: %.300s", name, rec.Code, rec.Body)
			}
			mustBeValidJSON(t, rec.Body.Bytes())
			// The body is read once (16 MiB) and decoding stops at the
			// limit: about 3x the body (more under -race, which defeats
			// sync.Pool); a decode of the whole body allocated 0.8-2.6 GB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(body)) {
				t.Errorf("%s: refusing it allocated %d MiB, over 8x the body", name, alloc>>20)
			}
			if rec.Body.Len() > 64<<10 {
				t.Errorf("%s: an error answer of %d bytes", name, rec.Body.Len())
			}
			t.Logf("%s: %d in %v: %s", name, rec.Code, took, rec.Body.Bytes()[:min(rec.Body.Len(), 300)])
		}
	})
}
