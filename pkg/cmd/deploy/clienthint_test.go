package deploy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/scaffold"
)

// The last note of a deploy says how to point the project's web client (as
// botkit create wrote it) at the agent: the variables its env.example reads.
func TestClientHintNamesTheClientsVariables(t *testing.T) {
	for name, tc := range map[string]struct {
		framework, server string
		want              []string // "" : no hint
	}{
		"react-vite": {"react", "vite", []string{
			"VITE_AGENT_NAME=my-bot, VITE_PLATFORM_URL=http://127.0.0.1:8787 and VITE_PUBLIC_KEY",
			"--allowed-origin http://localhost:5173", filepath.Join("client", ".env.local"),
		}},
		"react-nextjs": {"react", "nextjs", []string{
			"set AGENT_NAME=my-bot, PLATFORM_URL=http://127.0.0.1:8787 and PUBLIC_KEY (a public key: botkit cloud organizations keys create --name web)",
		}},
		"none": {"none", "", nil},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			files, err := scaffold.ClientFiles(scaffold.Config{
				ProjectName: "my-bot", BotType: "web", Transports: []string{"smallwebrtc"},
				ClientFramework: tc.framework, ClientServer: tc.server,
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := scaffold.Write(root, files); err != nil {
				t.Fatal(err)
			}
			got := clientHint(filepath.Join(root, "server", "cloud-deploy.toml"), "my-bot", "http://127.0.0.1:8787")
			if tc.want == nil {
				if got != "" {
					t.Errorf("clientHint = %q, want none", got)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("clientHint = %q, lacks %q", got, w)
				}
			}
			// The deploy file at the project's root finds the same client.
			if again := clientHint(filepath.Join(root, "cloud-deploy.toml"), "my-bot", "http://127.0.0.1:8787"); again != got {
				t.Errorf("from the root's deploy file: %q, want %q", again, got)
			}
		})
	}
}
