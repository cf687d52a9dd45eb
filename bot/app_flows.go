package bot

import (
	"context"

	ghclient "github.com/porchbot/porchbot/internal/github"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/ingress"
)

// seeingRepos keeps the visibility each event gives of its repository for
// the flow rule (internal/flow: App.Flows), before the event's handler
// runs: the rule then asks GitHub for it no more while it is fresh (a
// publish's fan-out knows its upstream's from the event that published,
// a command its repository's from the comment). Decoding here is the
// handler's own decode, done first (Event.Decode keeps the payload).
type seeingRepos struct {
	h   ingress.Handler
	app *App
}

func (s seeingRepos) Handle(ctx context.Context, ev *ingress.Event) error {
	if s.app.Flows != nil {
		if p, err := ev.Decode(); err == nil {
			if r, ok := p.(interface{ GetRepo() *github.Repository }); ok {
				s.app.Flows.Remember(ghclient.RepositoryOf(r.GetRepo()))
			}
		}
	}
	return s.h.Handle(ctx, ev)
}
