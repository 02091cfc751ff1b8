package platform

import (
	"net/http"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/httpapi"
	"github.com/botkit-dev/botkit/pkg/platform/provision"
)

// Metrics receives the platform's measurements. The platform core depends
// on this interface only; botkit-platform serve reports to Prometheus
// (package prommetrics), while the CLI's embedded platform measures nothing
// and links no metrics library.
type Metrics interface {
	httpapi.Metrics   // each request, and GET /metrics
	provision.Metrics // provisioning passes and their results
	// Commit is one durable commit of the store, holding batch writes.
	Commit(batch int, d time.Duration)
}

// noMetrics measures nothing.
type noMetrics struct{}

func (noMetrics) Request(string, string, int, time.Duration) {}
func (noMetrics) Commit(int, time.Duration)                  {}
func (noMetrics) Pass(string)                                {}
func (noMetrics) Provisioned(string, string, string, int)    {}
func (noMetrics) Handler() http.Handler                      { return nil }
