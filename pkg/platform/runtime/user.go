package runtime

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// An agent runs as its image's USER, unless the operator names the user
// every agent runs as (botkit-platform serve --agent-user UID[:GID]): an
// image that does not say, or says root, then runs as that user.

// ParseUser checks an agents' user: UID or UID:GID, numbers (a name means
// nothing outside the image), neither 0 (root is what the setting keeps
// agents from).
func ParseUser(s string) (string, error) {
	uid, gid, hasGID := strings.Cut(s, ":")
	for _, n := range []struct{ what, v string }{{"UID", uid}, {"GID", gid}} {
		if n.what == "GID" && !hasGID {
			continue
		}
		v, err := strconv.ParseUint(n.v, 10, 31)
		if err != nil {
			return "", fmt.Errorf("%q: want UID or UID:GID, numbers", s)
		}
		if v == 0 {
			return "", fmt.Errorf("%q: %s 0 is root's", s, n.what)
		}
	}
	return s, nil
}

// WithUser returns rt starting every agent as user (UID or UID:GID; ""
// returns rt).
func WithUser(rt Runtime, user string) Runtime {
	if user == "" || rt == nil {
		return rt
	}
	return userRuntime{Runtime: rt, user: user}
}

type userRuntime struct {
	Runtime
	user string
}

func (u userRuntime) Start(ctx context.Context, spec StartSpec) ([]Agent, error) {
	spec.User = u.user
	return u.Runtime.Start(ctx, spec)
}
