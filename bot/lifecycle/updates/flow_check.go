package updates

// Content that crosses a repository boundary (an update of a downstream
// package, a variant) passes internal/flow's rule; this file gives the
// rule the sessions' repositories, finds who caused a flow driven by
// configuration, and reports a refusal where that person sees it.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/downstreams"
	"github.com/porchbot/porchbot/internal/flow"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/words"
)

// flowHistoryCommits bounds the walk back to the commit that set a
// Kptfile's upstream (or a configuration entry).
const flowHistoryCommits = 1000

// FlowRepo is s's repository as a side of a flow, asked through s's
// installation.
func FlowRepo(s *core.Session) flow.Repo {
	r := flow.Repo{Owner: s.Repo.Owner, Name: s.Repo.Name}
	if s.Hub != nil {
		r.API = s.Hub
	}
	return r
}

// sourceVisibility is the visibility of s's repository, once for a whole
// fan-out (Unknown when it cannot be had: each check asks again).
func sourceVisibility(ctx context.Context, c *flow.Checker, s *core.Session) flow.Visibility {
	if c == nil {
		return flow.Unknown
	}
	v, err := c.Visibility(ctx, FlowRepo(s))
	if err != nil {
		s.Log.WithError(err).Warn("repository visibility unknown: each update asks again")
	}
	return v
}

// CheckFlow applies the rule; a refusal comes back as a *RequestError
// (shown to whoever asked), wrapping the *flow.Refusal.
func CheckFlow(ctx context.Context, c *flow.Checker, req flow.Request) error {
	if c == nil {
		c = &flow.Checker{}
	}
	err := c.Check(ctx, req)
	var refused *flow.Refusal
	if errors.As(err, &refused) {
		return &core.RequestError{Msg: refused.Reason, Err: refused}
	}
	return err
}

// FlowRefusal is the rule's refusal inside err, if that is what err is.
func FlowRefusal(err error) (*flow.Refusal, bool) {
	var refused *flow.Refusal
	ok := errors.As(err, &refused)
	return refused, ok
}

// updateFlow checks the update of the package at dir of ds from up's
// repository (its visibility, when up knows it, asked no more): for
// requestedBy (a command's commenter), or else for the author of the
// commit of ds's deployment branch that set the package's upstream to us
// (its landing there vouches for ds's side).
func (f *Fanout) updateFlow(ctx context.Context, up UpstreamRevision, ds *core.Session, dir, requestedBy string) error {
	us, src, dst := up.Session, FlowRepo(up.Session), FlowRepo(ds)
	src.Visibility = up.Visibility
	dst.Visibility = up.Downstreams[strings.ToLower(ds.Repo.FullName())]
	req := flow.Request{Source: src, Target: dst, Requester: requestedBy,
		AllowWider: us.Config.Flows.AllowWiderReaders}
	if requestedBy == "" {
		set, err := upstreamSetAt(ctx, ds, dir)
		if err != nil {
			return err
		}
		req.Commit, req.CommitRepo, req.TargetVouched = set.String(), FlowRepo(ds), true
		err = CheckFlow(ctx, f.Flows, req)
		if refused, ok := FlowRefusal(err); ok {
			return errors.Join(err, ReportRefusedFlow(ctx, ds, set, us.Repo.FullName(), refused.Reason))
		}
		return err
	}
	return CheckFlow(ctx, f.Flows, req)
}

// FlowCheckName is the check run that reports, on the configuration
// commit that asked for it, a flow of content the rule refused.
const FlowCheckName = "porchbot/flow"

// ReportRefusedFlow posts a failed porchbot/flow check run saying why on
// commit of s, where its author sees it; once per commit and key (the
// other side of the flow): a check-runs list, and the post when there is
// none yet.
func ReportRefusedFlow(ctx context.Context, s *core.Session, commit plumbing.Hash, key, why string) error {
	if s.Hub == nil {
		return nil
	}
	runs, _, err := s.Hub.ListCheckRuns(ctx, s.Repo.Owner, s.Repo.Name, commit.String(),
		hub.CheckQuery{Name: FlowCheckName, Page: hub.Page{PerPage: 100}})
	if err != nil {
		return fmt.Errorf("check runs of %s: %w", words.ShortSHA(commit.String()), err)
	}
	for _, r := range runs.Runs {
		if r.ExternalID == key && r.Output.Summary == why {
			return nil
		}
	}
	create, _ := core.CheckRequests(core.CheckReport{Name: FlowCheckName, Conclusion: "failure",
		Title: "Content not carried across repositories", Summary: why}, commit, time.Now().UTC())
	create.ExternalID = key
	if _, err := s.Hub.CreateCheckRun(ctx, s.Repo.Owner, s.Repo.Name, create); err != nil {
		return fmt.Errorf("check run %s on %s: %w", FlowCheckName, words.ShortSHA(commit.String()), err)
	}
	s.Log.WithFields(logrus.Fields{"commit": commit.String(), "flow": key}).Info("refused flow reported")
	return nil
}

// upstreamSetAt is the commit of s's deployment branch that made the
// Kptfile at dir name the upstream repository it names at the deployment
// head (heldSince).
func upstreamSetAt(ctx context.Context, s *core.Session, dir string) (plumbing.Hash, error) {
	name := strings.Trim(dir+"/"+kptfile.FileName, "/")
	data, ok, err := s.ReadFile(ctx, s.DeploymentHead, name)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("%s at %s: %w", name, s.DeploymentHead, gitstore.ErrNotFound)
	}
	want, err := upstreamRepoOf(data)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return HeldSince(ctx, s, name, func(data []byte) bool {
		got, err := upstreamRepoOf(data)
		return err == nil && got == want
	})
}

// upstreamRepoOf is the upstream repository (its host and path) a
// Kptfile names.
func upstreamRepoOf(data []byte) (string, error) {
	g, err := kptfileUpstream(data)
	if err != nil {
		return "", err
	}
	id, err := downstreams.ParseRepoURL(g.Repo)
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// HeldSince is the commit of s's deployment branch since which the file
// at path has held as it does at the head: walking first parents (the
// branch's own states; a merge commit stands for its merger) back from
// the head, at most flowHistoryCommits, while holds (asked once per blob)
// says so; a parent without the file ends the walk. The configuration
// commit that asked for a flow (its author is who caused it) is found so.
func HeldSince(ctx context.Context, s *core.Session, path string, holds func(data []byte) bool) (plumbing.Hash, error) {
	at := s.DeploymentHead
	err := s.Git.With(ctx, func(repo *git.Repository) error {
		c, err := repo.CommitObject(at)
		if err != nil {
			return fmt.Errorf("commit %s: %w", at, err)
		}
		seen := map[plumbing.Hash]bool{}
		for n := 0; n < flowHistoryCommits && c.NumParents() > 0; n++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if c, err = repo.CommitObject(c.ParentHashes[0]); err != nil {
				return fmt.Errorf("parent of %s: %w", at, err)
			}
			f, err := c.File(path)
			if err != nil {
				return nil // not there before: made here
			}
			ok, known := seen[f.Hash]
			if !known {
				data, err := core.BlobBytes(f)
				if err != nil {
					return err
				}
				ok = holds(data)
				seen[f.Hash] = ok
			}
			if !ok {
				return nil
			}
			at = c.Hash
		}
		return nil
	})
	return at, err
}
