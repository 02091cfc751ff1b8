package docker

import (
	"fmt"
	"slices"
	"strings"
)

// lockdown is what inspect says of a container's confinement: what
// hostConfig sets on every agent, read back.
type lockdown struct {
	Privileged  bool     `json:"Privileged"`
	CapAdd      []string `json:"CapAdd"`
	CapDrop     []string `json:"CapDrop"`
	SecurityOpt []string `json:"SecurityOpt"`
	PidMode     string   `json:"PidMode"`
	IpcMode     string   `json:"IpcMode"`
	UTSMode     string   `json:"UTSMode"`
	UsernsMode  string   `json:"UsernsMode"`
	Binds       []string `json:"Binds"`
	Devices     []any    `json:"Devices"`
}

// unconfined says how a container with this lockdown on network escapes
// the one every agent runs under ("" when it does not): what the platform
// never made.
func (l lockdown) unconfined(network string) string {
	shared := func(mode string) bool { return mode == "host" || strings.HasPrefix(mode, "container:") }
	switch {
	case l.Privileged:
		return "privileged"
	case len(l.CapAdd) > 0:
		return "capabilities added (" + strings.Join(l.CapAdd, ", ") + ")"
	case !slices.Contains(l.CapDrop, "ALL"):
		return "capabilities not all dropped"
	case !slices.ContainsFunc(l.SecurityOpt, func(o string) bool {
		return strings.HasPrefix(o, "no-new-privileges") && !strings.HasSuffix(o, "false")
	}):
		return "without no-new-privileges"
	case len(l.Binds) > 0:
		return fmt.Sprintf("a host mount (%s)", l.Binds[0])
	case len(l.Devices) > 0:
		return "host devices"
	case shared(network):
		return "the network namespace of " + network
	case shared(l.PidMode):
		return "the process namespace of " + l.PidMode
	case shared(l.IpcMode):
		return "the IPC namespace of " + l.IpcMode
	case l.UTSMode == "host":
		return "the host's UTS namespace"
	case l.UsernsMode == "host":
		return "the host's user namespace"
	}
	return ""
}
