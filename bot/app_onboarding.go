package bot

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/porchbot/porchbot/bot/ingress"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/onboarding"
)

// onboard opens the onboarding pull request of a repository without its
// configuration file, if it has none; a failure is logged, not the
// event's. A repository that declined it (closed unmerged, its branch
// gone) costs its one call once per process, not once per event.
func (a *App) onboard(ctx context.Context, s *core.Session) {
	if a.declined.has(s.Repo.FullName()) {
		return
	}
	res, err := onboarding.Onboard(ctx, s, s.Hub, a.Opener.Limits)
	if err != nil {
		s.Log.WithError(err).Warn("onboarding failed")
		return
	}
	switch res.Outcome {
	case onboarding.Opened:
		s.Log.WithField("pull", res.Pull.HTMLURL).Info("onboarding: opened the \"Configure porchbot\" pull request")
	case onboarding.Declined:
		a.declined.add(s.Repo.FullName())
	}
}

// declinedRepos remembers repositories that declined onboarding.
type declinedRepos struct {
	mu sync.Mutex
	m  map[string]bool
}

func (d *declinedRepos) has(repo string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m[strings.ToLower(repo)]
}

func (d *declinedRepos) add(repo string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]bool{}
	}
	d.m[strings.ToLower(repo)] = true
}

// notOnboardedSkipped ends an event of a repository porchbot is not set
// up in (core.ErrNotOnboarded, onboarding required) as handled: the
// repository is left alone until its configuration file is merged.
type notOnboardedSkipped struct{ h ingress.Handler }

func (n notOnboardedSkipped) Handle(ctx context.Context, ev *ingress.Event) error {
	err := n.h.Handle(ctx, ev)
	if err != nil && errors.Is(err, core.ErrNotOnboarded) {
		ingress.LoggerFrom(ctx).WithError(err).Info("event skipped: porchbot is not set up in the repository")
		return nil
	}
	return err
}
