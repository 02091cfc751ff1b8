package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// blockedAddrError is returned when an outbound connection would reach an
// address the platform must not contact.
type blockedAddrError struct {
	addr   netip.Addr
	reason string
}

func (e *blockedAddrError) Error() string {
	return fmt.Sprintf("address %s is not allowed (%s)", e.addr, e.reason)
}

var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack...
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IPv6
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// checkAddr decides whether an outbound connection to addr is allowed.
// Link-local and cloud metadata addresses are always refused; loopback,
// private, shared (CGNAT) and unspecified addresses only when allowPrivate.
func checkAddr(addr netip.Addr, allowPrivate bool) error {
	addr = addr.Unmap()
	for _, m := range metadataAddrs {
		if addr == m {
			return &blockedAddrError{addr, "cloud metadata service"}
		}
	}
	switch {
	case !addr.IsValid():
		return &blockedAddrError{addr, "invalid address"}
	case addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsInterfaceLocalMulticast():
		return &blockedAddrError{addr, "link-local"}
	case addr.IsMulticast():
		return &blockedAddrError{addr, "multicast"}
	}
	if allowPrivate {
		return nil
	}
	switch {
	case addr.IsLoopback():
		return &blockedAddrError{addr, "loopback; the server runs without --allow-private-registries"}
	case addr.IsPrivate() || cgnat.Contains(addr):
		return &blockedAddrError{addr, "private network; the server runs without --allow-private-registries"}
	case addr.IsUnspecified():
		return &blockedAddrError{addr, "unspecified; the server runs without --allow-private-registries"}
	}
	return nil
}

// newGuardedClient returns an HTTP client whose every connection — including
// redirects and token realms, after DNS resolution — passes checkAddr. It
// ignores proxy settings, since a proxy would hide the real destination.
func newGuardedClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			addr, err := netip.ParseAddr(host)
			if err != nil {
				return &blockedAddrError{reason: "not an IP address"}
			}
			return checkAddr(addr, allowPrivate)
		},
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}
}

// verifyResult is the outcome of one registry check.
type verifyResult struct {
	ok        bool
	message   string // for failed
	retryable bool
}

const msgRejected = "registry rejected the credentials"

// verifyRegistry checks base64 "user:pass" credentials against the Docker
// Registry HTTP API v2 at base (e.g. https://ghcr.io): GET /v2/ with basic
// auth, following a bearer-token challenge if the registry answers with one.
func verifyRegistry(ctx context.Context, client *http.Client, base, b64 string) verifyResult {
	resp, err := registryGet(ctx, client, base+"/v2/", "Basic "+b64)
	if err != nil {
		return networkFailure(err)
	}
	challenge := resp.Header.Get("WWW-Authenticate")
	drain(resp)
	switch {
	case resp.StatusCode == http.StatusOK:
		return verifyResult{ok: true}
	case resp.StatusCode == http.StatusUnauthorized:
		scheme, params := parseChallenge(challenge)
		if !strings.EqualFold(scheme, "Bearer") {
			return verifyResult{message: msgRejected}
		}
		return bearerFlow(ctx, client, base, b64, params)
	case resp.StatusCode == http.StatusForbidden:
		return verifyResult{message: msgRejected}
	default:
		return statusFailure(resp.StatusCode)
	}
}

func bearerFlow(ctx context.Context, client *http.Client, base, b64 string, params map[string]string) verifyResult {
	realm := params["realm"]
	u, err := url.Parse(realm)
	if realm == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return verifyResult{message: "registry sent an unusable bearer-token challenge"}
	}
	q := u.Query()
	if v := params["service"]; v != "" {
		q.Set("service", v)
	}
	if v := params["scope"]; v != "" {
		q.Set("scope", v)
	}
	u.RawQuery = q.Encode()
	resp, err := registryGet(ctx, client, u.String(), "Basic "+b64)
	if err != nil {
		return networkFailure(err)
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return verifyResult{message: msgRejected}
	case resp.StatusCode != http.StatusOK:
		return statusFailure(resp.StatusCode)
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok); err != nil {
		return verifyResult{message: "registry token service sent an unreadable answer"}
	}
	bearer := tok.Token
	if bearer == "" {
		bearer = tok.AccessToken
	}
	if bearer == "" {
		return verifyResult{message: msgRejected}
	}
	resp2, err := registryGet(ctx, client, base+"/v2/", "Bearer "+bearer)
	if err != nil {
		return networkFailure(err)
	}
	drain(resp2)
	switch resp2.StatusCode {
	case http.StatusOK:
		return verifyResult{ok: true}
	case http.StatusUnauthorized, http.StatusForbidden:
		return verifyResult{message: msgRejected}
	}
	return statusFailure(resp2.StatusCode)
}

func registryGet(ctx context.Context, client *http.Client, u, auth string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("User-Agent", "botkit-platform")
	return client.Do(req)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

func statusFailure(code int) verifyResult {
	retry := code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout
	return verifyResult{message: fmt.Sprintf("registry answered HTTP %d to GET /v2/", code), retryable: retry}
}

func networkFailure(err error) verifyResult {
	var be *blockedAddrError
	if errors.As(err, &be) {
		return verifyResult{message: "registry not contacted: " + be.Error()}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return verifyResult{message: "registry unreachable: " + err.Error(), retryable: true}
}

// parseChallenge parses `Bearer realm="...",service="...",scope="..."`.
func parseChallenge(h string) (string, map[string]string) {
	scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
	params := map[string]string{}
	for rest != "" {
		rest = strings.TrimLeft(rest, " ,")
		k, after, ok := strings.Cut(rest, "=")
		if !ok {
			break
		}
		k = strings.ToLower(strings.TrimSpace(k))
		var v string
		if strings.HasPrefix(after, `"`) {
			end := strings.IndexByte(after[1:], '"')
			if end < 0 {
				v, rest = after[1:], ""
			} else {
				v, rest = after[1:1+end], after[2+end:]
			}
		} else {
			v, rest, _ = strings.Cut(after, ",")
		}
		params[k] = strings.TrimSpace(v)
	}
	return scheme, params
}
