package resources

import (
	"fmt"
	"slices"
	"strings"
)

// MaxAgents bounds an agent's scaling (maxAgents, and minAgents with it):
// one platform region runs agents on one engine.
const MaxAgents = 100

// ValidateAgentSpec checks an Agent's spec; profiles are the runtime's
// profile names (the platform's runtime.ProfileNames()). The error is a
// *FieldError naming the field (spec.image, spec.scaling.minAgents, ...).
func ValidateAgentSpec(spec AgentSpec, profiles []string) error {
	if spec.Image == "" {
		return &FieldError{Field: "spec.image", Problem: "is required (REGISTRY/REPOSITORY:TAG or @sha256:DIGEST)"}
	}
	ref, err := ParseImageRef(spec.Image)
	if err != nil {
		return &FieldError{Field: "spec.image", Problem: err.Error()}
	}
	if ref.Reference() == "" {
		return &FieldError{Field: "spec.image", Problem: fmt.Sprintf("%s has no tag or digest: name the version to run (%s:TAG or %s@sha256:DIGEST)", spec.Image, spec.Image, spec.Image)}
	}
	if spec.ImagePullSecret != "" {
		if err := ValidateName(spec.ImagePullSecret); err != nil {
			return &FieldError{Field: "spec.imagePullSecret", Problem: err.Error()}
		}
	}
	if spec.SecretSet != "" {
		if err := ValidateName(spec.SecretSet); err != nil {
			return &FieldError{Field: "spec.secretSet", Problem: err.Error()}
		}
	}
	if spec.Profile != "" && !slices.Contains(profiles, spec.Profile) {
		return &FieldError{Field: "spec.profile", Problem: fmt.Sprintf("unknown profile %q (valid: %s)", spec.Profile, strings.Join(profiles, ", "))}
	}
	if d := spec.MaxSessionDuration; d != 0 && (d < MinSessionSeconds || d > MaxSessionSeconds) {
		return &FieldError{Field: "spec.maxSessionDuration", Problem: fmt.Sprintf("%d: want %d to %d seconds", d, MinSessionSeconds, MaxSessionSeconds)}
	}
	if spec.Scaling != nil {
		return ValidateAgentScaling(*spec.Scaling, "spec.scaling")
	}
	return nil
}

// The bounds of a session's longest duration (Pipecat Cloud's).
const (
	MinSessionSeconds = 60
	MaxSessionSeconds = 14400
)

// ValidateAgentScaling checks a scaling (field is where it is: spec.scaling
// in a spec, scaling in a patch): 0 ≤ minAgents ≤ maxAgents ≤ MaxAgents
// (maxAgents 0: no maximum but MaxAgents).
func ValidateAgentScaling(s AgentScaling, field string) error {
	switch {
	case s.MinAgents < 0 || s.MinAgents > MaxAgents:
		return &FieldError{Field: field + ".minAgents", Problem: fmt.Sprintf("%d: want 0 to %d", s.MinAgents, MaxAgents)}
	case s.MaxAgents < 0 || s.MaxAgents > MaxAgents:
		return &FieldError{Field: field + ".maxAgents", Problem: fmt.Sprintf("%d: want 1 to %d", s.MaxAgents, MaxAgents)}
	case s.MaxAgents > 0 && s.MinAgents > s.MaxAgents:
		return &FieldError{Field: field + ".minAgents", Problem: fmt.Sprintf("%d is more than maxAgents (%d)", s.MinAgents, s.MaxAgents)}
	}
	return nil
}

// MaxAgents is the most agents a spec may run at once, in sessions and
// idle (0: no bound but the platform's, MaxAgents).
func (s AgentSpec) MaxAgents() int {
	if s.Scaling == nil {
		return 0
	}
	return s.Scaling.MaxAgents
}

// MaxSessionSeconds is a session's longest duration the spec gives (0:
// the platform's).
func (s AgentSpec) MaxSessionSeconds() int { return s.MaxSessionDuration }

// MinAgents is the number of agents a spec keeps running (1 when it says
// nothing).
func (s AgentSpec) MinAgents() int {
	if s.Scaling == nil {
		return 1
	}
	return s.Scaling.MinAgents
}
