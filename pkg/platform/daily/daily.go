// Package daily is the platform's client of Daily's REST API, with the
// operator's API key: a session's room (POST /rooms), its meeting tokens
// (POST /meeting-tokens) and the room's deletion (DELETE /rooms/{name}).
// The key goes in the Authorization header only: no error, no log line
// holds it.
package daily

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultURL is Daily's REST API.
const DefaultURL = "https://api.daily.co/v1"

// Client calls Daily's REST API with one API key.
type Client struct {
	base string
	key  string
	http *http.Client
}

// New returns a client of the API at baseURL ("": DefaultURL) with key.
func New(baseURL, key string) *Client {
	if baseURL == "" {
		baseURL = DefaultURL
	}
	return &Client{base: strings.TrimSuffix(baseURL, "/"), key: key,
		http: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Error is an answer of Daily's API other than 200: the operation, the
// status and what Daily said of it (its "info" or "error", shortened).
type Error struct {
	Op     string
	Status int
	Info   string
}

func (e *Error) Error() string {
	if e.Info == "" {
		return fmt.Sprintf("the Daily API answered %s with %d", e.Op, e.Status)
	}
	return fmt.Sprintf("the Daily API answered %s with %d: %s", e.Op, e.Status, e.Info)
}

// call sends body (nil: none) to path and decodes a 200 answer into out.
func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	op := method + " " + path
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the operation says which call
		}
		return fmt.Errorf("the Daily API (%s): %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("the Daily API (%s): %w", op, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
			Info  string `json:"info"`
		}
		_ = json.Unmarshal(data, &e) // error ignored: a body that is not Daily's says nothing more
		info := e.Info
		if info == "" {
			info = e.Error
		}
		if len(info) > 200 {
			info = info[:200] + "..."
		}
		return &Error{Op: op, Status: resp.StatusCode, Info: strings.ReplaceAll(info, c.key, "***")}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the Daily API (%s): its answer is not JSON: %w", op, err)
	}
	return nil
}

// CreateRoom makes a private room named name with properties (Daily's
// room properties, as given) and returns its URL.
func (c *Client) CreateRoom(ctx context.Context, name string, properties map[string]json.RawMessage) (string, error) {
	var out struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	}
	if err := c.call(ctx, http.MethodPost, "/rooms", map[string]any{"name": name, "privacy": "private", "properties": properties}, &out); err != nil {
		return "", err
	}
	if out.URL == "" {
		return "", &Error{Op: "POST /rooms", Status: http.StatusOK, Info: "the answer has no url"}
	}
	return out.URL, nil
}

// CreateToken makes a meeting token for room, good until exp (its holder
// ejected then), of an owner (the bot) or of a participant.
func (c *Client) CreateToken(ctx context.Context, room string, exp time.Time, owner bool) (string, error) {
	var out struct {
		Token string `json:"token"`
	}
	props := map[string]any{"room_name": room, "exp": exp.Unix(), "is_owner": owner, "eject_at_token_exp": true}
	if err := c.call(ctx, http.MethodPost, "/meeting-tokens", map[string]any{"properties": props}, &out); err != nil {
		return "", err
	}
	if out.Token == "" {
		return "", &Error{Op: "POST /meeting-tokens", Status: http.StatusOK, Info: "the answer has no token"}
	}
	return out.Token, nil
}

// DeleteRoom deletes room name (404: gone already, not an error).
func (c *Client) DeleteRoom(ctx context.Context, name string) error {
	err := c.call(ctx, http.MethodDelete, "/rooms/"+url.PathEscape(name), nil, nil)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return nil
	}
	return err
}
