package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// maxListRows bounds each table of /porch list.
const maxListRows = 50

// runList is /porch list.
func runList(ctx context.Context, cr *commentRun, _ Command) result {
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	l, err := cr.r.Lifecycle.List(ctx, s)
	if err != nil {
		return cr.fail(err)
	}
	return ok(renderListing(l, cr.links))
}

// renderListing renders a Listing as markdown: a table of packages, one of
// drafts, and the open proposals, deletion proposals and updates.
func renderListing(l *proposals.Listing, ln links) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Packages** on %s\n\n", mdquote.Code(l.DeploymentBranch))
	if len(l.Packages) == 0 {
		b.WriteString("none yet: " + mdquote.Code(Prefix+" init <package>") + " starts one.\n")
	} else {
		b.WriteString("| package | latest revision | |\n|---|---|---|\n")
		for i, p := range l.Packages {
			if i == maxListRows {
				fmt.Fprintf(&b, "| … and %d more | | |\n", len(l.Packages)-maxListRows)
				break
			}
			latest := "not published"
			if p.Latest > 0 {
				tag := packages.TagName(p.Name, p.Latest)
				latest = mdCodeLink("v"+fmt.Sprint(p.Latest), ln.tree(tag))
			}
			var notes []string
			if p.Deleted() {
				notes = append(notes, "deleted from "+mdquote.Code(l.DeploymentBranch))
			}
			if len(p.Gaps) > 0 {
				notes = append(notes, fmt.Sprintf("missing revision tags: %v", p.Gaps))
			}
			if p.Problem != "" {
				notes = append(notes, mdquote.Text(p.Problem))
			}
			name := mdquote.Code(p.Name)
			if !p.Deleted() {
				name = mdCodeLink(p.Name, ln.tree(l.DeploymentBranch+"/"+p.Dir))
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdquote.Cell(name), latest, mdquote.Cell(strings.Join(notes, "; ")))
		}
	}
	if len(l.Unverified) > 0 {
		b.WriteString("\n**Tags that are not porchbot's revisions** (nothing is derived from them: no release, index entry, update or variant; an approver's " +
			mdquote.Code(Prefix+" publish <package>") + " adopts them)\n\n")
		for i, u := range l.Unverified {
			if i == maxListRows {
				fmt.Fprintf(&b, "- … and %d more\n", len(l.Unverified)-maxListRows)
				break
			}
			fmt.Fprintf(&b, "- %s on %s: %s\n", mdquote.Code(u.Name()), mdquote.Code(words.ShortSHA(u.Commit.String())), mdquote.Quiet(u.Why.Error()))
		}
	}
	b.WriteString("\n**Drafts**\n\n")
	if len(l.Drafts) == 0 {
		b.WriteString("none.\n")
	} else {
		b.WriteString("| draft | pull request |\n|---|---|\n")
		for i, d := range l.Drafts {
			if i == maxListRows {
				fmt.Fprintf(&b, "| … and %d more | |\n", len(l.Drafts)-maxListRows)
				break
			}
			var pr string
			switch {
			case d.Pull != 0:
				pr = fmt.Sprintf("[#%d](%s)", d.Pull, ln.pull(d.Pull))
			case d.Merged:
				pr = "none: merged into " + mdquote.Code(l.DeploymentBranch)
			case d.Empty:
				pr = "none: nothing to propose yet (no commits that are not on " + mdquote.Code(l.DeploymentBranch) + ")"
			default:
				pr = "none: " + mdquote.Code(Prefix+" propose "+d.Package+"/"+d.Workspace)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", mdquote.Cell(mdCodeLink(d.Branch, ln.tree(d.Branch))), mdquote.Cell(pr))
		}
	}
	writePulls(&b, "Proposals", l.Proposals, ln)
	writePulls(&b, "Deletion proposals", l.Deletions, ln)
	writePulls(&b, "Pending updates", l.Updates, ln)
	if l.PullsTruncated {
		b.WriteString("\n(only the first open pull requests were read)\n")
	}
	return b.String()
}

func writePulls(b *strings.Builder, title string, prs []proposals.PullStatus, ln links) {
	fmt.Fprintf(b, "\n**%s**\n\n", title)
	if len(prs) == 0 {
		b.WriteString("none.\n")
		return
	}
	for i, p := range prs {
		if i == maxListRows {
			fmt.Fprintf(b, "- … and %d more\n", len(prs)-maxListRows)
			break
		}
		what := mdquote.Code(p.Branch)
		if p.Package != "" {
			what = mdquote.Code(p.Package)
			if p.Workspace != "" {
				what = mdquote.Code(p.Package + "/" + p.Workspace)
			}
		}
		fmt.Fprintf(b, "- [#%d](%s) %s: %s\n", p.Number, ln.pull(p.Number), what, mdquote.Text(p.Title))
	}
}
