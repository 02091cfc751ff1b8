package secrets

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// parse runs cmd's flag parsing and argument checks with args (run replaced).
func parse(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	root := &cobra.Command{Use: "botkit"}
	root.AddCommand(cmd)
	cmdutil.TypeUsageErrors(root)
	ios, _, _, _ := iostreams.Test()
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetArgs(append([]string{cmd.Name()}, args...))
	return root.ExecuteContext(context.Background())
}

// Every boolean option can be turned off: --x=false and --no-x.
func TestBooleanFlagsTurnOff(t *testing.T) {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(nil)}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--sets"}, true},
		{[]string{"-s"}, true},
		{[]string{"--sets=false"}, false},
		{[]string{"-s=false"}, false},
		{[]string{"--no-sets"}, false},
		{[]string{"--no-sets=false"}, true},
	} {
		var got *ListOptions
		err := parse(t, NewCmdList(f, func(_ context.Context, o *ListOptions) error { got = o; return nil }), tc.args...)
		if err != nil || got == nil || got.Sets != tc.want {
			t.Errorf("list %v: sets=%v err %v, want %v", tc.args, got != nil && got.Sets, err, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--encode=false"}, false},
		{[]string{"--no-encode"}, false},
		{[]string{"--encode=true"}, true},
	} {
		var got *ImagePullSecretOptions
		err := parse(t, NewCmdImagePullSecret(f, func(_ context.Context, o *ImagePullSecretOptions) error { got = o; return nil }), append([]string{"reg", "ghcr.io", "u:p"}, tc.args...)...)
		if err != nil || got == nil || got.Encode != tc.want {
			t.Errorf("image-pull-secret %v: encode=%v err %v, want %v", tc.args, got != nil && got.Encode, err, tc.want)
		}
	}
	err := parse(t, NewCmdList(f, func(context.Context, *ListOptions) error { return nil }), "--sets", "--no-sets")
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--sets and --no-sets cannot be used together") {
		t.Errorf("--sets --no-sets: %v", err)
	}
}

func TestOrganizationAliasAndOutput(t *testing.T) {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(nil)}
	var got *SetOptions
	run := func(_ context.Context, o *SetOptions) error { got = o; return nil }
	if err := parse(t, NewCmdSet(f, run), "demo", "A=1", "--org", "acme", "-o", "json", "-s", "-r", "eu-central", "--wait", "-f", "x.env"); err != nil {
		t.Fatal(err)
	}
	if got.Organization != "acme" || got.Print.Output != "json" || got.Print.Lines() || !got.Skip || got.Region != "eu-central" || !got.Wait || got.File != "x.env" {
		t.Errorf("options %+v", got)
	}
	if err := parse(t, NewCmdSet(f, run), "demo", "--organization=team"); err != nil || got.Organization != "team" || !got.Print.Lines() {
		t.Errorf("--organization: %v %+v", err, got)
	}
}

func TestFromDockerConfigDefault(t *testing.T) {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(nil)}
	var got *ImagePullSecretOptions
	run := func(_ context.Context, o *ImagePullSecretOptions) error { got = o; return nil }
	if err := parse(t, NewCmdImagePullSecret(f, run), "reg", "ghcr.io", "--from-docker-config"); err != nil || got.DockerConfig != dockerConfigDefault || got.HasCreds {
		t.Errorf("bare flag: %v %+v", err, got)
	}
	if err := parse(t, NewCmdImagePullSecret(f, run), "reg", "ghcr.io", "--from-docker-config=/tmp/c.json"); err != nil || got.DockerConfig != "/tmp/c.json" {
		t.Errorf("with a path: %v %+v", err, got)
	}
}

func TestArgumentCounts(t *testing.T) {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(nil)}
	for _, tc := range []struct {
		cmd  *cobra.Command
		args []string
	}{
		{NewCmdSet(f, nil), nil},
		{NewCmdUnset(f, nil), []string{"demo"}},
		{NewCmdDelete(f, nil), nil},
		{NewCmdDelete(f, nil), []string{"a", "b"}},
		{NewCmdList(f, nil), []string{"a", "b"}},
		{NewCmdImagePullSecret(f, nil), []string{"reg"}},
		{NewCmdUnset(f, nil), []string{"demo", "A", "--region", "us-west"}},
	} {
		if err := parse(t, tc.cmd, tc.args...); cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%s %v: %v (exit %d), want exit 2", tc.cmd.Name(), tc.args, err, cmdutil.ExitCode(err))
		}
	}
}
