package wire

import (
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// AppendObject appends the JSON of Object(org, o) — byte for byte what
// encoding/json produces for it (TestAppendObjectJSON checks) — without
// reflection.
func AppendObject(b []byte, org string, o store.Object) []byte {
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(o.Labels)) {
		pairs = append(pairs, k, o.Labels[k])
	}
	return AppendItem(b, org, &store.ListItem{Object: o, LabelPairs: pairs, KeyNames: slices.Sorted(maps.Keys(o.Keys))})
}

// AppendItem appends the JSON of a listed object: the same bytes as
// appendObjectJSON of the object it stands for. Lists of 10,000 objects are
// encoded this way, with no per-object allocation.
func AppendItem(b []byte, org string, it *store.ListItem) []byte {
	o := &it.Object
	b = append(b, `{"apiVersion":"`+resources.APIVersion+`","kind":`...)
	b = AppendString(b, o.Kind)
	b = append(b, `,"metadata":{"name":`...)
	b = AppendString(b, o.Name)
	if org != "" {
		b = append(b, `,"organization":`...)
		b = AppendString(b, org)
	}
	if o.Region != "" {
		b = append(b, `,"region":`...)
		b = AppendString(b, o.Region)
	}
	if len(it.LabelPairs) > 0 {
		b = append(b, `,"labels":{`...)
		for i := 0; i+1 < len(it.LabelPairs); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, it.LabelPairs[i])
			b = append(b, ':')
			b = AppendString(b, it.LabelPairs[i+1])
		}
		b = append(b, '}')
	}
	b = append(b, `,"resourceVersion":"`...)
	b = strconv.AppendInt(b, o.Version, 10)
	b = append(b, '"')
	if o.Generation > 0 {
		b = append(b, `,"generation":`...)
		b = strconv.AppendInt(b, o.Generation, 10)
	}
	b = append(b, `,"creationTimestamp":"`...)
	b = appendTime(b, o.CreatedAt)
	b = append(b, `","updateTimestamp":"`...)
	b = appendTime(b, o.UpdatedAt)
	b = append(b, '"')
	if o.Managed {
		b = append(b, `,"managedBy":"`+resources.ManagedByApply+`"`...)
	}
	if o.ApplySet != "" {
		b = append(b, `,"applySet":`...)
		b = AppendString(b, o.ApplySet)
	}
	b = append(b, `},"spec":{`...)
	if o.Kind == resources.KindImagePullSecret {
		b = append(b, `"host":`...)
		b = AppendString(b, o.Host)
		if o.Username != "" {
			b = append(b, `,"username":`...)
			b = AppendString(b, o.Username)
		}
	} else if len(it.KeyNames) > 0 {
		b = append(b, `"keys":[`...)
		for i, k := range it.KeyNames {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
		}
		b = append(b, ']')
	}
	b = append(b, `},"status":{"state":`...)
	b = AppendString(b, o.State)
	if o.Message != "" {
		b = append(b, `,"message":`...)
		b = AppendString(b, o.Message)
	}
	return append(b, "}}"...)
}

// appendTime appends t as encoding/json writes a time.Time (RFC 3339 with
// nanoseconds, trailing zeros trimmed), with a fast path for UTC times of
// years 1000-9999 (all the store returns).
func appendTime(b []byte, t time.Time) []byte {
	if t.Location() != time.UTC {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	year, month, day := t.Date()
	if year < 1000 || year > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	hour, minute, sec := t.Clock()
	b = append(b,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as json.Marshal does
// (including <, > and & as \u003c, \u003e, \u0026).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodePatchFast decodes the common PATCH body without reflection: one
// object whose members are only "kind", "region", "host" (strings), "set",
// "labels" (objects of strings) and "remove" (an array of strings), spelled
// exactly so, each at most once, with no escape sequence in any string and
// nothing but whitespace after it. For anything else it reports false and
// leaves p alone, and the caller decodes the body with decodeStrict (which
// also produces the error messages). When it reports true, p holds what
// decodeStrict would have decoded into a zero Patch (FuzzDecodePatchFast
// checks). data must be valid UTF-8.
func decodePatchFast(data []byte, p *resources.Patch) bool {
	d := fastDecoder{data: data}
	var out resources.Patch
	var seen [6]bool
	if !d.byte('{') {
		return false
	}
	if !d.byte('}') {
		for {
			k, ok := d.str()
			if !ok || !d.byte(':') {
				return false
			}
			var slot int
			switch k {
			case "kind":
				out.Kind, ok = d.str()
			case "region":
				slot = 1
				out.Region, ok = d.str()
			case "host":
				slot = 2
				out.Host, ok = d.str()
			case "set":
				slot = 3
				out.Set, ok = d.strMap()
			case "labels":
				slot = 4
				out.Labels, ok = d.strMap()
			case "remove":
				slot = 5
				out.Remove, ok = d.strArray()
			default:
				return false
			}
			if !ok || seen[slot] {
				return false
			}
			seen[slot] = true
			if d.byte('}') {
				break
			}
			if !d.byte(',') {
				return false
			}
		}
	}
	d.ws()
	if d.i != len(d.data) {
		return false
	}
	*p = out
	return true
}

// fastDecoder reads the subset of JSON that decodePatchFast accepts.
type fastDecoder struct {
	data []byte
	i    int
}

func (d *fastDecoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c if it comes next after whitespace.
func (d *fastDecoder) byte(c byte) bool {
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// str reads a string without escapes or control characters.
func (d *fastDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			s := string(d.data[start:d.i])
			d.i++
			return s, true
		case c == '\\' || c < 0x20:
			return "", false
		}
		d.i++
	}
	return "", false
}

// strMap reads an object of strings with distinct keys.
func (d *fastDecoder) strMap() (map[string]string, bool) {
	if !d.byte('{') {
		return nil, false
	}
	m := map[string]string{}
	if d.byte('}') {
		return m, true
	}
	for {
		k, ok := d.str()
		if !ok || !d.byte(':') {
			return nil, false
		}
		v, ok := d.str()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		m[k] = v
		if d.byte('}') {
			return m, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// strArray reads an array of strings.
func (d *fastDecoder) strArray() ([]string, bool) {
	if !d.byte('[') {
		return nil, false
	}
	a := []string{}
	if d.byte(']') {
		return a, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		a = append(a, s)
		if d.byte(']') {
			return a, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// Object converts a stored object to its API form (key names, never values).
func Object(org string, o store.Object) resources.Object {
	created, updated := o.CreatedAt, o.UpdatedAt
	meta := resources.ObjectMeta{
		Name: o.Name, Organization: org, Region: o.Region, Labels: o.Labels,
		ResourceVersion: strconv.FormatInt(o.Version, 10), Generation: o.Generation, CreationTimestamp: &created, UpdateTimestamp: &updated,
		ApplySet: o.ApplySet,
	}
	if o.Managed {
		meta.ManagedBy = resources.ManagedByApply
	}
	st := &resources.Status{State: o.State, Message: o.Message}
	if o.Kind == resources.KindImagePullSecret {
		return resources.Object{ImagePullSecret: &resources.ImagePullSecret{
			TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindImagePullSecret},
			Metadata: meta, Spec: resources.ImagePullSecretSpec{Host: o.Host, Username: o.Username}, Status: st,
		}}
	}
	keys := slices.Sorted(maps.Keys(o.Keys))
	return resources.Object{SecretSet: &resources.SecretSet{
		TypeMeta: resources.TypeMeta{APIVersion: resources.APIVersion, Kind: resources.KindSecretSet},
		Metadata: meta, Spec: resources.SecretSetSpec{Keys: keys}, Status: st,
	}}
}
