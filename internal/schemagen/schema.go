// Package schemagen generates the JSON Schemas of the manifests
// (manifests/schema/*.json) from the Go types of package resources and the
// catalogue of package scaffold, and the schema of what apply and diff print
// with -o json (resources.ApplyReport, report.go). Its test fails when the
// committed schemas are stale and rewrites them with -update:
//
//	go test ./internal/schemagen -run TestSchemasInSync -update
//
// Nothing of botkit imports it at run time.
package schemagen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/platform/runtime"
	"github.com/botkit-dev/botkit/pkg/resources"
	"github.com/botkit-dev/botkit/pkg/scaffold"
)

var valueSourceType = reflect.TypeFor[resources.ValueSource]()

// outputOnly is the set of fields the platform fills in (left out of the
// schemas, which describe what a manifest may say).
func outputOnly() map[string]bool {
	m := map[string]bool{}
	for _, f := range resources.OutputOnlyFields() {
		m[f] = true
	}
	return m
}

// SchemaKinds are the kinds with a JSON Schema in manifests/schema.
func SchemaKinds() []string {
	return []string{resources.KindSecretSet, resources.KindImagePullSecret, resources.KindAgent, resources.KindProjectConfig}
}

// SchemaFile is the file name of kind's schema in manifests/schema.
func SchemaFile(kind string) string { return strings.ToLower(kind) + ".schema.json" }

const schemaBase = "https://botkit.dev/schema/v1/"

// Schema returns the JSON Schema (draft 2020-12) of a manifest of kind. For
// SecretSet and ImagePullSecret it is derived from the resources types by
// the same reflection the decoder uses (output-only fields left out,
// required fields and limits from package resources); for ProjectConfig from
// the config keys of package scaffold.
func Schema(kind string) ([]byte, error) {
	var s map[string]any
	switch kind {
	case resources.KindSecretSet:
		s = objectSchema(reflect.TypeFor[resources.SecretSet](), kind)
	case resources.KindImagePullSecret:
		s = objectSchema(reflect.TypeFor[resources.ImagePullSecret](), kind)
	case resources.KindAgent:
		s = objectSchema(reflect.TypeFor[resources.Agent](), kind)
	case resources.KindProjectConfig:
		s = projectConfigSchema()
	default:
		return nil, fmt.Errorf("no schema for kind %q", kind)
	}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = schemaBase + SchemaFile(kind)
	s["title"] = kind
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// constraints adds what the Go types cannot say, by field path; each comes
// from package resources.
func constraints(path string) map[string]any {
	switch path {
	case "metadata.name", "metadata.organization":
		return map[string]any{"pattern": "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$", "maxLength": resources.MaxNameLength}
	case "metadata.region":
		return map[string]any{"enum": resources.Regions()}
	case "metadata.labels":
		return map[string]any{"maxProperties": resources.MaxLabels,
			"propertyNames":        map[string]any{"pattern": resources.LabelKeyPattern},
			"additionalProperties": map[string]any{"type": "string", "maxLength": resources.MaxLabelValueLen, "pattern": "^([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?$"}}
	case "metadata.resourceVersion":
		return map[string]any{"description": "A precondition: the object must exist with this version."}
	case "spec.data":
		return map[string]any{"maxProperties": resources.MaxKeys,
			"propertyNames": map[string]any{"pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": resources.MaxKeyLength}}
	case "spec.host":
		return map[string]any{"minLength": 1, "description": "Registry address: URL (http or https) or host[:port] (https)."}
	case "spec.credentials":
		return map[string]any{"description": "<username>:<password> (its base64 when encode is false)."}
	case "spec.encode":
		return map[string]any{"default": true}
	case "spec.image":
		return map[string]any{"minLength": 1, "description": "REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST (a tag or a digest is required)."}
	case "spec.imagePullSecret":
		return map[string]any{"pattern": "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$", "maxLength": resources.MaxNameLength, "description": "An image pull secret of the same organization and region."}
	case "spec.secretSet":
		return map[string]any{"pattern": "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$", "maxLength": resources.MaxNameLength, "description": "A secret set of the same organization and region: its values become the agents' environment."}
	case "spec.profile":
		return map[string]any{"enum": runtime.ProfileNames(), "default": runtime.DefaultProfile}
	case "spec.scaling.minAgents":
		return map[string]any{"minimum": 0, "maximum": resources.MaxAgents}
	case "spec.scaling.maxAgents":
		return map[string]any{"minimum": 0, "maximum": resources.MaxAgents, "description": "0 or absent: no maximum but the platform's."}
	}
	return nil
}

// valueSourceSchema is the schema of a value source; sealed values are for
// secret set data only (sealed is false for spec.credentials).
func valueSourceSchema(sealed bool) map[string]any {
	one := func(name string) map[string]any {
		return map[string]any{"type": "object", "additionalProperties": false, "required": []string{name},
			"properties": map[string]any{name: map[string]any{"type": "string", "minLength": 1}}}
	}
	if !sealed {
		return map[string]any{
			"description": "A literal string (refused unless --allow-plaintext), {fromEnv: VAR} or {fromFile: PATH} (relative to the manifest).",
			"oneOf": []any{
				map[string]any{"type": "string", "maxLength": resources.MaxValueBytes},
				one("fromEnv"), one("fromFile"),
			},
		}
	}
	return map[string]any{
		"description": "A literal string (refused unless --allow-plaintext), {fromEnv: VAR}, {fromFile: PATH} (relative to the manifest) or {sealed: VALUE} (as botkit seal prints it).",
		"oneOf": []any{
			map[string]any{"type": "string", "maxLength": resources.MaxValueBytes},
			one("fromEnv"), one("fromFile"), one("sealed"),
		},
	}
}

func objectSchema(t reflect.Type, kind string) map[string]any {
	s := typeSchema(t, "", outputOnly())
	props := s["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"const": resources.APIVersion}
	props["kind"] = map[string]any{"const": kind}
	addRequired(s, resources.RequiredFields(kind))
	return s
}

// addRequired marks the required fields (dot paths) in the schema tree.
func addRequired(s map[string]any, fields []string) {
	for _, f := range fields {
		node := s
		parts := strings.Split(f, ".")
		for _, p := range parts[:len(parts)-1] {
			node = node["properties"].(map[string]any)[p].(map[string]any)
		}
		req, _ := node["required"].([]string)
		node["required"] = append(req, parts[len(parts)-1])
	}
}

var valueSourcePtr = reflect.TypeFor[*resources.ValueSource]()

func typeSchema(t reflect.Type, path string, skip map[string]bool) map[string]any {
	var s map[string]any
	switch {
	case t == valueSourceType || t == valueSourcePtr:
		s = valueSourceSchema(path != "spec.credentials")
	case t.Kind() == reflect.Pointer:
		return typeSchema(t.Elem(), path, skip)
	case t.Kind() == reflect.String:
		s = map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		s = map[string]any{"type": "boolean"}
	case t.Kind() == reflect.Int:
		s = map[string]any{"type": "integer"}
	case t.Kind() == reflect.Slice:
		s = map[string]any{"type": "array", "items": typeSchema(t.Elem(), path+"[]", skip)}
	case t.Kind() == reflect.Map:
		// The values' schema has a path of its own: the map's
		// constraints (maxProperties, propertyNames) are not theirs.
		s = map[string]any{"type": "object", "additionalProperties": typeSchema(t.Elem(), path+".*", skip)}
	case t.Kind() == reflect.Struct:
		props := map[string]any{}
		for _, f := range apply.StructFields(t) {
			fp := join(path, f.Name)
			if skip[fp] {
				continue
			}
			props[f.Name] = typeSchema(f.Type, fp, skip)
		}
		s = map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	default:
		s = map[string]any{}
	}
	for k, v := range constraints(path) {
		s[k] = v
	}
	return s
}

func projectConfigSchema() map[string]any {
	spec := map[string]any{}
	for _, k := range scaffold.ConfigKeyTypes() {
		if k.Key == "project_name" {
			continue // metadata.name
		}
		values := scaffold.KeyValues(k.Key) // an editor catches bot_type: robot
		switch {
		case k.Type == "array" && values != nil:
			spec[k.Key] = map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "string", "enum": values}}
		case k.Type == "array":
			spec[k.Key] = map[string]any{"type": []string{"array", "null"}, "items": map[string]any{"type": "string"}}
		case values != nil:
			enum := make([]any, 0, len(values)+1)
			for _, v := range values {
				enum = append(enum, v)
			}
			spec[k.Key] = map[string]any{"type": []string{k.Type, "null"}, "enum": append(enum, nil)} // null: unset
		default:
			spec[k.Key] = map[string]any{"type": []string{k.Type, "null"}}
		}
	}
	return map[string]any{
		"type": "object", "additionalProperties": false,
		"required": []string{"apiVersion", "kind"},
		"properties": map[string]any{
			"apiVersion": map[string]any{"const": resources.APIVersion},
			"kind":       map[string]any{"const": resources.KindProjectConfig},
			"metadata": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"name": map[string]any{"type": []string{"string", "null"}, "description": "The project name."}}},
			"spec": map[string]any{"type": "object", "additionalProperties": false, "properties": spec,
				"description": "The keys of botkit create's config file except project_name (see botkit create --list-options for their values)."},
		},
	}
}

// join appends a field to a dot path.
func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}
