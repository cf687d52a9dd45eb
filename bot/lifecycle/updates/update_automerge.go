package updates

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/packages"
)

// AutomergePulls are the calls of an automerge (a part of hub.API).
type AutomergePulls interface {
	GetPull(ctx context.Context, owner, repo string, number int) (hub.Pull, error)
	MergePull(ctx context.Context, owner, repo string, number int, m hub.Merge) (string, error)
}

// AutomergeUpdate merges update pull request n once its porchbot/approval
// check passed on head (the approval verdict includes the render), when the
// repository's updates.automerge is on. Only porchbot's own update commit
// is merged, and only at head: GitHub refuses the merge when the head moved
// (the compare-and-swap), and a pull request another replica merged first
// is left as it is. The merge's pull_request event publishes as any merge.
func AutomergeUpdate(ctx context.Context, s *core.Session, pulls AutomergePulls, n int, head plumbing.Hash, id core.Identity) (bool, error) {
	if !s.Config.Updates.Automerge {
		return false, nil
	}
	owner, repo := s.Repo.Owner, s.Repo.Name
	pr, err := pulls.GetPull(ctx, owner, repo, n)
	if err != nil {
		return false, fmt.Errorf("automerge #%d: %w", n, err)
	}
	pkg, ok := packages.ParseUpdateBranchName(pr.Head.Ref)
	if !ok || pr.State != "open" || pr.Merged || rendercheck.IsForkPullRequest(s.Repo, pr) ||
		pr.Base.Ref != s.DeploymentBranch || pr.Head.SHA != head.String() {
		return false, nil
	}
	own, err := updateBranchState(ctx, s, head, &Plan{Package: pkg, Dir: rendercheck.PackageDir(s.Config, pkg)}, id)
	if err != nil {
		return false, err
	}
	if !own.own {
		s.Log.WithField("pull_request", n).Info("automerge: the update branch has commits porchbot did not make; left for a person to merge")
		return false, nil
	}
	_, err = pulls.MergePull(ctx, owner, repo, n, hub.Merge{Method: "merge", SHA: head.String()})
	if err != nil {
		if st := hub.StatusOf(err); st == http.StatusMethodNotAllowed || st == http.StatusConflict {
			s.Log.WithError(err).WithField("pull_request", n).Info("automerge: not mergeable now (merged by another replica, or the head moved)")
			return false, nil
		}
		return false, fmt.Errorf("automerge #%d: %w", n, err)
	}
	s.Log.WithFields(logrus.Fields{"pull_request": n, "head": head.String()}).Info("automerged the update pull request")
	return true, nil
}
