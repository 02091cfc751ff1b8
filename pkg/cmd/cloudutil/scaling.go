package cloudutil

import (
	"fmt"

	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

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
	return fmt.Sprintf("scaling %s → %s, from %s", OrNone(printers.ScalingText(from)), OrNone(printers.ScalingText(to)), path)
}
