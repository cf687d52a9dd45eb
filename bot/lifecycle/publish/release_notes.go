package publish

import (
	"fmt"
	"sort"
	"strings"

	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/treediff"
)

// releaseNotesMaxItems bounds each list of the notes; releaseNotesMaxBytes
// keeps the body well under GitHub's 125 000 characters.
const (
	releaseNotesMaxItems = 200
	releaseNotesMaxBytes = 100_000
)

// ReleasePR is the pull request a revision landed with.
type ReleasePR struct {
	Number int
	Title  string
	URL    string
	Author string
}

// ReleaseNotes is what the release of a revision says.
type ReleaseNotes struct {
	Package  string
	Revision int
	Tag      string
	// PreviousTag is the revision before ("" for the first).
	PreviousTag string
	Commit      string
	// PR is nil for a direct push.
	PR *ReleasePR
	// Adopted: a tag pushed by hand that an approver adopted.
	Adopted   bool
	Approvers []string
	Files     treediff.Diff
	Resources ResourcesDiff
}

// Markdown renders the notes.
func (n ReleaseNotes) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Revision %d of package %s", n.Revision, mdquote.Code(n.Package))
	if n.Commit != "" {
		fmt.Fprintf(&b, ", published from commit %s", n.Commit)
	}
	b.WriteString(".\n\n")
	switch {
	case n.Adopted:
		b.WriteString("A tag pushed by hand, adopted as a revision by an approver's `/porch publish`")
	case n.PR != nil && n.PR.URL != "":
		fmt.Fprintf(&b, "Landed with [#%d %s](%s)", n.PR.Number, mdquote.Text(n.PR.Title), n.PR.URL)
	case n.PR != nil:
		fmt.Fprintf(&b, "Landed with #%d %s", n.PR.Number, mdquote.Text(n.PR.Title))
	default:
		b.WriteString("Landed by a direct push to the deployment branch (no pull request)")
	}
	if n.PR != nil && n.PR.Author != "" {
		fmt.Fprintf(&b, " by @%s", n.PR.Author)
	}
	b.WriteString(".\n")
	if n.PreviousTag != "" {
		fmt.Fprintf(&b, "Previous revision: %s.\n", mdquote.Code(n.PreviousTag))
	} else {
		b.WriteString("First revision of this package.\n")
	}

	if n.PR != nil || len(n.Approvers) > 0 {
		b.WriteString("\n### Approved by\n\n")
		if len(n.Approvers) == 0 {
			b.WriteString("No approving review.\n")
		}
		for _, a := range n.Approvers {
			fmt.Fprintf(&b, "- @%s\n", a)
		}
	}

	b.WriteString("\n### Resources\n\n")
	if n.Resources.Empty() {
		b.WriteString("No resource added, changed or removed.\n")
	}
	RelNotesResources(&b, "Added", n.Resources.Added)
	RelNotesResources(&b, "Changed", n.Resources.Changed)
	RelNotesResources(&b, "Removed", n.Resources.Removed)
	if len(n.Resources.Unparsed) > 0 {
		relNotesList(&b, "Not compared (not valid KRM YAML)", n.Resources.Unparsed)
	}

	b.WriteString("\n### Files\n\n")
	if n.Files.Empty() {
		b.WriteString("No file changed.\n")
	}
	relNotesList(&b, "Added", n.Files.Added)
	relNotesList(&b, "Modified", n.Files.Modified)
	relNotesList(&b, "Removed", n.Files.Removed)

	out := b.String()
	if len(out) > releaseNotesMaxBytes {
		// cut at a line break: every quoted line is whole
		cut := strings.LastIndexByte(out[:releaseNotesMaxBytes], '\n')
		out = out[:cut+1] + "\n… (truncated)\n"
	}
	return out
}

func RelNotesResources(b *strings.Builder, title string, keys []ResourceKey) {
	items := make([]string, len(keys))
	for i, k := range keys {
		items[i] = k.String()
	}
	relNotesList(b, title, items)
}

func relNotesList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "%s (%d):\n", title, len(items))
	for i, it := range items {
		if i == releaseNotesMaxItems {
			fmt.Fprintf(b, "- … and %d more\n", len(items)-i)
			break
		}
		fmt.Fprintf(b, "- %s\n", mdquote.Code(it))
	}
	b.WriteString("\n")
}

// ApproversFromReviews lists the users whose latest decisive review
// (APPROVED, CHANGES_REQUESTED or DISMISSED; comments do not change it) is
// APPROVED, sorted; author's own approval is left out unless allowSelf.
func ApproversFromReviews(reviews []hub.Review, author string, allowSelf bool) []string {
	type last struct {
		state string
		at    int
	}
	latest := map[string]last{}
	names := map[string]string{}
	for i, r := range reviews {
		login := r.User.Login
		state := strings.ToUpper(r.State)
		if login == "" || (state != "APPROVED" && state != "CHANGES_REQUESTED" && state != "DISMISSED") {
			continue
		}
		key := strings.ToLower(login)
		names[key] = login
		if prev, ok := latest[key]; !ok || i >= prev.at {
			latest[key] = last{state: state, at: i}
		}
	}
	var out []string
	for key, l := range latest {
		if l.state != "APPROVED" || (!allowSelf && strings.EqualFold(key, author)) {
			continue
		}
		out = append(out, names[key])
	}
	sort.Strings(out)
	return out
}

func relNotesPR(pr *hub.Pull) *ReleasePR {
	if pr == nil {
		return nil
	}
	return &ReleasePR{Number: pr.Number, Title: pr.Title, URL: pr.HTMLURL, Author: pr.User.Login}
}
