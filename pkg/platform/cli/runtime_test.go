package cli

import (
	"context"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/platform/runtime/docker"
)

// --runtime REGION=tcp://HOST:PORT with --runtime-tls REGION=DIR reaches
// an engine that verifies its clients' certificates.
func TestServeRuntimeTCPTLS(t *testing.T) {
	e := dockertest.StartWith(t, dockertest.Options{TLS: true})
	o := &ServeOptions{Runtimes: []string{"us-west=" + e.TCP, "eu-central=" + e.Host}, RuntimeTLS: []string{"us-west=" + e.ClientTLS}}
	rts, closeAll, err := o.runtimes()
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	for region, rt := range rts {
		if err := rt.(*docker.Runtime).Ping(context.Background()); err != nil {
			t.Errorf("region %s: %v", region, err)
		}
		if _, err := rt.List(context.Background(), runtime.Selector{}); err != nil {
			t.Errorf("region %s: %v", region, err)
		}
	}
	if got := rts["us-west"].(*docker.Runtime).Endpoint().String(); got != e.TCP+" (--runtime us-west)" {
		t.Errorf("us-west's engine is %s", got)
	}
}
