package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/internal/docscan"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// maxMembers bounds the members of any object or array of a request body:
// the contract's largest maxItems (apply's and delete's objects, reseal's
// values). A wide body is refused before a decoder spends memory per member.
const maxMembers = max(resources.MaxApplyObjects, resources.MaxResealValues)

func errInvalid(format string, args ...any) *resources.Error {
	return resources.Errorf(resources.CodeInvalid, format, args...)
}

// BodyTooLarge is the error of a request body over limit bytes.
func BodyTooLarge(limit int) *resources.Error {
	return resources.Errorf(resources.CodeTooLarge, "request body is larger than %d bytes (%d MiB)", limit, limit>>20)
}

// Decode decodes a request body of at most limit bytes strictly into v:
// valid UTF-8 (also in \u escapes: no lone surrogate), nested at most
// docscan.MaxDepth levels, at most maxMembers members in an object or array
// (else too_large), no duplicate key, no null, no unknown field, no
// trailing data. Its errors are *resources.Error and never quote the body.
//
// The nesting is checked first, in one pass that allocates nothing: the
// checks after it keep a frame per level, and so cost a small multiple of
// the body whatever its shape.
func Decode(data []byte, v any, limit int) error {
	if len(data) > limit {
		return BodyTooLarge(limit)
	}
	if !utf8.Valid(data) {
		return errInvalid("request body is not valid UTF-8")
	}
	if p, ok := v.(*resources.Patch); ok && decodePatchFast(data, p) {
		return nil
	}
	if err := docscan.JSONMembers(data, maxMembers); err != nil {
		if err.Problem == docscan.TooManyMembers {
			return resources.Errorf(resources.CodeTooLarge, "request body: %s", err)
		}
		return errInvalid("request body: %s", err)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	if err := checkNoNull(data); err != nil {
		return err
	}
	if err := decodeStrict(data, v); err != nil {
		return errInvalid("request body: %s", describeDecodeError(err))
	}
	return nil
}

// decodeStrict decodes one JSON value into v: unknown fields and trailing
// data are errors.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errTrailingData
	}
	return nil
}

var errTrailingData = errors.New("unexpected data after the JSON value")

// checkNoNull refuses a null anywhere in a request body: api/openapi.yaml
// allows none, and a null would decode as "absent" — `{"set": null}` as an
// empty merge, a body `null` as `{}`. The message names where (keys only).
// Malformed JSON is left to the decoder to report.
func checkNoNull(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var path []string // the keys (or "[]") down to the current value
	var expectKey []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		inObject := len(expectKey) > 0 && expectKey[len(expectKey)-1]
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				expectKey = append(expectKey, t == '{')
				if t == '[' {
					path = append(path, "[]")
				}
				continue
			default:
				expectKey = expectKey[:len(expectKey)-1]
				if t == ']' {
					path = path[:len(path)-1]
				}
			}
		case string:
			if inObject && dec.More() {
				// A key: its value comes next.
				path = append(path, t)
				expectKey[len(expectKey)-1] = false
				continue
			}
		case nil:
			where := strings.Join(path, ".")
			if where == "" {
				return errInvalid("request body: null is not a request; send an object")
			}
			return errInvalid("request body: %s is null; omit the field instead", QuoteField(where))
		}
		// A value ended: back to expecting a key in an object.
		if len(expectKey) > 0 && !expectKey[len(expectKey)-1] && len(path) > 0 && path[len(path)-1] != "[]" {
			path = path[:len(path)-1]
			expectKey[len(expectKey)-1] = true
		}
	}
}

// checkDuplicateKeys reports an object key given twice in one JSON object,
// at any depth (encoding/json would silently keep the last). The message
// names the key and its path (keys only, never a value). Malformed JSON is
// left to the decoder to report.
func checkDuplicateKeys(data []byte) error {
	type frame struct {
		object  bool
		keys    map[string]struct{}
		key     string // object: the current key
		index   int    // array: the current index
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack[:len(stack)-1] {
			if f.object {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return b.String()
	}
	// value is called after a complete value inside the top frame.
	value := func() {
		if len(stack) == 0 {
			return
		}
		f := stack[len(stack)-1]
		if f.object {
			f.wantKey = true
		} else {
			f.index++
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // EOF, or a syntax error the decoder reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
			continue
		case string:
			if top != nil && top.object && top.wantKey {
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				if _, dup := top.keys[t]; dup {
					where := path()
					if where == "" {
						return errInvalid("request body: duplicate key %s", QuoteField(t))
					}
					return errInvalid("request body: duplicate key %s in %s", QuoteField(t), QuoteField(where))
				}
				top.keys[t] = struct{}{}
				top.key, top.wantKey = t, false
				continue
			}
		}
		value()
	}
}

func describeDecodeError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte offset %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %s: expected %s", QuoteField(te.Field), te.Type.String())
		}
		return fmt.Sprintf("expected %s", te.Type.String())
	case errors.Is(err, io.EOF):
		return "empty body, expected a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	case errors.Is(err, resources.ErrValueSource):
		return resources.ErrValueSource.Error()
	case errors.Is(err, errTrailingData):
		return errTrailingData.Error()
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "unknown field " + QuoteField(strings.Trim(f, `"`))
	}
	return "could not be decoded (check the field types against api/openapi.yaml)"
}

// QuoteField keeps a field path printable and short. Field paths are object
// keys and key names, never values.
func QuoteField(f string) string {
	if len(f) > 200 {
		f = f[:200] + "..."
	}
	return strconv.Quote(f)
}

// DecodeObject decodes one SecretSet, ImagePullSecret or Agent strictly: an unknown
// field or a wrong type is an error (never quoting a value).
func DecodeObject(raw []byte) (resources.Object, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return resources.Object{}, errInvalid("want an object with apiVersion, kind, metadata and spec")
	}
	var tm resources.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return resources.Object{}, errInvalid("%s", describeDecodeError(err))
	}
	var o resources.Object
	var target any
	switch tm.Kind {
	case resources.KindSecretSet:
		o.SecretSet = &resources.SecretSet{}
		target = o.SecretSet
	case resources.KindImagePullSecret:
		o.ImagePullSecret = &resources.ImagePullSecret{}
		target = o.ImagePullSecret
	case resources.KindAgent:
		o.Agent = &resources.Agent{}
		target = o.Agent
	default:
		return o, errInvalid("kind: unknown kind %q (valid: %s, %s, %s)", tm.Kind, resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent)
	}
	if err := decodeStrict(raw, target); err != nil {
		return resources.Object{}, errInvalid("%s", describeDecodeError(err))
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return resources.Object{}, errInvalid("%s", describeDecodeError(err))
	}
	// What api/openapi.yaml's ObjectInput requires (kind was checked
	// above): a SecretSet without spec would replace its keys with none.
	for _, f := range []string{"metadata", "spec"} {
		if field(doc, f) == nil {
			if o.Agent != nil {
				return resources.Object{}, errInvalid("%s is required", f)
			}
			return resources.Object{}, errInvalid("%s is required (a %s with no keys says spec: {data: {}})", f, resources.KindSecretSet)
		}
	}
	// One rule for every field only the platform sets: refused, so that an
	// object printed by the platform (key names, never values) sent back
	// cannot replace a set's values with nothing.
	var out []string
	for _, f := range resources.OutputOnlyFields() {
		if field(doc, f) != nil {
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		return resources.Object{}, errInvalid("%s: output only, set by the platform (an object the platform printed is not a request body)", strings.Join(out, ", "))
	}
	return o, nil
}

// field returns the value at path (dot separated) in doc, nil when absent
// or null.
func field(doc map[string]any, path string) any {
	var cur any = doc
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// RawApplyRequest is the body of POST .../apply as the server decodes it: the
// fields of resources.ApplyRequest (TestApplyRequestMatchesResources keeps them
// in step), with the objects left raw so that each is decoded strictly and
// its errors carry its index.
type RawApplyRequest struct {
	Objects  []json.RawMessage `json:"objects"`
	ApplySet string            `json:"applySet"`
	Prune    bool              `json:"prune"`
	Selector string            `json:"selector"`
	DryRun   bool              `json:"dryRun"`
}
