package forge

import (
	"fmt"

	"github.com/google/go-github/v60/github"
)

// repoCreated tells the App about a new repository of an account it is
// installed on (installation_repositories "added"), as GitHub does for an
// installation with access to all repositories.
func (f *Forge) repoCreated(repo *Repo, sender *Account) {
	inst := f.installationFor(repo)
	if inst == nil {
		return
	}
	f.emitInstallationRepositories("added", inst, []*Repo{repo}, nil, sender)
}

// installationRepoRef is the short repository object of installation
// payloads.
func installationRepoRef(r *Repo) map[string]any {
	return map[string]any{
		"id": r.ID, "node_id": nodeID("Repository", r.ID), "name": r.Name,
		"full_name": r.FullName(), "private": r.Private,
	}
}

func installationRepoRefs(repos []*Repo) []map[string]any {
	out := make([]map[string]any, 0, len(repos))
	for _, r := range repos {
		out = append(out, installationRepoRef(r))
	}
	return out
}

// installationRepositoriesEvent is the installation_repositories payload.
type installationRepositoriesEvent struct {
	Action              string               `json:"action"`
	Installation        *github.Installation `json:"installation"`
	RepositorySelection string               `json:"repository_selection"`
	RepositoriesAdded   []map[string]any     `json:"repositories_added"`
	RepositoriesRemoved []map[string]any     `json:"repositories_removed"`
	Requester           *github.User         `json:"requester"`
	Sender              *github.User         `json:"sender"`
}

// installationEvent is the installation payload.
type installationEvent struct {
	Action       string               `json:"action"`
	Installation *github.Installation `json:"installation"`
	Repositories []map[string]any     `json:"repositories"`
	Requester    *github.User         `json:"requester"`
	Sender       *github.User         `json:"sender"`
}

func (f *Forge) emitInstallationRepositories(action string, inst *Installation, added, removed []*Repo, sender *Account) {
	var repo *Repo // the delivery's repository, for Delivery.Repo
	if len(added) == 1 && len(removed) == 0 {
		repo = added[0]
	}
	f.emit("installation_repositories", action, repo, &installationRepositoriesEvent{
		Action: action, Installation: f.installationObject(inst), RepositorySelection: "all",
		RepositoriesAdded: installationRepoRefs(added), RepositoriesRemoved: installationRepoRefs(removed),
		Sender: f.userObject(f.senderOrBot(sender)),
	})
}

// EmitInstallationRepositories sends installation_repositories ("added"
// or "removed") for repositories of the account the App is installed on,
// as if the installation's repository selection had changed.
func (f *Forge) EmitInstallationRepositories(action, account string, added, removed []string, senderLogin string) error {
	if action != "added" && action != "removed" {
		return fmt.Errorf("forge: installation_repositories action %q is not added or removed", action)
	}
	inst, err := f.installationOf(account)
	if err != nil {
		return err
	}
	sender, err := f.accountNamed(senderLogin)
	if err != nil {
		return err
	}
	resolve := func(names []string) ([]*Repo, error) {
		var out []*Repo
		for _, n := range names {
			r, err := f.repoNamed(n)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	a, err := resolve(added)
	if err != nil {
		return err
	}
	rm, err := resolve(removed)
	if err != nil {
		return err
	}
	f.emitInstallationRepositories(action, inst, a, rm, sender)
	return nil
}

// EmitInstallation sends installation <action> ("created", "deleted",
// "suspend", "unsuspend", "new_permissions_accepted") for the App's
// installation on account, listing its repositories, as GitHub does
// when the App is installed (Install itself sends nothing).
func (f *Forge) EmitInstallation(action, account, senderLogin string) error {
	inst, err := f.installationOf(account)
	if err != nil {
		return err
	}
	sender, err := f.accountNamed(senderLogin)
	if err != nil {
		return err
	}
	f.emit("installation", action, nil, &installationEvent{
		Action: action, Installation: f.installationObject(inst),
		Repositories: installationRepoRefs(f.reposOf(inst.Account.Login)), Sender: f.userObject(sender),
	})
	return nil
}

// installationOf is the App's installation on an account.
func (f *Forge) installationOf(account string) (*Installation, error) {
	a, ok := f.Account(account)
	if !ok {
		return nil, fmt.Errorf("forge: no account %q", account)
	}
	for _, inst := range f.installationsList() {
		if inst.Account.ID == a.ID {
			return inst, nil
		}
	}
	return nil, fmt.Errorf("forge: the App is not installed on %q", account)
}
