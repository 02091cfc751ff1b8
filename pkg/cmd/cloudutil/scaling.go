package cloudutil

import (
	"fmt"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// ScalingText is "min N, max M" ("min N, no max"; "" without scaling).
func ScalingText(s *resources.AgentScaling) string {
	if s == nil {
		return ""
	}
	if s.MaxAgents == 0 {
		return fmt.Sprintf("min %d, no max", s.MinAgents)
	}
	return fmt.Sprintf("min %d, max %d", s.MinAgents, s.MaxAgents)
}

// OrNone is s, or "(none)" when it is empty.
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ScalingChange is what deploy and apply say of an agent whose scaling a
// file changes: "scaling min 1, no max → min 0, no max, from PATH" (a
// scale made with `cloud agents scale` is set back by the file).
func ScalingChange(from, to *resources.AgentScaling, path string) string {
	return fmt.Sprintf("scaling %s → %s, from %s", OrNone(ScalingText(from)), OrNone(ScalingText(to)), path)
}
