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

// The engine answers, runs a container of the test agent image, and its
// cleanup leaves no process, mount or directory behind.
func TestEngineLeavesNothing(t *testing.T) {
	Need(t)
	var dir string
	t.Run("engine", func(t *testing.T) {
		e := Start(t)
		dir = e.Dir
		e.Build(t, "botkit-test/agent:1", ImageOptions{Healthcheck: true})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var c struct {
			ID string `json:"Id"`
		}
		if err := e.Client.Do(ctx, http.MethodPost, "/containers/create", nil,
			map[string]any{"Image": "botkit-test/agent:1", "HostConfig": map[string]any{"NetworkMode": "none"}}, &c); err != nil {
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
}
