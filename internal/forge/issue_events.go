package forge

// recordIssueEvent keeps the issue events a change makes, read from the
// pull_request-style event every issue and pull request change goes
// through (emitPull): closed (and merged before it), reopened, labeled,
// unlabeled, assigned, unassigned, review_requested,
// review_request_removed, renamed, locked, unlocked, ready_for_review,
// convert_to_draft. It takes repo.mu: never call it holding that lock.
func (f *Forge) recordIssueEvent(repo *Repo, e pullEvent) {
	base := IssueEvent{IssueNum: e.view.Issue.Number, Actor: e.sender, CreatedAt: f.now()}
	var evs []IssueEvent
	add := func(name string, change func(*IssueEvent)) {
		ev := base
		ev.Event = name
		if change != nil {
			change(&ev)
		}
		evs = append(evs, ev)
	}
	switch e.action {
	case "closed":
		if pr := e.view.Pull; pr != nil && pr.Merged {
			add("merged", func(ev *IssueEvent) { ev.CommitID = pr.MergeCommitSHA })
			add("closed", func(ev *IssueEvent) { ev.CommitID = pr.MergeCommitSHA })
		} else {
			add("closed", nil)
		}
	case "reopened", "locked", "unlocked", "ready_for_review":
		add(e.action, nil)
	case "converted_to_draft":
		add("convert_to_draft", nil)
	case "labeled", "unlabeled":
		if e.label != nil {
			l := *e.label
			add(e.action, func(ev *IssueEvent) { ev.Label = &l })
		}
	case "assigned", "unassigned":
		add(e.action, func(ev *IssueEvent) { ev.Subject = e.assignee })
	case "review_requested", "review_request_removed":
		add(e.action, func(ev *IssueEvent) { ev.Subject = e.requested })
	case "edited":
		if c := e.changes; c != nil && c.Title != nil && c.Title.From != nil {
			add("renamed", func(ev *IssueEvent) { ev.RenameFrom, ev.RenameTo = *c.Title.From, e.view.Issue.Title })
		}
	}
	if len(evs) == 0 {
		return
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	repo.IssueEvents = appendNewest(f, repo.IssueEvents, evs, func(ev *IssueEvent, id int64) { ev.ID = id }, maxIssueEvents)
}

// maxIssueEvents bounds the events a repository keeps.
const maxIssueEvents = 100000
