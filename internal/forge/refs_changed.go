package forge

// RefChange is one ref update in a repository: Before or After is zeroSHA
// for a created or deleted ref.
type RefChange struct {
	Ref    string // full name, e.g. refs/heads/main
	Before string
	After  string
}

// refsChanged is called after refs of repo changed, whoever changed them
// (a git push, a REST ref update, a merge). It sends the push, create and
// delete webhooks and lets pull requests and check suites follow.
func (f *Forge) refsChanged(repo *Repo, sender *Account, changes []RefChange) {
	f.pullsOnRefChanges(repo, sender, changes)
	f.checkSuitesOnRefChanges(repo, sender, changes)
}
