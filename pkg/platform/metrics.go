package platform

import (
	"net/http"
	"time"
)

// Metrics receives the platform's measurements. The platform core depends
// on this interface only; botkit-platform serve reports to Prometheus
// (package prommetrics), while the CLI's embedded platform measures nothing
// and links no metrics library.
type Metrics interface {
	// Request is one HTTP request: its route pattern, method, status code
	// and duration.
	Request(route, method string, code int, d time.Duration)
	// Commit is one durable commit of the store, holding batch writes.
	Commit(batch int, d time.Duration)
	// Pass is one provisioning pass over region's pending objects.
	Pass(region string)
	// Provisioned counts n objects of kind in region that reached state.
	Provisioned(region, kind, state string, n int)
	// Handler serves GET /metrics (nil: the route answers 404).
	Handler() http.Handler
}

// noMetrics measures nothing.
type noMetrics struct{}

func (noMetrics) Request(string, string, int, time.Duration) {}
func (noMetrics) Commit(int, time.Duration)                  {}
func (noMetrics) Pass(string)                                {}
func (noMetrics) Provisioned(string, string, string, int)    {}
func (noMetrics) Handler() http.Handler                      { return nil }
