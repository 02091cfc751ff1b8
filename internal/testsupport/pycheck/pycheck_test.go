package pycheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/pyindex"
)

// A hand-written project (testdata/project) against pipecat-ai 1.7.0:
// renamed and parenthesised imports, os.environ[...], getenv imported from
// os, a nested class, a deprecated keyword and class, an open **kwargs, an
// extra that does not exist, a variable .env.example lacks.
func TestCheckHandWrittenProject(t *testing.T) {
	ix, err := pyindex.Pipecat()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check("testdata/project", ix)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.String())
	}
	want := []string{
		`server/bot.py:18: ElevenLabsTTSService.InputParams is deprecated in pipecat-ai 1.7.0: ` +
			"`ElevenLabsTTSService.InputParams` is deprecated since 0.0.105 and will be removed in 2.0.0. Use `ElevenLabsTTSService.Settings` instead.",
		`server/bot.py:19: ElevenLabsTTSService(): keyword argument "voice_id" is deprecated in pipecat-ai 1.7.0`,
		`server/bot.py:20: OpenAILLMService() takes no keyword argument "model_name" in pipecat-ai 1.7.0`,
		`server/pyproject.toml: pipecat-ai has no extra "nosuch" in 1.7.0`,
		`server/bot.py:19: reads ELEVENLABS_API_KEY, which server/.env.example does not list`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// `pipecat.services.deepgram.stt.DeepgramSTTService(...)` is not an
	// imported name: not checked, not reported.
	if len(res.Undecided) != 0 {
		t.Errorf("undecided %v", res.Undecided)
	}
}

func TestCheckWithoutServer(t *testing.T) {
	ix, err := pyindex.Pipecat()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(t.TempDir(), ix)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Kind != Project {
		t.Errorf("problems %v", res.Problems)
	}
}
