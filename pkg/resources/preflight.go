package resources

import (
	"slices"
	"strings"
)

// Wire types of POST /v1/organizations/{org}/preflight and the report of
// `botkit preflight` (docs/deploy.md).

// Kinds of the preflight answers.
const (
	KindPreflightResult = "PreflightResult"
	KindPreflightReport = "PreflightReport"
)

// Results of a preflight check.
const (
	CheckOK      = "ok"
	CheckWarning = "warning"
	CheckFail    = "fail"
)

// PreflightCheck is the result of one check. ID is stable (scripts match
// it); Detail says what was found, never a value.
type PreflightCheck struct {
	ID     string `json:"id"`
	Result string `json:"result"`
	Detail string `json:"detail"`
	// Line is the deploy file's line the check is about (0: none); the
	// CLI's checks of the file only.
	Line int `json:"line,omitempty"`
	// Keys names, for the secret-set-keys check, each required key the
	// set lacks (KeyMissing) or holds with an empty value (KeyEmpty):
	// never a value nor its length.
	Keys map[string]string `json:"keys,omitempty"`
}

// What is wrong with a key, in PreflightCheck.Keys.
const (
	KeyMissing = "missing"
	KeyEmpty   = "empty"
)

// PreflightRequest is the body of POST /v1/organizations/{org}/preflight:
// the facts of a deploy file the platform checks, nothing written. Region
// "" is the organization's default region. RequiredKeys and OptionalKeys
// are the key names the project reads (its .env.example).
type PreflightRequest struct {
	Region          string   `json:"region,omitempty"`
	SecretSet       string   `json:"secretSet,omitempty"`
	RequiredKeys    []string `json:"requiredKeys,omitempty"`
	OptionalKeys    []string `json:"optionalKeys,omitempty"`
	ImagePullSecret string   `json:"imagePullSecret,omitempty"`
	Image           string   `json:"image,omitempty"`
}

// PreflightResult is the platform's answer: the region the agent deploys to
// and the checks of the region, the secret set and its keys, the image pull
// secret and the image (asked from its registry with the pull secret's
// credentials, which never leave the platform).
type PreflightResult struct {
	TypeMeta `json:",inline"`
	Region   string           `json:"region"`
	Checks   []PreflightCheck `json:"checks"`
}

// PreflightReport is what `botkit preflight -o json|yaml` prints: every
// check, of the deploy file and of the platform, and the overall result
// (fail when one failed, warning when one warned, else ok).
type PreflightReport struct {
	TypeMeta `json:",inline"`
	Metadata PreflightMeta    `json:"metadata"`
	Result   string           `json:"result"`
	Checks   []PreflightCheck `json:"checks"`
}

// PreflightMeta says what a report is about.
type PreflightMeta struct {
	File         string `json:"file"`
	Organization string `json:"organization,omitempty"`
	Region       string `json:"region,omitempty"`
}

// WorstResult returns fail, warning or ok: the worst of the checks.
func WorstResult(checks []PreflightCheck) string {
	out := CheckOK
	for _, c := range checks {
		switch c.Result {
		case CheckFail:
			return CheckFail
		case CheckWarning:
			out = CheckWarning
		}
	}
	return out
}

// severity orders the results: ok < warning < fail.
func severity(result string) int {
	switch result {
	case CheckFail:
		return 2
	case CheckWarning:
		return 1
	}
	return 0
}

// AddCheck adds c to checks keeping one result per id: a check whose id is
// there already replaces it when it is worse (a fail says more than the
// ok it overrides), adds its detail to it when it is as bad, and is dropped
// when it is better.
func AddCheck(checks []PreflightCheck, c PreflightCheck) []PreflightCheck {
	for i := range checks {
		if checks[i].ID != c.ID {
			continue
		}
		switch old, new := severity(checks[i].Result), severity(c.Result); {
		case new > old:
			checks[i] = c
		case new == old && !slices.Contains(strings.Split(checks[i].Detail, "; "), c.Detail):
			checks[i].Detail += "; " + c.Detail
		}
		return checks
	}
	return append(checks, c)
}
