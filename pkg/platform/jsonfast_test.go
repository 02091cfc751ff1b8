package platform

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/store"
)

func marshalStd(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendObjectJSON(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	for _, o := range []store.Object{
		{Name: "a", Kind: "SecretSet", Region: "us-west", Version: 7, State: "pending", CreatedAt: ts, UpdatedAt: ts.Add(time.Second)},
		{Name: "b", Kind: "SecretSet", Region: "eu-central", Version: 1, State: "ready", Keys: map[string]int{"B": 1, "A": 2},
			Labels: map[string]string{"team": "voice", "botkit.dev/x": ""}, CreatedAt: ts, UpdatedAt: ts},
		{Name: "c", Kind: "ImagePullSecret", Region: "ap-south", Host: "https://ghcr.io", Username: "ü\"ser\\\n<&>\u2028", State: "failed",
			Message: "registry unreachable: dial tcp \"x\"\t\x01\xff", CreatedAt: ts, UpdatedAt: ts},
		{Name: "d", Kind: "ImagePullSecret", Host: "h", State: "pending", CreatedAt: ts, UpdatedAt: ts},
		{Name: "e", Kind: "SecretSet", Region: "us-west", State: "ready", Keys: map[string]int{"A": 1}, CreatedAt: ts, UpdatedAt: ts, Managed: true},
		{Name: "f", Kind: "SecretSet", Region: "us-west", State: "ready", CreatedAt: ts, UpdatedAt: ts, Managed: true, ApplySet: "prod<&>"},
	} {
		want := marshalStd(t, toObject("acme", o))
		got := appendObjectJSON(nil, "acme", o)
		if !bytes.Equal(got, want) {
			t.Errorf("object %s:\n got %s\nwant %s", o.Name, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"back\\", "\x00\x1f\x7f", "\xff\xfe", "\u2028\u2029", "<&>", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := marshalStd(t, s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

// appendTime writes what encoding/json writes for a time.Time.
func FuzzAppendTime(f *testing.F) {
	for _, n := range []int64{0, 1, 1e9, 1767322800123456789, 1767322800100000000, -9e18, 9e18} {
		f.Add(n, false)
	}
	f.Add(int64(1767322800000000700), true)
	f.Fuzz(func(t *testing.T, nanos int64, local bool) {
		tm := time.Unix(0, nanos).UTC()
		if local {
			tm = tm.In(time.FixedZone("x", 3600+1800))
		}
		want, err := json.Marshal(tm)
		if err != nil {
			t.Skip("not encodable")
		}
		got := append(append([]byte{'"'}, appendTime(nil, tm)...), '"')
		if !bytes.Equal(got, want) {
			t.Fatalf("%d: got %s want %s", nanos, got, want)
		}
	})
}
