package scaffold

import "slices"

// Renamed is an earlier catalogue id that RenameAliases replaced by the
// framework's id.
type Renamed struct {
	Field Field  // the config field that gave it
	Old   string // the id given, e.g. aws_tts
	New   string // the id it stands for, e.g. aws_polly_tts
}

// RenameAliases replaces every earlier id in p (the alias table of the
// catalogue, CanonicalID) by the current one and reports each replacement,
// in field order, so the caller can tell the user where it was given.
func RenameAliases(p *Partial) []Renamed {
	var out []Renamed
	for _, f := range fieldTable {
		switch {
		case f.Kind == KindList:
			p.Transports = slices.Clone(p.Transports) // the caller's slice stays as it was
			for i, id := range p.Transports {
				if to, ok := CanonicalID(id); ok {
					p.Transports[i] = to
					out = append(out, Renamed{Field: f, Old: id, New: to})
				}
			}
		case f.Kind == KindString && KeyValues(f.Key) != nil:
			v := *f.str(p)
			if v == nil {
				continue
			}
			if to, ok := CanonicalID(*v); ok {
				f.SetString(p, to)
				out = append(out, Renamed{Field: f, Old: *v, New: to})
			}
		}
	}
	return out
}
