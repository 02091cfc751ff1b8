// Package deployfile reads a project's deploy file (server/cloud-deploy.toml,
// the Pipecat Cloud deploy file's format) strictly: every key the Pipecat
// Cloud CLI knows, nothing else, each problem at file:line. `botkit
// preflight` checks it before a deploy (docs/deploy.md).
package deployfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"

	"github.com/botkit-dev/botkit/internal/docscan"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// File is a deploy file. Pointers tell "absent" from a zero value.
type File struct {
	AgentName          string     `toml:"agent_name"`
	Image              string     `toml:"image"`
	BuildID            string     `toml:"build_id"`
	ImageCredentials   string     `toml:"image_credentials"`
	SecretSet          string     `toml:"secret_set"`
	Region             string     `toml:"region"`
	AgentProfile       string     `toml:"agent_profile"`
	MaxSessionDuration *int       `toml:"max_session_duration"`
	WebsocketAuth      string     `toml:"websocket_auth"`
	EnableKrisp        *bool      `toml:"enable_krisp"` // refused: see Load
	Scaling            *Scaling   `toml:"scaling"`
	KrispViva          *KrispViva `toml:"krisp_viva"`
	Build              *Build     `toml:"build"`
	Docker             *Docker    `toml:"docker"`
	Resources          *Resources `toml:"resources"`

	path  string
	lines map[string]int // dotted key → line
}

// Scaling is [scaling].
type Scaling struct {
	MinAgents *int `toml:"min_agents"`
	MaxAgents *int `toml:"max_agents"`
}

// KrispViva is [krisp_viva]: the platform's Krisp noise filter.
type KrispViva struct {
	AudioFilter string `toml:"audio_filter"`
}

// Build is [build]: Pipecat Cloud's cloud builds.
type Build struct {
	ContextDir string        `toml:"context_dir"`
	Dockerfile string        `toml:"dockerfile"`
	Exclude    *BuildExclude `toml:"exclude"`
}

// BuildExclude is [build.exclude].
type BuildExclude struct {
	Patterns []string `toml:"patterns"`
}

// Docker is [docker]: how `pipecat cloud docker build-push` names and pushes
// the image.
type Docker struct {
	Registry         string `toml:"registry"`
	RegistryUsername string `toml:"registry_username"`
	RegistryURL      string `toml:"registry_url"`
	AutoLatest       *bool  `toml:"auto_latest"`
}

// Resources is [resources]: explicit sizing (self-hosted regions).
type Resources struct {
	CPU    string `toml:"cpu"`
	Memory string `toml:"memory"`
}

// KrispFilters are the values of krisp_viva.audio_filter.
var KrispFilters = []string{"tel", "pro"}

// DockerRegistries are the values of docker.registry.
var DockerRegistries = []string{"dockerhub", "custom"}

// Problem is one problem of a deploy file, at a line (0: the file).
type Problem struct {
	File    string
	Line    int
	Key     string
	Message string
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Key != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.Key, p.Message)
	}
	return loc + ": " + p.Message
}

// Error is a deploy file that cannot be read as one: not TOML, unknown keys,
// values of the wrong type, keys no longer supported. Every problem is
// listed.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Lines returns one line per problem (cmdutil prints each as an error line).
func (e *Error) Lines() []string { return strings.Split(e.Error(), "\n") }

// ErrorCode makes a broken deploy file invalid input: exit 2.
func (e *Error) ErrorCode() string { return resources.CodeInvalid }

// Parse reads data (the file at path, for messages) strictly.
func Parse(path string, data []byte) (*File, error) {
	// Nesting first, before the parser keeps state per level: the one limit
	// of every document botkit reads (docscan.MaxDepth).
	if e := docscan.TOML(data); e != nil {
		return nil, &Error{Problems: []Problem{{File: path, Line: e.Line, Message: e.Error()}}}
	}
	f := &File{path: path, lines: keyLines(data)}
	// Values of the wrong type first, all of them, in the file's words
	// ("agent_name: want a string, got an integer"): the decoder would
	// stop at the first and name Go's types.
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err == nil {
		if problems := f.typeProblems(doc, reflect.TypeFor[File](), ""); len(problems) > 0 {
			// The strict decoder would stop at the first wrong type:
			// the unknown keys are found here too, so that one run
			// reports every problem of the file.
			problems = append(problems, f.unknownKeys(doc, reflect.TypeFor[File](), "")...)
			slices.SortStableFunc(problems, func(a, b Problem) int { return a.Line - b.Line })
			return nil, &Error{Problems: problems}
		}
	}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	err := dec.Decode(f)
	var problems []Problem
	var strict *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case errors.As(err, &strict):
		for i := range strict.Errors {
			e := &strict.Errors[i]
			line, _ := e.Position()
			key := strings.Join(e.Key(), ".")
			problems = append(problems, Problem{File: path, Line: line, Key: key, Message: "unknown key (" + knownKeys(key) + ")"})
		}
	case errors.As(err, &de):
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		problems = append(problems, Problem{File: path, Line: line, Key: strings.Join(de.Key(), "."), Message: msg})
	case err != nil:
		problems = append(problems, Problem{File: path, Message: err.Error()})
	}
	if f.EnableKrisp != nil {
		problems = append(problems, Problem{File: path, Line: f.Line("enable_krisp"), Key: "enable_krisp",
			Message: `no longer supported by Pipecat Cloud: remove it and turn Krisp on with [krisp_viva] audio_filter = "tel" (telephony) or "pro"`})
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b Problem) int { return a.Line - b.Line })
		return nil, &Error{Problems: problems}
	}
	return f, nil
}

// typeProblems compares the values of a generically decoded table with
// the fields of struct t (by their toml tags): each value of another type
// than its field's is a problem at its key's line. Unknown keys are the
// strict decoder's to report.
func (f *File) typeProblems(table map[string]any, t reflect.Type, prefix string) []Problem {
	var out []Problem
	for i := range t.NumField() {
		field := t.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("toml"), ",")
		v, ok := table[name]
		if name == "" || !ok {
			continue
		}
		key := prefix + name
		ft := field.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sub, isTable := v.(map[string]any); isTable && ft.Kind() == reflect.Struct {
			out = append(out, f.typeProblems(sub, ft, key+".")...)
			continue
		}
		if want, ok := tomlWants(ft, v); !ok {
			out = append(out, Problem{File: f.path, Line: f.Line(key), Key: key, Message: "want " + want + ", got " + tomlType(v)})
		}
	}
	return out
}

// unknownKeys returns a problem for each key of table (and of its
// sub-tables that are struct fields) that no field of struct t names, as
// the strict decoder reports them.
func (f *File) unknownKeys(table map[string]any, t reflect.Type, prefix string) []Problem {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
			ft := t.Field(i).Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			fields[name] = ft
		}
	}
	var out []Problem
	for k, v := range table {
		key := prefix + k
		ft, ok := fields[k]
		if !ok {
			out = append(out, Problem{File: f.path, Line: f.Line(key), Key: key, Message: "unknown key (" + knownKeys(key) + ")"})
			continue
		}
		if sub, isTable := v.(map[string]any); isTable && ft.Kind() == reflect.Struct {
			out = append(out, f.unknownKeys(sub, ft, key+".")...)
		}
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// tomlWants reports whether TOML value v fits Go type t, and t in words.
func tomlWants(t reflect.Type, v any) (string, bool) {
	switch t.Kind() {
	case reflect.String:
		_, ok := v.(string)
		return "a string", ok
	case reflect.Int, reflect.Int64:
		_, ok := v.(int64)
		return "an integer", ok
	case reflect.Bool:
		_, ok := v.(bool)
		return "a boolean (true or false)", ok
	case reflect.Struct:
		_, ok := v.(map[string]any)
		return "a table", ok
	case reflect.Slice:
		list, ok := v.([]any)
		want := "an array"
		if elem, _ := tomlWants(t.Elem(), nil); t.Elem().Kind() != reflect.Interface {
			want = "an array of " + strings.TrimPrefix(strings.TrimPrefix(elem, "an "), "a ") + "s"
		}
		if !ok {
			return want, false
		}
		for _, e := range list {
			if _, ok := tomlWants(t.Elem(), e); !ok {
				return want, false
			}
		}
		return want, true
	}
	return "a value of another type", true
}

// tomlType names the type of a generically decoded TOML value.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// Path is the file's path as given.
func (f *File) Path() string { return f.path }

// Line returns the line of a dotted key ("scaling.min_agents"), or of its
// table, or 0.
func (f *File) Line(key string) int {
	for k := key; k != ""; {
		if l, ok := f.lines[k]; ok {
			return l
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return 0
}

var (
	tableRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(#.*)?$`) })
	keyRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_.\-]+)\s*=`) })
)

// keyLines maps each dotted key and table of the document to its line:
// what the error messages point at (the decoder checks the syntax).
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	table := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := tableRE().FindStringSubmatch(line); m != nil {
			table = strings.ReplaceAll(m[1], " ", "")
			if _, ok := out[table]; !ok {
				out[table] = n
			}
			continue
		}
		if m := keyRE().FindStringSubmatch(line); m != nil {
			k := m[1]
			if table != "" {
				k = table + "." + k
			}
			if _, ok := out[k]; !ok {
				out[k] = n
			}
		}
	}
	return out
}

// knownKeys lists the keys valid where key is.
func knownKeys(key string) string {
	table := ""
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		table = key[:i]
	}
	valid := map[string][]string{
		"":              {"agent_name", "image", "build_id", "image_credentials", "secret_set", "region", "agent_profile", "max_session_duration", "websocket_auth", "[scaling]", "[krisp_viva]", "[build]", "[docker]", "[resources]"},
		"scaling":       {"min_agents", "max_agents"},
		"krisp_viva":    {"audio_filter"},
		"build":         {"context_dir", "dockerfile", "[build.exclude]"},
		"build.exclude": {"patterns"},
		"docker":        {"registry", "registry_username", "registry_url", "auto_latest"},
		"resources":     {"cpu", "memory"},
	}[table]
	if valid == nil {
		return "not a table of a deploy file"
	}
	where := "the file"
	if table != "" {
		where = "[" + table + "]"
	}
	return "valid in " + where + ": " + strings.Join(valid, ", ")
}

// Severity of a finding.
const (
	Fail    = "fail"
	Warning = "warning"
)

// Finding is what Check says about one key.
type Finding struct {
	Check    string // the preflight check id it belongs to
	Severity string // Fail or Warning
	Key      string
	Line     int
	Message  string
}

var quantityRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)
})

// Check checks the values of the file (Parse checked its form): the rules
// Pipecat Cloud applies at deploy, and botkit's names and regions.
func (f *File) Check() []Finding {
	var out []Finding
	add := func(check, sev, key, format string, args ...any) {
		out = append(out, Finding{Check: check, Severity: sev, Key: key, Line: f.Line(key), Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case f.AgentName == "":
		add("agent-name", Fail, "agent_name", "missing: the agent's name is required")
	default:
		if err := resources.ValidateName(f.AgentName); err != nil {
			add("agent-name", Fail, "agent_name", "%v", err)
		}
	}
	switch {
	case f.Image != "" && f.BuildID != "":
		add("image-reference", Fail, "build_id", "give image or build_id, not both")
	case f.Image == "" && f.BuildID == "":
		add("image-reference", Fail, "image", "missing: the image to deploy (registry/repository:tag)")
	case f.Image != "":
		ref, err := resources.ParseImageRef(f.Image)
		switch {
		case strings.Contains(strings.ToLower(f.Image), "your_docker_user"):
			add("image-reference", Fail, "image", "%q is the placeholder create wrote: put your registry's repository", f.Image)
		case err != nil:
			add("image-reference", Fail, "image", "%v", err)
		case ref.Tag == "" && ref.Digest == "":
			add("image-reference", Fail, "image", "%q has no tag or digest (Pipecat Cloud requires one, e.g. %s:0.1)", f.Image, f.Image)
		case ref.Tag == "latest":
			add("image-reference", Warning, "image", "the tag latest moves: a redeploy may run another image than the one checked; use a version tag or a digest")
		}
	}
	if f.Region != "" {
		if err := resources.ValidateRegion(f.Region); err != nil {
			add("region", Fail, "region", "%v", err)
		}
	}
	if f.SecretSet != "" {
		if err := resources.ValidateName(f.SecretSet); err != nil {
			add("secret-set", Fail, "secret_set", "%v", err)
		}
	}
	if f.ImageCredentials != "" {
		if err := resources.ValidateName(f.ImageCredentials); err != nil {
			add("image-pull-secret", Fail, "image_credentials", "%v", err)
		}
	}
	if s := f.Scaling; s != nil {
		if s.MinAgents != nil && *s.MinAgents < 0 {
			add("scaling", Fail, "scaling.min_agents", "%d: must be 0 or more", *s.MinAgents)
		}
		if s.MaxAgents != nil && *s.MaxAgents < 1 {
			add("scaling", Fail, "scaling.max_agents", "%d: must be 1 or more", *s.MaxAgents)
		}
		if s.MinAgents != nil && s.MaxAgents != nil && *s.MaxAgents < *s.MinAgents {
			add("scaling", Fail, "scaling.max_agents", "%d is less than min_agents %d", *s.MaxAgents, *s.MinAgents)
		}
	}
	if d := f.MaxSessionDuration; d != nil && (*d < 60 || *d > 14400) {
		add("session", Fail, "max_session_duration", "%d: must be 60 to 14400 seconds", *d)
	}
	if k := f.KrispViva; k != nil && k.AudioFilter != "" && !slices.Contains(KrispFilters, k.AudioFilter) {
		add("krisp", Fail, "krisp_viva.audio_filter", "%q: want %s", k.AudioFilter, strings.Join(KrispFilters, " or "))
	}
	if r := f.Resources; r != nil {
		if f.AgentProfile != "" {
			add("sizing", Fail, "resources", "give agent_profile or [resources], not both")
		}
		if (r.CPU == "") != (r.Memory == "") {
			add("sizing", Fail, "resources", "needs both cpu and memory")
		}
		for k, v := range map[string]string{"cpu": r.CPU, "memory": r.Memory} {
			if v != "" && !quantityRE().MatchString(v) {
				add("sizing", Fail, "resources."+k, "%q: want a quantity such as 500m, 2 or 4Gi", v)
			}
		}
	}
	if d := f.Docker; d != nil {
		if d.Registry != "" && !slices.Contains(DockerRegistries, d.Registry) {
			add("docker", Fail, "docker.registry", "%q: want %s", d.Registry, strings.Join(DockerRegistries, " or "))
		}
		if d.Registry == "custom" && d.RegistryURL == "" {
			add("docker", Fail, "docker.registry_url", "missing: a custom registry needs its URL")
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	return out
}
