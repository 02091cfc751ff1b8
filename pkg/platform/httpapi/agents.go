package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/botkit-dev/botkit/pkg/platform/service"
	"github.com/botkit-dev/botkit/pkg/platform/wire"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// The agents' handlers (their routes are in routeTable).

// writeAgent answers an agent with its ETag (its resourceVersion).
func writeAgent(w http.ResponseWriter, status int, ag resources.Agent) {
	w.Header().Set("ETag", `"`+ag.Metadata.ResourceVersion+`"`)
	writeJSON(w, status, ag)
}

func (a *api) handleAgents(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	list, err := a.svc.ListAgents(r.Context(), p, r.URL.Query().Get("region"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *api) handleAgent(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	ag, err := a.svc.GetAgent(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeAgent(w, http.StatusOK, ag)
}

func (a *api) handlePutAgent(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var raw map[string]json.RawMessage
	if err := decodeBody(w, r, &raw, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	if s, ok := raw["spec"]; !ok || bytes.Equal(bytes.TrimSpace(s), []byte("null")) {
		writeError(w, resources.Errorf(resources.CodeInvalid, "spec is required"))
		return
	}
	if _, ok := raw["status"]; ok {
		writeError(w, resources.Errorf(resources.CodeInvalid, "status is the platform's (output only): send the agent without it"))
		return
	}
	if m, ok := raw["metadata"]; ok {
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(m, &meta); err == nil {
			for _, k := range slices.Sorted(maps.Keys(meta)) {
				switch k {
				case "name", "organization", "region", "labels", "resourceVersion":
				default:
					writeError(w, resources.Errorf(resources.CodeInvalid, "metadata.%s is the platform's (output only): send the agent without it", k))
					return
				}
			}
		}
	}
	body, err := json.Marshal(raw)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	var in resources.Agent
	if err := wire.Decode(body, &in, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	ag, created, err := a.svc.PutAgent(r.Context(), p, r.PathValue("name"), in, r.Header.Get("If-Match"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeAgent(w, status, ag)
}

func (a *api) handlePatchAgent(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var pt resources.AgentPatch
	if err := decodeBody(w, r, &pt, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	ag, err := a.svc.PatchAgent(r.Context(), p, r.PathValue("name"), pt)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeAgent(w, http.StatusOK, ag)
}

func (a *api) handleDeleteAgent(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	ag, err := a.svc.DeleteAgent(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ag)
}

func (a *api) handleDeployments(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	list, err := a.svc.Deployments(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

func (a *api) handleDeploy(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req resources.DeployRequest
	if err := decodeBody(w, r, &req, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	d, created, err := a.svc.Deploy(r.Context(), p, r.PathValue("name"), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	status := http.StatusOK // a dry run
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, d)
}

func (a *api) handleDeployment(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	d, err := a.svc.Deployment(r.Context(), p, r.PathValue("name"), r.PathValue("number"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (a *api) handleAgentStatus(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	rep, err := a.svc.AgentStatus(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (a *api) handleAgentRollback(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req resources.RollbackRequest
	if err := decodeBody(w, r, &req, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	d, err := a.svc.RollbackAgent(r.Context(), p, r.PathValue("name"), req)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, d)
}

func (a *api) handleAgentRestart(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	var req struct{}
	if err := decodeBody(w, r, &req, resources.MaxRequestBytes); err != nil {
		a.fail(w, r, err)
		return
	}
	ag, err := a.svc.RestartAgent(r.Context(), p, r.PathValue("name"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeAgent(w, http.StatusOK, ag)
}

// handleAgentLogs streams the agents' log lines as JSON lines, each
// flushed as it comes (values masked by the service). An error once the
// stream started ends it (logged: its status is sent).
func (a *api) handleAgentLogs(w http.ResponseWriter, r *http.Request) {
	p, ok := a.orgPrincipal(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	stream, err := a.svc.AgentLogs(r.Context(), p, r.PathValue("name"), service.LogsRequest{Follow: q.Get("follow"), Since: q.Get("since"), Tail: q.Get("tail"), Session: q.Get("session")})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush() // error ignored: a writer that cannot flush sends the lines at the end
	ctx := r.Context()
	if a.streams != nil && q.Get("follow") == "true" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(a.streams, cancel)()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err = stream(ctx, func(l resources.AgentLogLine) error {
		buf.Reset()
		if err := enc.Encode(l); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		_ = rc.Flush() // error ignored: as above
		return nil
	})
	if err != nil && ctx.Err() == nil {
		id := ""
		if info, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
			id = info.id
		}
		re, _ := service.AsError(err)
		a.log.Warn("log stream ended", "request_id", id, "error", re.Message)
	}
}
