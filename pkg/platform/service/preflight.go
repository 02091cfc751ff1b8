package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Preflight (botkit preflight, docs/deploy.md): the checks of a deploy that
// need the platform. The image check asks the registry through the
// ImageChecker the service was given (the provisioner's HTTP client); the
// service itself speaks no HTTP.

// ImageCheck is what the service asks an ImageChecker.
type ImageCheck struct {
	Base        string // the registry API's base URL
	Repository  string
	Reference   string // tag or digest
	Credentials string // base64 "user:pass"; "" asks anonymously
}

// Outcomes of an ImageChecker.
const (
	ImageFound        = "found"
	ImageUnauthorized = "unauthorized"
	ImageNotFound     = "not-found"
	ImageUnreachable  = "unreachable"
)

// ImageResult is an ImageChecker's answer. Outcome is one of the Image*
// outcomes, or anything else for an answer the check cannot use (Message
// says which).
type ImageResult struct {
	Outcome   string
	Digest    string
	Platforms []string
	Message   string
}

// ImageChecker asks a registry for an image's manifest.
type ImageChecker func(ctx context.Context, c ImageCheck) ImageResult

// DeployPlatform is the platform Pipecat Cloud runs agents on, which the
// generated Dockerfile builds for.
const DeployPlatform = "linux/arm64"

// Stable ids of the platform's checks.
const (
	checkRegion          = "region"
	checkSecretSet       = "secret-set"
	checkSecretSetKeys   = "secret-set-keys"
	checkImagePullSecret = "image-pull-secret"
	checkImage           = "image"
	checkImagePlatform   = "image-platform"
)

// Preflight implements POST /v1/organizations/{org}/preflight.
func (s *Service) Preflight(ctx context.Context, p Principal, req resources.PreflightRequest) (resources.PreflightResult, error) {
	res := resources.PreflightResult{TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindPreflightResult}}
	for _, k := range append(slices.Clone(req.RequiredKeys), req.OptionalKeys...) {
		if err := resources.ValidateKey(k); err != nil {
			return res, errInvalid("keys: %v", err)
		}
	}
	if len(req.RequiredKeys)+len(req.OptionalKeys) > resources.MaxKeys {
		return res, errTooLarge("at most %d keys", resources.MaxKeys)
	}
	checks := &preflightChecks{}
	add := checks.add
	res.Region = req.Region
	if res.Region == "" {
		res.Region = p.org.DefaultRegion
		add(checkRegion, resources.CheckOK, "%s, the organization's default region (the deploy file names none)", res.Region)
	} else if err := resources.ValidateRegion(res.Region); err != nil {
		add(checkRegion, resources.CheckFail, "%v", err)
	} else {
		add(checkRegion, resources.CheckOK, "%s", res.Region)
	}

	// The secret set and its keys.
	if req.SecretSet == "" {
		if len(req.RequiredKeys) > 0 {
			add(checkSecretSet, resources.CheckFail, "the deploy file names no secret_set, and the project needs %s; create one with botkit cloud secrets set NAME --file .env and name it in secret_set", strings.Join(req.RequiredKeys, ", "))
		} else {
			add(checkSecretSet, resources.CheckOK, "none named, and no keys were asked for")
		}
	} else if o, ok, err := s.preflightObject(ctx, p, req.SecretSet, resources.KindSecretSet, res.Region, "secret_set", checks, checkSecretSet); err != nil {
		return res, err
	} else if ok {
		var missing, empty, optional []string
		for _, k := range req.RequiredKeys {
			// Keys holds each value's size: an empty value is known
			// without reading (or decrypting) it.
			switch size, has := o.Keys[k]; {
			case !has:
				missing = append(missing, k)
			case size == 0:
				empty = append(empty, k)
			}
		}
		for _, k := range req.OptionalKeys {
			if _, has := o.Keys[k]; !has {
				optional = append(optional, k)
			}
		}
		switch {
		case len(missing)+len(empty) > 0:
			var parts []string
			if len(missing) > 0 {
				parts = append(parts, fmt.Sprintf("%s lacks %s (from .env.example)", req.SecretSet, strings.Join(missing, ", ")))
			}
			if len(empty) > 0 {
				parts = append(parts, fmt.Sprintf("%s %s empty in %s (required by .env.example)", strings.Join(empty, ", "), isAre(len(empty)), req.SecretSet))
			}
			checks.addKeys(checkSecretSetKeys, resources.CheckFail, keyStates(missing, empty), "%s; set them with botkit cloud secrets set %s KEY=...", strings.Join(parts, "; "), req.SecretSet)
		case len(optional) > 0:
			add(checkSecretSetKeys, resources.CheckOK, "all %d required keys present; optional keys not set: %s", len(req.RequiredKeys), strings.Join(optional, ", "))
		default:
			add(checkSecretSetKeys, resources.CheckOK, "all %d required keys present", len(req.RequiredKeys))
		}
	}

	// The image pull secret, then the image.
	var ref resources.ImageRef
	refOK := false
	if req.Image != "" {
		var err error
		if ref, err = resources.ParseImageRef(req.Image); err != nil {
			add(checkImage, resources.CheckFail, "%v", err)
		} else if ref.Reference() == "" {
			add(checkImage, resources.CheckFail, "image %s has no tag or digest", req.Image)
		} else {
			refOK = true
		}
	}
	base, creds := "", ""
	credsOK := true
	if req.ImagePullSecret != "" {
		o, ok, err := s.preflightObject(ctx, p, req.ImagePullSecret, resources.KindImagePullSecret, res.Region, "image_credentials", checks, checkImagePullSecret)
		if err != nil {
			return res, err
		}
		credsOK = ok
		if ok && refOK {
			if have, want := resources.RegistryName(o.Host), resources.RegistryName(ref.Registry); have != want {
				add(checkImagePullSecret, resources.CheckFail, "%s", registryMismatch(req.ImagePullSecret, have, want))
				credsOK = false
			} else if base, creds, err = s.pullAccess(ctx, p.org.Name, ref, &o); err != nil {
				return res, err
			}
		}
	}
	switch {
	case req.Image == "":
		add(checkImage, resources.CheckOK, "no image named (built by Pipecat Cloud from build_id): nothing to pull")
	case !refOK:
	case !credsOK:
		add(checkImage, resources.CheckFail, "not checked: fix image_credentials first")
	default:
		if base == "" {
			base, _, _ = s.pullAccess(ctx, p.org.Name, ref, nil) // error ignored: none without a pull secret
		}
		s.preflightImage(ctx, req, res.Region, ref, base, creds, checks)
	}
	res.Checks = checks.list
	return res, nil
}

// pullAccess returns the registry API's base URL through which ref is
// pulled and the credentials of image pull secret ips (base64 "user:pass",
// as stored; "" without a pull secret: anonymous). The caller checked that
// ips is for ref's registry. Preflight's image check and a deployment's
// digest resolution both ask the registry this way.
func (s *Service) pullAccess(ctx context.Context, org string, ref resources.ImageRef, ips *store.Object) (base, creds string, err error) {
	if ips == nil {
		return resources.RegistryURL(ref.Registry), "", nil
	}
	vals, err := s.decryptAll(ctx, s.store, org, *ips)
	if err != nil {
		return "", "", err
	}
	base = ips.Host
	if resources.RegistryName(ips.Host) == resources.DockerHub {
		base = resources.RegistryURL(resources.DockerHub)
	}
	return base, string(vals[store.CredentialsKey]), nil
}

// registryMismatch says that pull secret name holds credentials for
// registry have while the image is on want (both RegistryNames: Docker
// Hub's aliases are one name). localhost and a loopback address are two
// names: Docker looks credentials up by the name the image reference
// writes, so a deploy would pull without them.
func registryMismatch(name, have, want string) string {
	msg := fmt.Sprintf("%s holds credentials for %s, but the image is on %s", name, have, want)
	if loopback(have) && loopback(want) && port(have) == port(want) {
		msg += fmt.Sprintf(" (the same machine, but another registry name: credentials are looked up by the name the image is written with; write the image as %s/... or create the pull secret for %s)", have, want)
	}
	return msg
}

// loopback reports whether a registry name is on the loopback interface.
func loopback(name string) bool {
	return resources.RegistryScheme(name) == "http"
}

// port is a registry name's port ("" when it names none).
func port(name string) string {
	_, p, err := net.SplitHostPort(name)
	if err != nil {
		return ""
	}
	return p
}

// preflightChecks collects the checks of one preflight, in order, one
// result per id (resources.AddCheck).
type preflightChecks struct{ list []resources.PreflightCheck }

func (c *preflightChecks) add(id, result, format string, args ...any) {
	c.addKeys(id, result, nil, format, args...)
}

// addKeys adds a check about keys of a secret set: keys says, per key,
// what is wrong with it (resources.KeyMissing, resources.KeyEmpty).
func (c *preflightChecks) addKeys(id, result string, keys map[string]string, format string, args ...any) {
	c.list = resources.AddCheck(c.list, resources.PreflightCheck{ID: id, Result: result, Detail: fmt.Sprintf(format, args...), Keys: keys})
}

// keyStates is the Keys of a check: each missing and each empty key.
func keyStates(missing, empty []string) map[string]string {
	m := make(map[string]string, len(missing)+len(empty))
	for _, k := range missing {
		m[k] = resources.KeyMissing
	}
	for _, k := range empty {
		m[k] = resources.KeyEmpty
	}
	return m
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// preflightObject checks that name is an object of kind in region, ready;
// ok is true when it exists with that kind (whatever its state), so the
// checks that read it can run.
func (s *Service) preflightObject(ctx context.Context, p Principal, name, kind, region, key string, checks *preflightChecks, id string) (store.Object, bool, error) {
	add := checks.add
	o, err := s.store.Object(ctx, p.org.ID, name)
	if errors.Is(err, store.ErrNotFound) {
		how := "botkit cloud secrets set " + name + " --file server/.env"
		if kind == resources.KindImagePullSecret {
			how = "botkit cloud secrets image-pull-secret " + name + " HOST"
		}
		add(id, resources.CheckFail, "%s %q (%s) does not exist in organization %s; create it: %s", strings.ToLower(kindWords(kind)), name, key, p.org.Name, how)
		return o, false, nil
	}
	if err != nil {
		return o, false, err
	}
	if o.Kind != kind {
		add(id, resources.CheckFail, "%s is %s, not %s (%s)", name, kindWords(o.Kind), kindWords(kind), key)
		return o, false, nil
	}
	switch {
	case o.Region != region:
		add(id, resources.CheckFail, "%s is in region %s; the agent deploys to %s, and a deployment reads only objects of its region", name, o.Region, region)
	case o.State == resources.StateFailed:
		add(id, resources.CheckFail, "%s failed: %s", name, o.Message)
	case o.State == resources.StatePending:
		add(id, resources.CheckWarning, "%s is still pending (botkit preflight --wait waits for it)", name)
	default:
		add(id, resources.CheckOK, "%s, region %s, %s", name, o.Region, o.State)
	}
	return o, true, nil
}

func kindWords(kind string) string {
	if kind == resources.KindImagePullSecret {
		return "an image pull secret"
	}
	return "a secret set"
}

func (s *Service) preflightImage(ctx context.Context, req resources.PreflightRequest, region string, ref resources.ImageRef, base, creds string, checks *preflightChecks) {
	add := checks.add
	if s.checkImage == nil {
		add(checkImage, resources.CheckWarning, "not checked: this platform does not reach registries")
		return
	}
	r := s.checkImage(ctx, ImageCheck{Base: base, Repository: ref.Repository, Reference: ref.Reference(), Credentials: creds})
	host := resources.RegistryName(ref.Registry)
	switch r.Outcome {
	case ImageFound:
		add(checkImage, resources.CheckOK, "%s is on %s: digest %s", req.Image, host, r.Digest)
		engine := s.enginePlatform(ctx, region)
		switch {
		case engine != "" && len(r.Platforms) == 0:
			add(checkImagePlatform, resources.CheckWarning, "the registry does not say which platforms the image is for; the engine of region %s runs %s", region, engine)
		case engine != "" && platformFits(r.Platforms, engine):
			add(checkImagePlatform, resources.CheckOK, "built for %s; the engine of region %s runs %s", strings.Join(r.Platforms, ", "), region, engine)
		case engine != "":
			add(checkImagePlatform, resources.CheckFail, "%s", platformMismatch(req.Image, r.Platforms, region, engine))
		case len(r.Platforms) == 0:
			add(checkImagePlatform, resources.CheckWarning, "the registry does not say which platforms the image is for; Pipecat Cloud runs %s", DeployPlatform)
		case slices.Contains(r.Platforms, DeployPlatform) || slices.ContainsFunc(r.Platforms, func(pl string) bool { return strings.HasPrefix(pl, DeployPlatform+"/") }):
			add(checkImagePlatform, resources.CheckOK, "built for %s", strings.Join(r.Platforms, ", "))
		default:
			add(checkImagePlatform, resources.CheckWarning, "built for %s only; Pipecat Cloud runs %s: build with docker buildx build --platform %s", strings.Join(r.Platforms, ", "), DeployPlatform, DeployPlatform)
		}
	case ImageUnauthorized:
		if creds == "" {
			add(checkImage, resources.CheckFail, "%s wants credentials to pull %s (%s): create an image pull secret for it and name it in image_credentials", host, ref.Repository, r.Message)
		} else {
			add(checkImage, resources.CheckFail, "%s refused the credentials of image pull secret %s (%s)", host, req.ImagePullSecret, r.Message)
		}
	case ImageNotFound:
		add(checkImage, resources.CheckFail, "%s has no %s (%s): push the image first", host, ref.Pull(), r.Message)
	case ImageUnreachable:
		add(checkImage, resources.CheckFail, "%s", r.Message)
	default:
		add(checkImage, resources.CheckFail, "%s: %s", host, r.Message)
	}
}

// enginePlatform returns the platform of the engine that runs region's
// agents: "" when the region has no runtime or its engine does not say
// (the checks against Pipecat Cloud's platform apply then).
func (s *Service) enginePlatform(ctx context.Context, region string) string {
	p, err := s.agents.EnginePlatform(ctx, region)
	if err != nil {
		return ""
	}
	return p
}

// checkEnginePlatform refuses an image none of whose platforms (as its
// registry lists them; none listed: not refused) is the platform of the
// engine that runs region's agents.
func (s *Service) checkEnginePlatform(ctx context.Context, region, image string, platforms []string) error {
	engine := s.enginePlatform(ctx, region)
	if engine == "" || len(platforms) == 0 || platformFits(platforms, engine) {
		return nil
	}
	return resources.Errorf(resources.CodeUnprocessable, "%s", platformMismatch(image, platforms, region, engine))
}

func platformMismatch(image string, platforms []string, region, engine string) string {
	return fmt.Sprintf("image %s is built for %s only; the engine of region %s runs %s: build it for %s (docker buildx build --platform %s)",
		image, strings.Join(platforms, ", "), region, engine, engine, engine)
}

// platformFits reports whether one of an image's platforms (OS/ARCH or
// OS/ARCH/VARIANT) runs on an engine's: the same OS and architecture, and
// the same variant when both name one.
func platformFits(platforms []string, engine string) bool {
	want := strings.SplitN(engine, "/", 3)
	for _, pl := range platforms {
		have := strings.SplitN(pl, "/", 3)
		if len(have) < 2 || len(want) < 2 || have[0] != want[0] || have[1] != want[1] {
			continue
		}
		if len(have) == 3 && len(want) == 3 && have[2] != want[2] {
			continue
		}
		return true
	}
	return false
}
