package forge

import (
	"sort"
	"strings"
)

// pullsOnRefChanges keeps pull requests in step with their branches, as
// GitHub does after a push, a REST ref update or a merge:
//   - a moved head of an open pull request updates its head and sends
//     pull_request "synchronize" (before, after);
//   - a deleted head or base branch closes its open pull requests
//     ("closed", merged false);
//   - a moved base updates the base of its open pull requests, and one
//     whose head the new base now contains was merged by that push
//     ("closed", merged true, merged_by the pusher).
//
// It must be called without repo.mu held.
func (f *Forge) pullsOnRefChanges(repo *Repo, sender *Account, changes []RefChange) {
	var evs []pullEvent
	now := f.now()
	repo.mu.Lock()
	pulls := make([]*Pull, 0, len(repo.Pulls))
	for _, pr := range repo.Pulls {
		pulls = append(pulls, pr)
	}
	sort.Slice(pulls, func(i, j int) bool { return pulls[i].Issue.Number < pulls[j].Issue.Number })
	closeIt := func(pr *Pull) {
		t := now
		pr.Issue.State, pr.Issue.ClosedAt, pr.Issue.UpdatedAt = "closed", &t, now
	}
	// Heads first: a push moving a head and its base at once is a
	// synchronize, then (maybe) a merge.
	for _, c := range changes {
		branch, ok := strings.CutPrefix(c.Ref, "refs/heads/")
		if !ok {
			continue
		}
		for _, pr := range pulls {
			if pr.Issue.State != "open" || pr.Head != branch || pr.HeadRepo != nil {
				continue
			}
			if c.After == zeroSHA || c.After == "" {
				closeIt(pr)
				evs = append(evs, pullEvent{view: viewIssueLocked(repo, pr.Issue), action: "closed", sender: sender})
				continue
			}
			if pr.HeadSHA == c.After {
				continue
			}
			before := pr.HeadSHA
			pr.HeadSHA = c.After
			pr.Issue.UpdatedAt = now
			_ = f.publishPullHeadLocked(repo, pr.Issue.Number, nil, pr.Head, c.After)
			evs = append(evs, pullEvent{view: viewIssueLocked(repo, pr.Issue), action: "synchronize", sender: sender,
				before: before, after: c.After})
		}
	}
	for _, c := range changes {
		branch, ok := strings.CutPrefix(c.Ref, "refs/heads/")
		if !ok {
			continue
		}
		for _, pr := range pulls {
			if pr.Issue.State != "open" || pr.Base != branch {
				continue
			}
			if c.After == zeroSHA || c.After == "" {
				closeIt(pr)
				evs = append(evs, pullEvent{view: viewIssueLocked(repo, pr.Issue), action: "closed", sender: sender})
				continue
			}
			pr.BaseSHA = c.After
			if f.git.isAncestor(repo.Path, pr.HeadSHA, c.After) {
				// Merged by a push: GitHub marks it merged, by the pusher.
				if c.Before != "" && c.Before != zeroSHA {
					pr.BaseSHA = c.Before
				}
				t := now
				pr.Merged, pr.MergedAt, pr.MergedBy, pr.MergeCommitSHA = true, &t, sender, c.After
				closeIt(pr)
				evs = append(evs, pullEvent{view: viewIssueLocked(repo, pr.Issue), action: "closed", sender: sender})
			}
		}
	}
	repo.mu.Unlock()
	f.emitPulls(repo, evs)
	f.forkHeadsMoved(repo, sender, changes)
}

// forkHeadsMoved keeps the pull requests whose head is a branch of repo,
// a fork, in step with it: in the parent, the head moves (copied as
// refs/pull/<N>/head) with a "synchronize", and a deleted branch closes
// them. It must be called without either repository's mutex held.
func (f *Forge) forkHeadsMoved(fork *Repo, sender *Account, changes []RefChange) {
	fork.mu.Lock()
	parent := fork.Parent
	fork.mu.Unlock()
	if parent == nil {
		return
	}
	var evs []pullEvent
	now := f.now()
	parent.mu.Lock()
	for _, c := range changes {
		branch, ok := strings.CutPrefix(c.Ref, "refs/heads/")
		if !ok {
			continue
		}
		for _, pr := range parent.Pulls {
			if pr.Issue.State != "open" || pr.HeadRepo != fork || pr.Head != branch || pr.HeadSHA == c.After {
				continue
			}
			if c.After == zeroSHA || c.After == "" {
				t := now
				pr.Issue.State, pr.Issue.ClosedAt, pr.Issue.UpdatedAt = "closed", &t, now
				evs = append(evs, pullEvent{view: viewIssueLocked(parent, pr.Issue), action: "closed", sender: sender})
				continue
			}
			if err := f.publishPullHeadLocked(parent, pr.Issue.Number, fork, branch, c.After); err != nil {
				continue // the branch moved on again: its own change follows
			}
			before := pr.HeadSHA
			pr.HeadSHA, pr.Issue.UpdatedAt = c.After, now
			evs = append(evs, pullEvent{view: viewIssueLocked(parent, pr.Issue), action: "synchronize", sender: sender,
				before: before, after: c.After})
		}
	}
	parent.mu.Unlock()
	f.emitPulls(parent, evs)
}
