package forge

import (
	"strings"
	"time"
)

// Activity types, as GitHub's "List repository activities" names them.
const (
	ActivityPush           = "push"
	ActivityForcePush      = "force_push"
	ActivityBranchCreation = "branch_creation"
	ActivityBranchDeletion = "branch_deletion"
	ActivityPRMerge        = "pr_merge"
)

// Activity is one change of a branch: who moved it from Before to After,
// when, and how (GitHub's repository activity, api_activity.go).
type Activity struct {
	ID            int64
	Ref           string // refs/heads/<branch>
	Before, After string
	Type          string
	Actor         *Account
	At            time.Time
}

// maxActivities bounds the activities a repository keeps.
const maxActivities = 100000

// recordActivities keeps the branch changes of a ref update, whoever made
// it (a git push, a REST ref or contents update, a merge): tags are not
// branch activity. A change's type is its Kind when set, else creation,
// deletion, a force push when After does not descend from Before, or a
// push. It takes repo.mu: never call it holding that lock.
func (f *Forge) recordActivities(repo *Repo, sender *Account, changes []RefChange) {
	at := f.now()
	var acts []Activity
	for _, c := range changes {
		if !strings.HasPrefix(c.Ref, "refs/heads/") {
			continue
		}
		kind := c.Kind
		switch {
		case kind != "":
		case c.Before == zeroSHA:
			kind = ActivityBranchCreation
		case c.After == zeroSHA:
			kind = ActivityBranchDeletion
		case !f.git.isAncestor(repo.Path, c.Before, c.After):
			kind = ActivityForcePush
		default:
			kind = ActivityPush
		}
		acts = append(acts, Activity{Ref: c.Ref, Before: c.Before, After: c.After, Type: kind, Actor: sender, At: at})
	}
	if len(acts) == 0 {
		return
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	repo.Activities = appendNewest(f, repo.Activities, acts, func(a *Activity, id int64) { a.ID = id }, maxActivities)
}
