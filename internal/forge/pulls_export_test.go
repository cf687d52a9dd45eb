package forge

import "fmt"

// Test hooks for the external tests of pull requests, issues and merges
// (package forge_test), until pushes arrive over git smart HTTP.

// PullsRefsChanged announces ref moves of a repository as a push by
// sender would (push webhooks, pull request synchronisation, ...).
func (f *Forge) PullsRefsChanged(fullName string, sender *Account, changes ...RefChange) {
	repo, ok := f.Repo(fullName)
	if !ok {
		panic(fmt.Sprintf("no repository %s", fullName))
	}
	f.refsChanged(repo, sender, changes)
}

// PullsSetRef points ref at sha (zeroSHA deletes it) without webhooks
// and returns the previous value (zeroSHA when it did not exist).
func (f *Forge) PullsSetRef(fullName, ref, sha string) (string, error) {
	repo, ok := f.Repo(fullName)
	if !ok {
		return "", fmt.Errorf("no repository %s", fullName)
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	old, err := f.git.resolve(repo.Path, ref)
	if err != nil {
		old = zeroSHA
	}
	if sha == zeroSHA {
		return old, f.git.deleteRef(repo.Path, ref, "")
	}
	return old, f.git.updateRef(repo.Path, ref, sha, "")
}

// PullsZeroSHA is git's "no object", for tests.
const PullsZeroSHA = zeroSHA

// WebField reads a dotted path ("commit.tree.sha", "0.id") of a decoded
// JSON answer as a string, as the web pages do.
func WebField(v any, path string) string { return str(v, path) }
