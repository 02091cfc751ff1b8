package regions

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/internal/testsupport/platformtest"
	"github.com/botkit-dev/botkit/pkg/client"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	"github.com/botkit-dev/botkit/pkg/iostreams"
	"github.com/botkit-dev/botkit/pkg/platform"
	"github.com/botkit-dev/botkit/pkg/printers"
	"github.com/botkit-dev/botkit/pkg/resources"
)

func apiClient(t *testing.T) func(context.Context) (*client.Client, error) {
	t.Helper()
	url, srv := platformtest.Start(t, platform.Options{DisableProvisioner: true})
	platformtest.CreateOrg(t, srv, "acme", "")
	c, err := client.New(client.Options{BaseURL: url, Token: platformtest.CreateToken(t, srv, "acme", "dev")})
	if err != nil {
		t.Fatal(err)
	}
	return func(context.Context) (*client.Client, error) { return c, nil }
}

func TestListShowsEveryRegionAndTheDefault(t *testing.T) {
	api := apiClient(t)
	ios, _, out, errOut := iostreams.Test()
	if err := runList(context.Background(), &ListOptions{IO: ios, APIClient: api, Print: &printers.Flags{Output: "table"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1+len(resources.Regions()) || !strings.HasPrefix(lines[0], "NAME") || errOut.Len() != 0 {
		t.Fatalf("stdout %q stderr %q", out, errOut)
	}
	if strings.Join(strings.Fields(lines[1]), " ") != resources.DefaultRegion+" *" {
		t.Fatalf("the default region is not marked first: %q", lines[1])
	}

	ios, _, out, _ = iostreams.Test()
	if err := runList(context.Background(), &ListOptions{IO: ios, APIClient: api, Print: &printers.Flags{Output: "json"}}); err != nil {
		t.Fatal(err)
	}
	var got resources.RegionList
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	for _, r := range got.Items {
		names = append(names, r.Name)
	}
	if strings.Join(names, ",") != strings.Join(resources.Regions(), ",") {
		t.Fatalf("json regions %v, want %v", names, resources.Regions())
	}
}

func TestListUnknownFormatIsExit2(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	err := runList(context.Background(), &ListOptions{IO: ios, Print: &printers.Flags{Output: "xml"},
		APIClient: func(context.Context) (*client.Client, error) { t.Fatal("no request for a bad flag"); return nil, nil }})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage {
		t.Fatalf("err %v", err)
	}
}
