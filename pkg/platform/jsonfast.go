package platform

import (
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/botkit-dev/botkit/pkg/platform/store"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// appendObjectJSON appends the JSON of toObject(org, o) — byte for byte what
// encoding/json produces for it (TestAppendObjectJSON checks) — without
// reflection. Lists of 10,000 objects are encoded this way.
func appendObjectJSON(b []byte, org string, o store.Object) []byte {
	b = append(b, `{"apiVersion":"`+resources.APIVersion+`","kind":`...)
	b = appendJSONString(b, o.Kind)
	b = append(b, `,"metadata":{"name":`...)
	b = appendJSONString(b, o.Name)
	if org != "" {
		b = append(b, `,"organization":`...)
		b = appendJSONString(b, org)
	}
	if o.Region != "" {
		b = append(b, `,"region":`...)
		b = appendJSONString(b, o.Region)
	}
	if len(o.Labels) > 0 {
		b = append(b, `,"labels":{`...)
		for i, k := range slices.Sorted(maps.Keys(o.Labels)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, o.Labels[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"resourceVersion":"`...)
	b = strconv.AppendInt(b, o.Version, 10)
	b = append(b, `","creationTimestamp":"`...)
	b = o.CreatedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","updateTimestamp":"`...)
	b = o.UpdatedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `"},"spec":{`...)
	if o.Kind == resources.KindImagePullSecret {
		b = append(b, `"host":`...)
		b = appendJSONString(b, o.Host)
		if o.Username != "" {
			b = append(b, `,"username":`...)
			b = appendJSONString(b, o.Username)
		}
	} else if len(o.Keys) > 0 {
		b = append(b, `"keys":[`...)
		for i, k := range slices.Sorted(maps.Keys(o.Keys)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
		}
		b = append(b, ']')
	}
	b = append(b, `},"status":{"state":`...)
	b = appendJSONString(b, o.State)
	if o.Message != "" {
		b = append(b, `,"message":`...)
		b = appendJSONString(b, o.Message)
	}
	return append(b, "}}"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as json.Marshal does
// (including <, > and & as \u003c, \u003e, \u0026).
func appendJSONString(b []byte, s string) []byte {
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
