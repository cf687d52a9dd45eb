package github

import (
	"context"
	"fmt"
	"strings"
)

// InstallationIDForRepo returns the ID of the app installation that covers
// the repository fullName ("OWNER/REPO"), asking GitHub as the app
// (GET /repos/{owner}/{repo}/installation). Answers are cached until
// ForgetInstallation drops that installation; a repository belongs to at most
// one installation of an app.
func (c *Clients) InstallationIDForRepo(ctx context.Context, fullName string) (int64, error) {
	owner, repo, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return 0, fmt.Errorf("github: repository %q: want OWNER/REPO", fullName)
	}
	if c.key == nil {
		return 0, ErrNoAppCredentials
	}
	key := strings.ToLower(fullName) // GitHub names are case-insensitive
	c.mu.Lock()
	id, cached := c.repoInstallations[key]
	c.mu.Unlock()
	if cached {
		return id, nil
	}

	inst, _, err := c.App(ctx).Apps.FindRepositoryInstallation(ctx, owner, repo)
	if err != nil {
		return 0, fmt.Errorf("github: find the installation covering %s: %w", fullName, err)
	}
	if inst.GetID() <= 0 {
		return 0, fmt.Errorf("github: installation of %s: GitHub returned no ID", fullName)
	}
	c.mu.Lock()
	c.repoInstallations[key] = inst.GetID()
	c.mu.Unlock()
	return inst.GetID(), nil
}

// RememberRepoInstallation records that installation id covers fullName,
// as a listing of the installation's repositories (GET
// /installation/repositories) says: InstallationIDForRepo then needs no
// call for it.
func (c *Clients) RememberRepoInstallation(fullName string, id int64) {
	if id <= 0 || !strings.Contains(fullName, "/") {
		return
	}
	c.mu.Lock()
	c.repoInstallations[strings.ToLower(fullName)] = id
	c.mu.Unlock()
}
