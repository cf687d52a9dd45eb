package publish

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/words"
)

// What was reviewed is what is published (SPEC §5): a landing whose
// package differs from the approved head is refused, commented on, and its
// merged state pushed as a draft for review.

// refuse records a landing that is not what was approved; for the landing
// an event is about, it drafts the merged state and tells the pull request.
func (p *Publisher) refuse(ctx context.Context, l core.Landing, v LandingVerdict, current bool, published plumbing.Hash) error {
	key := l.Package + "@" + l.Commit.String()
	if p.refused[key] {
		return nil
	}
	p.refused[key] = true
	r := RefusedLanding{Package: l.Package, Commit: l.Commit, Head: v.head, PR: v.PRNumber(), Reason: v.reason,
		Unreviewed: v.unreviewed}
	if !v.head.IsZero() {
		if approved, err := p.Session.Git.ReadTree(ctx, v.head, l.Dir); err == nil {
			if merged, err := p.Session.Git.ReadTree(ctx, l.Commit, l.Dir); err == nil {
				r.Differs = treediff.Files(approved, merged).All()
			}
		}
	}
	log := p.Log.WithFields(logrus.Fields{"package": l.Package, "commit": l.Commit.String(), "reason": v.reason})
	if p.event && current {
		if err := p.refusalStatus(ctx, l, v.reason); err != nil {
			return err
		}
	}
	if !p.event || !current {
		log.Info("landing not published: not what was approved")
		p.out.Refused = append(p.out.Refused, r)
		return nil
	}
	branch, made, err := p.draftMergedState(ctx, l, published)
	if err != nil {
		return err
	}
	if made {
		r.DraftBranch = branch
	}
	// The replica that made the draft comments; a draft already there
	// means another replica (or an earlier run) did both.
	if v.PR != nil && (made || branch == "") {
		body := publishRefusalComment(p.Session, l, v, r.Differs, branch)
		owner, repo := p.Owner()
		if _, err := p.API.Issues.CreateComment(ctx, owner, repo, v.PR.Number, body); err != nil {
			return fmt.Errorf("comment on #%d: %w", v.PR.Number, err)
		}
		r.Commented = true
	}
	log.WithField("draft", r.DraftBranch).Warn("landing not published: the merged package is not what was approved")
	p.out.Refused = append(p.out.Refused, r)
	return nil
}

// MergedDraftWorkspace is the workspace of the draft holding the merged
// state of a landing that was not what was approved.
func MergedDraftWorkspace(commit plumbing.Hash) string {
	return "merged-" + words.ShortSHA(commit.String())
}

// draftMergedState pushes drafts/<pkg>/merged-<sha>: the package as
// merged, on top of published (the commit of the latest revision, when it
// is on the landing's history) or else of the commit before the landing,
// so its proposal shows what was not reviewed. branch is "" when there is
// nothing to draft (the merged package equals the base); made is false
// when the branch already exists.
func (p *Publisher) draftMergedState(ctx context.Context, l core.Landing, published plumbing.Hash) (string, bool, error) {
	ws := MergedDraftWorkspace(l.Commit)
	branch := packages.DraftBranch(l.Package, ws)
	if _, err := p.Session.ResolveRef(ctx, "refs/heads/"+branch); err == nil {
		return branch, false, nil
	}
	base := l.Parent
	if !published.IsZero() {
		base = published
	}
	files, err := p.Session.Git.ReadTree(ctx, l.Commit, l.Dir)
	if err != nil {
		return "", false, fmt.Errorf("read merged %s: %w", l.Dir, err)
	}
	msg := fmt.Sprintf("Draft the merged state of %s\n\nCommit %s landed %s in a state that differs from what was approved;\nthis draft holds it for review.",
		l.Package, l.Commit, l.Package)
	// Exclusive: replicas handling the same landing build the same commit;
	// only the one whose push created the branch comments.
	_, err = p.Session.CommitUnderLease(ctx, core.Identity{}, branch, plumbing.ZeroHash, 1, func(context.Context, plumbing.Hash) (*core.PackageCommit, error) {
		return &core.PackageCommit{Parent: base,
			Exclusive: true, Dir: l.Dir, Files: files, Message: msg,
			Trailer: packages.Trailer{Package: l.Package, WorkspaceName: ws, Task: &packages.Task{Type: packages.TaskEdit}}}, nil
	})
	switch {
	case errors.Is(err, gitstore.ErrNoChanges):
		return "", false, nil
	case errors.Is(err, gitstore.ErrLeaseBroken):
		return branch, false, nil
	case err != nil:
		return "", false, fmt.Errorf("draft %s: %w", branch, err)
	}
	return branch, true, nil
}

func publishRefusalComment(s *core.Session, l core.Landing, v LandingVerdict, differs []string, branch string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Not published.** %s landed on %s in %s, but %s", mdquote.Code(l.Package), mdquote.Code(s.DeploymentBranch), l.Commit, v.reason)
	if !v.head.IsZero() {
		fmt.Fprintf(&b, " (%s)", v.head)
	}
	b.WriteString(". porchbot publishes only what was reviewed, so no revision was tagged.\n")
	if len(differs) > 0 {
		b.WriteString("\nFiles of the package that differ from the approved head:\n")
		for i, f := range differs {
			if i == 50 {
				fmt.Fprintf(&b, "- … and %d more\n", len(differs)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", mdquote.Code(f))
		}
		b.WriteString("\nAnother change to the same package most likely landed while this pull request was open, and the merge combined both.\n")
	}
	if branch != "" {
		fmt.Fprintf(&b, "\nThe merged state is on the draft branch %s", mdquote.Code(branch))
		if u := v.baseURL(); u != "" {
			fmt.Fprintf(&b, " ([browse](%s/tree/%s))", u, mdquote.Path(branch))
		}
		_, ws, _ := packages.ParseDraftBranchName(branch)
		fmt.Fprintf(&b, ". Review it to publish it: %s.\n", mdquote.Code("/porch propose "+l.Package+"/"+ws))
	}
	return b.String()
}
