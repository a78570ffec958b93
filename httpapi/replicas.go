package httpapi

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ReplicaState is what /readyz and /metrics tell of one read replica of the
// database (serve --db-replica).
type ReplicaState struct {
	Name  string // host:port
	State string // ok, lagging, down or not a replica
	Lag   time.Duration
	// Reads served there; Failures: reads that failed there and were run
	// again on the primary.
	Reads, Failures uint64
}

// replicaReport is one replica in /readyz's body.
type replicaReport struct {
	Name       string  `json:"name"`
	State      string  `json:"state"`
	LagSeconds float64 `json:"lagSeconds"`
}

func (s *Server) replicaReports() []replicaReport {
	if s.cfg.Replicas == nil {
		return nil
	}
	var out []replicaReport
	for _, r := range s.cfg.Replicas() {
		out = append(out, replicaReport{r.Name, r.State, r.Lag.Seconds()})
	}
	return out
}

// replicaCollector exports each replica's state, lag and reads.
type replicaCollector struct {
	states func() []ReplicaState
	up     *prometheus.Desc
	lag    *prometheus.Desc
	reads  *prometheus.Desc
	fails  *prometheus.Desc
}

func newReplicaCollector(states func() []ReplicaState) *replicaCollector {
	l := []string{"replica"}
	return &replicaCollector{
		states: states,
		up:     prometheus.NewDesc("parcelgate_db_replica_usable", "1 when the read replica serves reads (answers, and lags no more than --db-replica-max-lag), else 0; state says why.", []string{"replica", "state"}, nil),
		lag:    prometheus.NewDesc("parcelgate_db_replica_lag_seconds", "How far the read replica's replay is behind the primary, as last measured.", l, nil),
		reads:  prometheus.NewDesc("parcelgate_db_replica_reads_total", "Reads the read replica served.", l, nil),
		fails:  prometheus.NewDesc("parcelgate_db_replica_failures_total", "Reads that failed on the read replica and ran again on the primary.", l, nil),
	}
}

func (c *replicaCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.up
	ch <- c.lag
	ch <- c.reads
	ch <- c.fails
}

func (c *replicaCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.states() {
		up := 0.0
		if r.State == "ok" {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, up, r.Name, r.State)
		ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, r.Lag.Seconds(), r.Name)
		ch <- prometheus.MustNewConstMetric(c.reads, prometheus.CounterValue, float64(r.Reads), r.Name)
		ch <- prometheus.MustNewConstMetric(c.fails, prometheus.CounterValue, float64(r.Failures), r.Name)
	}
}
