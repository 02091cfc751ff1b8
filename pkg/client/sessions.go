package client

import (
	"context"
	"net/http"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// StartSession starts a session on an agent with the client's token (POST
// .../agents/{name}/sessions): its id and, per transport, how to reach it.
// With no agent free, the error has code at_capacity and RetryAfter.
func (c *Client) StartSession(ctx context.Context, org, name string, req resources.SessionStartRequest) (resources.SessionStarted, error) {
	var out resources.SessionStarted
	err := c.post(ctx, orgPath(org, "agents", name, "sessions"), req, &out)
	return out, err
}

// Sessions lists an agent's sessions, newest first.
func (c *Client) Sessions(ctx context.Context, org, name string) ([]resources.Session, error) {
	var l resources.SessionList
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name, "sessions"), nil, nil, nil, &l)
	return l.Items, err
}

// Session returns one session of an agent.
func (c *Client) Session(ctx context.Context, org, name, id string) (resources.Session, error) {
	var s resources.Session
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "agents", name, "sessions", id), nil, nil, nil, &s)
	return s, err
}

// StopSession ends a session of an agent and returns it as it ended.
func (c *Client) StopSession(ctx context.Context, org, name, id string) (resources.Session, error) {
	var s resources.Session
	_, err := c.do(ctx, http.MethodDelete, orgPath(org, "agents", name, "sessions", id), nil, nil, nil, &s)
	return s, err
}
