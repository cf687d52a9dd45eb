package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/bot/lifecycle/rollout"
	"github.com/porchbot/porchbot/bot/lifecycle/updates"
	"github.com/porchbot/porchbot/internal/catalog"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/index"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// maxCheckedHeads bounds the heads whose check runs one load reads (one
// REST call each): the drafts' and the proposals' from other branches.
const maxCheckedHeads = 50

// Sessions opens a repository the App is installed on (core.Opener).
type Sessions interface {
	Open(ctx context.Context, repo core.Repo) (*core.Session, error)
}

// RepoLoader loads a repository's view from porchbot's cache: the git
// cache (fetched by the session: the index branch, drafts, tags), the
// session's config, the open proposals and their check runs, and the
// downstream registry.
type RepoLoader struct {
	Sessions Sessions
	// Downstreams is the App's registry (bot.App.DownstreamsOf); nil
	// shows only the downstreams the index recorded.
	Downstreams updates.DownstreamFinder
	// Rollouts plans the packages' rollouts in waves (the App's; nil:
	// the package pages show none).
	Rollouts *rollout.Controller
	// Web is the GitHub web base URL (https://github.com/).
	Web string
	Now func() time.Time
}

// Load implements catalog.Loader.
func (l *RepoLoader) Load(ctx context.Context, ref catalog.RepoRef) (*catalog.Repository, error) {
	repo := core.Repo{Owner: ref.Owner, Name: ref.Name, InstallationID: ref.InstallationID, DefaultBranch: ref.DefaultBranch}
	s, err := l.Sessions.Open(ctx, repo)
	if err != nil {
		return nil, err
	}
	in := catalog.Input{Ref: ref, Web: strings.TrimSuffix(l.Web, "/") + "/" + ref.FullName(),
		DeploymentBranch: s.DeploymentBranch, Root: s.Config.Packages.Root, Loaded: time.Now()}
	if l.Now != nil {
		in.Loaded = l.Now()
	}
	if s.ConfigErr != nil {
		in.ConfigError = s.ConfigErr.Error()
	}
	if in.Index, in.IndexSource, err = readIndex(ctx, s); err != nil {
		return nil, err
	}
	listing, err := proposals.List(ctx, s)
	if err != nil {
		return nil, err
	}
	published := map[string]bool{}
	for _, p := range in.Index.Packages {
		published[p.Name] = true
	}
	for _, p := range listing.Packages {
		if !published[p.Name] && !p.Deleted() && p.Problem == "" {
			in.Index.Packages = append(in.Index.Packages, index.Package{Name: p.Name})
		}
	}
	checks := &checkReader{gh: s.Hub, repo: repo, left: maxCheckedHeads, byHead: map[string][]catalog.Check{}}
	for _, d := range listing.Drafts {
		if d.Merged || d.Empty {
			continue
		}
		in.Drafts = append(in.Drafts, catalog.Draft{Package: d.Package, Workspace: d.Workspace, Branch: d.Branch,
			Head: d.Head.String(), Checks: checks.of(ctx, d.Head.String())})
	}
	for _, p := range listing.Proposals {
		pr := catalog.Proposal{Number: p.Number, Title: p.Title, Author: p.Author, Branch: p.Branch, URL: p.URL}
		if p.Package != "" {
			pr.Packages = []string{p.Package}
		} else {
			pr.Packages = changedPackages(ctx, s, p)
		}
		pr.Checks = checks.of(ctx, p.Branch)
		in.Proposals = append(in.Proposals, pr)
	}
	in.Live = l.live(ctx, repo, in.Root, in.Index)
	in.Rollouts = l.rollouts(ctx, s)
	return catalog.Build(in), nil
}

// live is what the downstream registry knows now of each package.
func (l *RepoLoader) live(ctx context.Context, repo core.Repo, root string, idx *index.Index) map[string][]catalog.Downstream {
	if l.Downstreams == nil {
		return nil
	}
	out := map[string][]catalog.Downstream{}
	for _, p := range idx.Packages {
		for _, d := range l.Downstreams.DownstreamsOf(ctx, repo, catalogDir(root, p.Name)) {
			cd := catalog.Downstream{Repository: d.Repo, Package: d.Package}
			lockRef, lockCommit := "", ""
			if d.Lock != nil {
				lockRef, lockCommit = d.Lock.Ref, d.Lock.Commit
			}
			cd.Revision = catalog.TrackedRevision(p, d.Upstream.Ref, lockRef, lockCommit)
			out[p.Name] = append(out[p.Name], cd)
		}
	}
	return out
}

func catalogDir(root, pkg string) string {
	return (&catalog.Repository{Root: root}).PackageDir(pkg)
}

// readIndex reads index.yaml from the index branch, or builds the index
// from the tags when the branch does not exist yet.
func readIndex(ctx context.Context, s *core.Session) (*index.Index, string, error) {
	branch := s.Config.Lifecycle.IndexBranch
	if branch == "" {
		branch = index.DefaultBranch
	}
	var idx *index.Index
	var source string
	err := s.Git.With(ctx, func(r *git.Repository) error {
		ref, err := r.Reference(plumbing.NewRemoteReferenceName("origin", branch), true)
		switch {
		case err == nil:
			var ok bool
			if idx, ok, err = publish.SignedIndexAt(s, r, ref.Hash()); err != nil {
				return err
			}
			if ok {
				source = "index " + branch + " at " + words.ShortSHA(ref.Hash().String())
				return nil
			}
			// Unreadable, or not porchbot's (a commit someone else pushed):
			// what it says is not shown.
			s.Log.WithField("head", ref.Hash().String()).Warn("catalog: the index branch's head is not porchbot's signed index; showing the index rebuilt from the revisions")
		case !errors.Is(err, plumbing.ErrReferenceNotFound):
			return err
		}
		src, approvers, err := publish.PublishedIndexSource(s, r)
		if err != nil {
			return err
		}
		idx, err = index.Build(ctx, src, index.Options{Repository: s.Repo.FullName(), Root: s.Config.Packages.Root, Approvers: approvers})
		source = "index rebuilt from porchbot's revisions (no index of porchbot's on " + branch + ")"
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("catalog: index of %s: %w", s.Repo.FullName(), err)
	}
	return idx, source, nil
}

// checkReader reads the check runs on heads, each head once, at most left
// heads.
type checkReader struct {
	gh     hub.ChecksAPI
	repo   core.Repo
	left   int
	byHead map[string][]catalog.Check
}

func (c *checkReader) of(ctx context.Context, head string) []catalog.Check {
	if got, ok := c.byHead[head]; ok {
		return got
	}
	if c.left <= 0 || head == "" {
		return nil
	}
	c.left--
	res, _, err := c.gh.ListCheckRuns(ctx, c.repo.Owner, c.repo.Name, head, hub.CheckQuery{Page: hub.Page{PerPage: 100}})
	var out []catalog.Check
	if err == nil {
		for _, r := range res.Runs {
			if !strings.HasPrefix(r.Name, "porchbot/") {
				continue
			}
			out = append(out, catalog.Check{Name: r.Name, Status: r.Status, Conclusion: r.Conclusion, URL: r.HTMLURL,
				Summary: checkSummaryLine(r.Output.Summary)})
		}
	}
	c.byHead[head] = out
	return out
}

// checkSummaryLine is the first line of a check's summary, bounded, for
// the catalog's check list (the page escapes it).
func checkSummaryLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return mdquote.TruncateRunes(strings.TrimSpace(line), 160, "…")
}

// changedPackages are the packages a proposal from any branch (a feature
// branch, a fork) changes, read from git as the approval reads them (no
// REST call; a fork's head may need one fetch); none when they cannot be
// read.
func changedPackages(ctx context.Context, s *core.Session, p proposals.PullStatus) []string {
	pull := p.PullRequest()
	if pull == nil {
		return nil
	}
	changes, err := approval.ProposalChanges(ctx, s, *pull)
	if err != nil {
		s.Log.WithError(err).WithField("pull_request", p.Number).Info("catalog: the proposal's packages could not be read")
		return nil
	}
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Name)
	}
	return out
}
