package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/catalog"
)

// maxListedRepos bounds the repositories the catalog lists.
const maxListedRepos = 10000

// AppClients gives the App's clients (internal/github.Clients).
type AppClients interface {
	App(ctx context.Context) *github.Client
	Installation(ctx context.Context, installationID int64) (*github.Client, error)
}

// InstalledRepos lists the repositories the App is installed on, kept for
// MaxAge (a stale list is served while a fresh one is read).
type InstalledRepos struct {
	Clients AppClients
	MaxAge  time.Duration

	mu      sync.Mutex
	list    []catalog.RepoRef
	at      time.Time
	stale   bool // Invalidate was called since the list was read
	loading bool
}

// List is the installed repositories, sorted by name.
func (i *InstalledRepos) List(ctx context.Context) ([]catalog.RepoRef, error) {
	i.mu.Lock()
	if !i.at.IsZero() {
		list := i.list
		if (i.stale || time.Since(i.at) >= i.MaxAge) && !i.loading {
			i.loading = true
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_, _ = i.refresh(ctx)
			}()
		}
		i.mu.Unlock()
		return list, nil
	}
	i.mu.Unlock()
	return i.refresh(ctx)
}

// Find is the installed repository owner/name, if it is one.
func (i *InstalledRepos) Find(ctx context.Context, owner, name string) (catalog.RepoRef, bool, error) {
	list, err := i.List(ctx)
	if err != nil {
		return catalog.RepoRef{}, false, err
	}
	full := owner + "/" + name
	for _, r := range list {
		if strings.EqualFold(r.FullName(), full) {
			return r, true, nil
		}
	}
	return catalog.RepoRef{}, false, nil
}

func (i *InstalledRepos) refresh(ctx context.Context) ([]catalog.RepoRef, error) {
	list, err := i.read(ctx)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.loading = false
	if err != nil {
		return i.list, err
	}
	i.list, i.at, i.stale = list, time.Now(), false
	return list, nil
}

func (i *InstalledRepos) read(ctx context.Context) ([]catalog.RepoRef, error) {
	var insts []*github.Installation
	err := eachPage(func(opts *github.ListOptions) (*github.Response, error) {
		page, resp, err := i.Clients.App(ctx).Apps.ListInstallations(ctx, opts)
		insts = append(insts, page...)
		return resp, err
	}, func() bool { return len(insts) < maxListedRepos })
	if err != nil {
		return nil, fmt.Errorf("catalog: list the App's installations: %w", err)
	}
	var out []catalog.RepoRef
	for _, inst := range insts {
		gh, err := i.Clients.Installation(ctx, inst.GetID())
		if err != nil {
			return nil, fmt.Errorf("catalog: installation %d: %w", inst.GetID(), err)
		}
		err = eachPage(func(opts *github.ListOptions) (*github.Response, error) {
			page, resp, err := gh.Apps.ListRepos(ctx, opts)
			for _, r := range repositoriesOf(page) {
				out = append(out, catalog.RepoRef{Owner: r.GetOwner().GetLogin(), Name: r.GetName(), Private: r.GetPrivate(),
					InstallationID: inst.GetID(), DefaultBranch: r.GetDefaultBranch()})
			}
			return resp, err
		}, func() bool { return len(out) < maxListedRepos })
		if err != nil {
			return nil, fmt.Errorf("catalog: repositories of installation %d: %w", inst.GetID(), err)
		}
	}
	sort.Slice(out, func(a, b int) bool { return strings.ToLower(out[a].FullName()) < strings.ToLower(out[b].FullName()) })
	return out, nil
}

// eachPage calls read for each page of a listing, 100 items a page, until
// the last page, an error, or more says enough.
func eachPage(read func(opts *github.ListOptions) (*github.Response, error), more func() bool) error {
	opts := &github.ListOptions{PerPage: 100}
	for {
		resp, err := read(opts)
		if err != nil {
			return err
		}
		if resp == nil || resp.NextPage == 0 || !more() {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// Invalidate makes the next List read the installations again (serving
// the old list meanwhile).
func (i *InstalledRepos) Invalidate() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.stale = true
}

// repositoriesOf is a listing's repositories (none when it is nil: an error).
func repositoriesOf(l *github.ListRepositories) []*github.Repository {
	if l == nil {
		return nil
	}
	return l.Repositories
}
