// Package prommetrics reports the platform's measurements (platform.Metrics)
// to Prometheus and serves them on GET /metrics. botkit-platform serve uses
// it; the CLI's embedded platform does not link it.
package prommetrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics implements platform.Metrics over a Prometheus registry of its own.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	commits     prometheus.Counter
	batchSize   prometheus.Histogram
	commitTime  prometheus.Histogram
	passes      *prometheus.CounterVec
	provisioned *prometheus.CounterVec
}

// New returns Metrics with every platform metric and the Go and process
// collectors registered.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "botkit_platform_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "botkit_platform_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"route", "method"}),
		commits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "botkit_platform_store_commits_total", Help: "Durable database commits.",
		}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "botkit_platform_store_commit_batch_size", Help: "Write transactions per commit (group commit).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
		commitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "botkit_platform_store_commit_duration_seconds", Help: "Time to run and durably commit one batch.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "botkit_platform_provision_passes_total", Help: "Provisioning passes over a region's pending objects.",
		}, []string{"region"}),
		provisioned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "botkit_platform_provisioned_total", Help: "Provisioning outcomes by region, kind and state.",
		}, []string{"region", "kind", "state"}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.commits, m.batchSize, m.commitTime, m.passes, m.provisioned,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry the metrics are in (the benchmark reads it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Request counts one HTTP request and observes its duration.
func (m *Metrics) Request(route, method string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

// Commit counts one durable commit of batch writes.
func (m *Metrics) Commit(batch int, d time.Duration) {
	m.commits.Inc()
	m.batchSize.Observe(float64(batch))
	m.commitTime.Observe(d.Seconds())
}

// Pass counts one provisioning pass of region.
func (m *Metrics) Pass(region string) { m.passes.WithLabelValues(region).Inc() }

// Provisioned counts n objects that reached state.
func (m *Metrics) Provisioned(region, kind, state string, n int) {
	m.provisioned.WithLabelValues(region, kind, state).Add(float64(n))
}

// Handler serves the registry in Prometheus' text format.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }
