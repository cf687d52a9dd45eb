package forge

// checkSuitesOnRefChanges requests a check suite from the App for each
// pushed branch head, as GitHub does (check_suite "requested").
func (f *Forge) checkSuitesOnRefChanges(repo *Repo, sender *Account, changes []RefChange) {
	_, _, _ = repo, sender, changes
}
