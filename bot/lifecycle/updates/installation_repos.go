package updates

// The repositories of an installation, as GitHub lists them
// (GET /installation/repositories, 100 a page): the variants' targets and
// their topics, and the visibilities of a fan-out's downstream
// repositories (update_fanout_visibility.go). Every visibility read is
// handed to the flow rule's cache.

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/hub"
)

// installationPageSize is how many repositories one page of the listing
// holds (GitHub's most).
const installationPageSize = 100

// ListInstallation lists the repositories of s's installation, by
// lower-case owner/name, through lister (nil: s.Hub), at most
// maxVariantRepos. more, when set, is asked before each page with what
// the pages so far listed and how many pages that took: false stops the
// listing there.
func ListInstallation(ctx context.Context, s *core.Session, lister func(*core.Session) VariantRepoLister, flows *flow.Checker,
	more func(listed map[string]InstalledRepo, pages int) bool) (map[string]InstalledRepo, error) {
	var l VariantRepoLister
	switch {
	case lister != nil:
		l = lister(s)
	case s.Hub != nil:
		l = s.Hub
	default:
		return nil, fmt.Errorf("no client to list the installation's repositories")
	}
	out := map[string]InstalledRepo{}
	opts := hub.Page{PerPage: installationPageSize}
	for pages := 0; len(out) < maxVariantRepos && (more == nil || more(out, pages)); pages++ {
		list, _, next, err := l.ListInstallationRepos(ctx, opts)
		if err != nil {
			return out, fmt.Errorf("list the installation's repositories: %w", err)
		}
		for _, r := range list {
			repo := core.Repo{Owner: r.Owner, Name: r.Name, InstallationID: s.Repo.InstallationID, DefaultBranch: r.DefaultBranch}
			out[strings.ToLower(repo.FullName())] = InstalledRepo{Repo: repo, Topics: r.Topics, Visibility: flow.VisibilityOf(r)}
			flows.Remember(r)
		}
		if next.Page == 0 {
			break
		}
		opts.Number = next.Page
	}
	return out, nil
}

// maxVariantRepos is how many repositories of the installation are listed
// at most (20 pages).
const maxVariantRepos = 2000

// VariantRepoLister lists the repositories of an installation (a part of
// hub.API, on an installation's API).
type VariantRepoLister interface {
	ListInstallationRepos(ctx context.Context, p hub.Page) ([]hub.Repository, int, hub.Next, error)
}

type InstalledRepo struct {
	Repo       core.Repo
	Topics     []string
	Visibility flow.Visibility
}
