package platform

import (
	"context"
	"errors"

	"github.com/botkit-dev/botkit/pkg/platform/agentcall"
	"github.com/botkit-dev/botkit/pkg/platform/agents"
)

// caller is the agents' Caller over HTTP: pkg/platform/agentcall.
type caller struct{ c *agentcall.Client }

func (c caller) NotReady(ctx context.Context, endpoint string) bool {
	var e *agentcall.Error
	return errors.As(c.c.Ready(ctx, endpoint), &e) && e.NotReady()
}

func (c caller) Takes(ctx context.Context, endpoint string) bool {
	err := c.c.Ready(ctx, endpoint)
	var e *agentcall.Error
	// An answer other than 503 (a 404: no /readyz) is an agent that takes
	// sessions; no answer at all is not.
	return err == nil || errors.As(err, &e) && e.Status != 0 && !e.NotReady()
}

func (c caller) StartBot(ctx context.Context, endpoint string, s agents.BotStart) (agents.BotCall, error) {
	call, err := c.c.StartBot(ctx, endpoint, agentcall.SessionStart{ID: s.ID, Transport: s.Transport, Body: s.Body,
		MaxSeconds: s.MaxSeconds, RoomURL: s.RoomURL, RoomToken: s.RoomToken, Sent: s.Sent})
	if err != nil {
		return nil, err
	}
	return call, nil
}
