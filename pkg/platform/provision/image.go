package provision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Image checks (botkit preflight): does the registry hold the image, with
// these credentials, and for which platforms. The platform asks the
// registry, so the credentials never travel to the CLI.

// Outcomes of CheckImage.
const (
	ImageFound        = "found"
	ImageUnauthorized = "unauthorized" // the registry wants (other) credentials
	ImageNotFound     = "not-found"    // no such repository or tag
	ImageUnreachable  = "unreachable"
	ImageError        = "error" // an answer the check cannot use
)

// ImageCheck names the image to look for.
type ImageCheck struct {
	Base        string // the registry API's base URL, e.g. https://ghcr.io
	Repository  string
	Reference   string // tag or digest
	Credentials string // base64 "user:pass"; "" asks anonymously
}

// ImageResult is what the registry said.
type ImageResult struct {
	Outcome   string
	Digest    string   // of the manifest (or index) the reference names
	Platforms []string // "linux/arm64", ...; empty when the registry does not say
	Message   string   // for the outcomes other than found
}

// The manifest media types asked for: an index (or Docker manifest list)
// when the image has several platforms, else a single manifest.
var manifestTypes = []string{
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.v2+json",
}

// maxManifestBytes bounds a manifest or config read from a registry.
const maxManifestBytes = 4 << 20

// ImageMemo is how long an image found by CheckImage is not asked again
// with the same credentials: `botkit deploy` runs preflight's checks, then
// makes a deployment that resolves the same reference, within
// milliseconds; the deployment pins the digest the checks saw. A refusal,
// a missing image or an error is never remembered.
const ImageMemo = 10 * time.Second

// imageMemoKey names a check: the credentials by their hash.
type imageMemoKey struct {
	base, repository, reference string
	credentials                 [sha256.Size]byte
}

type imageMemoEntry struct {
	result ImageResult
	at     time.Time
}

// CheckImage asks the registry for the image's manifest (GET
// /v2/REPOSITORY/manifests/REFERENCE), with basic credentials or through a
// bearer-token challenge, and reads the platforms it is built for; an
// image found with the same credentials less than ImageMemo ago is
// answered from memory.
func (p *Provisioner) CheckImage(ctx context.Context, c ImageCheck) ImageResult {
	now := time.Now
	if p.now != nil {
		now = p.now
	}
	key := imageMemoKey{base: c.Base, repository: c.Repository, reference: c.Reference, credentials: sha256.Sum256([]byte(c.Credentials))}
	p.memoMu.Lock()
	e, ok := p.memo[key]
	p.memoMu.Unlock()
	if ok && now().Sub(e.at) < ImageMemo {
		return e.result
	}
	r := p.checkImage(ctx, c)
	if r.Outcome == ImageFound {
		at := now()
		p.memoMu.Lock()
		if p.memo == nil || len(p.memo) >= maxImageMemo {
			p.memo = map[imageMemoKey]imageMemoEntry{} // a fresh start bounds it
		}
		p.memo[key] = imageMemoEntry{result: r, at: at}
		p.memoMu.Unlock()
	}
	return r
}

// maxImageMemo bounds the images remembered at once.
const maxImageMemo = 256

func (p *Provisioner) checkImage(ctx context.Context, c ImageCheck) ImageResult {
	ic := imageClient{client: p.client, check: c}
	path := "/v2/" + c.Repository + "/manifests/" + url.PathEscape(c.Reference)
	body, header, res := ic.get(ctx, path, manifestTypes)
	if res != nil {
		return *res
	}
	digest := header.Get("Docker-Content-Digest")
	if digest == "" {
		sum := sha256.Sum256(body)
		digest = "sha256:" + hex.EncodeToString(sum[:])
	}
	var m struct {
		MediaType string `json:"mediaType"`
		Manifests []struct {
			Platform *struct {
				OS           string `json:"os"`
				Architecture string `json:"architecture"`
				Variant      string `json:"variant"`
			} `json:"platform"`
		} `json:"manifests"`
		Config *struct {
			Digest string `json:"digest"`
		} `json:"config"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return ImageResult{Outcome: ImageError, Message: "the registry sent a manifest that is not JSON"}
	}
	out := ImageResult{Outcome: ImageFound, Digest: digest}
	switch {
	case m.Manifests != nil:
		for _, d := range m.Manifests {
			if d.Platform != nil && d.Platform.OS != "unknown" {
				out.Platforms = append(out.Platforms, platform(d.Platform.OS, d.Platform.Architecture, d.Platform.Variant))
			}
		}
	case m.Config != nil && m.Config.Digest != "":
		cfg, _, res := ic.get(ctx, "/v2/"+c.Repository+"/blobs/"+url.PathEscape(m.Config.Digest), nil)
		if res != nil {
			return *res
		}
		var img struct {
			OS           string `json:"os"`
			Architecture string `json:"architecture"`
			Variant      string `json:"variant"`
		}
		if json.Unmarshal(cfg, &img) == nil && img.OS != "" {
			out.Platforms = []string{platform(img.OS, img.Architecture, img.Variant)}
		}
	}
	slices.Sort(out.Platforms)
	out.Platforms = slices.Compact(out.Platforms)
	return out
}

func platform(os, arch, variant string) string {
	s := os + "/" + arch
	if variant != "" {
		s += "/" + variant
	}
	return s
}

// imageClient sends the requests of one check, keeping the authorization
// that worked.
type imageClient struct {
	client *http.Client
	check  ImageCheck
	auth   string
}

// get GETs path on the registry, answering an authentication challenge
// once; a nil result means found (body and header are the answer's).
func (ic *imageClient) get(ctx context.Context, path string, accept []string) ([]byte, http.Header, *ImageResult) {
	if ic.auth == "" && ic.check.Credentials != "" {
		ic.auth = "Basic " + ic.check.Credentials
	}
	resp, err := ic.do(ctx, ic.check.Base+path, accept)
	if err != nil {
		return nil, nil, unreachable(err)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		scheme, params := parseChallenge(resp.Header.Get("WWW-Authenticate"))
		drain(resp)
		switch {
		case strings.EqualFold(scheme, "Bearer"):
			tok, res := ic.token(ctx, params)
			if res != nil {
				return nil, nil, res
			}
			ic.auth = "Bearer " + tok
		case strings.EqualFold(scheme, "Basic") && ic.check.Credentials != "" && !strings.HasPrefix(ic.auth, "Basic "):
			ic.auth = "Basic " + ic.check.Credentials
		default:
			return nil, nil, &ImageResult{Outcome: ImageUnauthorized, Message: "the registry answered HTTP 401"}
		}
		if resp, err = ic.do(ctx, ic.check.Base+path, accept); err != nil {
			return nil, nil, unreachable(err)
		}
	}
	defer drain(resp)
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusUnauthorized, http.StatusForbidden:
		return nil, nil, &ImageResult{Outcome: ImageUnauthorized, Message: fmt.Sprintf("the registry answered HTTP %d", resp.StatusCode)}
	case http.StatusNotFound:
		return nil, nil, &ImageResult{Outcome: ImageNotFound, Message: "the registry answered HTTP 404"}
	default:
		return nil, nil, &ImageResult{Outcome: ImageError, Message: fmt.Sprintf("the registry answered HTTP %d", resp.StatusCode)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxManifestBytes+1))
	if err != nil {
		return nil, nil, unreachable(err)
	}
	if len(body) > maxManifestBytes {
		return nil, nil, &ImageResult{Outcome: ImageError, Message: "the registry sent more than 4 MiB for a manifest"}
	}
	return body, resp.Header, nil
}

func (ic *imageClient) do(ctx context.Context, u string, accept []string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if ic.auth != "" {
		req.Header.Set("Authorization", ic.auth)
	}
	if len(accept) > 0 {
		req.Header.Set("Accept", strings.Join(accept, ", "))
	}
	req.Header.Set("User-Agent", "botkit-platform")
	return ic.client.Do(req)
}

// token follows a bearer challenge: the token service, asked for pull
// access to the repository, with the credentials (or anonymously).
func (ic *imageClient) token(ctx context.Context, params map[string]string) (string, *ImageResult) {
	realm := params["realm"]
	u, err := url.Parse(realm)
	if realm == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", &ImageResult{Outcome: ImageError, Message: "the registry sent an unusable bearer-token challenge"}
	}
	q := u.Query()
	if v := params["service"]; v != "" {
		q.Set("service", v)
	}
	scope := params["scope"]
	if scope == "" {
		scope = "repository:" + ic.check.Repository + ":pull"
	}
	q.Set("scope", scope)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", &ImageResult{Outcome: ImageError, Message: err.Error()}
	}
	if ic.check.Credentials != "" {
		req.Header.Set("Authorization", "Basic "+ic.check.Credentials)
	}
	req.Header.Set("User-Agent", "botkit-platform")
	resp, err := ic.client.Do(req)
	if err != nil {
		return "", unreachable(err)
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", &ImageResult{Outcome: ImageUnauthorized, Message: fmt.Sprintf("the registry's token service answered HTTP %d", resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return "", &ImageResult{Outcome: ImageError, Message: fmt.Sprintf("the registry's token service answered HTTP %d", resp.StatusCode)}
	}
	var tok struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&tok); err != nil {
		return "", &ImageResult{Outcome: ImageError, Message: "the registry's token service sent an unreadable answer"}
	}
	if tok.Token == "" {
		tok.Token = tok.AccessToken
	}
	if tok.Token == "" {
		return "", &ImageResult{Outcome: ImageUnauthorized, Message: "the registry's token service gave no token"}
	}
	return tok.Token, nil
}

func unreachable(err error) *ImageResult {
	r := networkFailure(err)
	return &ImageResult{Outcome: ImageUnreachable, Message: r.message}
}
