package schemagen

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/botkit-dev/botkit/pkg/apply"
	"github.com/botkit-dev/botkit/pkg/resources"
)

// ReportFile is the file name, in manifests/schema, of the JSON Schema of
// what `botkit apply -o json|yaml` and `botkit diff -o json|yaml` print.
const ReportFile = "applyreport.schema.json"

var (
	objectType = reflect.TypeFor[resources.Object]()
	timeType   = reflect.TypeFor[time.Time]()
)

// ReportSchema returns the JSON Schema (draft 2020-12) of
// resources.ApplyReport, derived from its Go type: every field that is not
// omitempty is required, no other property is allowed, actions and changes
// are enums.
func ReportSchema() ([]byte, error) {
	s := reportType(reflect.TypeFor[resources.ApplyReport](), "")
	props := s["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"const": resources.APIVersion}
	props["kind"] = map[string]any{"const": resources.KindApplyResult}
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = schemaBase + ReportFile
	s["title"] = "ApplyResult (botkit apply and diff -o json|yaml)"
	s["description"] = "What botkit apply -o json|yaml (dryRun false unless --dry-run) and botkit diff -o json|yaml (dryRun true) print: " +
		"one item per object of the manifests, then one per object pruned. Never a value: keys by name, labels with their values."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func reportType(t reflect.Type, field string) map[string]any {
	switch {
	case t == objectType:
		return map[string]any{"type": "object", "description": "The object after the apply as botkit cloud secrets list -o json prints it: key names only (apply only)."}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() == reflect.Pointer:
		return reportType(t.Elem(), field)
	case t.Kind() == reflect.String:
		s := map[string]any{"type": "string"}
		switch field {
		case "action":
			s["enum"] = []string{resources.ActionCreated, resources.ActionConfigured, resources.ActionUnchanged, resources.ActionPruned, resources.ActionValidated}
		case "change":
			s["enum"] = []string{resources.ChangeAdded, resources.ChangeChanged, resources.ChangeRemoved, resources.ChangeUnchanged}
		}
		return s
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() == reflect.Int64:
		return map[string]any{"type": "integer", "minimum": 1}
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": reportType(t.Elem(), field)}
	case t.Kind() == reflect.Struct:
		props := map[string]any{}
		required := []string{}
		for _, f := range apply.StructFields(t) {
			props[f.Name] = reportType(f.Type, f.Name)
			if !f.OmitEmpty {
				required = append(required, f.Name)
			}
		}
		return map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": required}
	}
	return map[string]any{}
}
