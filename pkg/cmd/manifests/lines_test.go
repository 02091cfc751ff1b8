package manifests

import (
	"bytes"
	"strings"
	"testing"

	"github.com/botkit-dev/botkit/pkg/resources"
)

// What a platform answers reaches the terminal without escape sequences,
// one line per object or key, in apply's, delete's and diff's lines.
func TestLinesCarryNoEscapes(t *testing.T) {
	hostile := "bot\x1b]52;c;aGk=\x07\x1b[2J\nforged"
	item := resources.ApplyResultItem{Kind: resources.KindSecretSet, Name: hostile, Action: resources.ActionConfigured + "\x1b[31m",
		Keys: []resources.KeyChange{{Key: "K\x1b[2J", Change: resources.ChangeAdded}}}
	res := []OrgApply{{Organization: "acme", Result: resources.ApplyResult{Items: []resources.ApplyResultItem{item}}}}
	var b bytes.Buffer
	if err := writeApplyLines(&b, res); err != nil {
		t.Fatal(err)
	}
	if _, err := writeDiff(&b, []OrgApply{{Organization: "acme", Result: resources.ApplyResult{Items: []resources.ApplyResultItem{{Kind: resources.KindSecretSet, Name: hostile, Action: resources.ActionConfigured, Keys: item.Keys}}}}}); err != nil {
		t.Fatal(err)
	}
	if err := writeDeleteLines(&b, []OrgDelete{{Organization: "acme", Result: resources.DeleteResult{Items: []resources.DeleteResultItem{{Kind: resources.KindSecretSet, Name: hostile, Action: "deleted"}}}}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nforged") {
		t.Errorf("lines carry what the platform sent raw: %q", out)
	}
}
