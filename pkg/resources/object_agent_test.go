package resources

import (
	"encoding/json"
	"testing"
)

// An Agent decodes as an Object (and in a List) by its kind, with its
// spec and its whole status; a SecretSet's status keeps state and message.
func TestObjectAgentJSON(t *testing.T) {
	data := `{"apiVersion":"botkit.dev/v1","kind":"List","items":[
{"apiVersion":"botkit.dev/v1","kind":"Agent","metadata":{"name":"bot","region":"us-west"},
 "spec":{"image":"r.example/a:1","imagePullSecret":"reg","secretSet":"bot","scaling":{"minAgents":0,"maxAgents":3},"profile":"agent-2x"},
 "status":{"state":"ready","deployment":3,"agents":{"desired":1,"ready":1},"secretSetVersion":7,"message":"m"}},
{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"bot"},"spec":{"keys":["A"]},"status":{"state":"failed","message":"why"}}]}`
	var l List
	if err := json.Unmarshal([]byte(data), &l); err != nil {
		t.Fatal(err)
	}
	a := l.Items[0].Agent
	if l.Items[0].Kind() != KindAgent || a == nil || a.Spec.Image != "r.example/a:1" || a.Spec.ImagePullSecret != "reg" || a.Spec.SecretSet != "bot" ||
		a.Spec.Scaling == nil || *a.Spec.Scaling != (AgentScaling{MinAgents: 0, MaxAgents: 3}) || a.Spec.Profile != "agent-2x" {
		t.Fatalf("agent %+v", a)
	}
	if a.Status == nil || a.Status.State != AgentReady || a.Status.Deployment != 3 || a.Status.Agents != (AgentCounts{1, 1}) || a.Status.SecretSetVersion != 7 {
		t.Fatalf("agent status %+v", a.Status)
	}
	if st := l.Items[0].Status(); st == nil || st.State != AgentReady || st.Message != "m" {
		t.Fatalf("Object.Status of an agent: %+v", st)
	}
	if st := l.Items[1].SecretSet.Status; st == nil || *st != (Status{State: StateFailed, Message: "why"}) {
		t.Fatalf("secret set status %+v", st)
	}
	// Round trip.
	b, err := json.Marshal(l.Items[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Object
	if err := json.Unmarshal(b, &back); err != nil || back.Agent == nil || back.Agent.Status.Deployment != 3 || back.Meta().Name != "bot" {
		t.Fatalf("round trip: %s → %+v, %v", b, back, err)
	}
}
