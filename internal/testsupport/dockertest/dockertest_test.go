package dockertest

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// The engine answers, runs a container of the test agent image on a
// network made on it, and its cleanup leaves no process, mount, directory or
// network interface behind.
func TestEngineLeavesNothing(t *testing.T) {
	Need(t)
	var dir, bridge string
	t.Run("engine", func(t *testing.T) {
		e := Start(t)
		dir = e.Dir
		e.Build(t, "botkit-test/agent:1", ImageOptions{Healthcheck: true})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var n, c struct {
			ID string `json:"Id"`
		}
		if err := e.Client.Do(ctx, http.MethodPost, "/networks/create", nil, map[string]any{"Name": "leaves-nothing", "Driver": "bridge"}, &n); err != nil {
			t.Fatal(err)
		}
		bridge = "/sys/class/net/br-" + n.ID[:12]
		if _, err := os.Stat(bridge); err != nil {
			t.Fatalf("the network's bridge: %v", err)
		}
		if err := e.Client.Do(ctx, http.MethodPost, "/containers/create", nil,
			map[string]any{"Image": "botkit-test/agent:1", "HostConfig": map[string]any{"NetworkMode": "leaves-nothing"}}, &c); err != nil {
			t.Fatal(err)
		}
		if err := e.Client.Do(ctx, http.MethodPost, "/containers/"+c.ID+"/start", nil, nil, nil); err != nil {
			t.Fatal(err)
		}
		var st struct{ State struct{ Running bool } }
		if err := e.Client.Do(ctx, http.MethodGet, "/containers/"+c.ID+"/json", url.Values{}, nil, &st); err != nil || !st.State.Running {
			t.Fatalf("the container runs: %v, %v", st.State.Running, err)
		}
		if len(processesNaming(dir)) == 0 {
			t.Fatalf("no process names %s while the engine runs: the check below could not fail", dir)
		}
	})
	if pids := processesNaming(dir); len(pids) != 0 {
		t.Errorf("processes left running: %v", pids)
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), dir+"/") {
		t.Errorf("mounts left below %s", dir)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", dir, err)
	}
	if _, err := os.Stat(bridge); !os.IsNotExist(err) {
		t.Errorf("the network's bridge %s is still there: %v", bridge, err)
	}
}
