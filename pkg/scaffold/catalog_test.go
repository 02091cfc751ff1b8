package scaffold

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/pyindex"
)

// Generated bot.py code puts one constructor argument per line inside
// `async def bot(...)`, 8 spaces deep; black's limit is 88 columns.
const (
	kwargIndent  = 8
	blackLineMax = 88
)

var (
	getenvCall = regexp.MustCompile(`os\.getenv\("([^"]*)"(?:, "([^"]*)")?\)`)
	envName    = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	serviceID  = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)
)

// pipecatIndex is the API index of pipecat-ai 1.7.0 (internal/testsupport/pyindex,
// built from the release's source).
func pipecatIndex(t testing.TB) *pyindex.Index {
	t.Helper()
	ix, err := pyindex.Pipecat()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// deprecatedButOffered are the catalogue's services whose module
// pipecat-ai 1.7.0 deprecates (no replacement) while the framework's own
// registry (`pipecat init`) still offers them: kept for parity with that
// registry (TestCatalogFollowsPipecatRegistry). Their projects may import
// that module's names; any other deprecated name still fails.
// The catalogue says which (Service.Deprecated), and create warns of it.
var deprecatedButOffered = func() map[string]string {
	m := map[string]string{}
	for _, s := range Services() {
		if s.Deprecated != "" {
			m[s.ID] = s.Module
		}
	}
	return m
}()

// serviceProblems checks one catalogue entry against the pipecat API index
// and the catalogue's own rules, returning one line per problem.
func serviceProblems(ix *pyindex.Index, s Service) []string {
	var probs []string
	bad := func(format string, args ...any) {
		probs = append(probs, s.ID+": "+fmt.Sprintf(format, args...))
	}

	// Identity.
	if !serviceID.MatchString(s.ID) {
		bad("id is not lower_snake_case")
	}
	// Every id is <provider>_<category>; the framework's one id of another
	// shape (ultravox) is a name it stands for (frameworkNames).
	if !strings.HasSuffix(s.ID, "_"+string(s.Category)) || s.ID == "_"+string(s.Category) {
		bad("id does not end in _%s for category %q", s.Category, s.Category)
	}
	if strings.TrimSpace(s.Label) == "" {
		bad("no label")
	}
	if s.Class == "" {
		bad("no class")
	}

	// Module, class, extras, imports.
	if !strings.HasPrefix(s.Module, "pipecat.services.") {
		bad("module %s is not under pipecat.services", s.Module)
	}
	if _, ok := ix.Modules[s.Module]; !ok {
		bad("no module %s in pipecat-ai %s", s.Module, ix.Version)
	} else if !ix.Binds(s.Module, s.Class) {
		bad("%s has no name %s in pipecat-ai %s", s.Module, s.Class, ix.Version)
	} else if why := ix.Deprecation(s.Module, s.Class); why != "" && deprecatedButOffered[s.ID] != s.Module {
		bad("%s from %s is not current in pipecat-ai %s: %s", s.Class, s.Module, ix.Version, why)
	} else if why == "" && s.Deprecated != "" {
		bad("says Deprecated, but pipecat-ai %s deprecates neither %s nor %s", ix.Version, s.Module, s.Class)
	}
	for _, e := range s.Extras {
		if !ix.HasExtra(e) {
			bad("pipecat-ai has no extra %q in %s", e, ix.Version)
		}
	}
	importNames := map[string]Import{}
	for _, im := range s.Imports {
		if !ix.Binds(im.Module, im.Name) {
			bad("import: %s has no name %s in pipecat-ai %s", im.Module, im.Name, ix.Version)
		} else if why := ix.Deprecation(im.Module, im.Name); why != "" && deprecatedButOffered[s.ID] != im.Module {
			bad("import: %s from %s is not current in pipecat-ai %s: %s", im.Name, im.Module, ix.Version, why)
		}
		if _, dup := importNames[im.Name]; dup || im.Name == s.Class {
			bad("import %s listed twice", im.Name)
		}
		importNames[im.Name] = im
	}

	// Keyword arguments, nested calls included.
	usedImports := map[string]bool{}
	checkKwargs(ix, s.ID, s.Module, s.Class, s.Args, importNames, usedImports, &probs)
	for name := range importNames {
		if !usedImports[name] {
			bad("import %s is not used by any argument (pyflakes would flag it)", name)
		}
	}

	// Environment variables: every os.getenv in a value is declared, every
	// declared variable is read, defaults agree.
	declared := map[string]EnvVar{}
	for _, e := range s.Env {
		if !envName.MatchString(e.Name) {
			bad("env %q is not an UPPER_SNAKE name", e.Name)
		}
		if _, dup := declared[e.Name]; dup {
			bad("env %s listed twice", e.Name)
		}
		if e.Secret && e.Default != "" {
			bad("env %s is secret but has a default", e.Name)
		}
		declared[e.Name] = e
	}
	read := map[string]bool{}
	usesSession := false
	for _, a := range s.Args {
		if strings.Count(a.Value, "getenv") != len(getenvCall.FindAllString(a.Value, -1)) ||
			strings.Contains(a.Value, "environ") {
			bad("arg %s reads the environment other than by os.getenv(\"X\"[, \"default\"])", a.Name)
		}
		for _, m := range getenvCall.FindAllStringSubmatch(a.Value, -1) {
			name, def, hasDef := m[1], m[2], strings.Contains(m[0], ", ")
			read[name] = true
			e, ok := declared[name]
			switch {
			case !ok:
				bad("arg %s reads %s, which Env does not list", a.Name, name)
			case e.Secret && hasDef:
				bad("arg %s gives secret %s a default in code", a.Name, name)
			case hasDef && def != e.Default:
				bad("arg %s defaults %s to %q but Env says %q", a.Name, name, def, e.Default)
			case !hasDef && e.Default != "":
				bad("arg %s reads %s without its default %q", a.Name, name, e.Default)
			}
		}
		if strings.Contains(a.Value, "session") {
			usesSession = true
			if a.Value != "session" {
				bad("arg %s: session may only be passed as itself", a.Name)
			}
		}
	}
	for _, e := range s.Env {
		if !read[e.Name] {
			bad("env %s is listed but no argument reads it", e.Name)
		}
	}
	if usesSession != s.NeedsSession {
		bad("NeedsSession is %v but an argument passing session is %v", s.NeedsSession, usesSession)
	}
	switch s.SampleRate {
	case 0, 8000, 16000, 24000, 44100, 48000:
	default:
		bad("unusual sample rate %d", s.SampleRate)
	}

	// Line length as black sees it.
	for _, line := range s.KwargLines() {
		if n := kwargIndent + len(line); n > blackLineMax {
			bad("line is %d columns (black allows %d): %s", n, blackLineMax, line)
		}
		if strings.Contains(line, "'") {
			bad("single quotes (black writes double): %s", line)
		}
	}
	return probs
}

// checkKwargs checks the keyword names passed to cls (defined or re-exported
// in module) and recurses into nested calls, whose callee must be one of the
// service's imports.
func checkKwargs(ix *pyindex.Index, id, module, cls string, args []Arg, imports map[string]Import,
	used map[string]bool, probs *[]string) {
	if len(args) == 0 {
		return
	}
	// Only named parameters: a **kwargs the class reads itself (Open) would
	// take a misspelt keyword unchecked.
	accepted, verdict := ix.Keywords(module, cls)
	ok := verdict != pyindex.Unknown
	if !ok {
		*probs = append(*probs, fmt.Sprintf("%s: %s(): keywords cannot be decided from the index", id, cls))
	}
	deprecated := ix.DeprecatedParams(module, cls)
	seen := map[string]bool{}
	for _, a := range args {
		if seen[a.Name] {
			*probs = append(*probs, fmt.Sprintf("%s: %s() gets keyword %s twice", id, cls, a.Name))
		}
		seen[a.Name] = true
		if ok && !accepted[a.Name] {
			*probs = append(*probs, fmt.Sprintf("%s: %s() takes no keyword argument %q in pipecat-ai %s",
				id, cls, a.Name, ix.Version))
		}
		if deprecated[a.Name] {
			*probs = append(*probs, fmt.Sprintf("%s: %s(): keyword argument %q is deprecated in pipecat-ai %s",
				id, cls, a.Name, ix.Version))
		}
		if a.Value == "" {
			*probs = append(*probs, fmt.Sprintf("%s: %s=: empty value", id, a.Name))
		}
		if len(a.Args) == 0 {
			if strings.Contains(a.Value, "\n") {
				*probs = append(*probs, fmt.Sprintf("%s: %s=: multi-line value without Args", id, a.Name))
			}
			continue
		}
		callee, _, _ := strings.Cut(a.Value, "(")
		im, isImport := imports[callee]
		if !isImport {
			*probs = append(*probs, fmt.Sprintf("%s: %s=%s(...): %s is not among the service's imports",
				id, a.Name, callee, callee))
			continue
		}
		used[callee] = true
		checkKwargs(ix, id, im.Module, callee, a.Args, imports, used, probs)
	}
}

func TestCatalogServicesMatchPipecatAPI(t *testing.T) {
	ix := pipecatIndex(t)
	for _, s := range Services() {
		for _, p := range serviceProblems(ix, s) {
			t.Error(p)
		}
	}
}

func TestCatalogIDsAndCounts(t *testing.T) {
	all := Services()
	ids := map[string]bool{}
	for _, s := range all {
		if ids[s.ID] {
			t.Errorf("duplicate service id %s", s.ID)
		}
		ids[s.ID] = true
	}
	minimum := map[Category]int{CategorySTT: 20, CategoryLLM: 20, CategoryTTS: 30, CategoryRealtime: 6, CategoryVideo: 3}
	for cat, min := range minimum {
		n := len(ServicesIn(cat))
		if n < min {
			t.Errorf("%s: %d services, want at least %d", cat, n, min)
		}
		t.Logf("%s: %d services", cat, n)
	}
	if got := ServiceIDs(CategoryVideo); !slices.Equal(got, []string{"heygen_video", "simli_video", "tavus_video"}) {
		t.Errorf("video services = %v", got)
	}
	total := 0
	for cat := range minimum {
		total += len(ServicesIn(cat))
	}
	if total != len(all) {
		t.Errorf("%d services in known categories, %d in all", total, len(all))
	}
	// Ordered by category, then id.
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if categoryRank(a.Category) > categoryRank(b.Category) ||
			(a.Category == b.Category && a.ID >= b.ID) {
			t.Errorf("Services() out of order at %s, %s", a.ID, b.ID)
		}
	}
	// Ids a user is likely to type, and the examples in docs/create.md.
	for _, id := range []string{"deepgram_stt", "deepgram_flux_stt", "openai_llm", "google_gemini_llm",
		"aws_bedrock_llm", "cartesia_tts", "elevenlabs_tts", "openai_realtime",
		"gemini_live_realtime", "heygen_video"} {
		s, ok := LookupService(id)
		if !ok || s.ID != id {
			t.Errorf("LookupService(%q) = %v, %v", id, s.ID, ok)
		}
	}
	if _, ok := LookupService("nosuch_stt"); ok {
		t.Error("LookupService found nosuch_stt")
	}
}

// The same variable must mean the same thing in every service that reads
// it, or a project combining them would get conflicting .env.example lines.
func TestCatalogEnvVarsAgreeAcrossServices(t *testing.T) {
	seen := map[string]EnvVar{}
	by := map[string]string{}
	for _, s := range Services() {
		for _, e := range s.Env {
			if prev, ok := seen[e.Name]; ok && prev != e {
				t.Errorf("%s declares %+v but %s declares %+v", s.ID, e, by[e.Name], prev)
			}
			seen[e.Name] = e
			by[e.Name] = s.ID
		}
	}
	for _, tr := range Transports() {
		for _, e := range tr.Env {
			if prev, ok := seen[e.Name]; ok && prev != e {
				t.Errorf("transport %s declares %+v but %s declares %+v", tr.ID, e, by[e.Name], prev)
			}
		}
	}
}

// Callers get their own copies: changing what one gets changes nothing for
// the next.
func TestCatalogReturnsCopies(t *testing.T) {
	s := Services()
	s[0].ID = "changed"
	s[0].Args[0].Value = "changed"
	s[0].Env[0].Name = "CHANGED"
	again := Services()
	if again[0].ID == "changed" || again[0].Args[0].Value == "changed" || again[0].Env[0].Name == "CHANGED" {
		t.Fatal("Services() shares state between calls")
	}
	d, _ := LookupService("deepgram_stt")
	d.Args[1].Args[0].Name = "changed"
	d, _ = LookupService("deepgram_stt")
	if d.Args[1].Args[0].Name != "model" {
		t.Fatal("LookupService shares nested args between calls")
	}
	tr := Transports()
	tr[0].Extras[0] = "changed"
	tr[2].Extras[0] = "changed"
	for _, x := range Transports() {
		if slices.Contains(x.Extras, "changed") {
			t.Fatal("Transports() shares state between calls")
		}
	}
	twilio, _ := LookupTransport("twilio")
	if twilio.Extras[0] != "websocket" {
		t.Fatalf("twilio extras = %v", twilio.Extras)
	}
}

func TestCatalogKwargLines(t *testing.T) {
	s, _ := LookupService("elevenlabs_tts")
	want := []string{
		`api_key=os.getenv("ELEVENLABS_API_KEY"),`,
		`settings=ElevenLabsTTSSettings(`,
		`    voice=os.getenv("ELEVENLABS_VOICE", "21m00Tcm4TlvDq8ikWcM"),`,
		`    model=os.getenv("ELEVENLABS_MODEL", "eleven_flash_v2_5"),`,
		`),`,
	}
	if got := s.KwargLines(); !slices.Equal(got, want) {
		t.Errorf("KwargLines() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	h, _ := LookupService("heygen_video")
	if got := h.KwargLines(); !slices.Equal(got, []string{`api_key=os.getenv("HEYGEN_API_KEY"),`, `session=session,`}) {
		t.Errorf("heygen KwargLines() = %q", got)
	}
}

func TestCatalogTransports(t *testing.T) {
	ix := pipecatIndex(t)
	if got, want := TransportIDs(TransportWeb), []string{"daily", "smallwebrtc", "websocket"}; !slices.Equal(got, want) {
		t.Errorf("web transports = %v, want %v", got, want)
	}
	wantTel := []string{"twilio", "telnyx", "plivo", "exotel", "daily_pstn", "daily_pstn_dialin",
		"daily_pstn_dialout", "twilio_daily_sip", "twilio_daily_sip_dialin", "twilio_daily_sip_dialout"}
	if got := TransportIDs(TransportTelephony); !slices.Equal(got, wantTel) {
		t.Errorf("telephony transports = %v, want %v", got, wantTel)
	}
	runners := []string{"daily", "webrtc", "websocket", "twilio", "telnyx", "plivo", "exotel"}
	ids := map[string]bool{}
	for _, tr := range Transports() {
		if ids[tr.ID] {
			t.Errorf("duplicate transport %s", tr.ID)
		}
		ids[tr.ID] = true
		if tr.Label == "" {
			t.Errorf("%s: no label", tr.ID)
		}
		if !slices.Contains(runners, tr.Runner) {
			t.Errorf("%s: runner %q is not a development runner transport", tr.ID, tr.Runner)
		}
		if len(tr.Extras) == 0 {
			t.Errorf("%s: no extras", tr.ID)
		}
		for _, e := range tr.Extras {
			if !ix.HasExtra(e) {
				t.Errorf("%s: pipecat-ai has no extra %q", tr.ID, e)
			}
		}
		for _, e := range tr.Env {
			if !envName.MatchString(e.Name) || !e.Secret || e.Default != "" {
				t.Errorf("%s: env %+v should be a secret with no default", tr.ID, e)
			}
		}
		switch tr.NeedsMode {
		case "":
		case "pstn", "sip":
			if tr.Runner != "daily" {
				t.Errorf("%s: mode %s on runner %s", tr.ID, tr.NeedsMode, tr.Runner)
			}
		default:
			t.Errorf("%s: NeedsMode %q", tr.ID, tr.NeedsMode)
		}
		if (tr.VariantOf == "") != (tr.FixedMode == "") {
			t.Errorf("%s: VariantOf %q with FixedMode %q", tr.ID, tr.VariantOf, tr.FixedMode)
		}
		if tr.VariantOf != "" {
			base, ok := LookupTransport(tr.VariantOf)
			if !ok || base.NeedsMode == "" || base.VariantOf != "" {
				t.Errorf("%s: variant of %q, which is not a transport needing a mode", tr.ID, tr.VariantOf)
			}
			if tr.FixedMode != "dial-in" && tr.FixedMode != "dial-out" {
				t.Errorf("%s: FixedMode %q", tr.ID, tr.FixedMode)
			}
			if tr.NeedsMode != "" {
				t.Errorf("%s: a variant fixes its mode, NeedsMode must be empty", tr.ID)
			}
			if tr.Runner != base.Runner || tr.Kind != base.Kind || !slices.Equal(tr.Extras, base.Extras) ||
				!slices.Equal(tr.Env, base.Env) {
				t.Errorf("%s differs from %s in more than its mode", tr.ID, base.ID)
			}
		}
	}
	modes := map[string]string{"daily_pstn": "pstn", "twilio_daily_sip": "sip"}
	for id, mode := range modes {
		if tr, _ := LookupTransport(id); tr.NeedsMode != mode {
			t.Errorf("%s: NeedsMode %q, want %q", id, tr.NeedsMode, mode)
		}
	}
	if _, ok := LookupTransport("nosuch"); ok {
		t.Error("LookupTransport found nosuch")
	}
	// The telephony credentials are what the runner hands the serializers
	// (to hang up calls): they must be parameters of those serializers.
	serializer := map[string]struct {
		module, class string
		params        []string
	}{
		"twilio": {"pipecat.serializers.twilio", "TwilioFrameSerializer", []string{"account_sid", "auth_token"}},
		"telnyx": {"pipecat.serializers.telnyx", "TelnyxFrameSerializer", []string{"api_key"}},
		"plivo":  {"pipecat.serializers.plivo", "PlivoFrameSerializer", []string{"auth_id", "auth_token"}},
		"exotel": {"pipecat.serializers.exotel", "ExotelFrameSerializer", nil},
	}
	for id, want := range serializer {
		tr, _ := LookupTransport(id)
		accepted, verdict := ix.Keywords(want.module, want.class)
		if verdict != pyindex.Exact {
			t.Errorf("%s: cannot read %s's parameters from the index", id, want.class)
			continue
		}
		for _, p := range want.params {
			if !accepted[p] {
				t.Errorf("%s: %s takes no %s", id, want.class, p)
			}
		}
		if len(tr.Env) != len(want.params) {
			t.Errorf("%s: %d env vars for %d serializer credentials", id, len(tr.Env), len(want.params))
		}
	}
}

// The checks must catch broken entries: each mutation of a good entry has
// to produce a problem mentioning what was broken.
func TestCatalogCheckCatchesBrokenEntries(t *testing.T) {
	ix := pipecatIndex(t)
	good, ok := LookupService("deepgram_stt")
	if !ok {
		t.Fatal("no deepgram_stt")
	}
	if p := serviceProblems(ix, good); len(p) != 0 {
		t.Fatalf("good entry has problems: %v", p)
	}
	cases := []struct {
		name, want string
		mutate     func(s *Service)
	}{
		{"module", "no module", func(s *Service) { s.Module = "pipecat.services.deepgram.nosuch" }},
		{"class", "has no name", func(s *Service) { s.Class = "DeepgramSSTService" }},
		{"kwarg", `no keyword argument "apikey"`, func(s *Service) { s.Args[0].Name = "apikey" }},
		{"settings kwarg", `no keyword argument "voice"`, func(s *Service) {
			s.Args[1] = call("settings", "DeepgramSTTSettings", getenvOr("voice", "DEEPGRAM_STT_MODEL", "nova-3"))
		}},
		{"extra", "no extra", func(s *Service) { s.Extras = []string{"deepgramm"} }},
		{"deprecated class", "LiveOptions from pipecat.services.deepgram.stt is not current", func(s *Service) { s.Class = "LiveOptions" }},
		{"deprecated kwarg", `keyword argument "live_options" is deprecated`, func(s *Service) { s.Args[0].Name = "live_options" }},
		{"import", "has no name DeepgramSettings", func(s *Service) { s.Imports[0].Name = "DeepgramSettings" }},
		{"unused import", "not used", func(s *Service) {
			s.Imports = append(s.Imports, Import{Module: "pipecat.services.deepgram.stt", Name: "DeepgramSTTSettings2"})
		}},
		{"undeclared env", "which Env does not list", func(s *Service) { s.Env = s.Env[1:] }},
		{"unread env", "no argument reads it", func(s *Service) { s.Env = append(s.Env, setting("DEEPGRAM_X", "y")) }},
		{"default mismatch", "defaults DEEPGRAM_STT_MODEL", func(s *Service) { s.Env[1].Default = "nova-2" }},
		{"secret default", "secret", func(s *Service) { s.Args[0] = getenvOr("api_key", "DEEPGRAM_API_KEY", "x") }},
		{"suffix", "does not end in _stt", func(s *Service) { s.ID = "deepgram_tts" }},
		{"long line", "columns", func(s *Service) {
			s.Args[0].Value = `os.getenv("DEEPGRAM_API_KEY_WITH_A_VERY_LONG_NAME_THAT_GOES_ON_AND_ON_AND_ON")`
			s.Env[0].Name = "DEEPGRAM_API_KEY_WITH_A_VERY_LONG_NAME_THAT_GOES_ON_AND_ON_AND_ON"
		}},
		{"session", "NeedsSession", func(s *Service) { s.NeedsSession = true }},
	}
	for _, c := range cases {
		s, _ := LookupService("deepgram_stt")
		c.mutate(&s)
		probs := serviceProblems(ix, s)
		if !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%s: broken entry not caught (want a problem containing %q), got %q", c.name, c.want, probs)
		}
	}
}

// The ids of every category, as a stable listing for reviews and reports.
func TestCatalogListing(t *testing.T) {
	var b strings.Builder
	for _, c := range []Category{CategorySTT, CategoryLLM, CategoryTTS, CategoryRealtime, CategoryVideo} {
		ids := ServiceIDs(c)
		if !sort.StringsAreSorted(ids) {
			t.Errorf("%s ids not sorted", c)
		}
		fmt.Fprintf(&b, "%s (%d): %s\n", c, len(ids), strings.Join(ids, " "))
	}
	t.Log("\n" + b.String())
}
