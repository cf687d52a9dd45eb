package forge

// repoCreated tells the App about a new repository of an account it is
// installed on (installation_repositories "added").
func (f *Forge) repoCreated(repo *Repo, sender *Account) {
	_, _ = repo, sender
}
