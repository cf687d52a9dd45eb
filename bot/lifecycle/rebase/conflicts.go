package rebase

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// maxListed bounds the conflicts a comment lists.
const maxListed = 50

// conflictMarker is the hidden line that makes the comment once per
// revision on a proposal.
func conflictMarker(tag string) string {
	return approval.FormatBotMarker("rebase-conflicts", struct {
		Tag string `json:"tag"`
	}{tag})
}

// ConflictsComment is the comment listing the fields a draft and the
// revision tag both changed; every value users wrote is quoted.
func ConflictsComment(d DraftOutcome, deploymentBranch string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s was published, and porchbot did not rebase %s on it: %s changed both on this draft and in the revision.\n\n",
		conflictMarker(d.Tag), mdquote.Code(d.Tag), mdquote.Code(d.Branch), words.Count(len(d.Conflicts), "field", "fields"))
	fmt.Fprintf(&b, "| file | resource | field | this draft | %s |\n|---|---|---|---|---|\n", mdquote.CodeCell(d.Tag))
	value := func(s string) string {
		if s == "" {
			return "(removed)"
		}
		return mdquote.CodeCell(s)
	}
	for i, c := range d.Conflicts {
		if i == maxListed {
			fmt.Fprintf(&b, "\n… and %d more.\n", len(d.Conflicts)-maxListed)
			break
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdquote.CodeCell(c.File), mdquote.CodeCell(c.Resource), mdquote.CodeCell(c.Field), value(c.Local), value(c.Upstream))
	}
	fmt.Fprintf(&b, "\nNothing was pushed. Merge %s into the draft and keep the values you want; porchbot rebases the draft on the next revision of %s that publishes.\n",
		mdquote.Code(deploymentBranch), mdquote.Code(d.Package))
	return b.String()
}

// conflictComments posts the conflicts comments of one publish: the open
// pull requests are listed once, on the first conflict.
type conflictComments struct {
	open   []hub.Pull
	listed bool
}

// post comments d's conflicts on its open proposal, unless a comment of
// porchbot's already lists them for the same revision; it returns the
// pull request commented (0: none).
func (c *conflictComments) post(ctx context.Context, s *core.Session, api API, d DraftOutcome) (int, error) {
	owner, repo := s.Repo.Owner, s.Repo.Name
	if !c.listed {
		prs, _, err := api.Proposal.Pulls.ListPulls(ctx, owner, repo, proposals.OpenPullsOptions())
		if err != nil {
			return 0, fmt.Errorf("open pull requests: %w", err)
		}
		c.open, c.listed = prs, true
	}
	n := 0
	for _, pr := range c.open {
		if b, _, ok := approval.ParseProposal(s, pr); ok && pr.Head.Ref == d.Branch && b == d.Package {
			n = pr.Number
			break
		}
	}
	if n == 0 {
		return 0, nil // no proposal: the dashboard lists the draft
	}
	marker := conflictMarker(d.Tag)
	cs, _, err := api.Proposal.Issues.ListComments(ctx, owner, repo, n, hub.CommentQuery{Page: hub.Page{PerPage: 100}})
	if err != nil {
		return 0, fmt.Errorf("comments of #%d: %w", n, err)
	}
	for _, cm := range cs {
		if api.Proposal.IsBot(cm.User) && strings.Contains(cm.Body, marker) {
			return 0, nil
		}
	}
	if _, err := api.Proposal.Issues.CreateComment(ctx, owner, repo, n, ConflictsComment(d, s.DeploymentBranch)); err != nil {
		return 0, fmt.Errorf("comment on #%d: %w", n, err)
	}
	return n, nil
}
