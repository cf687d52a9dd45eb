package resync

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/dashboard"
)

// proveNoOpenPulls notes on the session that the repository has no open
// pull request, when the installation's listing says how many issues and
// pull requests are open (Repo.OpenIssues) and they are all accounted
// for: none, or only porchbot's dashboards, read with the same listing the
// dashboard's sync makes (its second reading is then a 304). A pull
// request opened since the listing has its own webhook; if that was lost,
// the next pass lists it. REST calls: none, or the dashboards' listing.
func proveNoOpenPulls(ctx context.Context, s *core.Session, issues dashboard.Issues) error {
	n := s.Repo.OpenIssues
	if n == nil || issues == nil {
		return nil
	}
	if *n == 0 {
		s.NoOpenPulls = true
		return nil
	}
	list, _, err := issues.ListIssues(ctx, s.Repo.Owner, s.Repo.Name, dashboard.ListOptions())
	if err != nil {
		return fmt.Errorf("dashboards of %s: %w", s.Repo.FullName(), err)
	}
	open := 0
	for _, is := range list {
		if is.State == "open" && !is.IsPull {
			open++
		}
	}
	s.NoOpenPulls = open == *n && len(list) < dashboard.ListMax
	return nil
}
