// Package config reads and writes the CLI's config file
// ($BOTKIT_CONFIG_DIR/config.yaml or $XDG_CONFIG_HOME/botkit/config.yaml,
// default ~/.config/botkit/config.yaml, mode 0600 in a 0700 directory): the
// API URL, the current organization, the default region — never a token,
// unless the user chose `botkit auth login --insecure-storage`.
// Environment variables override the file (BOTKIT_API_URL, BOTKIT_ORG,
// BOTKIT_TOKEN, BOTKIT_CONFIG_DIR).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/botkit-dev/botkit/internal/atomicfile"
	"github.com/botkit-dev/botkit/internal/docscan"
	"github.com/botkit-dev/botkit/internal/yamlnode"
	"github.com/botkit-dev/botkit/pkg/platform/local"
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
	// EnvCAFile is a PEM file of CA certificates trusted besides the
	// system's; it wins over the context's certificateAuthority.
	EnvCAFile = "BOTKIT_CA_FILE"
)

// FileName is the config file's name inside its directory.
const FileName = "config.yaml"

// File is the content of the config file: contexts, as kubectl's. A
// context is a name, a platform (an API URL; none is the embedded local
// platform), an organization and a default region; the current one is used
// unless --context or BOTKIT_CONTEXT names another. Tokens are in the OS
// keyring per platform host; Tokens holds them only after
// `auth login --insecure-storage`.
type File struct {
	CurrentContext string
	Contexts       []Context
	Tokens         map[string]string // platform host → token
	// Problems are the entries that only `botkit config` can use: a
	// context whose name is invalid, a currentContext naming no context.
	// The file is read around them, so that the config commands can
	// repair it (rename-context, delete-context, use-context); every other
	// command refuses the file (Check) naming file:line and the fix.
	Problems []*FileError
}

// Check returns the file's first problem (nil: none).
func (f *File) Check() error {
	if len(f.Problems) > 0 {
		return f.Problems[0]
	}
	return nil
}

// Context is one context of the file.
type Context struct {
	Name string
	// APIURL is the platform's base URL; empty means the embedded local
	// platform.
	APIURL string
	// Organization is the context's organization ("" = the only one the
	// token has; "local" on the embedded platform).
	Organization string
	// Region is the default region for new objects ("" = the
	// organization's default).
	Region string
	// Protected: destructive commands need the context's name typed, or
	// --skip with --context given explicitly.
	Protected bool
	// CertificateAuthority is a PEM file of CA certificates trusted,
	// besides the system's, for the platform's https:// ("" = the
	// system's only); a relative path is relative to the config file's
	// directory, as kubectl's certificate-authority.
	CertificateAuthority string
}

// Embedded reports whether the context is the embedded local platform.
func (c Context) Embedded() bool { return c.APIURL == "" }

// DefaultContext is the name of the context of a file of the old,
// single-platform form.
const DefaultContext = "default"

// LocalContext is the name of the embedded local platform's context: the
// one context, and the current one, of a machine without a config file (or
// of a file that holds no context). It is written into the file with the
// first context added beside it, so that it stays listed and selectable
// (`botkit config use-context local`).
const LocalContext = "local"

// Find returns the context named name, or nil.
func (f *File) Find(name string) *Context {
	for i := range f.Contexts {
		if f.Contexts[i].Name == name {
			return &f.Contexts[i]
		}
	}
	return nil
}

// Upsert replaces the context of c's name, or adds c.
func (f *File) Upsert(c Context) {
	if old := f.Find(c.Name); old != nil {
		*old = c
		return
	}
	f.Contexts = append(f.Contexts, c)
}

// Remove removes the context named name and reports whether it was there;
// removing the current one leaves no current context.
func (f *File) Remove(name string) bool {
	for i := range f.Contexts {
		if f.Contexts[i].Name == name {
			f.Contexts = append(f.Contexts[:i], f.Contexts[i+1:]...)
			if f.CurrentContext == name {
				f.CurrentContext = ""
			}
			return true
		}
	}
	return false
}

// Names returns the contexts' names in file order.
func (f *File) Names() []string {
	out := make([]string, len(f.Contexts))
	for i, c := range f.Contexts {
		out[i] = c.Name
	}
	return out
}

// ValidateContextName checks a context name: 1 to 253 letters, digits, '.',
// '_', '-' or ':' (a host:port names the context of a login), starting with
// a letter or digit.
func ValidateContextName(name string) error {
	if len(name) > 253 || !contextNameRE().MatchString(name) {
		return fmt.Errorf("context name %s: use 1 to 253 letters, digits, '.', '_', '-' or ':', starting with a letter or digit", quoteKey(name))
	}
	return nil
}

// contextNameRE is compiled at its first use, not at init (`botkit
// --version` never needs it); the length is checked apart, as a bounded
// repetition {0,252} compiles to hundreds of instructions (~3,300
// allocations).
var contextNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`)
})

// ContextNameFor returns a valid context name for a platform's host[:port]
// (what `auth login` names a context by default): the host as it is when
// it is a valid name; an IPv6 address "[::1]:8080" becomes
// "ipv6---1:8080" ("ipv6-" then the address with ':' and '%' as '-'); any other
// character that a name cannot hold becomes '-'.
func ContextNameFor(host string) string {
	name, port := host, ""
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if strings.Contains(name, ":") { // an IPv6 address
		name = "ipv6-" + strings.NewReplacer(":", "-", "%", "-").Replace(name)
	}
	if port != "" {
		name += ":" + port
	}
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			b[i] = '-'
		}
	}
	name = strings.TrimLeft(string(b), "._:-")
	if len(name) > 253 {
		name = name[:253]
	}
	if name == "" {
		return "platform"
	}
	return name
}

// ContextError is a context name that names no context: invalid input
// (exit 2), naming the contexts there are.
type ContextError struct {
	Name   string
	Source string // "--context", BOTKIT_CONTEXT or the file's currentContext
	Known  []string
}

func (e *ContextError) Error() string {
	known := "none; create one with `botkit config set-context NAME`"
	if len(e.Known) > 0 {
		known = strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("%s: context %s does not exist (contexts: %s)", e.Source, quoteKey(e.Name), known)
}

// ErrorCode makes a ContextError invalid input (see cmdutil.Coded).
func (e *ContextError) ErrorCode() string { return resources.CodeInvalid }

// HostOf returns the host[:port] of an API URL ("" for none).
func HostOf(apiURL string) string {
	if apiURL == "" {
		return ""
	}
	u, err := url.Parse(apiURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Config is the CLI's configuration after environment overrides: the
// selected context's platform, organization and region, with BOTKIT_API_URL
// and BOTKIT_ORG on top.
type Config struct {
	// Context is the selected context's name ("" when none is: the file
	// has no current context); ContextSource says what selected it
	// ("--context", BOTKIT_CONTEXT or "currentContext").
	Context       string
	ContextSource string
	// Protected is the selected context's protection.
	Protected bool
	// FileToken is the file's token for the platform's host (after
	// `auth login --insecure-storage`).
	FileToken string
	// APIURLFromEnv: BOTKIT_API_URL overrides the context's platform.
	APIURLFromEnv bool

	// APIURL is the platform's base URL; empty means the embedded local
	// platform.
	APIURL string
	// Organization is the current organization ("" = the only one the
	// token has; "local" on the embedded platform).
	Organization string
	// Region is the default region for new objects ("" = the
	// organization's default).
	Region string

	// EnvToken is BOTKIT_TOKEN (it wins over the keyring and the file),
	// when it is meant for the selected platform: "" when --context or
	// BOTKIT_CONTEXT chose a context on another host than the one the
	// token is for (EnvTokenWithheld then says which that is).
	EnvToken string
	// EnvTokenWithheld: BOTKIT_TOKEN is set but not sent to the selected
	// platform; EnvTokenFor then names the platform it is meant for (for a
	// message).
	EnvTokenWithheld bool
	EnvTokenFor      string
	// EnvOrg is BOTKIT_ORG as given (it wins over the file).
	EnvOrg string
	// InsecureHTTP is BOTKIT_INSECURE_HTTP=1: a token may go over plain
	// http:// to a host other than this machine.
	InsecureHTTP bool
	// CAFileEnv is BOTKIT_CA_FILE as given (it wins over every context's
	// certificateAuthority).
	CAFileEnv string
	// Path is the config file (it may not exist).
	Path string
	// DataDir is the embedded platform's directory (local.DataDir:
	// $XDG_DATA_HOME/botkit, default ~/.local/share/botkit).
	DataDir string
	// File is the file as read (zero when it does not exist); change it
	// and Save it to update the file without baking in the environment.
	File File
}

// Embedded reports whether commands use the embedded local platform (or,
// when no context is selected, none: see CheckSelected).
func (c *Config) Embedded() bool { return c.APIURL == "" }

// NoContextError is a command that needs a platform where no context is
// selected: the file holds contexts, none is current and neither --context
// nor BOTKIT_CONTEXT names one. Invalid input (exit 2); nothing is written
// anywhere, not even to the embedded local platform.
type NoContextError struct {
	Path  string
	Known []string
}

func (e *NoContextError) Error() string {
	return fmt.Sprintf("no current context in %s (contexts: %s): choose one with `botkit config use-context NAME`, or give --context NAME", e.Path, strings.Join(e.Known, ", "))
}

// ErrorCode makes a NoContextError invalid input (see cmdutil.Coded).
func (e *NoContextError) ErrorCode() string { return resources.CodeInvalid }

// CheckSelected refuses a command that would act on a platform when no
// context is selected (and BOTKIT_API_URL names none): a *NoContextError.
func (c *Config) CheckSelected() error {
	if c.Context == "" && !c.APIURLFromEnv {
		return &NoContextError{Path: c.Path, Known: c.File.Names()}
	}
	return nil
}

// explicit reports whether the context was chosen for this command
// (--context or BOTKIT_CONTEXT), not taken from the file.
func (c *Config) explicit() bool {
	return c.ContextSource == "--context" || c.ContextSource == EnvContext
}

// CheckEmbedded refuses the embedded local platform when the environment
// names a remote one's credentials: a token (or an organization other than
// the embedded one) given without a platform URL is a mistake — a CI job
// whose BOTKIT_API_URL is empty — never a reason to write to a throwaway
// database on this machine. Invalid input (exit 2).
//
// A context named for this command (--context or BOTKIT_CONTEXT) that is
// the embedded platform is the user's explicit choice: no mistake to guard
// against.
func (c *Config) CheckEmbedded() error {
	if err := c.CheckSelected(); err != nil {
		return err
	}
	if !c.Embedded() || c.explicit() {
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

func homeDir(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("HOME is not set: set HOME, XDG_CONFIG_HOME or BOTKIT_CONFIG_DIR")
}

// EnvContext selects a context, as --context does (the flag wins).
const EnvContext = "BOTKIT_CONTEXT"

// Load reads the config file (a missing file is the one context "local",
// the embedded platform), selects the context (contextFlag, else
// BOTKIT_CONTEXT, else the file's current context; none when the file has
// no current context: CheckSelected) and applies the environment. A
// malformed file is a *FileError naming file:line (also one that only the
// config commands can read: File.Check); an unknown context a
// *ContextError.
//
// BOTKIT_TOKEN is meant for one platform: BOTKIT_API_URL's when set, else
// the current context's. It is sent to the selected platform only when that
// is the one (same host); a context on another host chosen by --context or
// BOTKIT_CONTEXT uses its own token (keyring or file), and EnvTokenWithheld
// says BOTKIT_TOKEN was not sent.
func Load(getenv func(string) string, contextFlag string) (*Config, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return nil, err
	}
	data, err := local.DataDir(getenv)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	c := &Config{Path: path, DataDir: data, File: f}
	name, source := contextFlag, "--context"
	if name == "" {
		name, source = getenv(EnvContext), EnvContext
	}
	if name == "" {
		name, source = f.CurrentContext, "currentContext"
	}
	var ctx *Context
	if name != "" {
		if ctx = f.Find(name); ctx == nil {
			return nil, &ContextError{Name: name, Source: source, Known: f.Names()}
		}
		c.Context, c.ContextSource, c.Protected = ctx.Name, source, ctx.Protected
		c.APIURL, c.Organization, c.Region = ctx.APIURL, ctx.Organization, ctx.Region
	}
	if v := getenv(EnvAPIURL); v != "" {
		c.APIURL, c.APIURLFromEnv = v, true
	}
	c.FileToken = f.Tokens[HostOf(c.APIURL)]
	if v := getenv(EnvOrg); v != "" {
		c.Organization, c.EnvOrg = v, v
	}
	c.EnvToken = strings.TrimSpace(getenv(EnvToken))
	if c.EnvToken != "" && !c.APIURLFromEnv && c.explicit() {
		cur := f.Find(f.CurrentContext)
		meant := ""
		if cur != nil {
			meant = HostOf(cur.APIURL)
		}
		if meant != HostOf(c.APIURL) {
			c.EnvToken, c.EnvTokenWithheld = "", true
			switch {
			case cur == nil:
				c.EnvTokenFor = "no platform (there is no current context)"
			case meant == "":
				c.EnvTokenFor = "the current context " + cur.Name + ", the embedded local platform, which needs none"
			default:
				c.EnvTokenFor = "the current context " + cur.Name + "'s platform (" + meant + ")"
			}
		}
	}
	c.InsecureHTTP = getenv(EnvInsecureHTTP) == "1"
	c.CAFileEnv = getenv(EnvCAFile)
	return c, nil
}

// CertificateAuthority returns the CA file the requests of context ctx
// trust besides the system's CAs, and what named it (for messages):
// BOTKIT_CA_FILE, else the context's certificateAuthority (relative to the
// config file's directory), else none ("", "").
func (c *Config) CertificateAuthority(ctx Context) (path, from string) {
	if c.CAFileEnv != "" {
		return c.CAFileEnv, EnvCAFile
	}
	if ctx.CertificateAuthority == "" {
		return "", ""
	}
	path = ctx.CertificateAuthority
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(c.Path), path)
	}
	return path, fmt.Sprintf("certificateAuthority of context %s in %s", quoteKey(ctx.Name), c.Path)
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

// ReadFile reads a config file strictly: the contexts form (apiVersion
// botkit.dev/v1, kind Config), or the old single-platform form (apiUrl,
// organization, region, token), read as one context named "default". A
// file that holds no context (a missing one included) is the one context
// "local", the embedded platform, current. An entry only the config
// commands can use is in File.Problems, not an error.
func ReadFile(path string) (File, error) {
	var f File
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		withLocal(&f)
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the config file: %w", err)
	}
	f, err = parse(path, b)
	if err != nil || len(f.Tokens) == 0 {
		return f, err
	}
	// A token in a file others can read is refused, as ssh refuses such a
	// private key: the user fixes the mode (nothing is changed for them).
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return File{}, &FileError{Path: path, Msg: fmt.Sprintf("holds an API token but others can read it (mode %04o): run `chmod 600 %s`", fi.Mode().Perm(), path)}
	}
	return f, nil
}

// withLocal makes a file without contexts the one context "local" (the
// embedded platform), current unless the file names another.
func withLocal(f *File) {
	if len(f.Contexts) > 0 {
		return
	}
	f.Contexts = []Context{{Name: LocalContext}}
	if f.CurrentContext == "" {
		f.CurrentContext = LocalContext
	}
}

// Update changes the config file at path under its lock (path + ".lock",
// beside it): it reads the file, lets change modify it and writes it back
// (Save), so that two botkit processes changing the file at once (two
// set-context, a login and a use-context) both keep their change. An error
// of change writes nothing and is returned as it is.
func Update(path string, change func(f *File) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the config directory: %w", err)
	}
	release, err := atomicfile.Lock(path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the config file: %w", err)
	}
	defer release()
	f, err := ReadFile(path)
	if err != nil {
		return err
	}
	if err := change(&f); err != nil {
		return err
	}
	return Save(path, f)
}

// The keys of the old, single-platform form: a context's but its name (and
// certificateAuthority, which came after that form), and the token.
var legacyKeys = append(slices.DeleteFunc(slices.Clone(contextKeys[1:len(contextFields)]), func(k string) bool { return k == "certificateAuthority" }), "token")

// contextFields are the string keys of a context, in the order they are
// written, with the field each fills: the one list the contexts form, the
// old form and Save go through.
var contextFields = []struct {
	key string
	get func(*Context) *string
}{
	{"name", func(c *Context) *string { return &c.Name }},
	{"apiUrl", func(c *Context) *string { return &c.APIURL }},
	{"organization", func(c *Context) *string { return &c.Organization }},
	{"region", func(c *Context) *string { return &c.Region }},
	{"certificateAuthority", func(c *Context) *string { return &c.CertificateAuthority }},
}

// contextField returns the field of key in c, or nil.
func contextField(c *Context, key string) *string {
	for _, f := range contextFields {
		if f.key == key {
			return f.get(c)
		}
	}
	return nil
}

// The keys of the contexts form and of one context.
var (
	fileKeys    = []string{"apiVersion", "kind", "currentContext", "contexts", "tokens"}
	contextKeys = func() []string {
		keys := make([]string, 0, len(contextFields)+1)
		for _, f := range contextFields {
			keys = append(keys, f.key)
		}
		return append(keys, "protected")
	}()
)

// Kind and apiVersion of the contexts form.
const (
	fileAPIVersion = "botkit.dev/v1"
	fileKind       = "Config"
)

type decoder struct{ path string }

func (d decoder) errorf(n *yaml.Node, format string, args ...any) error {
	return &FileError{Path: d.path, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// mapping walks a mapping node's keys (known: the keys allowed), each once.
func (d decoder) mapping(n *yaml.Node, known []string, fn func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, "expected a mapping of keys (%s)", strings.Join(known, ", "))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return d.errorf(k, "expected a key (%s)", strings.Join(known, ", "))
		}
		if !slices.Contains(known, k.Value) {
			return d.errorf(k, "unknown key %s (known: %s)", quoteKey(k.Value), strings.Join(known, ", "))
		}
		if first, dup := seen[k.Value]; dup {
			return d.errorf(k, "key %s given twice (first at line %d)", k.Value, first)
		}
		seen[k.Value] = k.Line
		if err := fn(k.Value, v); err != nil {
			return err
		}
	}
	return nil
}

func (d decoder) str(key string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!str" && v.Tag != "!!null") {
		return "", d.errorf(v, "%s: expected a string", key)
	}
	if v.Tag == "!!null" {
		return "", nil
	}
	return v.Value, nil
}

func parse(path string, b []byte) (File, error) {
	var f File
	var doc yaml.Node
	// Nesting before and after parsing: the one limit of every document
	// botkit reads (docscan.MaxDepth).
	if e := docscan.YAML(b); e != nil {
		return f, &FileError{Path: path, Line: e.Line, Msg: e.Error()}
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return f, yamlError(path, err)
	}
	if e := yamlnode.TooDeep(&doc); e != nil {
		return f, &FileError{Path: path, Line: e.Line, Msg: e.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		withLocal(&f) // empty file
		return f, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		withLocal(&f)
		return f, nil
	}
	d := decoder{path: path}
	if root.Kind == yaml.MappingNode && !slices.ContainsFunc(root.Content, func(n *yaml.Node) bool { return n.Value == "apiVersion" }) {
		return d.legacy(root)
	}
	var current *yaml.Node
	err := d.mapping(root, fileKeys, func(key string, v *yaml.Node) error {
		switch key {
		case "apiVersion", "kind":
			s, err := d.str(key, v)
			want := map[string]string{"apiVersion": fileAPIVersion, "kind": fileKind}[key]
			if err == nil && s != want {
				err = d.errorf(v, "%s %s: this botkit reads %s (a newer botkit wrote the file?)", key, quoteKey(s), want)
			}
			return err
		case "currentContext":
			current = v
			var err error
			f.CurrentContext, err = d.str(key, v)
			return err
		case "contexts":
			if v.Kind != yaml.SequenceNode {
				return d.errorf(v, "contexts: expected a list of contexts")
			}
			for _, item := range v.Content {
				c, problem, err := d.context(item)
				if err != nil {
					return err
				}
				if problem != nil {
					f.Problems = append(f.Problems, problem)
				}
				if f.Find(c.Name) != nil {
					return d.errorf(item, "context %s given twice", quoteKey(c.Name))
				}
				f.Contexts = append(f.Contexts, c)
			}
		case "tokens":
			if v.Kind != yaml.MappingNode {
				return d.errorf(v, "tokens: expected a mapping of platform hosts to tokens")
			}
			f.Tokens = map[string]string{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				host, tok := v.Content[i], v.Content[i+1]
				if host.Kind != yaml.ScalarNode {
					return d.errorf(host, "tokens: expected a platform host")
				}
				if _, dup := f.Tokens[host.Value]; dup {
					return d.errorf(host, "tokens: %s given twice", quoteKey(host.Value))
				}
				t, err := d.str("tokens."+host.Value, tok)
				if err != nil {
					return err
				}
				f.Tokens[host.Value] = t
			}
		}
		return nil
	})
	if err != nil {
		return f, err
	}
	if len(f.Tokens) == 0 {
		f.Tokens = nil
	}
	withLocal(&f)
	if f.CurrentContext != "" && f.Find(f.CurrentContext) == nil {
		f.Problems = append(f.Problems, &FileError{Path: path, Line: current.Line, Msg: fmt.Sprintf(
			"currentContext %s names no context (contexts: %s): choose one with `botkit config use-context NAME`",
			quoteKey(f.CurrentContext), strings.Join(f.Names(), ", "))})
	}
	return f, nil
}

// context reads one context; an invalid name is a problem (the config
// commands rename or delete it), not an error.
func (d decoder) context(n *yaml.Node) (Context, *FileError, error) {
	var c Context
	err := d.mapping(n, contextKeys, func(key string, v *yaml.Node) error {
		if key == "protected" {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				return d.errorf(v, "protected: expected true or false")
			}
			c.Protected = v.Value == "true"
			return nil
		}
		s, err := d.str(key, v)
		*contextField(&c, key) = s
		return err
	})
	if err != nil {
		return c, nil, err
	}
	if c.Name == "" {
		return c, nil, d.errorf(n, "a context needs a name")
	}
	if verr := ValidateContextName(c.Name); verr != nil {
		q := strconv.Quote(c.Name)
		return c, &FileError{Path: d.path, Line: n.Line, Msg: fmt.Sprintf("%v: rename it with `botkit config rename-context %s NEW`, or delete it with `botkit config delete-context %s`", verr, q, q)}, nil
	}
	return c, nil, nil
}

// legacy reads the old single-platform form as the context "default".
func (d decoder) legacy(root *yaml.Node) (File, error) {
	var f File
	var c Context
	var token string
	err := d.mapping(root, legacyKeys, func(key string, v *yaml.Node) error {
		s, err := d.str(key, v)
		if key == "token" {
			token = s
		} else {
			*contextField(&c, key) = s
		}
		return err
	})
	if err != nil {
		return f, err
	}
	if c == (Context{}) && token == "" {
		withLocal(&f)
		return f, nil
	}
	c.Name = DefaultContext
	f.Contexts, f.CurrentContext = []Context{c}, DefaultContext
	if token != "" {
		f.Tokens = map[string]string{HostOf(c.APIURL): token}
	}
	return f, nil
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

// Save writes f to path atomically (internal/atomicfile: a temporary file
// renamed over it, or over the target of a symbolic link path is), mode
// 0600, creating the directory 0700, always in the contexts form (a botkit
// that only reads the old form then stops at "unknown key apiVersion"
// instead of using half of it).
func Save(path string, f File) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the config directory: %w", err)
	}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	pair := func(m *yaml.Node, k string, v *yaml.Node) { m.Content = append(m.Content, str(k), v) }
	root := &yaml.Node{Kind: yaml.MappingNode}
	pair(root, "apiVersion", str(fileAPIVersion))
	pair(root, "kind", str(fileKind))
	if f.CurrentContext != "" {
		pair(root, "currentContext", str(f.CurrentContext))
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, c := range f.Contexts {
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, fl := range contextFields {
			if v := *fl.get(&c); v != "" || fl.key == "name" {
				pair(m, fl.key, str(v))
			}
		}
		if c.Protected {
			pair(m, "protected", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		}
		list.Content = append(list.Content, m)
	}
	pair(root, "contexts", list)
	if len(f.Tokens) > 0 {
		toks := &yaml.Node{Kind: yaml.MappingNode}
		for _, h := range slices.Sorted(maps.Keys(f.Tokens)) {
			pair(toks, h, str(f.Tokens[h]))
		}
		pair(root, "tokens", toks)
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return errors.New("encoding the config file")
	}
	if err := enc.Close(); err != nil {
		return errors.New("encoding the config file")
	}
	body := "# botkit configuration: contexts (botkit config get-contexts)\n" + out.String()
	if err := atomicfile.Write(path, []byte(body), 0o600); err != nil {
		return fmt.Errorf("writing the config file: %w", err)
	}
	return nil
}

// SelectedContext returns the selected context as the file holds it (the
// default context when the file has none), before environment overrides.
func (c *Config) SelectedContext() Context {
	if ctx := c.File.Find(c.Context); ctx != nil {
		return *ctx
	}
	return Context{Name: c.Context}
}

// FilePath returns the config file's path (it may not exist).
func FilePath(getenv func(string) string) (string, error) {
	dir, err := Dir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, FileName), nil
}

// LoadFile reads the config file without selecting a context: its path and
// content, problems included (File.Problems; completions, the config
// commands).
func LoadFile(getenv func(string) string) (string, File, error) {
	path, err := FilePath(getenv)
	if err != nil {
		return "", File{}, err
	}
	f, err := ReadFile(path)
	return path, f, err
}
