package docker

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// Runtime runs the platform's agents on one Docker Engine.
type Runtime struct {
	*Client

	plat string // the engine's platform, once known (under Client.mu)
}

var _ runtime.Runtime = (*Runtime)(nil)

// NewRuntime returns the runtime of the engine at host (see New).
func NewRuntime(host string) (*Runtime, error) {
	return OpenRuntime(Endpoint{Host: host})
}

// OpenRuntime returns the runtime of the engine ep names (see Open).
func OpenRuntime(ep Endpoint) (*Runtime, error) {
	c, err := Open(ep)
	if err != nil {
		return nil, err
	}
	return &Runtime{Client: c}, nil
}

// splitImage returns the name to pull (REGISTRY/REPOSITORY as written) and
// the tag or digest of an image reference.
func splitImage(image string) (name, ref string, err error) {
	r, err := resources.ParseImageRef(image)
	if err != nil {
		return "", "", &runtime.Error{Reason: runtime.ReasonInvalid, Message: err.Error()}
	}
	name = image
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.Contains(name[i:], "/") {
		name = name[:i]
	}
	ref = r.Reference()
	if ref == "" {
		ref = "latest"
	}
	return name, ref, nil
}

// RegistryAuth encodes credentials as the engine's X-Registry-Auth header.
func RegistryAuth(creds *runtime.Credentials) (string, error) {
	b, err := json.Marshal(map[string]string{"username": creds.Username, "password": creds.Password, "serveraddress": creds.Registry})
	if err != nil {
		return "", err
	}
	return base64.URLEncoding.EncodeToString(b), nil
}

// Pull pulls image with creds (the engine keeps no login).
func (rt *Runtime) Pull(ctx context.Context, image string, creds *runtime.Credentials) error {
	name, ref, err := splitImage(image)
	if err != nil {
		return err
	}
	h := http.Header{}
	if creds != nil {
		a, err := RegistryAuth(creds)
		if err != nil {
			return err
		}
		h.Set("X-Registry-Auth", a)
	}
	// The whole pull is bounded too: a registry that trickles progress
	// never ends it otherwise.
	pctx, bd := newBound(ctx, rt.Timeouts.Pull, "the pull of "+image)
	defer bd.end()
	resp, err := rt.Call(pctx, http.MethodPost, "/images/create", url.Values{"fromImage": {name}, "tag": {ref}}, h, nil)
	if err != nil {
		return pullError(image, rt.boundErr(bd, err))
	}
	defer resp.Body.Close()
	if err := DecodeStream(resp.Body, nil); err != nil {
		return pullError(image, rt.boundErr(bd, err))
	}
	return nil
}

// pullError types an engine's pull failure: by its HTTP status where the
// engine gives one (401/403, 404), else by the registry's error code in the
// engine's message (the OCI distribution specification's UNAUTHORIZED,
// DENIED, MANIFEST_UNKNOWN, NAME_UNKNOWN, which engines before API 1.44
// answer with HTTP 500 or inside the stream), or the engine's own words
// for a pull without credentials that the registry wants.
func pullError(image string, err error) error {
	var re *runtime.Error
	if errors.As(err, &re) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	var ae *APIError
	var se *StreamError
	switch {
	case errors.As(err, &ae):
		msg = ae.Message
		switch ae.Status {
		case http.StatusUnauthorized, http.StatusForbidden:
			return &runtime.Error{Reason: runtime.ReasonUnauthorized, Image: image, Message: msg}
		case http.StatusNotFound:
			return &runtime.Error{Reason: runtime.ReasonImageNotFound, Image: image, Message: msg}
		}
	case errors.As(err, &se):
		msg = se.Message
	}
	return &runtime.Error{Reason: registryReason(msg), Image: image, Message: msg}
}

// registryCodes are the distribution specification's error codes, as
// engines print them ("unauthorized: authentication required"), and the
// engine's message for a missing login.
var registryCodes = []struct {
	text   string
	reason runtime.Reason
}{
	{"unauthorized:", runtime.ReasonUnauthorized},
	{"denied:", runtime.ReasonUnauthorized},
	{"no basic auth credentials", runtime.ReasonUnauthorized},
	{"manifest unknown", runtime.ReasonImageNotFound},
	{"name unknown", runtime.ReasonImageNotFound},
}

func registryReason(msg string) runtime.Reason {
	for _, c := range registryCodes {
		if strings.Contains(msg, c.text) {
			return c.reason
		}
	}
	return runtime.ReasonPullFailed
}

type imageJSON struct {
	RepoDigests []string `json:"RepoDigests"`
}

// ImageDigest returns the registry digest of a pulled image.
func (rt *Runtime) ImageDigest(ctx context.Context, image string) (string, error) {
	want, err := resources.ParseImageRef(image)
	if err != nil {
		return "", &runtime.Error{Reason: runtime.ReasonInvalid, Message: err.Error()}
	}
	var im imageJSON
	if err := rt.do(ctx, rt.Timeouts.Quick, http.MethodGet, "/images/"+image+"/json", nil, nil, &im); err != nil {
		if StatusOf(err) == http.StatusNotFound {
			return "", &runtime.Error{Reason: runtime.ReasonImageNotFound, Image: image}
		}
		return "", engineError(err)
	}
	for _, rd := range im.RepoDigests {
		if r, err := resources.ParseImageRef(rd); err == nil && sameRepository(r, want) {
			return r.Digest, nil
		}
	}
	return "", &runtime.Error{Reason: runtime.ReasonImageNotFound, Image: image, Message: "the engine has the image but not from its registry (no digest)"}
}

// sameRepository reports whether two references name one repository of
// one registry, whatever their spelling ("python", "docker.io/library/python").
func sameRepository(a, b resources.ImageRef) bool {
	return resources.RegistryName(a.Registry) == resources.RegistryName(b.Registry) && a.Repository == b.Repository
}

// engineError types an engine's refusal that has no better reason.
func engineError(err error) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return &runtime.Error{Reason: runtime.ReasonEngine, Message: ae.Message}
	}
	return err
}

type restartPolicy struct {
	Name              string `json:"Name"`
	MaximumRetryCount int    `json:"MaximumRetryCount"`
}

type logConfig struct {
	Type   string            `json:"Type"`
	Config map[string]string `json:"Config"`
}

// hostConfig is the lockdown every agent runs under: not privileged, no
// mounts, no host namespaces, no capabilities, no new privileges, the
// profile's limits.
type hostConfig struct {
	Privileged     bool          `json:"Privileged"`
	CapDrop        []string      `json:"CapDrop"`
	SecurityOpt    []string      `json:"SecurityOpt"`
	Memory         int64         `json:"Memory"`
	MemorySwap     int64         `json:"MemorySwap"`
	NanoCPUs       int64         `json:"NanoCpus"`
	PidsLimit      int64         `json:"PidsLimit"`
	RestartPolicy  restartPolicy `json:"RestartPolicy"`
	NetworkMode    string        `json:"NetworkMode,omitempty"`
	IpcMode        string        `json:"IpcMode"`
	PidMode        string        `json:"PidMode"`
	UTSMode        string        `json:"UTSMode"`
	UsernsMode     string        `json:"UsernsMode"`
	Binds          []string      `json:"Binds"`
	PublishAll     bool          `json:"PublishAllPorts"`
	LogConfig      logConfig     `json:"LogConfig"`
	ReadonlyRootfs bool          `json:"ReadonlyRootfs"`
}

type createBody struct {
	Image            string            `json:"Image"`
	User             string            `json:"User,omitempty"`
	Env              []string          `json:"Env"`
	Labels           map[string]string `json:"Labels"`
	HostConfig       hostConfig        `json:"HostConfig"`
	NetworkingConfig *networkingConfig `json:"NetworkingConfig,omitempty"`
	port             string            // PORT, also a label
}

// networkingConfig names the network a container joins by its ID in the
// endpoint too: the engine keeps a container's network by name, and
// resolves that name again when the container starts, which two networks
// of one name (two platforms made it at once, both in use) make ambiguous;
// an endpoint's NetworkID is used as it is.
type networkingConfig struct {
	EndpointsConfig map[string]endpointConfig `json:"EndpointsConfig"`
}

type endpointConfig struct {
	NetworkID string `json:"NetworkID"`
}

// join makes the container join network, the network named name as
// networkID resolved it (the name itself when it is the engine's own or
// unknown).
func (b *createBody) join(network, name string) {
	b.HostConfig.NetworkMode, b.NetworkingConfig = network, nil
	if network != name { // joined by ID
		b.NetworkingConfig = &networkingConfig{EndpointsConfig: map[string]endpointConfig{network: {NetworkID: network}}}
	}
}

// checkNetwork refuses the networks an agent must not join.
func checkNetwork(n string) error {
	switch {
	case n == "host":
		return &runtime.Error{Reason: runtime.ReasonInvalid, Message: "agents never join the host's network"}
	case strings.Contains(n, ":"):
		return &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("network %q: agents join a network, not another container's namespace", n)}
	}
	return nil
}

func restartOf(p runtime.RestartPolicy) (restartPolicy, error) {
	switch p.Name {
	case "":
		p = runtime.DefaultRestart
	case runtime.RestartNever, runtime.RestartOnFailure, runtime.RestartAlways, runtime.RestartUnlessStopped:
	default:
		return restartPolicy{}, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("restart policy %q", p.Name)}
	}
	r := restartPolicy{Name: p.Name}
	if p.Name == runtime.RestartOnFailure {
		r.MaximumRetryCount = p.MaxRetries
	}
	return r, nil
}

// Start creates and starts the agents of spec at once.
func (rt *Runtime) Start(ctx context.Context, spec runtime.StartSpec) ([]runtime.Agent, error) {
	ref, err := resources.ParseImageRef(spec.Image)
	if err != nil {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: err.Error()}
	}
	if ref.Digest == "" {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("image %s: agents run an image pinned by digest", spec.Image)}
	}
	if spec.Count < 1 {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: "no agents to start"}
	}
	if spec.Profile.MemoryBytes <= 0 || spec.Profile.NanoCPUs <= 0 || spec.Profile.PIDs <= 0 {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("profile %q has no limits", spec.Profile.Name)}
	}
	if err := checkNetwork(spec.Network); err != nil {
		return nil, err
	}
	restart, err := restartOf(spec.Restart)
	if err != nil {
		return nil, err
	}
	port := spec.Port
	if port == 0 {
		port = runtime.DefaultPort
	}
	if port < 1 || port > 65535 {
		return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("port %d", port)}
	}
	env := make([]string, 0, len(spec.Env)+1)
	for k, v := range spec.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("environment variable %q: not a name an engine accepts", k)}
		}
		if k != "PORT" { // the platform's PORT wins: it reaches the agent there
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "PORT="+strconv.Itoa(port))
	sort.Strings(env)
	network := rt.networkID(ctx, spec.Network)
	body := createBody{
		Image: spec.Image,
		User:  spec.User,
		Env:   env,
		port:  strconv.Itoa(port),
		HostConfig: hostConfig{
			CapDrop:       []string{"ALL"},
			SecurityOpt:   []string{"no-new-privileges"},
			Memory:        spec.Profile.MemoryBytes,
			MemorySwap:    spec.Profile.MemoryBytes,
			NanoCPUs:      spec.Profile.NanoCPUs,
			PidsLimit:     spec.Profile.PIDs,
			RestartPolicy: restart,
			IpcMode:       "private",
			LogConfig:     logConfig{Type: "json-file", Config: map[string]string{"max-size": "10m", "max-file": "3"}},
		},
	}
	body.join(network, spec.Network)
	ids := make([]string, spec.Count)
	errs := make([]error, spec.Count)
	var wg sync.WaitGroup
	for i := range spec.Count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = rt.startOne(ctx, spec.Owner, spec.FirstIndex+i, spec.Labels, body)
			if errors.Is(errs[i], errNetworkGone) {
				// Joined again, by the ID the network's name has now.
				if ids[i] != "" {
					_ = rt.Remove(ctx, ids[i], 0) // error ignored: never started; the start below is the news
				}
				again := body
				again.join(rt.networkID(ctx, spec.Network), spec.Network)
				ids[i], errs[i] = rt.startOne(ctx, spec.Owner, spec.FirstIndex+i, spec.Labels, again)
				if errors.Is(errs[i], errNetworkGone) {
					errs[i] = &runtime.Error{Reason: runtime.ReasonEngine, Message: fmt.Sprintf("network %s: removed while the agent joined it, twice", spec.Network)}
				}
			}
		}()
	}
	wg.Wait()
	var agents []runtime.Agent
	for i, id := range ids {
		if id == "" || errs[i] != nil {
			continue
		}
		a, err := rt.inspect(ctx, id)
		if err != nil {
			errs[i] = err
			continue
		}
		agents = append(agents, a)
	}
	return agents, errors.Join(errs...)
}

// containerName names an agent's container for people (labels say whose it
// is; the suffix keeps names unique whatever the names contain).
func containerName(o runtime.Owner, index int) string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return fmt.Sprintf("botkit-%s-%s-%d-%d-%s", o.Organization, o.Agent, o.Deployment, index, hex.EncodeToString(b[:]))
}

func (rt *Runtime) startOne(ctx context.Context, o runtime.Owner, index int, extra map[string]string, body createBody) (string, error) {
	body.Labels = o.Labels(index)
	body.Labels[runtime.LabelPort] = body.port
	for k, v := range extra {
		if _, owner := body.Labels[k]; !owner && k != runtime.LabelManaged {
			body.Labels[k] = v
		}
	}
	var created struct {
		ID string `json:"Id"`
	}
	err := rt.Do(ctx, http.MethodPost, "/containers/create", url.Values{"name": {containerName(o, index)}}, body, &created)
	if err != nil {
		switch {
		case networkGone(err):
			return "", errNetworkGone
		case StatusOf(err) == http.StatusNotFound:
			return "", &runtime.Error{Reason: runtime.ReasonImageNotFound, Image: body.Image, Message: "not pulled"}
		}
		return "", engineError(err)
	}
	if err := rt.Do(ctx, http.MethodPost, "/containers/"+created.ID+"/start", nil, nil, nil); err != nil {
		if networkGone(err) {
			return created.ID, errNetworkGone
		}
		return created.ID, engineError(err)
	}
	return created.ID, nil
}

// errNetworkGone: the network a start resolved was removed before the
// container joined it (another platform on the engine made the agents'
// network at the same moment and kept its own).
var errNetworkGone = errors.New("the agents' network was removed meanwhile")

// networkGone reports whether the engine refused a container because its
// network no longer exists (404, "network … not found").
func networkGone(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound && strings.HasPrefix(ae.Message, "network ")
}

type containerJSON struct {
	ID           string `json:"Id"`
	Name         string `json:"Name"`
	RestartCount int    `json:"RestartCount"`
	Config       struct {
		Image  string            `json:"Image"`
		Labels map[string]string `json:"Labels"`
	} `json:"Config"`
	HostConfig struct {
		RestartPolicy restartPolicy `json:"RestartPolicy"`
		NetworkMode   string        `json:"NetworkMode"`
		lockdown
	} `json:"HostConfig"`
	Mounts []struct {
		Type   string `json:"Type"`
		Source string `json:"Source"`
	} `json:"Mounts"`
	NetworkSettings endpointNetworks `json:"NetworkSettings"`
	State           struct {
		Status     string `json:"Status"`
		OOMKilled  bool   `json:"OOMKilled"`
		ExitCode   int    `json:"ExitCode"`
		StartedAt  string `json:"StartedAt"`
		FinishedAt string `json:"FinishedAt"`
		Health     *struct {
			Status string `json:"Status"`
		} `json:"Health"`
	} `json:"State"`
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Year() <= 1 {
		return time.Time{}
	}
	return t
}

func (rt *Runtime) inspect(ctx context.Context, id string) (runtime.Agent, error) {
	var c containerJSON
	if err := rt.do(ctx, rt.Timeouts.Quick, http.MethodGet, "/containers/"+id+"/json", nil, nil, &c); err != nil {
		return runtime.Agent{}, err
	}
	owner, index := runtime.OwnerOf(c.Config.Labels)
	a := runtime.Agent{
		ID:         c.ID,
		Name:       strings.TrimPrefix(c.Name, "/"),
		Labels:     c.Config.Labels,
		Owner:      owner,
		Index:      index,
		Image:      c.Config.Image,
		State:      runtime.State(c.State.Status),
		Restarts:   c.RestartCount,
		StartedAt:  parseTime(c.State.StartedAt),
		FinishedAt: parseTime(c.State.FinishedAt),
		ExitCode:   c.State.ExitCode,
		OOMKilled:  c.State.OOMKilled,
		Restart:    runtime.RestartPolicy{Name: c.HostConfig.RestartPolicy.Name, MaxRetries: c.HostConfig.RestartPolicy.MaximumRetryCount},
		Endpoint:   endpoint(c.HostConfig.NetworkMode, c.NetworkSettings, c.Config.Labels[runtime.LabelPort]),
		Unconfined: c.HostConfig.unconfined(c.HostConfig.NetworkMode),
	}
	if a.Unconfined == "" && len(c.Mounts) > 0 {
		a.Unconfined = fmt.Sprintf("a %s mount of %s", c.Mounts[0].Type, c.Mounts[0].Source)
	}
	if c.State.Health != nil && c.State.Health.Status != "none" {
		a.Health = runtime.Health(c.State.Health.Status)
	}
	return a, nil
}

// List returns the platform's agents that sel matches.
func (rt *Runtime) List(ctx context.Context, sel runtime.Selector) ([]runtime.Agent, error) {
	filters, err := json.Marshal(map[string][]string{"label": sel.Filters()})
	if err != nil {
		return nil, err
	}
	var list []struct {
		ID string `json:"Id"`
	}
	if err := rt.do(ctx, rt.Timeouts.Quick, http.MethodGet, "/containers/json", url.Values{"all": {"1"}, "filters": {string(filters)}}, nil, &list); err != nil {
		return nil, engineError(err)
	}
	agents := make([]runtime.Agent, 0, len(list))
	for _, c := range list {
		a, err := rt.inspect(ctx, c.ID)
		if StatusOf(err) == http.StatusNotFound {
			continue // removed since the list
		} else if err != nil {
			return nil, engineError(err)
		}
		if sel.Matches(a.Labels) {
			agents = append(agents, a)
		}
	}
	sort.Slice(agents, func(i, j int) bool { return agents[i].Name < agents[j].Name })
	return agents, nil
}

func seconds(d time.Duration) url.Values {
	return url.Values{"t": {strconv.Itoa(int(d.Round(time.Second) / time.Second))}}
}

// Remove stops an agent and removes its container.
func (rt *Runtime) Remove(ctx context.Context, id string, grace time.Duration) error {
	err := rt.do(ctx, rt.Timeouts.Call+grace, http.MethodPost, "/containers/"+id+"/stop", seconds(grace), nil, nil)
	if StatusOf(err) == http.StatusNotFound {
		return nil
	} else if err != nil && StatusOf(err) != http.StatusNotModified {
		return engineError(err)
	}
	err = rt.Do(ctx, http.MethodDelete, "/containers/"+id, url.Values{"v": {"1"}, "force": {"1"}}, nil, nil)
	if s := StatusOf(err); s == http.StatusNotFound || s == http.StatusConflict {
		return nil // gone, or its removal under way
	}
	return engineError(err)
}

// Restart stops an agent and starts it again.
func (rt *Runtime) Restart(ctx context.Context, id string, grace time.Duration) error {
	return engineError(rt.do(ctx, rt.Timeouts.Call+grace, http.MethodPost, "/containers/"+id+"/restart", seconds(grace), nil, nil))
}

// SetRestartPolicy changes an agent's restart policy.
func (rt *Runtime) SetRestartPolicy(ctx context.Context, id string, p runtime.RestartPolicy) error {
	r, err := restartOf(p)
	if err != nil {
		return err
	}
	return engineError(rt.Do(ctx, http.MethodPost, "/containers/"+id+"/update", nil, map[string]any{"RestartPolicy": r}, nil))
}

// Platform returns the engine's OS and architecture (GET /info: OSType,
// Architecture), in the names of image platforms: the engine says x86_64
// and aarch64 as uname does, images amd64 and arm64. An engine's answer is
// kept; a failure is not.
func (rt *Runtime) Platform(ctx context.Context) (string, error) {
	rt.mu.Lock()
	p := rt.plat
	rt.mu.Unlock()
	if p != "" {
		return p, nil
	}
	var info struct {
		OSType       string `json:"OSType"`
		Architecture string `json:"Architecture"`
	}
	if err := rt.do(ctx, rt.Timeouts.Quick, http.MethodGet, "/info", nil, nil, &info); err != nil {
		return "", engineError(err)
	}
	if info.OSType == "" || info.Architecture == "" {
		return "", &runtime.Error{Reason: runtime.ReasonEngine, Message: "the engine does not say its OS and architecture (GET /info)"}
	}
	p = PlatformOf(info.OSType, info.Architecture)
	rt.mu.Lock()
	rt.plat = p
	rt.mu.Unlock()
	return p, nil
}

// PlatformOf returns the image platform ("linux/arm64", "linux/arm/v7") of
// an OS and a machine architecture as uname and engines name it.
func PlatformOf(osType, arch string) string {
	switch a := strings.ToLower(arch); a {
	case "x86_64", "x86-64", "amd64":
		arch = "amd64"
	case "aarch64", "arm64", "armv8", "armv8l":
		arch = "arm64"
	case "armv7l", "armv7":
		arch = "arm/v7"
	case "armv6l", "armv6":
		arch = "arm/v6"
	case "i386", "i486", "i586", "i686", "x86":
		arch = "386"
	default:
		arch = a
	}
	return strings.ToLower(osType) + "/" + arch
}
