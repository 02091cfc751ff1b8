package dockertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
)

// Standin calls the test-only endpoints of the stand-in of Pipecat Cloud's
// base image (ImageOptions.Standin) at Endpoint, host:port (an agent's
// runtime.Agent.Endpoint).
type Standin struct {
	Endpoint string
}

var standinClient = &http.Client{Transport: &http.Transport{Proxy: nil}}

func (s Standin) call(ctx context.Context, method, path string, q url.Values, out any) error {
	u := "http://" + s.Endpoint + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return err
	}
	resp, err := standinClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: %w: %s", method, path, err, b)
	}
	return nil
}

// Sessions returns what the stand-in received, in order.
func (s Standin) Sessions(ctx context.Context) ([]standinapi.Session, error) {
	var out []standinapi.Session
	return out, s.call(ctx, http.MethodGet, standinapi.SessionsPath, nil, &out)
}

// End ends the open session id ("": every open one) and returns how many
// it ended.
func (s Standin) End(ctx context.Context, id string) (int, error) {
	q := url.Values{}
	if id != "" {
		q.Set("session", id)
	}
	var out struct {
		Ended int `json:"ended"`
	}
	return out.Ended, s.call(ctx, http.MethodPost, standinapi.EndPath, q, &out)
}

// ICEConfig has the stand-in read its ICE_CONFIG_URL now and returns what
// it got.
func (s Standin) ICEConfig(ctx context.Context) (standinapi.ICEConfigRead, error) {
	var out standinapi.ICEConfigRead
	return out, s.call(ctx, http.MethodGet, standinapi.ICEConfigPath, nil, &out)
}

// Crash makes the stand-in exit with code at once.
func (s Standin) Crash(ctx context.Context, code int) error {
	return s.call(ctx, http.MethodPost, standinapi.CrashPath, url.Values{"code": {strconv.Itoa(code)}}, nil)
}
