package scaffold

import "strings"

// maxPlatformName is the platform's limit on object names (docs/manifests.md).
const maxPlatformName = 63

// secretSetSuffix ends the name of a project's secret set.
const secretSetSuffix = "-secrets"

// AgentName returns the cloud agent name of a project: a valid platform
// name (letters, digits and hyphens, 1-63 characters, starting and ending
// with a letter or digit) made from any valid project name, lower case,
// short enough that SecretSetName fits too. Every other character becomes a
// hyphen, runs of hyphens one; a name with no letter or digit is "bot".
func AgentName(project string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(project) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if max := maxPlatformName - len(secretSetSuffix); len(s) > max {
		s = strings.TrimRight(s[:max], "-")
	}
	if s == "" {
		return "bot"
	}
	return s
}

// SecretSetName returns the name of the secret set a project's deployment
// reads: AgentName + "-secrets", a valid platform name.
func SecretSetName(project string) string { return AgentName(project) + secretSetSuffix }
