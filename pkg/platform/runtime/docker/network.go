package docker

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"time"

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
		// Two networks of the name (two platforms made it at once): keep
		// one, the one every platform keeps.
		if StatusOf(err) != 0 && rt.dedupeNetwork(ctx, name) == nil {
			return nil
		}
		return engineError(err)
	}
	err = rt.Do(ctx, http.MethodPost, "/networks/create", nil, networkCreate{
		Name:           name,
		Driver:         "bridge",
		CheckDuplicate: true,
		Labels:         map[string]string{runtime.LabelManaged: "true"},
		Options:        map[string]string{"com.docker.network.bridge.enable_icc": "false"},
	}, nil)
	if err != nil && StatusOf(err) != http.StatusConflict { // a conflict: made meanwhile (another platform)
		return engineError(err)
	}
	return rt.dedupeNetwork(ctx, name)
}

// networkEntry is a network as the engine lists it.
type networkEntry struct {
	ID      string `json:"Id"`
	Name    string `json:"Name"`
	Created string `json:"Created"`
}

// dedupeNetwork keeps one network named name: the engine's duplicate check
// does not hold against creates at the same moment (two platforms starting
// on one engine), and a name shared by two networks is refused to every
// container that joins it. Every platform keeps the same one (the oldest,
// then the smallest ID) and removes the others (one in use stays).
func (rt *Runtime) dedupeNetwork(ctx context.Context, name string) error {
	var list []networkEntry
	q := url.Values{"filters": {`{"name":["` + name + `"]}`}}
	if err := rt.Do(ctx, http.MethodGet, "/networks", q, nil, &list); err != nil {
		return engineError(err)
	}
	list = slices.DeleteFunc(list, func(n networkEntry) bool {
		return n.Name != name // the filter matches names containing name
	})
	if len(list) < 2 {
		return nil
	}
	sortNetworks(list)
	for _, n := range list[1:] {
		_ = rt.Do(ctx, http.MethodDelete, "/networks/"+n.ID, nil, nil, nil) // error ignored: removed by another platform, or in use
	}
	return nil
}

// endpointNetworks is the part of a container's inspection that says
// where it is reached.
type endpointNetworks struct {
	Networks map[string]struct {
		IPAddress string `json:"IPAddress"`
		NetworkID string `json:"NetworkID"`
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
	if !ok { // joined by ID (networkID)
		for _, m := range ns.Networks {
			if m.NetworkID != "" && m.NetworkID == mode {
				n, ok = m, true
			}
		}
	}
	if !ok || n.IPAddress == "" {
		return ""
	}
	return net.JoinHostPort(n.IPAddress, port)
}

// networkID is the ID of the network agents named name join: the one every
// platform keeps of that name (dedupeNetwork's order), so that a duplicate
// made at this moment by another platform on the engine never makes the
// name ambiguous to the container created now. The engine's own networks
// ("bridge", "none") and a name it does not know stay as they are.
func (rt *Runtime) networkID(ctx context.Context, name string) string {
	if name == "" || name == "bridge" || name == "none" || name == "default" {
		return name
	}
	var list []networkEntry
	q := url.Values{"filters": {`{"name":["` + name + `"]}`}}
	if err := rt.Do(ctx, http.MethodGet, "/networks", q, nil, &list); err != nil {
		return name
	}
	list = slices.DeleteFunc(list, func(n networkEntry) bool { return n.Name != name })
	if len(list) == 0 {
		return name
	}
	sortNetworks(list)
	return list[0].ID
}

// sortNetworks orders networks of one name as every platform keeps them:
// the oldest first, then the smallest ID.
func sortNetworks(list []networkEntry) {
	sort.Slice(list, func(i, j int) bool {
		ti, _ := time.Parse(time.RFC3339Nano, list[i].Created)
		tj, _ := time.Parse(time.RFC3339Nano, list[j].Created)
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return list[i].ID < list[j].ID
	})
}
