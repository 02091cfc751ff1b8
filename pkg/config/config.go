// Package config reads and writes the CLI's config file
// ($BOTKIT_CONFIG_DIR/config.yaml or $XDG_CONFIG_HOME/botkit/config.yaml,
// mode 0600): the API URL, the current organization, the default region —
// never a token, unless the user chose `botkit auth login --insecure-storage`.
// Environment variables override the file (BOTKIT_API_URL, BOTKIT_ORG,
// BOTKIT_TOKEN, BOTKIT_CONFIG_DIR).
package config

// Config is the CLI's configuration after environment overrides.
type Config struct {
	// APIURL is the platform's base URL; empty means the embedded local
	// platform.
	APIURL string `json:"apiUrl,omitempty"`
	// Organization is the current organization ("" = the only one the
	// token has; "local" on the embedded platform).
	Organization string `json:"organization,omitempty"`
	// Region is the default region for new objects ("" = the
	// organization's default).
	Region string `json:"region,omitempty"`
}
