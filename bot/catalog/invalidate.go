package catalog

import (
	"context"
	"strings"

	"github.com/porchbot/porchbot/bot/ingress"
)

// Invalidating wraps every handler of h so that, once an event is handled,
// the catalog reloads what it changed: the view of the event's repository,
// and the list of installed repositories after an installation event. The
// next page shows the change instead of waiting for the view to age.
func (s *Server) Invalidating(h ingress.Handlers) ingress.Handlers {
	out := make(ingress.Handlers, len(h))
	for name, handler := range h {
		out[name] = invalidating{next: handler, s: s}
	}
	return out
}

type invalidating struct {
	next ingress.Handler
	s    *Server
}

func (i invalidating) Handle(ctx context.Context, ev *ingress.Event) error {
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
