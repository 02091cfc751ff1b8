package agents

import (
	"fmt"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/cmd/cloudutil"
	"github.com/botkit-dev/botkit/pkg/cmdutil"
	platformagents "github.com/botkit-dev/botkit/pkg/platform/agents"
)

// The logs help says exactly what is masked: the platform's threshold, not
// "every value".
func TestLogsHelpSaysWhatIsMasked(t *testing.T) {
	f := &cloudutil.Factory{Factory: cmdutil.NewFactory(nil)}
	long := strings.Join(strings.Fields(NewCmdLogs(f, nil).Long), " ")
	want := fmt.Sprintf("every value of %d bytes or more", platformagents.MinMaskedLen)
	if !strings.Contains(long, want) {
		t.Errorf("logs --help does not say %q:\n%s", want, long)
	}
	short := fmt.Sprintf("values of 1 to %d bytes", platformagents.MinMaskedLen-1)
	if !strings.Contains(long, short) {
		t.Errorf("logs --help does not say %q are not masked:\n%s", short, long)
	}
	if strings.Contains(long, "Every value") {
		t.Errorf("logs --help still claims every value is masked")
	}
}
