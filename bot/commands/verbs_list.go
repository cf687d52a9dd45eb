package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle"
	"github.com/porchbot/porchbot/internal/packages"
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
func renderListing(l *lifecycle.Listing, ln links) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Packages** on %s\n\n", codeSpan(l.DeploymentBranch))
	if len(l.Packages) == 0 {
		b.WriteString("none yet: " + codeSpan(Prefix+" init <package>") + " starts one.\n")
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
				latest = "[" + codeSpan("v"+fmt.Sprint(p.Latest)) + "](" + ln.tree(tag) + ")"
			}
			var notes []string
			if p.Deleted() {
				notes = append(notes, "deleted from "+codeSpan(l.DeploymentBranch))
			}
			if len(p.Gaps) > 0 {
				notes = append(notes, fmt.Sprintf("missing revision tags: %v", p.Gaps))
			}
			if p.Problem != "" {
				notes = append(notes, quiet(p.Problem))
			}
			name := codeSpan(p.Name)
			if !p.Deleted() {
				name = mdCodeLink(p.Name, ln.tree(l.DeploymentBranch+"/"+p.Dir))
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", tableCell(name), latest, tableCell(strings.Join(notes, "; ")))
		}
	}
	if len(l.Unverified) > 0 {
		b.WriteString("\n**Tags that are not porchbot's revisions** (nothing is derived from them: no release, index entry, update or variant; an approver's " +
			codeSpan(Prefix+" publish <package>") + " adopts them)\n\n")
		for i, u := range l.Unverified {
			if i == maxListRows {
				fmt.Fprintf(&b, "- … and %d more\n", len(l.Unverified)-maxListRows)
				break
			}
			fmt.Fprintf(&b, "- %s on %s: %s\n", codeSpan(u.Name()), codeSpan(u.Commit.String()[:7]), quiet(u.Why.Error()))
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
				pr = "none: merged into " + codeSpan(l.DeploymentBranch)
			case d.Empty:
				pr = "none: nothing to propose yet (no commits that are not on " + codeSpan(l.DeploymentBranch) + ")"
			default:
				pr = "none: " + codeSpan(Prefix+" propose "+d.Package+"/"+d.Workspace)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", tableCell(mdCodeLink(d.Branch, ln.tree(d.Branch))), tableCell(pr))
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

func writePulls(b *strings.Builder, title string, prs []lifecycle.PullStatus, ln links) {
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
		what := codeSpan(p.Branch)
		if p.Package != "" {
			what = codeSpan(p.Package)
			if p.Workspace != "" {
				what = codeSpan(p.Package + "/" + p.Workspace)
			}
		}
		fmt.Fprintf(b, "- [#%d](%s) %s: %s\n", p.Number, ln.pull(p.Number), what, quiet(strings.ReplaceAll(p.Title, "\n", " ")))
	}
}
