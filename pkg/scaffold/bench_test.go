package scaffold_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// benchPartial is a typical project: a web bot with a React + Vite client,
// two transports, a cascade pipeline and cloud deployment.
func benchPartial() scaffold.Partial {
	s := func(v string) *string { return &v }
	b := func(v bool) *bool { return &v }
	return scaffold.Partial{
		ProjectName:     s("bench-bot"),
		Transports:      []string{"smallwebrtc", "daily"},
		STTService:      s("deepgram_stt"),
		LLMService:      s("openai_llm"),
		TTSService:      s("cartesia_tts"),
		ClientFramework: s("react"),
		Recording:       b(true),
		DeployToCloud:   b(true),
	}
}

// BenchmarkResolveGenerate measures what `botkit create` does between
// parsing its flags and writing: resolving and validating the config and
// rendering every file; the write variant also writes the project into a
// fresh directory, as the command does.
func BenchmarkResolveGenerate(b *testing.B) {
	p := benchPartial()
	b.Run("generate", func(b *testing.B) {
		g, err := scaffold.NewGenerator()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			c := scaffold.Resolve(p)
			if probs := scaffold.Validate(c); len(probs) > 0 {
				b.Fatal(probs)
			}
			files, err := g.Generate(c)
			if err != nil {
				b.Fatal(err)
			}
			if len(files) == 0 {
				b.Fatal("no files")
			}
		}
	})
	b.Run("generate+write", func(b *testing.B) {
		g, err := scaffold.NewGenerator()
		if err != nil {
			b.Fatal(err)
		}
		root := b.TempDir()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c := scaffold.Resolve(p)
			if probs := scaffold.Validate(c); len(probs) > 0 {
				b.Fatal(probs)
			}
			files, err := g.Generate(c)
			if err != nil {
				b.Fatal(err)
			}
			i++
			if err := scaffold.Write(filepath.Join(root, strconv.Itoa(i)), files); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new-generator", func(b *testing.B) {
		// Parsing the embedded templates: paid once per process.
		b.ReportAllocs()
		for b.Loop() {
			if _, err := scaffold.NewGenerator(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
