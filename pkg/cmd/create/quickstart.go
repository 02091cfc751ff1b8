package create

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// QuickstartName is the project name and default folder of `create quickstart`.
const QuickstartName = "pipecat-quickstart"

// QuickstartConfig is the canned project of `botkit create quickstart`: a
// web bot over peer-to-peer WebRTC (no account needed for the transport) with
// Deepgram, OpenAI and Cartesia, deployable to the cloud.
func QuickstartConfig(name string) scaffold.Config {
	return scaffold.Resolve(scaffold.Partial{
		ProjectName: &name,
		Transports:  []string{"smallwebrtc", "daily"},
		STTService:  ptr("deepgram_stt"),
		LLMService:  ptr("openai_llm"),
		TTSService:  ptr("cartesia_tts"),
	})
}

func ptr(s string) *string { return &s }

// QuickstartOptions are the inputs of `botkit create quickstart`.
type QuickstartOptions struct {
	IO         *iostreams.IOStreams
	WorkingDir string
	TargetDir  string
	DryRun     bool
}

func newCmdQuickstart(f *cmdutil.Factory, runF func(context.Context, *QuickstartOptions) error) *cobra.Command {
	opts := &QuickstartOptions{IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "quickstart [TARGET_DIR]",
		Short: "Scaffold a ready-to-run web bot with defaults, no questions asked",
		Long: `Scaffold a canned web bot into TARGET_DIR (default ./` + QuickstartName + `):
SmallWebRTC and Daily transports, Deepgram speech-to-text, OpenAI LLM and
Cartesia text-to-speech, with cloud deployment files.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.TargetDir = args[0]
			}
			wd, err := f.WorkingDir()
			if err != nil {
				return err
			}
			opts.WorkingDir = wd
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runQuickstart(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the resolved config and write nothing")
	return cmd
}

func runQuickstart(ctx context.Context, opts *QuickstartOptions) error {
	dir := absJoin(opts.WorkingDir, QuickstartName)
	name := QuickstartName
	if opts.TargetDir != "" {
		dir = absJoin(opts.WorkingDir, opts.TargetDir)
		name = baseName(dir)
	}
	cfg := QuickstartConfig(name)
	if probs := scaffold.Validate(cfg); len(probs) > 0 {
		return cmdutil.Problems(probs)
	}
	if opts.DryRun {
		return printConfig(opts.IO.Out, cfg, "json")
	}
	return generate(ctx, opts.IO, cfg, dir)
}
