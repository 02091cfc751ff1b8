// Package client is the typed client of the platform API (api/openapi.yaml).
// It talks to a remote platform over HTTP, or to the embedded local platform
// in-process through the same code (an http.RoundTripper that serves the
// platform's handler).
//
// Every API error is returned as *APIError, whose ErrorCode is the API's
// error code; cmdutil maps codes to exit codes (the one mapping).
package client

import (
	"context"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// APIError is an error answer of the platform: {"error":{"code","message"}}.
// Its message comes from the platform, which never puts a value in it.
type APIError struct {
	Status  int    // HTTP status
	Code    string // resources.Code*
	Message string
}

func (e *APIError) Error() string { return e.Message }

// ErrorCode returns the API error code (see cmdutil.Coded).
func (e *APIError) ErrorCode() string { return e.Code }

// ListOptions filter a list.
type ListOptions struct {
	Region        string // "" = all regions
	Kind          string // "" = all kinds; resources.KindSecretSet / KindImagePullSecret
	LabelSelector string
}

// Client calls the platform API. The methods follow the API's routes; List
// follows `continue` pages itself. Idempotent requests are retried with
// backoff on 429/502/503/504 and connection resets; PATCH is not.
type Client struct {
	// filled by New (pkg/client owner)
}

// Me returns the token's user and organizations (GET /v1/me).
func (c *Client) Me(ctx context.Context) (resources.Me, error) {
	panic("pkg/client: to be implemented")
}

// Regions lists the regions (GET /v1/regions).
func (c *Client) Regions(ctx context.Context) ([]resources.Region, error) {
	panic("pkg/client: to be implemented")
}

// List lists the objects of org, all pages.
func (c *Client) List(ctx context.Context, org string, opts ListOptions) ([]resources.Object, error) {
	panic("pkg/client: to be implemented")
}

// Get returns one object, key names only.
func (c *Client) Get(ctx context.Context, org, name string) (resources.Object, error) {
	panic("pkg/client: to be implemented")
}

// Merge sends one atomic PATCH (creating the object when missing). ifMatch,
// when not empty, makes it conditional on the object's resourceVersion.
// created reports whether the object was created.
func (c *Client) Merge(ctx context.Context, org, name string, p resources.Patch, ifMatch string) (obj resources.Object, created bool, err error) {
	panic("pkg/client: to be implemented")
}

// Delete deletes an object.
func (c *Client) Delete(ctx context.Context, org, name string) (resources.Object, error) {
	panic("pkg/client: to be implemented")
}

// DeleteKey removes one key of a secret set.
func (c *Client) DeleteKey(ctx context.Context, org, name, key string) (resources.Object, error) {
	panic("pkg/client: to be implemented")
}

// Wait polls the object until its status is ready or failed (or ctx ends)
// and returns it. The caller maps failed to exit 1.
func (c *Client) Wait(ctx context.Context, org, name string) (resources.Object, error) {
	panic("pkg/client: to be implemented")
}
