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
	// Label values and the owning apply set come from the platform too.
	cur := resources.Object{SecretSet: &resources.SecretSet{Metadata: resources.ObjectMeta{Name: hostile,
		Labels: map[string]string{"team": "a\x1b[2J"}, ManagedBy: resources.ManagedByApply, ApplySet: "set\x1b[2J"}}}
	d := orgDiff{OrgApply: OrgApply{Organization: "acme", Result: resources.ApplyResult{Items: []resources.ApplyResultItem{{Kind: resources.KindSecretSet, Name: hostile, Action: resources.ActionConfigured, Keys: item.Keys,
		Fields: []resources.FieldChange{{Field: "metadata.labels", Change: resources.ChangeChanged}}}}}},
		current: map[string]resources.Object{hostile: cur}}
	if _, err := writeDiff(&b, []orgDiff{d}, ""); err != nil {
		t.Fatal(err)
	}
	if err := writeOwners(&b, []orgDiff{d}, ""); err != nil {
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
