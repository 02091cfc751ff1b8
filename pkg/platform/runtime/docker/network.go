package docker

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/botkit-dev/botkit/pkg/platform/runtime"
)

// networkCreate is the platform's network: a bridge, labelled as the
// platform's, whose containers cannot reach one another (inter-container
// communication off: agents of different organizations share it), that the
// engine's host reaches at their addresses. Nothing is published on the
// host's ports.
type networkCreate struct {
	Name           string            `json:"Name"`
	Driver         string            `json:"Driver"`
	CheckDuplicate bool              `json:"CheckDuplicate"`
	Labels         map[string]string `json:"Labels"`
	Options        map[string]string `json:"Options"`
}

// EnsureNetwork makes the bridge network name unless the engine has one of
// that name (used as it is, whoever made it).
func (rt *Runtime) EnsureNetwork(ctx context.Context, name string) error {
	if name == "" || name == "none" || name == "default" {
		return &runtime.Error{Reason: runtime.ReasonInvalid, Message: fmt.Sprintf("network %q: agents need a network the platform reaches", name)}
	}
	if err := checkNetwork(name); err != nil {
		return err
	}
	var n struct {
		Name string `json:"Name"`
	}
	err := rt.Do(ctx, http.MethodGet, "/networks/"+name, nil, nil, &n)
	if err == nil && n.Name == name {
		return nil
	}
	if err != nil && StatusOf(err) != http.StatusNotFound {
		return engineError(err)
	}
	err = rt.Do(ctx, http.MethodPost, "/networks/create", nil, networkCreate{
		Name:           name,
		Driver:         "bridge",
		CheckDuplicate: true,
		Labels:         map[string]string{runtime.LabelManaged: "true"},
		Options:        map[string]string{"com.docker.network.bridge.enable_icc": "false"},
	}, nil)
	if StatusOf(err) == http.StatusConflict {
		return nil // made meanwhile (another replica of the platform)
	}
	return engineError(err)
}

// endpointNetworks is the part of a container's inspection that says
// where it is reached.
type endpointNetworks struct {
	Networks map[string]struct {
		IPAddress string `json:"IPAddress"`
	} `json:"Networks"`
}

// endpoint is the address of a container on its network (mode: its
// HostConfig.NetworkMode) with port, "" when it has none there.
func endpoint(mode string, ns endpointNetworks, port string) string {
	if port == "" {
		return ""
	}
	if _, err := strconv.Atoi(port); err != nil {
		return ""
	}
	if mode == "default" {
		mode = "bridge" // the engine's default network
	}
	n, ok := ns.Networks[mode]
	if !ok || n.IPAddress == "" {
		return ""
	}
	return net.JoinHostPort(n.IPAddress, port)
}
