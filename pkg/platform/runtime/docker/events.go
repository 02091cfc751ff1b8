package docker

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// eventActions are the container events the platform's controller wakes
// for: an agent that stopped (die: exited or killed; oom: killed for
// memory), started, was removed, or changed health.
var eventActions = []string{"start", "die", "oom", "destroy", "health_status"}

// Events streams the engine's events of the platform's agents (GET
// /events, filtered to containers with runtime.LabelManaged) to fn until
// ctx ends or the stream breaks.
func (rt *Runtime) Events(ctx context.Context, fn func(runtime.Event)) error {
	filters, err := json.Marshal(map[string][]string{
		"type":  {"container"},
		"label": {runtime.LabelManaged + "=true"},
		"event": eventActions,
	})
	if err != nil {
		return err
	}
	// No silence bound: an engine whose agents do nothing says nothing.
	resp, err := rt.stream(ctx, "GET", "/events", url.Values{"filters": {string(filters)}}, nil, nil, 0)
	if err != nil {
		return engineError(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Action string `json:"Action"`
			Actor  struct {
				ID         string            `json:"ID"`
				Attributes map[string]string `json:"Attributes"`
			} `json:"Actor"`
		}
		if err := dec.Decode(&m); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return &runtime.Error{Reason: runtime.ReasonUnreachable, Err: err}
		}
		// health_status events carry their state after a colon.
		action, _, _ := strings.Cut(m.Action, ":")
		owner, _ := runtime.OwnerOf(m.Actor.Attributes)
		fn(runtime.Event{ID: m.Actor.ID, Owner: owner, Action: action})
	}
}
