// Package suggest finds the names close to a mistyped one, as cobra suggests
// commands, for "did you mean …" in messages (agent names, service and
// transport ids).
package suggest

import (
	"sort"
	"strings"
)

// Names returns the candidates close to name, as cobra suggests commands:
// within two edits (case-insensitive), or starting with what was typed, or
// (for a name typed without its suffix) the candidates it is a prefix of. A
// candidate equal to name is no suggestion. Closest first, then in the
// candidates' order.
func Names(name string, candidates []string) []string {
	lower := strings.ToLower(name)
	type scored struct {
		s    string
		dist int
	}
	var found []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lower || lower == "" {
			continue
		}
		d := editDistance(lower, lc)
		if d <= 2 || strings.HasPrefix(lc, lower) {
			found = append(found, scored{c, d})
		}
	}
	sort.SliceStable(found, func(a, b int) bool { return found[a].dist < found[b].dist })
	out := make([]string, 0, len(found))
	for _, f := range found {
		out = append(out, f.s)
	}
	return out
}

// DidYouMean is the end of a message naming Names' answer:
// "; did you mean a or b?", or "" when nothing is close.
func DidYouMean(name string, candidates []string) string {
	s := Names(name, candidates)
	if len(s) == 0 {
		return ""
	}
	if len(s) > 3 {
		s = s[:3]
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
