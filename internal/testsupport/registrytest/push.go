package registrytest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Push uploads a small image to the registry at base (http://HOST:PORT)
// through its HTTP API, as `docker push` does, with basic credentials: for
// each platform ("linux/arm64") a layer, a config naming the platform and
// an OCI image manifest; several platforms get an OCI index. The manifest
// (or index) is tagged ref's tag in ref's repository ("bot:0.1"). It
// returns the tag's digest.
func Push(base, user, pass, ref string, platforms ...string) (string, error) {
	repo, tag, ok := strings.Cut(ref, ":")
	if !ok || len(platforms) == 0 {
		return "", fmt.Errorf("push %q %v: want REPO:TAG and a platform", ref, platforms)
	}
	p := pusher{base: strings.TrimSuffix(base, "/"), user: user, pass: pass, repo: repo}
	type descriptor struct {
		MediaType string            `json:"mediaType"`
		Digest    string            `json:"digest"`
		Size      int               `json:"size"`
		Platform  map[string]string `json:"platform,omitempty"`
	}
	var manifests []descriptor
	for i, pl := range platforms {
		os, arch, _ := strings.Cut(pl, "/")
		layer := []byte(fmt.Sprintf("layer of %s %s %d", ref, pl, i))
		layerDigest, err := p.blob(layer)
		if err != nil {
			return "", err
		}
		config, err := json.Marshal(map[string]any{"os": os, "architecture": arch,
			"rootfs": map[string]any{"type": "layers", "diff_ids": []string{layerDigest}}})
		if err != nil {
			return "", err
		}
		configDigest, err := p.blob(config)
		if err != nil {
			return "", err
		}
		m, err := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": ociManifest,
			"config": descriptor{MediaType: "application/vnd.oci.image.config.v1+json", Digest: configDigest, Size: len(config)},
			"layers": []descriptor{{MediaType: "application/vnd.oci.image.layer.v1.tar", Digest: layerDigest, Size: len(layer)}}})
		if err != nil {
			return "", err
		}
		if len(platforms) == 1 {
			return p.manifest(tag, ociManifest, m)
		}
		d, err := p.manifest(digestOf(m), ociManifest, m)
		if err != nil {
			return "", err
		}
		manifests = append(manifests, descriptor{MediaType: ociManifest, Digest: d, Size: len(m), Platform: map[string]string{"os": os, "architecture": arch}})
	}
	index, err := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": ociIndex, "manifests": manifests})
	if err != nil {
		return "", err
	}
	return p.manifest(tag, ociIndex, index)
}

const (
	ociManifest = "application/vnd.oci.image.manifest.v1+json"
	ociIndex    = "application/vnd.oci.image.index.v1+json"
)

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

type pusher struct {
	base, user, pass, repo string
}

func (p pusher) do(method, u, contentType string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(p.user, p.pass)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return http.DefaultClient.Do(req)
}

// blob uploads b monolithically (POST an upload, PUT it with its digest).
func (p pusher) blob(b []byte) (string, error) {
	d := digestOf(b)
	resp, err := p.do("POST", p.base+"/v2/"+p.repo+"/blobs/uploads/", "", nil)
	if err != nil {
		return "", err
	}
	drain(resp) // the status says what matters
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("starting a blob upload to %s: HTTP %d", p.repo, resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", err
	}
	base, err := url.Parse(p.base)
	if err != nil {
		return "", err
	}
	u := base.ResolveReference(loc)
	q := u.Query()
	q.Set("digest", d)
	u.RawQuery = q.Encode()
	resp, err = p.do("PUT", u.String(), "application/octet-stream", b)
	if err != nil {
		return "", err
	}
	drain(resp) // the status says what matters
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("uploading blob %s to %s: HTTP %d", d, p.repo, resp.StatusCode)
	}
	return d, nil
}

// manifest puts a manifest or index under reference (a tag or its digest)
// and returns its digest.
func (p pusher) manifest(reference, mediaType string, body []byte) (string, error) {
	resp, err := p.do("PUT", p.base+"/v2/"+p.repo+"/manifests/"+reference, mediaType, body)
	if err != nil {
		return "", err
	}
	msg := drain(resp)
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("putting manifest %s of %s: HTTP %d %s", reference, p.repo, resp.StatusCode, msg)
	}
	return digestOf(body), nil
}

func drain(resp *http.Response) string {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return err.Error()
	}
	return string(b)
}
