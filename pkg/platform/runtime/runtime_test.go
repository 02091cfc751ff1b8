package runtime

import (
	"slices"
	"testing"
)

func TestSelector(t *testing.T) {
	o := Owner{Organization: "acme", Region: "eu", Agent: "bot", Deployment: 3}
	labels := o.Labels(1)
	if !ForOwner(o).Matches(labels) || !(Selector{}).Matches(labels) {
		t.Errorf("the owner's selectors do not match its labels %v", labels)
	}
	other := o
	other.Deployment = 4
	if ForOwner(other).Matches(labels) {
		t.Error("deployment 4's selector matches deployment 3")
	}
	other.Deployment = 0 // every deployment
	if !ForOwner(other).Matches(labels) {
		t.Error("the agent's selector does not match its deployment 3")
	}
	delete(labels, LabelManaged)
	if (Selector{}).Matches(labels) {
		t.Error("a container without the managed label matches")
	}
	if got, want := ForOwner(o).Filters(), []string{LabelManaged + "=true", LabelAgent + "=bot", LabelDeployment + "=3", LabelOrganization + "=acme", LabelRegion + "=eu"}; !slices.Equal(got, want) {
		t.Errorf("filters %q, want %q", got, want)
	}
	back, idx := OwnerOf(o.Labels(2))
	if back != o || idx != 2 {
		t.Errorf("OwnerOf = %+v %d", back, idx)
	}
}

func TestProfiles(t *testing.T) {
	if got := ProfileNames(); !slices.Equal(got, []string{ProfileAgent1x, ProfileAgent2x}) {
		t.Errorf("profiles %q", got)
	}
	one, ok1 := LookupProfile(ProfileAgent1x)
	two, ok2 := LookupProfile(ProfileAgent2x)
	if !ok1 || !ok2 || two.NanoCPUs != 2*one.NanoCPUs || two.MemoryBytes != 2*one.MemoryBytes {
		t.Errorf("agent-2x is not twice agent-1x: %+v %+v", one, two)
	}
	if _, ok := LookupProfile(DefaultProfile); !ok {
		t.Error("the default profile is not a profile")
	}
}

// A cut line as shown splits back into its text and its marker; a line
// that only looks cut does not.
func TestSplitCut(t *testing.T) {
	shown := LogLine{Text: "abc", Size: 3145728}.String()
	if text, marker := SplitCut(shown); text != " | abc" || marker != " … [line cut: 3145728 bytes]" {
		t.Errorf("SplitCut(%q) = %q, %q", shown, text, marker)
	}
	for _, s := range []string{"abc", "abc … [line cut: x bytes]", "abc … [line cut: 12 bytes] and more"} {
		if text, marker := SplitCut(s); text != s || marker != "" {
			t.Errorf("SplitCut(%q) = %q, %q", s, text, marker)
		}
	}
}
