package forge

// RefChange is one ref update in a repository: Before or After is zeroSHA
// for a created or deleted ref.
type RefChange struct {
	Ref    string // full name, e.g. refs/heads/main
	Before string
	After  string
	// Kind is the activity type when the change itself does not tell it
	// (ActivityPRMerge for a merge); "" derives it (activity.go).
	Kind string
}

// refsChanged is called after refs of repo changed, whoever changed them
// (a git push, a REST ref update, a merge). It sends the push, create and
// delete webhooks and lets pull requests and check suites follow, in that
// order (as GitHub: the push, then the pull request "synchronize", then
// the check suite), after recording the branches' activity. Call it after releasing repo.mu.
func (f *Forge) refsChanged(repo *Repo, sender *Account, changes []RefChange) {
	if len(changes) == 0 {
		return
	}
	f.recordActivities(repo, sender, changes)
	f.pushEvents(repo, sender, changes)
	f.pullsOnRefChanges(repo, sender, changes)
	f.checkSuitesOnRefChanges(repo, sender, changes)
}
