package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// Reason is why an engine operation or an agent failed, in a word a
// status message can carry.
type Reason string

// The reasons of an *Error.
const (
	// ReasonUnauthorized: the registry refused the pull's credentials.
	ReasonUnauthorized Reason = "ImagePullUnauthorized"
	// ReasonImageNotFound: the registry (or the engine) has no such image.
	ReasonImageNotFound Reason = "ImageNotFound"
	// ReasonPullFailed: the pull failed otherwise (registry unreachable…).
	ReasonPullFailed Reason = "ImagePullFailed"
	// ReasonUnreachable: the engine does not answer.
	ReasonUnreachable Reason = "EngineUnreachable"
	// ReasonEngine: the engine refused or failed an operation.
	ReasonEngine Reason = "EngineError"
	// ReasonCrashed: an agent exited (or was restarted after exiting).
	ReasonCrashed Reason = "Exited"
	// ReasonOOMKilled: an agent was killed for passing its memory limit.
	ReasonOOMKilled Reason = "OOMKilled"
	// ReasonUnhealthy: the image's HEALTHCHECK reports the agent unhealthy.
	ReasonUnhealthy Reason = "Unhealthy"
	// ReasonInvalid: the request itself is wrong (no digest, host network…).
	ReasonInvalid Reason = "Invalid"
	// ReasonNotReady: a rollout's agents were not ready in the time it has.
	ReasonNotReady Reason = "NotReady"
)

// Error is a runtime failure with its reason. Agent failures carry the
// agent, its exit code, restarts and last log lines.
type Error struct {
	Reason Reason
	// Image is the image of a pull failure.
	Image string
	// Agent is the failing agent's container name.
	Agent     string
	ExitCode  int
	Restarts  int
	LastLines []string
	// Engine names the engine of a failure to reach it: its address and
	// where that came from ("unix:///var/run/docker.sock (default)").
	Engine string
	// Message is what the engine said, when it said something.
	Message string
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	switch e.Reason {
	case ReasonUnauthorized:
		fmt.Fprintf(&b, "pulling %s: the registry refused the credentials", e.Image)
	case ReasonImageNotFound:
		fmt.Fprintf(&b, "image %s not found", e.Image)
	case ReasonPullFailed:
		fmt.Fprintf(&b, "pulling %s failed", e.Image)
	case ReasonUnreachable:
		if e.Engine != "" {
			fmt.Fprintf(&b, "cannot reach the container engine at %s", e.Engine)
		} else {
			b.WriteString("the container engine does not answer")
		}
	case ReasonCrashed:
		fmt.Fprintf(&b, "agent %s exited with code %d", e.Agent, e.ExitCode)
		if e.Restarts > 0 {
			fmt.Fprintf(&b, " (restarted %d times)", e.Restarts)
		}
	case ReasonOOMKilled:
		fmt.Fprintf(&b, "agent %s was killed: out of memory (its profile's limit)", e.Agent)
	case ReasonUnhealthy:
		fmt.Fprintf(&b, "agent %s is unhealthy (its image's HEALTHCHECK fails)", e.Agent)
	default:
		b.WriteString(string(e.Reason))
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ReasonOf returns the reason of the *Error in err's chain, "" if none.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}
