package runtime

import "sort"

// Profile sizes an agent: the limits its container runs under.
type Profile struct {
	Name string
	// NanoCPUs is the CPU limit in billionths of a CPU.
	NanoCPUs int64
	// MemoryBytes is the memory limit (no swap beyond it).
	MemoryBytes int64
	// PIDs is the most processes and threads the agent may have.
	PIDs int64
}

// The profiles an Agent's spec.profile names.
const (
	ProfileAgent1x = "agent-1x"
	ProfileAgent2x = "agent-2x"
)

// DefaultProfile is the profile of an agent that names none.
const DefaultProfile = ProfileAgent1x

var profiles = map[string]Profile{
	ProfileAgent1x: {Name: ProfileAgent1x, NanoCPUs: 500_000_000, MemoryBytes: 1 << 30, PIDs: 256},
	ProfileAgent2x: {Name: ProfileAgent2x, NanoCPUs: 1_000_000_000, MemoryBytes: 2 << 30, PIDs: 512},
}

// LookupProfile returns the profile named name.
func LookupProfile(name string) (Profile, bool) {
	p, ok := profiles[name]
	return p, ok
}

// ProfileNames returns the names of the profiles, sorted (for schemas,
// completion and error messages).
func ProfileNames() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
