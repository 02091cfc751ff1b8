package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/botkit-dev/botkit/internal/testsupport/dockertest/standinapi"
)

// iceConfig reads $ICE_CONFIG_URL now, as an agent reads its ICE servers,
// and answers what it got (standinapi.ICEConfigRead).
func iceConfig(w http.ResponseWriter, r *http.Request) {
	var out standinapi.ICEConfigRead
	u := os.Getenv("ICE_CONFIG_URL")
	if u == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	out.Set = true
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err == nil {
		var resp *http.Response
		if resp, err = (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req); err == nil {
			defer resp.Body.Close()
			out.Status = resp.StatusCode
			var b []byte
			b, err = io.ReadAll(io.LimitReader(resp.Body, maxBody))
			out.Body = string(b)
		}
	}
	if err != nil {
		out.Error = err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}
