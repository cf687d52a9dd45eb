package updates

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/publish"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/update"
)

// The body of an update pull request: the upstream package and revision
// range with links, the upstream release notes of every revision in the
// range, the resources the update adds, changes and removes, the conflicts
// and how to ask for a refresh. Its first line is a marker naming the
// upstream revision: the durable record of what the pull request proposes
// (a closed, unmerged one means "not this revision").

// updateMarkerFmt is the hidden first line of an update pull request body.
const updateMarkerFmt = "<!-- porchbot:update %s@v%d -->"

var updateMarkerRE = regexp.MustCompile(`<!-- porchbot:update (\S+)@v(\d+) -->`)

// updateMarkerRevision reads the upstream revision an update pull request
// body names (0 when none).
func updateMarkerRevision(body string) int {
	m := updateMarkerRE.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return 0
	}
	return n
}

// UpstreamNote is the release notes of one upstream revision.
type UpstreamNote struct {
	Revision int
	Tag      string
	URL      string // the release's page ("" when there is no release)
	Body     string
}

// maxNoteBytes bounds each revision's notes in a body (GitHub caps a body
// at 65,536 characters).
const maxNoteBytes = 6000

// Body renders the pull request body of plan. web is the GitHub web
// base URL of the upstream repository's links ("" for none).
func Body(plan *Plan, web string, notes []UpstreamNote) string {
	up := plan.Upstream
	var b strings.Builder
	fmt.Fprintf(&b, updateMarkerFmt+"\n", up.Session.Repo.FullName()+"/"+up.Package, up.Revision)
	repoLink := up.Session.Repo.FullName()
	tagLink := func(tag string) string {
		if web == "" {
			return mdquote.Code(tag)
		}
		return fmt.Sprintf("[%s](%s/%s/tree/%s)", mdquote.Code(tag), strings.TrimSuffix(web, "/"), repoLink, mdquote.Path(tag))
	}
	from := mdquote.Code(plan.FromRef)
	if plan.From > 0 {
		from = tagLink(plan.FromRef)
	}
	fmt.Fprintf(&b, "Updates %s from upstream %s (%s in %s): %s → %s.\n\n", mdquote.Code(plan.Package), mdquote.Code(up.Package),
		mdquote.Code(up.Directory()), mdquote.Text(repoLink), from, tagLink(up.Tag()))
	fmt.Fprintf(&b, "Strategy %s, conflicts resolved to %s (`updates.onConflict`).", mdquote.Code(FirstNonEmpty(plan.Strategy, "resource-merge")), mdquote.Code(plan.OnConflict))
	if plan.Rendered {
		b.WriteString(" Rendered with the package's pipeline.")
	}
	b.WriteString("\n")
	if plan.Refused != "" {
		fmt.Fprintf(&b, "\n**Not merged:** %s.\n", plan.Refused)
	}
	if plan.RenderErr != nil {
		fmt.Fprintf(&b, "\n**The pipeline failed on the merged package**; the `porchbot/render` check shows why.\n")
	}

	b.WriteString("\n### Upstream release notes\n\n")
	if len(notes) == 0 {
		b.WriteString("No release notes upstream for this range.\n")
	}
	for _, n := range notes {
		title := "<code>" + mdquote.HTML(n.Tag) + "</code>"
		if n.URL != "" {
			title = fmt.Sprintf(`<a href="%s">%s</a>`, html.EscapeString(n.URL), title)
		}
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n%s\n</details>\n", title, quoteNote(n.Body))
	}

	b.WriteString("\n### Resources\n\n")
	if plan.Files == nil {
		b.WriteString("Unchanged: the update was not merged.\n")
	} else if plan.Resources.Empty() {
		b.WriteString("No resource added, changed or removed.\n")
	}
	publish.RelNotesResources(&b, "Added", plan.Resources.Added)
	publish.RelNotesResources(&b, "Changed", plan.Resources.Changed)
	publish.RelNotesResources(&b, "Removed", plan.Resources.Removed)

	b.WriteString("\n### Conflicts\n\n")
	if len(plan.Conflicts) == 0 {
		b.WriteString("None: no field was changed both locally and upstream.\n")
	} else {
		b.WriteString(ConflictsMarkdown(plan.Conflicts))
	}
	fmt.Fprintf(&b, "\n---\nporchbot refreshes this pull request when %s publishes a newer revision. "+
		"To ask for it now, comment %s (`--to vN` for a given revision, `--strategy S` for another strategy). "+
		"Closing it unmerged declines this revision; the next one opens a new pull request.\n", mdquote.Code(up.Package), mdquote.Code("/porch upgrade "+plan.Package))
	return b.String()
}

// quoteNote is one revision's release notes, quoted: written by whoever
// may edit the upstream release, they are shown as written (a fenced
// block), never read as markdown of the body.
func quoteNote(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no notes)\n"
	}
	return mdquote.Fence(mdquote.Truncate(s, maxNoteBytes, "\n… (cut: the notes are longer)"))
}

// ConflictsMarkdown is the conflicts table (update.WriteTable's columns)
// as markdown.
func ConflictsMarkdown(cs []update.Conflict) string {
	var b strings.Builder
	b.WriteString("| file | resource | field | local | upstream | taken |\n|---|---|---|---|---|---|\n")
	cell := func(s string) string {
		if s == "" {
			return "(removed)"
		}
		return mdquote.CodeCell(s)
	}
	for i, c := range cs {
		if i == 100 {
			fmt.Fprintf(&b, "\n… and %d more.\n", len(cs)-100)
			break
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", cell(c.File), cell(c.Resource), cell(c.Field), cell(c.Local), cell(c.Upstream), c.Taken)
	}
	return b.String()
}
