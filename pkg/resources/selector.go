package resources

import (
	"fmt"
	"strings"
)

// Requirement is one term of a label selector.
type Requirement struct {
	Key      string
	Operator string // "=", "!=", "exists", "!exists"
	Value    string
}

// Selector is a conjunction of requirements, as in kubectl -l:
// "team=voice,tier!=dev,canary,!legacy". The empty selector matches everything.
type Selector []Requirement

// ParseSelector parses a comma-separated label selector.
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var sel Selector
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		var r Requirement
		switch {
		case term == "":
			return nil, fmt.Errorf("label selector %q: empty term", printable(s))
		case strings.Contains(term, "!="):
			k, v, _ := strings.Cut(term, "!=")
			r = Requirement{Key: strings.TrimSpace(k), Operator: "!=", Value: strings.TrimSpace(v)}
		case strings.Contains(term, "=="):
			k, v, _ := strings.Cut(term, "==")
			r = Requirement{Key: strings.TrimSpace(k), Operator: "=", Value: strings.TrimSpace(v)}
		case strings.Contains(term, "="):
			k, v, _ := strings.Cut(term, "=")
			r = Requirement{Key: strings.TrimSpace(k), Operator: "=", Value: strings.TrimSpace(v)}
		case strings.HasPrefix(term, "!"):
			r = Requirement{Key: strings.TrimSpace(term[1:]), Operator: "!exists"}
		default:
			r = Requirement{Key: term, Operator: "exists"}
		}
		if err := ValidateLabelKey(r.Key); err != nil {
			return nil, fmt.Errorf("label selector: %w", err)
		}
		if err := ValidateLabelValue(r.Key, r.Value); err != nil {
			return nil, fmt.Errorf("label selector: %w", err)
		}
		sel = append(sel, r)
	}
	return sel, nil
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	for _, r := range s {
		v, ok := labels[r.Key]
		switch r.Operator {
		case "=":
			if !ok || v != r.Value {
				return false
			}
		case "!=":
			if ok && v == r.Value {
				return false
			}
		case "exists":
			if !ok {
				return false
			}
		case "!exists":
			if ok {
				return false
			}
		}
	}
	return true
}

// String formats the selector back to its text form.
func (s Selector) String() string {
	parts := make([]string, 0, len(s))
	for _, r := range s {
		switch r.Operator {
		case "exists":
			parts = append(parts, r.Key)
		case "!exists":
			parts = append(parts, "!"+r.Key)
		default:
			parts = append(parts, r.Key+r.Operator+r.Value)
		}
	}
	return strings.Join(parts, ",")
}
