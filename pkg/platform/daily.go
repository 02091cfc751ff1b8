package platform

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/botkit-dev/botkit/pkg/platform/daily"
	"github.com/botkit-dev/botkit/pkg/platform/service"
)

// dailyRooms are the sessions' Daily rooms through Daily's REST API; a
// room Daily would not delete is logged (its name and why, never the
// key): its exp ends it.
type dailyRooms struct {
	c   *daily.Client
	log *slog.Logger
}

func (d dailyRooms) CreateRoom(ctx context.Context, name string, properties map[string]json.RawMessage) (string, error) {
	return d.c.CreateRoom(ctx, name, properties)
}

func (d dailyRooms) CreateToken(ctx context.Context, room string, exp time.Time, owner bool) (string, error) {
	return d.c.CreateToken(ctx, room, exp, owner)
}

func (d dailyRooms) DeleteRoom(ctx context.Context, name string) error {
	err := d.c.DeleteRoom(ctx, name)
	if err != nil {
		d.log.Warn("a session's Daily room was not deleted; it expires at the session's longest duration", "room", name, "error", err.Error())
	}
	return err
}

// rooms are the Daily rooms opts allow (nil without a key).
func (s *Server) rooms(opts Options) service.Rooms {
	if opts.DailyAPIKey == "" {
		return nil
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return dailyRooms{c: daily.New(opts.DailyAPIURL, opts.DailyAPIKey), log: log}
}

// DailyAPIURL is Daily's REST API, where rooms are made unless
// Options.DailyAPIURL says otherwise.
const DailyAPIURL = daily.DefaultURL
