package client

import (
	"context"
	"net/http"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// The organization's public keys: /v1/organizations/{org}/keys.

// CreatePublicKey makes a public key and returns it with the key itself,
// which no other answer holds. Never retried.
func (c *Client) CreatePublicKey(ctx context.Context, org string, req resources.PublicKeyRequest) (resources.CreatedPublicKey, error) {
	var k resources.CreatedPublicKey
	err := c.post(ctx, orgPath(org, "keys"), req, &k)
	return k, err
}

// PublicKeys lists the organization's public keys (never a key).
func (c *Client) PublicKeys(ctx context.Context, org string) ([]resources.PublicKey, error) {
	var l resources.PublicKeyList
	_, err := c.do(ctx, http.MethodGet, orgPath(org, "keys"), nil, nil, nil, &l)
	return l.Items, err
}

// DeletePublicKey deletes the public key id and returns it as it was.
func (c *Client) DeletePublicKey(ctx context.Context, org, id string) (resources.PublicKey, error) {
	var k resources.PublicKey
	_, err := c.do(ctx, http.MethodDelete, orgPath(org, "keys", id), nil, nil, nil, &k)
	return k, err
}
