// Package config reads and writes the CLI's config file
// ($BOTKIT_CONFIG_DIR/config.yaml or $XDG_CONFIG_HOME/botkit/config.yaml,
// default ~/.config/botkit/config.yaml, mode 0600 in a 0700 directory): the
// API URL, the current organization, the default region — never a token,
// unless the user chose `botkit auth login --insecure-storage`.
// Environment variables override the file (BOTKIT_API_URL, BOTKIT_ORG,
// BOTKIT_TOKEN, BOTKIT_CONFIG_DIR).
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// Environment variables that override the file.
const (
	EnvAPIURL    = "BOTKIT_API_URL"
	EnvOrg       = "BOTKIT_ORG"
	EnvToken     = "BOTKIT_TOKEN"
	EnvConfigDir = "BOTKIT_CONFIG_DIR"
	// EnvInsecureHTTP=1 lets a token go over plain http:// to a host that
	// is not this machine.
	EnvInsecureHTTP = "BOTKIT_INSECURE_HTTP"
)

// FileName is the config file's name inside its directory.
const FileName = "config.yaml"

// File is the content of the config file.
type File struct {
	// APIURL is the platform's base URL; empty means the embedded local
	// platform.
	APIURL string
	// Organization is the current organization.
	Organization string
	// Region is the default region for new objects ("" = the
	// organization's default).
	Region string
	// Token is kept here only after `auth login --insecure-storage`.
	Token string
}

// fields are the keys of the file, in the order they are written, with the
// field each one fills. The one list of what the file may hold.
var fields = []struct {
	key string
	get func(*File) *string
}{
	{"apiUrl", func(f *File) *string { return &f.APIURL }},
	{"organization", func(f *File) *string { return &f.Organization }},
	{"region", func(f *File) *string { return &f.Region }},
	{"token", func(f *File) *string { return &f.Token }},
}

// Config is the CLI's configuration after environment overrides.
type Config struct {
	// APIURL is the platform's base URL; empty means the embedded local
	// platform.
	APIURL string
	// Organization is the current organization ("" = the only one the
	// token has; "local" on the embedded platform).
	Organization string
	// Region is the default region for new objects ("" = the
	// organization's default).
	Region string

	// EnvToken is BOTKIT_TOKEN (it wins over the keyring and the file).
	EnvToken string
	// EnvOrg is BOTKIT_ORG as given (it wins over the file).
	EnvOrg string
	// InsecureHTTP is BOTKIT_INSECURE_HTTP=1: a token may go over plain
	// http:// to a host other than this machine.
	InsecureHTTP bool
	// Path is the config file (it may not exist).
	Path string
	// DataDir is the embedded platform's directory
	// ($XDG_DATA_HOME/botkit, default ~/.local/share/botkit).
	DataDir string
	// File is the file as read (zero when it does not exist); change it
	// and Save it to update the file without baking in the environment.
	File File
}

// Embedded reports whether commands use the embedded local platform.
func (c *Config) Embedded() bool { return c.APIURL == "" }

// CheckEmbedded refuses the embedded local platform when the environment
// names a remote one's credentials: a token (or an organization other than
// the embedded one) given without a platform URL is a mistake — a CI job
// whose BOTKIT_API_URL is empty — never a reason to write to a throwaway
// database on this machine. Invalid input (exit 2).
func (c *Config) CheckEmbedded() error {
	if !c.Embedded() {
		return nil
	}
	var what string
	switch {
	case c.EnvToken != "":
		what = EnvToken + " is set"
	case c.EnvOrg != "" && c.EnvOrg != resources.EmbeddedOrg:
		what = EnvOrg + "=" + c.EnvOrg + " is set"
	default:
		return nil
	}
	return &resources.Error{Code: resources.CodeInvalid, Message: what + " but no platform is: set " + EnvAPIURL +
		" to the platform's URL (or run `botkit auth login --api-url URL`); botkit does not write to the embedded local platform on this machine instead"}
}

// Dir returns the config directory: $BOTKIT_CONFIG_DIR, else
// $XDG_CONFIG_HOME/botkit, else ~/.config/botkit.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv(EnvConfigDir); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "botkit"), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "botkit"), nil
}

// DataDir returns the embedded platform's directory: $XDG_DATA_HOME/botkit,
// else ~/.local/share/botkit.
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "botkit"), nil
	}
	home, err := homeDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "botkit"), nil
}

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("HOME is not set: set HOME, XDG_CONFIG_HOME or BOTKIT_CONFIG_DIR")
}

// Load reads the config file (a missing file is an empty config) and applies
// the environment. A malformed file is a *FileError naming file:line.
func Load(getenv func(string) string) (*Config, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return nil, err
	}
	data, err := DataDir(getenv)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Config{APIURL: f.APIURL, Organization: f.Organization, Region: f.Region, Path: path, DataDir: data, File: f}
	if v := getenv(EnvAPIURL); v != "" {
		c.APIURL = v
	}
	if v := getenv(EnvOrg); v != "" {
		c.Organization, c.EnvOrg = v, v
	}
	c.EnvToken = strings.TrimSpace(getenv(EnvToken))
	c.InsecureHTTP = getenv(EnvInsecureHTTP) == "1"
	return c, nil
}

// FileError is a config file that cannot be used, at file:line when known.
// It is invalid input (exit 2). Its message never quotes a value.
type FileError struct {
	Path string
	Line int // 0: unknown
	Msg  string
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// ErrorCode makes a FileError invalid input (see cmdutil.Coded).
func (e *FileError) ErrorCode() string { return resources.CodeInvalid }

// ReadFile reads a config file strictly: a mapping of the known keys to
// strings, each at most once. A missing file is an empty File.
func ReadFile(path string) (File, error) {
	var f File
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the config file: %w", err)
	}
	f, err = parse(path, b)
	if err != nil || f.Token == "" {
		return f, err
	}
	// A token in a file others can read is refused, as ssh refuses such a
	// private key: the user fixes the mode (nothing is changed for them).
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return File{}, &FileError{Path: path, Msg: fmt.Sprintf("holds an API token but others can read it (mode %04o): run `chmod 600 %s`", fi.Mode().Perm(), path)}
	}
	return f, nil
}

func parse(path string, b []byte) (File, error) {
	var f File
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return f, yamlError(path, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return f, nil // empty file
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		return f, &FileError{Path: path, Line: root.Line, Msg: "expected a mapping of keys (" + knownKeys() + ")"}
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return f, &FileError{Path: path, Line: k.Line, Msg: "expected a key (" + knownKeys() + ")"}
		}
		var dst *string
		for _, fl := range fields {
			if fl.key == k.Value {
				dst = fl.get(&f)
			}
		}
		if dst == nil {
			return f, &FileError{Path: path, Line: k.Line, Msg: fmt.Sprintf("unknown key %s (known: %s)", quoteKey(k.Value), knownKeys())}
		}
		if first, dup := seen[k.Value]; dup {
			return f, &FileError{Path: path, Line: k.Line, Msg: fmt.Sprintf("key %s given twice (first at line %d)", k.Value, first)}
		}
		seen[k.Value] = k.Line
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!null") {
			return f, &FileError{Path: path, Line: v.Line, Msg: fmt.Sprintf("%s: expected a string", k.Value)}
		}
		if v.Tag == "!!str" {
			*dst = v.Value
		}
	}
	return f, nil
}

func knownKeys() string {
	keys := make([]string, len(fields))
	for i, fl := range fields {
		keys[i] = fl.key
	}
	return strings.Join(keys, ", ")
}

// quoteKey quotes a key the user wrote, shortened: a misplaced line could
// hold anything, so at most 40 characters of it are shown.
func quoteKey(k string) string {
	if len(k) > 40 {
		k = k[:40] + "..."
	}
	return strconv.Quote(k)
}

// yamlError turns a YAML syntax error into file:line. The YAML library
// reports "yaml: line N: message"; its messages describe the syntax, not
// the content.
func yamlError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, m, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(n); err == nil {
				return &FileError{Path: path, Line: line, Msg: "invalid YAML: " + m}
			}
		}
	}
	return &FileError{Path: path, Msg: "invalid YAML: " + msg}
}

// Save writes f to path atomically (a temporary file renamed over it), mode
// 0600, creating the directory 0700.
func Save(path string, f File) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the config directory: %w", err)
	}
	var b strings.Builder
	b.WriteString("# botkit configuration (botkit auth login, botkit cloud organizations select)\n")
	keys := make([]string, 0, len(fields))
	vals := map[string]string{}
	for _, fl := range fields {
		if v := *fl.get(&f); v != "" {
			keys = append(keys, fl.key)
			vals[fl.key] = v
		}
	}
	for _, k := range keys {
		node := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: vals[k]}
		out, err := yaml.Marshal(&node)
		if err != nil {
			return fmt.Errorf("encoding the config file: %s", k)
		}
		b.WriteString(k + ": " + string(out))
	}
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	if _, err := tmp.WriteString(b.String()); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	ok = true
	return nil
}
