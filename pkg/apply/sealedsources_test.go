package apply

import (
	"fmt"
	"strings"
	"testing"
)

// Only the value sources of SecretSets' spec.data are sealed values: a
// label, another kind's field, a document of another API, and a key named
// sealed elsewhere are not; block scalars, flow and JSON forms are, at
// their line and column (a JSON value after another on its line too).
func TestSealedSources(t *testing.T) {
	text := `apiVersion: botkit.dev/v1
kind: SecretSet
metadata:
  name: x
  labels:
    sealed: "true"
  annotations: {sealed: "v1.no"}
spec:
  data:
    A: {sealed: "v1.a"}
    B:
      sealed: >-
        v1.b
    C: {fromEnv: C, sealed: "v1.c"}
    D: "sealed"
    E:
      sealed: |
        v1.e
---
apiVersion: botkit.dev/v1
kind: ImagePullSecret
metadata: {name: y}
spec: {host: ghcr.io, credentials: {sealed: "v1.no"}}
---
apiVersion: other.example/v1
kind: SecretSet
spec: {data: {A: {sealed: "v1.no"}}}
---
apiVersion: botkit.dev/v1
kind: List
items:
- {apiVersion: botkit.dev/v1, kind: SecretSet, metadata: {name: z}, spec: {data: {F: {sealed: v1.f}}}}
`
	srcs, problems := SealedSources("m.yaml", []byte(text))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, fmt.Sprintf("%s=%q@%d:%d/%v", s.Key, s.Value, s.Line, s.Column, s.Block))
	}
	want := `A="v1.a"@10:17/false B="v1.b"@12:15/true C="v1.c"@14:29/false E="v1.e\n"@17:15/true F="v1.f"@32:95/false`
	if strings.Join(got, " ") != want {
		t.Errorf("sealed values:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}

	json := `{"apiVersion":"botkit.dev/v1","kind":"SecretSet","metadata":{"name":"a"},"spec":{"data":{"A":{"sealed":"v1.a"}}}} {"kind":"SecretSet","spec":{"data":{"É":{"sealed":"v1.b"}}}}` + "\n"
	srcs, problems = SealedSources("m.json", []byte(json))
	if len(problems) > 0 || len(srcs) != 2 {
		t.Fatalf("%+v %v", srcs, problems)
	}
	for _, s := range srcs {
		line := strings.Split(json, "\n")[s.Line-1]
		if r := []rune(line); !strings.HasPrefix(string(r[s.Column-1:]), `"`+s.Value+`"`) {
			t.Errorf("%s at column %d: %q", s.Key, s.Column, string(r[s.Column-1:]))
		}
	}
	if _, problems := SealedSources("bad.yaml", []byte("a: [\n")); len(problems) != 1 || problems[0].File != "bad.yaml" {
		t.Errorf("a broken file: %v", problems)
	}
}
