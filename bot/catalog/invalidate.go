package catalog

import (
	"context"
	"strings"

	"github.com/porchbot/porchbot/bot"
)

// Invalidating wraps every handler of h so that, once an event is handled,
// the catalog reloads what it changed: the view of the event's repository,
// and the list of installed repositories after an installation event. The
// next page shows the change instead of waiting for the view to age.
func (s *Server) Invalidating(h bot.Handlers) bot.Handlers {
	out := make(bot.Handlers, len(h))
	for name, handler := range h {
		out[name] = invalidating{next: handler, s: s}
	}
	return out
}

type invalidating struct {
	next bot.Handler
	s    *Server
}

func (i invalidating) Handle(ctx context.Context, ev *bot.Event) error {
	err := i.next.Handle(ctx, ev)
	if ev.Repo != "" {
		i.s.opts.Views.Invalidate(ev.Repo)
	}
	if strings.HasPrefix(ev.Name, "installation") {
		if r, ok := i.s.opts.Repos.(interface{ Invalidate() }); ok {
			r.Invalidate()
		}
	}
	return err
}

// Idle waits until the catalog loads no repository (tests, shutdown).
func (s *Server) Idle(ctx context.Context) error { return s.opts.Views.Idle(ctx) }
