package httpapi

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/parcelgate/parcelgate"
)

// The parcelgate_active_codes metric: how full each environment's code
// space is (decisions §5). Counting is a range over the active codes of
// the environment (codes_active_expiry), every organization's: it grows
// with the codes held, and a scrape every few seconds paid it each time
// (issue 39). With Config.ActiveCodesMaxAge set (serve: one minute) a
// figure is kept that long and counted afresh by the first scrape after;
// parcelgate_active_codes_counted_timestamp_seconds says when the figure
// shown was counted, so a dashboard knows its age. Each instance counts
// for itself. Without it (tests, and a server that asks for it) every
// scrape counts.

// codeCounts keeps each environment's last count.
type codeCounts struct {
	maxAge time.Duration
	count  func(ctx context.Context, env parcelgate.Environment) (int64, error)
	log    func(env parcelgate.Environment, err error)
	now    func() time.Time // the wall clock: a figure's age is real time

	// mu is held while counting, so concurrent scrapes count once.
	mu   sync.Mutex
	last map[parcelgate.Environment]codeCount

	codes, counted *prometheus.Desc
}

// codeCount is one count: n codes, counted at at.
type codeCount struct {
	n  int64
	at time.Time
}

func newCodeCounts(maxAge time.Duration, count func(context.Context, parcelgate.Environment) (int64, error), log func(parcelgate.Environment, error)) *codeCounts {
	return &codeCounts{
		maxAge: maxAge, count: count, log: log, now: time.Now,
		last: map[parcelgate.Environment]codeCount{},
		codes: prometheus.NewDesc("parcelgate_active_codes",
			"Active sending and errand codes of the environment, out of 16^6 (decisions §5), as counted at parcelgate_active_codes_counted_timestamp_seconds.",
			[]string{"environment"}, nil),
		counted: prometheus.NewDesc("parcelgate_active_codes_counted_timestamp_seconds",
			"When parcelgate_active_codes of the environment was counted (Unix time); counts are kept up to --active-codes-max-age.",
			[]string{"environment"}, nil),
	}
}

// get returns env's figure, counted afresh when the kept one is older
// than maxAge (or none is kept). ok is false when no count has succeeded.
func (c *codeCounts) get(env parcelgate.Environment) (codeCount, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	last, have := c.last[env]
	now := c.now()
	if have && c.maxAge > 0 && now.Sub(last.at) < c.maxAge {
		return last, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.count(ctx, env)
	if err != nil {
		c.log(env, err)
		// A failed count shows no figure rather than an old one as new.
		delete(c.last, env)
		return codeCount{}, false
	}
	last = codeCount{n: n, at: now}
	c.last[env] = last
	return last, true
}

// Describe and Collect make codeCounts a prometheus.Collector: both
// metrics of an environment come from one figure.
func (c *codeCounts) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.codes
	ch <- c.counted
}

func (c *codeCounts) Collect(ch chan<- prometheus.Metric) {
	for _, env := range parcelgate.Environments {
		n, ok := c.get(env)
		codes, at := math.NaN(), math.NaN()
		if ok {
			codes, at = float64(n.n), float64(n.at.UnixMicro())/1e6
		}
		ch <- prometheus.MustNewConstMetric(c.codes, prometheus.GaugeValue, codes, string(env))
		ch <- prometheus.MustNewConstMetric(c.counted, prometheus.GaugeValue, at, string(env))
	}
}
