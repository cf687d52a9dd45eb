package resync

import (
	"context"
	"errors"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
)

// The resync brings each downstream package of a repository its update
// when it lags its upstream's latest revision: the fan-out a lost webhook
// or a crash left undone is made then, on the same path (a package whose
// update branch already holds that revision costs no call; one whose
// update was declined or is held stays so).

// UpdateHooks is implemented by resync hooks that make lagging
// downstream packages' updates (bot.App).
type UpdateHooks interface {
	ResyncUpdates(ctx context.Context, s *core.Session) error
}

func resyncUpdates(ctx context.Context, s *core.Session, deps Deps) error {
	h, ok := deps.Hooks.(UpdateHooks)
	if !ok {
		return nil
	}
	if err := h.ResyncUpdates(ctx, s); err != nil {
		s.Log.WithError(err).Warn("resync: update pull requests failed")
		return fmt.Errorf("update pull requests: %w", err)
	}
	return nil
}

// Lagging makes the update of every package of ds whose upstream published
// a revision newer than the one it tracks. Upstreams porchbot cannot open
// (not installed, another host) are skipped.
func Lagging(ctx context.Context, f *updates.Fanout, ds *core.Session) error {
	if f == nil || f.Open == nil {
		return nil
	}
	found, err := updates.DeploymentDownstreams(ctx, ds)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, d := range found {
		out, _, uerr := f.Upgrade(ctx, ds, d.Package, 0, updates.Options{})
		var re *core.RequestError
		switch {
		case errors.As(uerr, &re):
			ds.Log.WithError(uerr).WithField("package", d.Package).Debug("resync: no update for this package")
		case uerr != nil:
			errs = append(errs, fmt.Errorf("update %s: %w", d.Package, uerr))
		case out.State != updates.UpToDate && out.State != updates.Current && out.State != updates.OwnedByVariant && out.State != updates.HeldByRollout:
			ds.Log.WithField("package", d.Package).WithField("state", out.State).Info("resync: update pull request made")
		}
	}
	return errors.Join(errs...)
}
