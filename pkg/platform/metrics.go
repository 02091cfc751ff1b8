package platform

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	commits     prometheus.Counter
	batchSize   prometheus.Histogram
	commitTime  prometheus.Histogram
	passes      *prometheus.CounterVec
	provisioned *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
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
	reg.MustRegister(m.requests, m.duration, m.commits, m.batchSize, m.commitTime, m.passes, m.provisioned,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeCommit(batch int, d time.Duration) {
	m.commits.Inc()
	m.batchSize.Observe(float64(batch))
	m.commitTime.Observe(d.Seconds())
}
